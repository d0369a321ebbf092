//! The Java interop tools of `interop/` and real Java Dubbo peers on 127.0.0.1.
//!
//! - [`dubbo_jar`]: `interop/dubbo-java`'s jar of a Dubbo flavour (`dubbo27`: Dubbo 2.7.23,
//!   `dubbo3`: Dubbo 3.2.19, `dubbo33`: Dubbo 3.3.6), built with its `build` script when missing or older than its
//!   sources; [`hessian_lite_jar`] the same for `interop/java`'s hessian-lite tool.
//! - [`Provider`]: `java -jar <jar> provider 0 ...`, the DemoService on a free port of
//!   127.0.0.1, started by a [`ProviderBuilder`] (group, registry, JVM options), killed when it
//!   drops.
//! - [`run_consumer`]: the Java consumer's check list (`ok ...`/`FAIL ...` lines) against an
//!   address, as a [`ConsumerRun`]; [`run_consumer_jvm`] with JVM options.
//! - [`provider_tls`], [`consumer_tls`], [`NETTY_NO_HOSTNAME_CHECK`]: Java Dubbo's own TLS
//!   settings (system properties) with the certificates of a [`Pki`].
//!
//! The Java side refuses every address off loopback (`NON-LOOPBACK`, exit status 3; see
//! `interop/dubbo-java/README.md`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use crate::pki::{Identity, Pki};
use crate::{missing, workspace_root, LogDir};

/// The interface the Java provider exports and the consumer calls.
pub const DEMO_SERVICE: &str = "io.github.hessianrs.demo.DemoService";
/// The version of [`DEMO_SERVICE`].
pub const DEMO_VERSION: &str = "1.0.0";
/// The Java class of the DemoService's user object.
pub const DEMO_USER: &str = "io.github.hessianrs.demo.User";
/// The Dubbo flavours `interop/dubbo-java` builds (Maven profiles, `target/<flavour>/`).
pub const FLAVOURS: [&str; 3] = ["dubbo27", "dubbo3", "dubbo33"];
/// The Java consumer's check list has at least this many `ok ...` lines when it all passes.
pub const CONSUMER_CHECKS: usize = 20;
/// How long a provider may take to print `READY <port>` (a JVM on a loaded machine).
pub const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// `interop/<name>` in the workspace.
pub fn interop_dir(name: &str) -> PathBuf {
    workspace_root().join("interop").join(name)
}

/// The newest modification time of the files below `dir` (recursively).
fn newest_mtime(dir: &Path) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            let t = if p.is_dir() {
                newest_mtime(&p)
            } else {
                e.metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH)
            };
            newest = newest.max(t);
        }
    }
    newest
}

/// `artifact` (a path below the Maven project `interop/<project>`), built by the project's
/// `build` script when it is missing or older than `src/` or `pom.xml`. One build at a time in
/// this process. `None` (through [`missing`]) when the project is not in the tree.
fn built(project: &str, artifact: &str) -> Option<PathBuf> {
    let dir = interop_dir(project);
    if !dir.join("build").exists() {
        return missing(&format!("interop/{project}"));
    }
    static BUILD: OnceLock<Mutex<()>> = OnceLock::new();
    let _one_at_a_time = BUILD
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let jar = dir.join(artifact);
    let sources = newest_mtime(&dir.join("src")).max(
        std::fs::metadata(dir.join("pom.xml"))
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH),
    );
    let at = std::fs::metadata(&jar).and_then(|m| m.modified()).ok();
    if at.is_none_or(|t| t < sources) {
        let ok = Command::new("bash")
            .arg(dir.join("build"))
            .status()
            .unwrap_or_else(|e| panic!("run interop/{project}/build (needs Java and Maven): {e}"))
            .success();
        assert!(ok, "interop/{project}/build failed");
    }
    assert!(jar.exists(), "{} missing after the build", jar.display());
    Some(jar)
}

/// The jar of a Dubbo `flavour` (one of [`FLAVOURS`]): `interop/dubbo-java/target/<flavour>/
/// dubbo-interop.jar`, built when missing or stale.
pub fn dubbo_jar(flavour: &str) -> Option<PathBuf> {
    built("dubbo-java", &format!("target/{flavour}/dubbo-interop.jar"))
}

