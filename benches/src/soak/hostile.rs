//! Hostile input during the soak (issue 17): bad frames sent to the proxy on connections of
//! their own while the callers (the bystanders) go on, so that the run's memory columns say
//! what hostile bytes cost the proxy.
//!
//! Four kinds, drawn from the seed, each on a fresh connection:
//! * bad magic: 16 bytes that are no Dubbo header (the proxy closes the connection);
//! * a huge length claim: a request header whose body is said to be 2 GiB, then a few bytes
//!   (the proxy answers BAD_REQUEST without buffering it and skips what comes);
//! * garbage bodies: [`GARBAGE_PER_CONNECTION`] well-framed requests whose bodies are random
//!   bytes (each answered BAD_REQUEST);
//! * a truncated frame: a header claiming 4 KiB, then part of it, then the connection closes.
//!
//! Each connection reads what the proxy answers for a moment (so that its answers are written,
//! not reset) and closes.

use std::net::SocketAddr;
use std::time::Duration;

use dubbo_codec::{Header, Serialization};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::rng::Rng;

/// Garbage-body frames sent on one connection.
const GARBAGE_PER_CONNECTION: u64 = 10;
/// Connections open at once.
const CONCURRENCY: u64 = 16;
/// How long a connection waits for what the proxy answers before it closes.
const LINGER: Duration = Duration::from_millis(50);

/// What was sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hostile {
    /// Bad frames sent.
    pub frames: u64,
    /// Bytes sent in them.
    pub bytes: u64,
    /// Connections the proxy refused (none expected: `max_connections` is far).
    pub connect_errors: u64,
}

impl Hostile {
    fn merge(&mut self, other: Hostile) {
        self.frames += other.frames;
        self.bytes += other.bytes;
        self.connect_errors += other.connect_errors;
    }
}

/// A two-way request header with this body length.
fn header(id: u64, body_len: u32) -> [u8; 16] {
    Header::request(id, Serialization::Hessian2, true)
        .with_body_len(body_len)
        .to_bytes()
}

/// The bytes of one hostile connection, and how many bad frames they hold.
fn connection_bytes(rng: &mut Rng) -> (Vec<u8>, u64) {
    let mut random = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    match random(1)[0] % 4 {
        0 => {
            let mut b = random(16);
            b[0] = 0x47; // 'G': never the 0xda of a Dubbo header
            (b, 1)
        }
        1 => {
            let mut b = header(1, 0x7fff_ffff).to_vec();
            b.extend(random(512));
            (b, 1)
        }
        2 => {
            let mut b = Vec::new();
            for id in 0..GARBAGE_PER_CONNECTION {
                let body = random(64 + (id as usize * 37) % 400);
                b.extend_from_slice(&header(id, body.len() as u32));
                b.extend(body);
            }
            (b, GARBAGE_PER_CONNECTION)
        }
        _ => {
            let mut b = header(1, 4096).to_vec();
            b.extend(random(1500));
            (b, 1)
        }
    }
}

/// Sends at least `frames` bad frames to `proxy`, [`CONCURRENCY`] connections at a time.
pub async fn send(proxy: SocketAddr, frames: u64, seed: u64) -> Hostile {
    let per_task = frames.div_ceil(CONCURRENCY);
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|t| tokio::spawn(sender(proxy, per_task, seed ^ (t + 1).wrapping_mul(0x5bd1))))
        .collect();
    let mut total = Hostile::default();
    for t in tasks {
        if let Ok(h) = t.await {
            total.merge(h);
        }
    }
    total
}

async fn sender(proxy: SocketAddr, frames: u64, seed: u64) -> Hostile {
    let mut rng = Rng::new(seed);
    let mut sent = Hostile::default();
    let mut sink = vec![0u8; 4096];
    while sent.frames < frames {
        let (bytes, n) = connection_bytes(&mut rng);
        let Ok(mut s) = TcpStream::connect(proxy).await else {
            sent.connect_errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if s.write_all(&bytes).await.is_ok() {
            sent.frames += n;
            sent.bytes += bytes.len() as u64;
        }
        let _ = tokio::time::timeout(LINGER, async {
            while let Ok(n) = s.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
    }
    sent
}
