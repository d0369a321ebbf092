//! Loopback networking for tests: free ports on 127.0.0.1, waiting for a port, a one-shot
//! request (ZooKeeper's four-letter words), and the audit that every socket of a set of
//! processes stays on loopback.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

/// A port that was free on 127.0.0.1 a moment ago (the kernel's choice for port 0), for a
/// server that must be told its port in advance.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .local_addr()
        .expect("local address")
        .port()
}

/// Waits until a TCP connection to `addr` succeeds; how long that took, or `None` after
/// `timeout`.
pub fn wait_for_port(addr: SocketAddr, timeout: Duration) -> Option<Duration> {
    let t0 = Instant::now();
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Some(t0.elapsed());
        }
        if t0.elapsed() >= timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Connects to `addr` (200 ms at most), writes `request`, and reads until the peer closes (2 s
/// at most): the answer, or `None` when any step failed.
pub fn ask(addr: SocketAddr, request: &[u8]) -> Option<String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    s.write_all(request).ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

/// Raises this process's soft limit on open files to its hard limit when it is below `need`
/// (with the `prlimit` tool: no `unsafe` in the tests); returns the soft limit in force after,
/// which a test with many connections scales its count to.
pub fn raise_fd_limit(need: u64) -> u64 {
    let soft_hard = || {
        let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
        let mut nums = line
            .split_whitespace()
            .filter_map(|w| w.parse::<u64>().ok());
        Some((nums.next()?, nums.next()?))
    };
    let Some((soft, hard)) = soft_hard() else {
        return need; // not Linux: assume the test can run
    };
    if soft >= need {
        return soft;
    }
    let _ = Command::new("prlimit")
        .arg(format!("--pid={}", std::process::id()))
        .arg(format!("--nofile={hard}:{hard}"))
        .status();
    soft_hard().map_or(soft, |(soft, _)| soft)
}

/// Whether a socket address as `ss` prints it (`127.0.0.1:80`, `[::1]:80`,
/// `[::ffff:127.0.0.1]:80`) is on loopback.
pub fn is_loopback(addr: &str) -> bool {
    addr.starts_with("127.") || addr.starts_with("[::1]") || addr.starts_with("[::ffff:127.")
}

/// Asserts that every TCP and UDP socket of the processes `pids` (as `ss` sees them now) is
/// on loopback: its local address, and its peer unless it is a listener (`*`); returns how
/// many sockets there were. Without `ss` on the machine it prints a note and returns 0.
pub fn assert_loopback_only(pids: &[u32]) -> usize {
    let Ok(out) = Command::new("ss").arg("-Htuanp").output() else {
        eprintln!("note: no `ss`, socket audit skipped");
        return 0;
    };
    let mut n = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if !pids.iter().any(|p| line.contains(&format!("pid={p},"))) {
            continue;
        }
        // netid state recv-q send-q local peer process
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (local, peer) = (cols[4], cols[5]);
        let any_peer = matches!(peer, "*:*" | "0.0.0.0:*" | "[::]:*" | "*");
        assert!(
            is_loopback(local) && (is_loopback(peer) || any_peer),
            "a socket off loopback: {line}"
        );
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_port_then_wait_for_it() {
        let port = free_port();
        assert_ne!(port, 0);
        let l = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let addr = l.local_addr().unwrap();
        assert!(wait_for_port(addr, Duration::from_secs(5)).is_some());
        drop(l);
        assert!(wait_for_port(addr, Duration::from_millis(100)).is_none());
    }

    #[test]
    fn loopback_addresses() {
        for a in [
            "127.0.0.1:80",
            "127.1.2.3:1",
            "[::1]:80",
            "[::ffff:127.0.0.1]:9",
        ] {
            assert!(is_loopback(a), "{a}");
        }
        for a in [
            "10.0.0.1:80",
            "0.0.0.0:80",
            "[::]:80",
            "*:*",
            "[::ffff:10.0.0.1]:9",
        ] {
            assert!(!is_loopback(a), "{a}");
        }
    }

    #[test]
    fn this_process_is_on_loopback() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let _c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let n = assert_loopback_only(&[std::process::id()]);
        // `ss -p` names the process of a socket only when it may see it (root or the owner).
        eprintln!("{n} sockets of this process, all on loopback");
    }
}
