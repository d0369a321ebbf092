//! TLS at the door during the soak, on either engine. The proxy gets a second listener that
//! requires client certificates of a test CA made at run time ([`Door`]); a share of the
//! callers call through it (see [`super::caller::Kind`]), and hostile handshakes
//! ([`hostile`]) go to both listeners while they are served:
//! * plaintext on the TLS listener: a Dubbo heartbeat where a ClientHello belongs (the proxy
//!   must close the connection);
//! * TLS to the plain listener: a handshake the plain listener must not complete;
//! * a handshake that never finishes: five bytes of a TLS record header, then silence (the
//!   proxy must cut it at its handshake timeout);
//! * a burst: [`BURST`] full handshakes at once with a good certificate, closed without a
//!   call (each must complete).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use dubbo_codec::Frame;
use dubbo_rpc::tls::ClientTls;
use dubbo_test_support::pki::Pki;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// The TLS listener's handshake timeout: a stalled handshake is cut after this.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_millis(1000);
/// Handshakes of one burst.
const BURST: usize = 16;
/// How long the proxy has to close a connection it must refuse (past the handshake timeout
/// for a stalled one).
const CLOSE_WITHIN: Duration = Duration::from_secs(3);

/// The test CA's files and the callers' TLS (the client certificate with a SPIFFE ID).
pub struct Door {
    pki: Pki,
    connector: TlsConnector,
    name: ServerName<'static>,
}

impl Door {
    /// A new CA, server and client certificates (in a temporary directory kept as long as
    /// the door: the proxy reads them again on each reload).
    pub fn new() -> Result<Door, Box<dyn std::error::Error>> {
        let pki = Pki::new();
        let tls = ClientTls::builder(&pki.ca)
            .identity(&pki.client.cert, &pki.client.key)
            .build()?;
        Ok(Door {
            connector: TlsConnector::from(tls.config().clone()),
            name: tls.server_name_for("127.0.0.1:0")?,
            pki,
        })
    }

    /// The `[[listeners]]` table of the TLS listener (after the plain one's).
    pub fn listener(&self) -> String {
        format!(
            "\n[[listeners]]\nname = \"tls\"\naddress = \"127.0.0.1:0\"\n\n[listeners.tls]\n\
             cert = {:?}\nkey = {:?}\nclient_ca = {:?}\nhandshake_timeout_ms = {}\n",
            self.pki.server.cert,
            self.pki.server.key,
            self.pki.ca,
            HANDSHAKE_TIMEOUT.as_millis()
        )
    }

    /// A TLS connection to `addr` with the client certificate.
    pub async fn connect(&self, addr: SocketAddr) -> std::io::Result<TlsStream<TcpStream>> {
        let tcp = TcpStream::connect(addr).await?;
        let _ = tcp.set_nodelay(true);
        self.connector.connect(self.name.clone(), tcp).await
    }
}

/// What the hostile handshakes did, and what the proxy did wrong with them.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostileTls {
    /// Plaintext frames sent to the TLS listener.
    pub plaintext: u64,
    /// Handshakes sent to the plain listener.
    pub to_plain: u64,
    /// Handshakes left unfinished.
    pub stalled: u64,
    /// Full handshakes in bursts.
    pub burst: u64,
    /// Wrong: refused connections the proxy left open past [`CLOSE_WITHIN`].
    pub not_closed: u64,
    /// Wrong: handshakes the plain listener completed, burst handshakes that failed, and
    /// failed connects.
    pub wrong: u64,
}

impl HostileTls {
    fn merge(&mut self, o: HostileTls) {
        self.plaintext += o.plaintext;
        self.to_plain += o.to_plain;
        self.stalled += o.stalled;
        self.burst += o.burst;
        self.not_closed += o.not_closed;
        self.wrong += o.wrong;
    }
}

/// `rounds` rounds of every hostile kind, one round after the other, four kinds at once.
pub async fn hostile(
    door: Arc<Door>,
    plain: SocketAddr,
    tls: SocketAddr,
    rounds: u64,
) -> HostileTls {
    let mut total = HostileTls::default();
    for _ in 0..rounds {
        let (a, b, c, d) = tokio::join!(
            plaintext(tls),
            to_plain(&door, plain),
            stalled(tls),
            burst(&door, tls)
        );
        for h in [a, b, c, d] {
            total.merge(h);
        }
    }
    total
}

