//! The soak's child processes (providers, the proxy), the signals it sends them, and what it
//! reads of them: `/proc/PID/status` memory, `/proc/PID/fd`, the proxy's admin `/metrics`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use super::provider::ProviderOptions;

/// A signal the soak sends with `kill(1)` (the bench crate forbids nothing, but a command
/// keeps `unsafe` and a libc binding out of it).
#[derive(Debug, Clone, Copy)]
pub enum Signal {
    Stop,
    Cont,
    Hup,
}

impl Signal {
    fn flag(self) -> &'static str {
        match self {
            Signal::Stop => "-STOP",
            Signal::Cont => "-CONT",
            Signal::Hup => "-HUP",
        }
    }
}

/// A child that is killed (and reaped) when dropped, so a failing soak leaves nothing behind.
pub struct Proc {
    child: Child,
    // Held open: a provider exits when its stdin closes.
    _stdin: Option<ChildStdin>,
}

impl Proc {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn signal(&self, sig: Signal) -> std::io::Result<()> {
        let status = Command::new("kill")
            .arg(sig.flag())
            .arg(self.pid().to_string())
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(std::io::Error::other(format!(
                "kill {} {}: {status}",
                sig.flag(),
                self.pid()
            )))
        }
    }

    /// SIGKILL and reap.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // A stopped child would not die of SIGTERM, but SIGKILL reaches it.
        self.kill();
    }
}

/// Spawns `command` with piped stdout and returns it with the first line it printed, after
/// which its stdout is drained in a thread (so it never blocks on a full pipe).
fn spawn_ready(mut command: Command) -> std::io::Result<(Proc, String)> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdin = child.stdin.take();
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let proc = Proc {
        child,
        _stdin: stdin,
    };
    let line = match lines.next() {
        Some(Ok(line)) => line,
        _ => {
            return Err(std::io::Error::other(
                "the child exited before printing READY",
            ))
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Ok((proc, line))
}

/// Starts `dubbo-soak provider --port PORT ...options` (this very binary); returns it and its
/// port.
pub fn start_provider(port: u16, options: &ProviderOptions) -> std::io::Result<(Proc, u16)> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(["provider", "--port", &port.to_string()]);
    command.args(options.args());
    let (proc, line) = spawn_ready(command)?;
    let port = line
        .strip_prefix("READY ")
        .and_then(|p| p.trim().parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("provider said {line:?}")))?;
    Ok((proc, port))
}

/// The proxy as started: its process, its listener and admin addresses.
pub struct ProxyProc {
    pub proc: Proc,
    pub listen: SocketAddr,
    /// The second listener (the TLS one, when configured).
    pub listen_tls: Option<SocketAddr>,
    pub admin: SocketAddr,
}

/// Starts `proxy_bin --config config --engine engine` and reads the addresses from its
/// `READY listen=A[,B] admin=C` line.
pub fn start_proxy(proxy_bin: &Path, config: &Path, engine: &str) -> std::io::Result<ProxyProc> {
    let mut command = Command::new(proxy_bin);
    command
        .arg("--config")
        .arg(config)
        .args(["--engine", engine])
        .env("RUST_LOG", "warn");
    let (proc, line) = spawn_ready(command)?;
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|part| part.strip_prefix(key))
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.parse::<SocketAddr>().ok())
            .ok_or_else(|| std::io::Error::other(format!("no {key} in the proxy's {line:?}")))
    };
    let second = line
        .split_whitespace()
        .find_map(|part| part.strip_prefix("listen="))
        .and_then(|v| v.split(',').nth(1))
        .and_then(|v| v.parse().ok());
    Ok(ProxyProc {
        listen: field("listen=")?,
        listen_tls: second,
        admin: field("admin=")?,
        proc,
    })
}

/// A process's memory as `/proc/PID/status` tells it, in KiB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// `VmHWM`: the peak resident set.
    pub hwm: u64,
    /// `VmRSS`: resident now, `anon` + `file` (+ shared memory).
    pub rss: u64,
    /// `RssAnon`: heap, stacks: where a leak or memory the allocator keeps shows.
    pub anon: u64,
    /// `RssFile`: pages of mapped files, mostly the binary's code, resident once first run.
    pub file: u64,
}

/// The memory of process `pid` now (zeros once it is gone).
pub fn memory_kib(pid: u32) -> Memory {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Memory {
        hwm: field("VmHWM:"),
        rss: field("VmRSS:"),
        anon: field("RssAnon:"),
        file: field("RssFile:"),
    }
}

/// How many file descriptors a process has open.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// The value of one unlabelled series of the proxy's `/metrics` (0 when absent).
pub fn metric(admin: SocketAddr, series: &str) -> std::io::Result<f64> {
    let mut s = TcpStream::connect_timeout(&admin, Duration::from_secs(2))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {admin}\r\nConnection: close\r\n\r\n"
    )?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    Ok(text
        .lines()
        .find_map(|l| {
            l.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0.0))
}

/// The proxy's trims so far (`dubbo_proxy::memory`; 0 for a proxy without them).
#[derive(Debug, Clone, Copy, Default)]
pub struct Trims {
    pub count: f64,
    pub seconds: f64,
}

impl Trims {
    pub fn read(admin: SocketAddr) -> Trims {
        let read = |series| metric(admin, series).unwrap_or(0.0);
        Trims {
            count: read("dubbo_proxy_memory_trims_total"),
            seconds: read("dubbo_proxy_memory_trim_seconds_total"),
        }
    }
}

/// What the proxy's own accounting says callers make it hold: with no caller connected, both
/// must be 0 (a connection or its buffered bytes left behind would show here exactly, where
/// RSS cannot tell them from memory the allocator keeps).
#[derive(Debug, Clone, Copy, Default)]
pub struct Held {
    /// `dubbo_proxy_downstream_connections`.
    pub connections: i64,
    /// `dubbo_proxy_buffered_bytes`.
    pub buffered_bytes: i64,
}

impl Held {
    /// -1 for a series that could not be read.
    pub fn read(admin: SocketAddr) -> Held {
        let read = |series| metric(admin, series).map_or(-1, |v| v as i64);
        Held {
            connections: read("dubbo_proxy_downstream_connections"),
            buffered_bytes: read("dubbo_proxy_buffered_bytes"),
        }
    }
}

/// A scratch directory removed when dropped.
pub struct ScratchDir(pub PathBuf);

impl ScratchDir {
    pub fn new() -> std::io::Result<ScratchDir> {
        let dir = std::env::temp_dir().join(format!("dubbo-soak-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(ScratchDir(dir))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