/// The hessian-lite tool of a `generation` (`lite3`, `lite4`): `interop/java/target/
/// <generation>/hessian-interop.jar`, built when missing or stale.
pub fn hessian_lite_jar(generation: &str) -> Option<PathBuf> {
    built("java", &format!("target/{generation}/hessian-interop.jar"))
}

/// The fastjson2 JSONB tool (`interop/fastjson2-java`, fastjson2 2.0.52): `target/
/// fastjson2-interop.jar`, built when missing or stale.
pub fn fastjson2_jar() -> Option<PathBuf> {
    built("fastjson2-java", "target/fastjson2-interop.jar")
}

/// How to start a Java Dubbo provider; [`Provider::builder`].
#[derive(Debug, Clone)]
pub struct ProviderBuilder {
    flavour: String,
    name: String,
    logs: LogDir,
    jvm: Vec<String>,
    args: Vec<String>,
    group: Option<String>,
    stdin: bool,
}

impl ProviderBuilder {
    /// Its log: `<logs>/provider-<name>-<pid>.log` (the default name is the flavour, the
    /// default directory `dubbo-test-support`).
    pub fn log(mut self, logs: LogDir, name: &str) -> Self {
        self.logs = logs;
        self.name = name.to_owned();
        self
    }

    /// A JVM option before `-jar` (`-XX:TieredStopAtLevel=1`).
    pub fn jvm_arg(mut self, arg: &str) -> Self {
        self.jvm.push(arg.to_owned());
        self
    }

    /// `--group <group>`: the service is exported in that group.
    pub fn group(mut self, group: &str) -> Self {
        self.args.extend(["--group".to_owned(), group.to_owned()]);
        self.group = Some(group.to_owned());
        self
    }

    /// `--registry zookeeper://<zookeeper>`: it also registers in that ZooKeeper
    /// (`HOST:PORT`), and prints `READY` once its node is written.
    pub fn registry(mut self, zookeeper: &str) -> Self {
        self.args
            .extend(["--registry".to_owned(), format!("zookeeper://{zookeeper}")]);
        self
    }

    /// More arguments of the `provider` subcommand (`--param idc=sh`, `--weight 50`).
    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|&a| a.to_owned()));
        self
    }

    /// `--ignore-stdin`, stdin at /dev/null: it runs until killed. Without it stdin is a
    /// pipe, and [`Provider::graceful_stop`] closes it.
    pub fn ignore_stdin(mut self) -> Self {
        self.args.push("--ignore-stdin".to_owned());
        self.stdin = false;
        self
    }

    /// Starts `java [JVM options] -jar <jar> provider 0 [arguments]` and waits (up to
    /// [`READY_TIMEOUT`]) for `READY <port>`. Panics when it prints `NON-LOOPBACK` or exits
    /// first; `None` when the interop project is absent (see [`missing`]).
    pub fn start(self) -> Option<Provider> {
        let jar = dubbo_jar(&self.flavour)?;
        let t0 = Instant::now();
        let (log, log_path) = self.logs.file(&format!("provider-{}", self.name));
        let mut child = Command::new("java")
            .args(&self.jvm)
            .arg("-jar")
            .arg(&jar)
            .args(["provider", "0"])
            .args(&self.args)
            .stdin(if self.stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start java");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("the provider's stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(p) = line.strip_prefix("READY ") {
                    let _ = tx.send(p.trim().parse::<u16>().map_err(|_| line.clone()));
                } else if line.starts_with("NON-LOOPBACK") {
                    let _ = tx.send(Err(line));
                }
            }
        });
        let port = match rx.recv_timeout(READY_TIMEOUT) {
            Ok(Ok(port)) => port,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{} provider {} did not start: {other:?}; log: {}",
                    self.flavour,
                    self.name,
                    log_path.display()
                );
            }
        };
        eprintln!(
            "{} provider {} {:?} on 127.0.0.1:{port} in {:?}",
            self.flavour,
            self.name,
            self.args,
            t0.elapsed()
        );
        Some(Provider {
            child,
            stdin,
            port,
            flavour: self.flavour,
            group: self.group,
        })
    }
}