/// Whether the proxy closes `s` (end of stream or an error) within [`CLOSE_WITHIN`].
async fn closed_by_proxy(s: &mut TcpStream) -> bool {
    let mut sink = [0u8; 1024];
    tokio::time::timeout(CLOSE_WITHIN, async {
        while let Ok(n) = s.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await
    .is_ok()
}

async fn plaintext(tls: SocketAddr) -> HostileTls {
    let mut h = HostileTls {
        plaintext: 1,
        ..HostileTls::default()
    };
    let Ok(mut s) = TcpStream::connect(tls).await else {
        h.wrong += 1;
        return h;
    };
    let mut heartbeat = bytes::BytesMut::new();
    let _ =
        dubbo_codec::FrameCodec::new().encode_frame(&Frame::heartbeat_request(1), &mut heartbeat);
    let _ = s.write_all(&heartbeat).await;
    h.not_closed += u64::from(!closed_by_proxy(&mut s).await);
    h
}

async fn to_plain(door: &Door, plain: SocketAddr) -> HostileTls {
    let mut h = HostileTls {
        to_plain: 1,
        ..HostileTls::default()
    };
    match tokio::time::timeout(CLOSE_WITHIN, door.connect(plain)).await {
        Ok(Err(_)) => {}
        Ok(Ok(_)) => h.wrong += 1,
        Err(_) => h.not_closed += 1,
    }
    h
}

async fn stalled(tls: SocketAddr) -> HostileTls {
    let mut h = HostileTls {
        stalled: 1,
        ..HostileTls::default()
    };
    let Ok(mut s) = TcpStream::connect(tls).await else {
        h.wrong += 1;
        return h;
    };
    // A handshake record's header announcing 512 bytes that never come.
    let _ = s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00]).await;
    h.not_closed += u64::from(!closed_by_proxy(&mut s).await);
    h
}

async fn burst(door: &Arc<Door>, tls: SocketAddr) -> HostileTls {
    let mut handshakes = tokio::task::JoinSet::new();
    for _ in 0..BURST {
        let door = door.clone();
        handshakes.spawn(async move { door.connect(tls).await.is_ok() });
    }
    let mut h = HostileTls {
        burst: BURST as u64,
        ..HostileTls::default()
    };
    while let Some(done) = handshakes.join_next().await {
        h.wrong += u64::from(!matches!(done, Ok(true)));
    }
    h
}

/// The proxy's TLS counters at the end of the load (from its `/metrics`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TlsCounters {
    pub handshakes: f64,
    pub failed: f64,
    pub timeouts: f64,
    pub plaintext_refused: f64,
}

impl TlsCounters {
    /// Reads them through `metric` (a series' value).
    pub fn read(
        mut metric: impl FnMut(&str) -> std::io::Result<f64>,
    ) -> std::io::Result<TlsCounters> {
        Ok(TlsCounters {
            handshakes: metric("dubbo_proxy_tls_handshakes_total")?,
            failed: metric("dubbo_proxy_tls_handshake_failed_total")?,
            timeouts: metric("dubbo_proxy_tls_handshake_timeout_total")?,
            plaintext_refused: metric("dubbo_proxy_tls_plaintext_refused_total")?,
        })
    }

    /// What the proxy's counts say is wrong given what was sent: fewer refusals or cut
    /// handshakes than hostile connections sent (the warm-up's included in the counts).
    pub fn failures(&self, sent: &HostileTls) -> Vec<String> {
        let mut out = Vec::new();
        if self.plaintext_refused < sent.plaintext as f64 {
            out.push(format!(
                "the proxy counted {} plaintext refusals of {} sent",
                self.plaintext_refused, sent.plaintext
            ));
        }
        if self.timeouts < sent.stalled as f64 {
            out.push(format!(
                "the proxy counted {} handshake timeouts of {} stalled handshakes",
                self.timeouts, sent.stalled
            ));
        }
        out
    }
}
