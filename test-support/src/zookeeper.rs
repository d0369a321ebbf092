//! A real ZooKeeper server on 127.0.0.1: Debian's `zookeeper` package
//! (`/usr/share/java/zookeeper.jar`, which names its dependencies in its manifest) or the class
//! path in `ZOOKEEPER_CLASSPATH`, standalone, in a temporary data directory, only a client port
//! on loopback, no admin server. Killed when its guard drops.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{missing, net, LogDir};

/// How long the server may take to answer `ruok`.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A standalone ZooKeeper server on 127.0.0.1 (a child process) in a temporary directory.
#[derive(Debug)]
pub struct ZooKeeper {
    child: Option<Child>,
    port: u16,
    cfg: PathBuf,
    classpath: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl ZooKeeper {
    /// The server's class path: `ZOOKEEPER_CLASSPATH`, else Debian's jar when installed.
    pub fn classpath() -> Option<String> {
        if let Some(cp) = std::env::var_os("ZOOKEEPER_CLASSPATH") {
            return Some(cp.to_string_lossy().into_owned());
        }
        let jar = Path::new("/usr/share/java/zookeeper.jar");
        jar.exists().then(|| jar.display().to_string())
    }

    /// Starts a server on a free port of 127.0.0.1 whose sessions last between 1 s and
    /// `max_session` (`maxSessionTimeout`; ticks of 500 ms), logging to
    /// `<logs>/zookeeper-<name>-<pid>.log`, and waits until it answers `ruok`. `None` (through
    /// [`missing`]) when ZooKeeper is not installed.
    pub fn start(name: &str, max_session: Duration, logs: LogDir) -> Option<ZooKeeper> {
        let Some(classpath) = Self::classpath() else {
            return missing("ZooKeeper (Debian package `zookeeper`)");
        };
        let dir = tempfile::Builder::new()
            .prefix("dubbo-test-zookeeper-")
            .tempdir()
            .expect("a temporary directory");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).expect("the data directory");
        let port = net::free_port();
        let cfg = dir.path().join("zoo.cfg");
        // Standalone (no server.N lines: no quorum or election ports), the client port on
        // 127.0.0.1 only, no admin HTTP server.
        std::fs::write(
            &cfg,
            format!(
                "tickTime=500\ndataDir={}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
                 admin.enableServer=false\nminSessionTimeout=1000\nmaxSessionTimeout={}\n\
                 4lw.commands.whitelist=ruok\nmaxClientCnxns=100\n",
                data.display(),
                max_session.as_millis()
            ),
        )
        .expect("write zoo.cfg");
        let (_, log) = logs.file(&format!("zookeeper-{name}"));
        let mut z = ZooKeeper {
            child: None,
            port,
            cfg,
            classpath,
            log,
            _dir: dir,
        };
        z.spawn();
        Some(z)
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("the ZooKeeper log");
        let t0 = Instant::now();
        let child = Command::new("java")
            .args([
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true",
                "-Dzookeeper.admin.enableServer=false",
                "-Dzookeeper.jmx.log4j.disable=true",
                "-cp",
                &self.classpath,
                "org.apache.zookeeper.server.ZooKeeperServerMain",
            ])
            .arg(&self.cfg)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the ZooKeeper log"))
            .stderr(log)
            .spawn()
            .expect("start java for ZooKeeper");
        let child = self.child.insert(child);
        // Ready when it answers `ruok`.
        let addr: SocketAddr = ([127, 0, 0, 1], self.port).into();
        let end = Instant::now() + START_TIMEOUT;
        while net::ask(addr, b"ruok").as_deref() != Some("imok") {
            if let Some(st) = child.try_wait().expect("ZooKeeper's status") {
                panic!("ZooKeeper exited with {st}; log: {}", self.log.display());
            }
            assert!(
                Instant::now() < end,
                "ZooKeeper did not start; log: {}",
                self.log.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("ZooKeeper on 127.0.0.1:{} in {:?}", self.port, t0.elapsed());
    }

    /// `127.0.0.1:<port>`, its client address.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Its client port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Gone at once, sessions and all (SIGKILL).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The same server again: same port, same data (sessions are restored).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        self.kill();
    }
}