/// A Java Dubbo provider (a child process) on 127.0.0.1, killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct Provider {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its Dubbo flavour (one of [`FLAVOURS`]).
    pub flavour: String,
    /// Its group ([`ProviderBuilder::group`]).
    pub group: Option<String>,
}

impl Provider {
    /// A provider of Dubbo `flavour` (one of [`FLAVOURS`]), no group, no registry.
    pub fn builder(flavour: &str) -> ProviderBuilder {
        ProviderBuilder {
            flavour: flavour.to_owned(),
            name: flavour.to_owned(),
            logs: LogDir("dubbo-test-support"),
            jvm: Vec::new(),
            args: Vec::new(),
            group: None,
            stdin: true,
        }
    }

    /// `Provider::builder(flavour).start()`.
    pub fn start(flavour: &str) -> Option<Provider> {
        Provider::builder(flavour).start()
    }

    /// Several providers at once (each JVM takes seconds to start); `None` when the interop
    /// project is absent.
    pub fn start_all(builders: Vec<ProviderBuilder>) -> Option<Vec<Provider>> {
        let handles: Vec<_> = builders
            .into_iter()
            .map(|b| std::thread::spawn(move || b.start()))
            .collect();
        let started: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect();
        started.into_iter().collect()
    }

    /// `127.0.0.1:<port>`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes its stdin: Dubbo's graceful shutdown (unregister, the read-only event to every
    /// client, then up to 2 s for the calls in flight). No-op with `ignore_stdin`.
    pub fn graceful_stop(&mut self) {
        self.stdin.take();
    }

    /// Its stdin pipe, to close later (elsewhere) for a graceful stop.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Waits for it to exit.
    pub fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.child.wait()
    }

    /// SIGKILL: no read-only event, no goodbye; its connections reset, and its ZooKeeper node
    /// stays until its session expires.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The checks a Java Triple consumer runs beyond the DemoService's: the EchoService's (IDL,
/// every call shape, an error, a deadline) and the StreamService's (interface-style streams).
pub const TRIPLE_CHECKS: [&str; 11] = [
    "echo_unary",
    "echo_server_stream",
    "echo_server_stream_many",
    "echo_client_stream",
    "echo_bidi",
    "echo_error",
    "echo_deadline",
    "wrapped_server_stream",
    "wrapped_server_stream_many",
    "wrapped_client_stream",
    "wrapped_bidi",
];

/// What a run of the Java consumer printed.
#[derive(Debug, Clone)]
pub struct ConsumerRun {
    /// Its exit status was 0.
    pub ok: bool,
    /// Its stdout, line by line (`ok ...`, `FAIL ...`, `load ...`, `# ...`).
    pub lines: Vec<String>,
}

impl ConsumerRun {
    /// The `FAIL ...` lines.
    pub fn fails(&self) -> Vec<&String> {
        self.lines
            .iter()
            .filter(|l| l.starts_with("FAIL"))
            .collect()
    }

    /// How many `ok ...` lines.
    pub fn oks(&self) -> usize {
        self.lines.iter().filter(|l| l.starts_with("ok ")).count()
    }

    /// Asserts a Triple run ([`TRIPLE_CHECKS`]) passed: the whole check list
    /// ([`ConsumerRun::assert_all_passed`]), over Triple, every stream check of the
    /// EchoService (IDL) and the StreamService (interface style), and the exception arrived
    /// as the Java class the provider threw.
    pub fn assert_triple_passed(&self, what: &str) {
        self.assert_all_passed(what);
        assert!(
            self.lines.iter().any(|l| l == "# protocol tri"),
            "{what}: not over Triple: {:#?}",
            self.lines
        );
        for check in TRIPLE_CHECKS {
            assert!(
                self.lines.iter().any(|l| *l == format!("ok {check}")),
                "{what}: {check}: {:#?}",
                self.lines
            );
        }
        assert!(
            self.lines
                .iter()
                .any(|l| l.contains("throwError received java.lang.IllegalStateException")),
            "{what}: the exception's class: {:#?}",
            self.lines
        );
    }

