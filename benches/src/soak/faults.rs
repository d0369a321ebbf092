//! The seeded fault schedule and the processes it acts on: providers SIGKILLed and restarted
//! on their port, a provider SIGSTOPped past the route timeout, the proxy reloaded (SIGHUP)
//! without one provider and then with it again, callers dropping their connection with calls
//! in flight, and (discovery mode) ZooKeeper SIGKILLed and restarted. One cycle applies each
//! kind once, in a seeded order with seeded gaps.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use dubbo_test_support::zookeeper::ZooKeeper;

use super::config::{proxy_config, Backends};
use super::procs::{memory_kib, metric, start_provider, Memory, Proc, ProxyProc, Signal};
use super::provider::ProviderOptions;
use super::rng::Rng;

/// How long the load goes on after the last fault.
const TAIL: Duration = Duration::from_secs(1);

/// How many of each fault a run applied.
#[derive(Debug, Default, Clone)]
pub struct FaultCounts {
    pub kills: u64,
    pub stops: u64,
    /// ZooKeeper restarts (discovery mode only).
    pub zookeeper_restarts: u64,
    /// Reloads the proxy confirmed (`dubbo_proxy_config_reloads_total` went up).
    pub reloads: u64,
    /// Caller disconnects requested (the callers' tally counts those done).
    pub disconnects: u64,
    pub cycles: u64,
    /// The proxy's memory at the end of each cycle: a leak grows with the cycles, memory the
    /// allocator keeps for reuse levels off.
    pub memory_by_cycle: Vec<Memory>,
}

/// A kind of fault (`--faults` names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// SIGKILL a provider, restart it on its port 1 s later.
    Kill,
    /// SIGSTOP a provider past the route timeout, then SIGCONT.
    Stop,
    /// Reload without a provider, then with it again.
    Reload,
    /// Callers drop their connection right after sending a call.
    Disconnect,
    /// SIGKILL ZooKeeper and restart it (discovery mode only).
    ZooKeeperRestart,
}

impl Fault {
    /// Every kind, in the order of `--faults`.
    pub const ALL: [Fault; 5] = [
        Fault::Kill,
        Fault::Stop,
        Fault::Reload,
        Fault::Disconnect,
        Fault::ZooKeeperRestart,
    ];

    /// Its name in `--faults`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Kill => "kill",
            Fault::Stop => "stop",
            Fault::Reload => "reload",
            Fault::Disconnect => "disconnect",
            Fault::ZooKeeperRestart => "zookeeper",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Everything the schedule acts on.
pub struct World {
    pub providers: Vec<Proc>,
    pub ports: Vec<u16>,
    /// How provider `i` is (re)started.
    pub provider_options: Vec<ProviderOptions>,
    pub proxy: ProxyProc,
    pub config_path: PathBuf,
    pub engine: String,
    pub route_timeout: Duration,
    /// The TLS listener's table in the config, or empty.
    pub tls_listener: String,
    pub callers: Vec<Arc<Notify>>,
    pub started: Instant,
    /// Discovery mode: the ZooKeeper the providers register in and the proxy watches.
    pub zookeeper: Option<ZooKeeper>,
}

impl World {
    fn log(&self, what: &str) {
        eprintln!("t={:.3}s {what}", self.started.elapsed().as_secs_f64());
    }

    fn zookeeper_address(&self) -> Option<String> {
        self.zookeeper.as_ref().map(ZooKeeper::address)
    }