    /// Asserts the whole check list passed: no `FAIL`, at least [`CONSUMER_CHECKS`] `ok`
    /// lines, exit status 0. `what` names the run in the messages.
    pub fn assert_all_passed(&self, what: &str) {
        let fails = self.fails();
        assert!(fails.is_empty(), "{what}: {fails:#?}");
        let oks = self.oks();
        assert!(
            oks >= CONSUMER_CHECKS,
            "{what}: only {oks} checks passed: {:#?}",
            self.lines
        );
        assert!(self.ok, "{what}: consumer exit status: {:#?}", self.lines);
    }
}

/// Runs `java -jar <jar> consumer <addr> [args]` of Dubbo `flavour` to its end (stdin at
/// /dev/null, stderr to `<logs>/consumer-<flavour>-<pid>.log`); its stdout is printed to the
/// test's output. `None` when the interop project is absent.
pub fn run_consumer(flavour: &str, addr: &str, args: &[&str], logs: LogDir) -> Option<ConsumerRun> {
    run_consumer_jvm(flavour, &[], addr, args, logs)
}

/// [`run_consumer`] with JVM options before `-jar` (system properties such as
/// [`consumer_tls`]'s).
pub fn run_consumer_jvm(
    flavour: &str,
    jvm: &[String],
    addr: &str,
    args: &[&str],
    logs: LogDir,
) -> Option<ConsumerRun> {
    let jar = dubbo_jar(flavour)?;
    let t0 = Instant::now();
    let out = Command::new("java")
        .args(jvm)
        .arg("-jar")
        .arg(&jar)
        .arg("consumer")
        .arg(addr)
        .args(args)
        .stdin(Stdio::null())
        .stderr(logs.file(&format!("consumer-{flavour}")).0)
        .output()
        .expect("run the Java consumer");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    eprintln!(
        "java {flavour} consumer {args:?} -> {addr}: {} in {:?}",
        out.status,
        t0.elapsed()
    );
    for l in &lines {
        eprintln!("  {l}");
    }
    Some(ConsumerRun {
        ok: out.status.success(),
        lines,
    })
}

/// A Java provider's TLS as a Java application sets it: the `dubbo.ssl.*` keys of Dubbo's
/// `SslConfig`, as JVM system properties. Its certificate is [`Pki::server`]; with a trust
/// collection (Java's only mode that has one) it requires client certificates of the test CA.
pub fn provider_tls(pki: &Pki) -> Vec<String> {
    vec![
        format!(
            "-Ddubbo.ssl.server-key-cert-chain-path={}",
            pki.server.cert.display()
        ),
        format!(
            "-Ddubbo.ssl.server-private-key-path={}",
            pki.server.key.display()
        ),
        format!(
            "-Ddubbo.ssl.server-trust-cert-collection-path={}",
            pki.ca.display()
        ),
    ]
}

/// Netty 4.2 (Dubbo 3.3's) checks the server's host name by default, and Dubbo 3.3's
/// `SslClientTlsHandler` makes its `SSLEngine` without the peer's host, so every handshake of a
/// Dubbo 3.3 consumer fails on its own side ("Hostname or IP address is undefined"). This
/// system property of Netty 4.2 turns that default off; the certificate chain is still
/// checked against the trust collection. Netty 4.1 (Dubbo 2.7 and 3.2) has no such default.
pub const NETTY_NO_HOSTNAME_CHECK: &str =
    "-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE";

/// A Java consumer's TLS (`dubbo.ssl.client-*` of Dubbo's `SslConfig`, as JVM system
/// properties): it presents `identity` and trusts servers signed by `ca`.
pub fn consumer_tls(ca: &Path, identity: &Identity) -> Vec<String> {
    let mut args = vec![
        format!(
            "-Ddubbo.ssl.client-key-cert-chain-path={}",
            identity.cert.display()
        ),
        format!(
            "-Ddubbo.ssl.client-private-key-path={}",
            identity.key.display()
        ),
    ];
    args.extend(consumer_trust(ca));
    args
}

/// A consumer's JVM options for TLS without a client certificate: only the CA its
/// providers' certificates must chain to.
pub fn consumer_trust(ca: &Path) -> Vec<String> {
    vec![format!(
        "-Ddubbo.ssl.client-trust-cert-collection-path={}",
        ca.display()
    )]
}