    /// Writes the config without provider `without` and sends SIGHUP; waits until the proxy
    /// has applied it.
    fn reload(&self, without: Option<usize>) -> std::io::Result<()> {
        let before = metric(self.proxy.admin, "dubbo_proxy_config_reloads_total")?;
        let zookeeper = self.zookeeper_address();
        let backends = Backends {
            ports: &self.ports,
            zookeeper: zookeeper.as_deref(),
            without,
        };
        let config = proxy_config(
            &self.engine,
            backends,
            self.route_timeout,
            &self.tls_listener,
        );
        std::fs::write(&self.config_path, config)?;
        self.proxy.proc.signal(Signal::Hup)?;
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if metric(self.proxy.admin, "dubbo_proxy_config_reloads_total")? > before {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(std::io::Error::other(
            "the proxy did not apply a reload within 5 s",
        ))
    }

    fn apply(
        &mut self,
        fault: Fault,
        rng: &mut Rng,
        counts: &mut FaultCounts,
    ) -> std::io::Result<()> {
        let n = self.providers.len();
        match fault {
            Fault::Kill => {
                let i = rng.below(n as u64) as usize;
                self.log(&format!("SIGKILL provider {i} (port {})", self.ports[i]));
                self.providers[i].kill();
                counts.kills += 1;
                std::thread::sleep(Duration::from_secs(1));
                let (proc, _) = start_provider(self.ports[i], &self.provider_options[i])?;
                self.providers[i] = proc;
                self.log(&format!("provider {i} restarted on port {}", self.ports[i]));
            }
            Fault::Stop => {
                let i = rng.below(n as u64) as usize;
                let held = self.route_timeout + rng.millis(200, 1000);
                self.log(&format!("SIGSTOP provider {i} for {held:?}"));
                self.providers[i].signal(Signal::Stop)?;
                counts.stops += 1;
                std::thread::sleep(held);
                self.providers[i].signal(Signal::Cont)?;
                self.log(&format!("SIGCONT provider {i}"));
            }
            Fault::Reload => {
                let i = rng.below(n as u64) as usize;
                self.log(&format!("SIGHUP: config without provider {i}"));
                self.reload(Some(i))?;
                counts.reloads += 1;
                std::thread::sleep(rng.millis(300, 1500));
                self.log(&format!("SIGHUP: config with provider {i} again"));
                self.reload(None)?;
                counts.reloads += 1;
            }
            Fault::ZooKeeperRestart => {
                if let Some(zk) = self.zookeeper.as_mut() {
                    zk.restart();
                    counts.zookeeper_restarts += 1;
                    self.log("ZooKeeper SIGKILLed and restarted (same port, same data)");
                }
            }
            Fault::Disconnect => {
                let k = (1 + rng.below(8) as usize).min(self.callers.len());
                self.log(&format!("{k} callers drop their connection"));
                // k distinct callers: a caller notified twice would drop once.
                let mut order: Vec<usize> = (0..self.callers.len()).collect();
                for i in 0..k {
                    let j = i + rng.below((order.len() - i) as u64) as usize;
                    order.swap(i, j);
                    self.callers[order[i]].notify_one();
                    counts.disconnects += 1;
                }
            }
        }
        Ok(())
    }
}

/// Runs cycles of the `kinds` until `enough` is set (checked between cycles, so the last cycle
/// completes and every kind is applied at least once); returns the world (every provider
/// running, the full config loaded) and the counts.
pub fn run_schedule(
    mut world: World,
    kinds: &[Fault],
    seed: u64,
    gaps: (u64, u64),
    enough: Arc<AtomicBool>,
) -> (World, std::io::Result<FaultCounts>) {
    let mut rng = Rng::new(seed);
    let mut counts = FaultCounts::default();
    loop {
        let mut cycle = kinds.to_vec();
        for i in (1..cycle.len()).rev() {
            cycle.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for fault in cycle {
            std::thread::sleep(rng.millis(gaps.0, gaps.1));
            if let Err(e) = world.apply(fault, &mut rng, &mut counts) {
                return (world, Err(e));
            }
        }
        counts.cycles += 1;
        counts
            .memory_by_cycle
            .push(memory_kib(world.proxy.proc.pid()));
        if enough.load(Ordering::Acquire) {
            // The callers act on the last fault, and calls after it are checked too.
            std::thread::sleep(TAIL);
            return (world, Ok(counts));
        }
    }
}
