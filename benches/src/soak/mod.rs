//! The chaos soak of `dubbo-proxy` (`dubbo-soak`, issue 17): a seeded fault schedule while 64
//! callers send calls whose every answer is checked against its own call (a share of them over
//! mutual TLS, beside hostile handshakes: `tls`). See
//! `benches/soak/README.md` for how to run it and the latest table.

mod caller;
mod config;
mod faults;
mod heap;
mod hostile;
mod procs;
pub mod provider;
pub mod report;
mod rng;
mod tls;
mod triple_caller;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use caller::{caller, Kind, Shared, Tally};
use config::{proxy_config, registered, Backends, WORKERS};
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
pub use faults::Fault;
use faults::{run_schedule, FaultCounts, World};
pub use heap::Heap;
pub use procs::Memory;
use procs::{memory_kib, metric, open_fds, start_provider, start_proxy, Held, ScratchDir, Trims};
use provider::ProviderOptions;
pub use report::Report;
use tls::{Door, HostileTls, TlsCounters};
use triple_caller::triple_caller;

/// Providers behind the proxy.
const PROVIDERS: usize = 3;
/// The route's timeout: a stopped provider is held longer than this.
const ROUTE_TIMEOUT: Duration = Duration::from_millis(1000);
/// The callers' own timeout, well above the route's: only a call the proxy forgot reaches it.
const CLIENT_TIMEOUT: Duration = Duration::from_millis(5000);
/// The memory goal of the long run: the proxy's RSS after the drain at most this far over the
/// (warmed) baseline, in KiB. 16 pages: what two idle readings of the same proxy may differ
/// by without anything kept: a vDSO or stack page first touched (4-16 KiB in the smaps of
/// the soak's runs), a page or two per malloc arena (3: the main thread's, one per worker)
/// holding a chunk allocated since. More than that is memory kept.
pub const RSS_TOLERANCE_KIB: u64 = 64;
/// Calls one caller keeps in flight at most.
const WINDOW: usize = 8;
/// Bad frames per round of hostile handshakes (one of each kind, see `tls`).
const FRAMES_PER_TLS_ROUND: u64 = 100;

/// `dubbo-soak run` options.
#[derive(Debug, Clone)]
pub struct Options {
    pub proxy_bin: PathBuf,
    pub engine: String,
    /// At least this many calls: the load ends at the end of the fault cycle in which it
    /// reached them.
    pub calls: u64,
    pub callers: u32,
    pub seed: u64,
    /// Calls per second over all callers.
    pub rate: f64,
    /// Gaps between faults (ms, drawn from the seed).
    pub gaps_ms: (u64, u64),
    /// Discovery mode: the providers register in a ZooKeeper the proxy watches, and the
    /// schedule restarts it.
    pub zookeeper: bool,
    /// Providers answer every n-th echo with another call's token (0 = never): a check that
    /// the soak catches misrouted answers (the run must then fail).
    pub misanswer_every: u64,
    /// The kinds of fault each cycle applies (`None`: every kind that applies: ZooKeeper
    /// restarts in discovery mode only).
    pub faults: Option<Vec<Fault>>,
    /// Load without faults before the baseline of fds and RSS is taken (the proxy's memory
    /// grows for its first seconds of load, whatever the faults, then levels off).
    pub warmup: Duration,
    /// Bad frames sent on connections of their own during the load (see `hostile`); the
    /// callers are their bystanders.
    pub hostile_frames: u64,
    /// Reads the proxy's live heap at the baseline and after the drain (`malloc_stats`
    /// through gdb, see `heap`).
    pub malloc_stats: bool,
    /// How long the proxy is left alone after its callers closed before its memory is read
    /// (baseline and end): it gives back what they freed on its next trim tick
    /// (`dubbo_proxy::memory`, every second). 0 in the short run, which reads no memory goal.
    pub settle: Duration,
    /// Where to save the proxy's `/proc/PID/smaps` at each memory reading (`--smaps DIR`), to
    /// tell per mapping what a step of RSS is.
    pub smaps: Option<PathBuf>,
    /// One untimed cycle of every fault kind after the warm-up, before the baseline is read
    /// (the pre-fault baseline is reported too).
    pub warmup_faults: bool,
    /// The memory goal: RSS after the drain at most this many KiB over the baseline (`None`:
    /// not checked, as in the short run, which leaves the proxy no time to settle).
    pub rss_tolerance: Option<u64>,
}

impl Options {
    /// The short, seeded run of the default test suite: every fault kind once, a few
    /// thousand calls, about 10 s.
    pub fn short(proxy_bin: PathBuf, engine: &str, seed: u64) -> Options {
        Options {
            proxy_bin,
            engine: engine.to_owned(),
            calls: 2000,
            callers: 64,
            seed,
            rate: 500.0,
            gaps_ms: (200, 600),
            zookeeper: false,
            misanswer_every: 0,
            faults: None,
            warmup: Duration::from_secs(1),
            hostile_frames: 1_000,
            malloc_stats: false,
            settle: Duration::ZERO,
            smaps: None,
            warmup_faults: false,
            rss_tolerance: None,
        }
    }
}

/// Runs one soak: providers, proxy, warm-up, load under faults, drain, measures.
pub fn run(opts: &Options) -> Result<Report, Box<dyn std::error::Error>> {
    let kinds: Vec<Fault> = match &opts.faults {
        Some(kinds) => kinds.clone(),
        None => Fault::ALL
            .into_iter()
            .filter(|&f| opts.zookeeper || f != Fault::ZooKeeperRestart)
            .collect(),
    };
    if kinds.contains(&Fault::ZooKeeperRestart) && !opts.zookeeper {
        return Err("ZooKeeper restarts need --zookeeper".into());
    }
    if kinds.is_empty() {
        return Err("no fault kind to apply".into());
    }
    let scratch = ScratchDir::new()?;
    let zookeeper = if opts.zookeeper {
        let zk = ZooKeeper::start("soak", Duration::from_secs(10), LogDir("dubbo-soak"));
        Some(zk.ok_or("ZooKeeper is not installed")?)
    } else {
        None
    };
    let zookeeper_address = zookeeper.as_ref().map(ZooKeeper::address);
    let provider_options: Vec<ProviderOptions> = (0..PROVIDERS)
        .map(|i| ProviderOptions {
            registered: registered(zookeeper_address.as_deref(), i),
            misanswer_every: opts.misanswer_every,
        })
        .collect();
    let mut providers = Vec::new();
    let mut ports = Vec::new();
    for options in &provider_options {
        let (proc, port) = start_provider(0, options)?;
        providers.push(proc);
        ports.push(port);
    }
    let config_path = scratch.0.join("proxy.toml");
    let backends = Backends {
        ports: &ports,
        zookeeper: zookeeper_address.as_deref(),
        without: None,
    };
    // TLS at the door (both engines serve it).
    let door = Arc::new(Door::new()?);
    let tls_listener = door.listener();
    let config = proxy_config(&opts.engine, backends, ROUTE_TIMEOUT, &tls_listener);
    std::fs::write(&config_path, config)?;
    let proxy = start_proxy(&opts.proxy_bin, &config_path, &opts.engine)?;
    let (pid, admin, listen) = (proxy.proc.pid(), proxy.admin, proxy.listen);
    let tls = match proxy.listen_tls {
        Some(addr) => Some((addr, door)),
        None => return Err("the proxy started without its TLS listener".into()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let started = Instant::now();
    let shared = |seed: u64| {
        Arc::new(Shared {
            proxy: listen,
            tls: tls.clone(),
            started,
            period: Duration::from_secs_f64(f64::from(opts.callers) / opts.rate),
            window: WINDOW,
            client_timeout: CLIENT_TIMEOUT,
            seed,
            sent: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        })
    };

    // Warm-up without faults, then the pre-fault baseline with no caller connected.
    let warmup = shared(!opts.seed);
    let mut tally = runtime.block_on(load(opts.callers, &warmup, &[], || {
        started.elapsed() >= opts.warmup
    }));
    eprintln!(
        "warm-up: {} calls, {} OK, other statuses {:?}",
        tally.sent, tally.ok, tally.statuses
    );
    let fds_prefault = settled_fds(pid, None);
    std::thread::sleep(opts.settle);
    let memory_prefault = memory_kib(pid);
    save_smaps(opts, pid, "prefault");
    // With `--smaps DIR`, the per-arena text is saved beside the smaps.
    let heap_of = |name: &str| {
        if !opts.malloc_stats {
            return None;
        }
        let text = heap::malloc_stats_text(pid, &scratch.0)?;
        if let Some(dir) = &opts.smaps {
            let _ = std::fs::write(dir.join(format!("{name}.malloc-stats")), &text);
        }
        heap::parse(&text)
    };
    // Read here too (and not reported), so that the glibc code `malloc_stats` runs in the
    // proxy is resident at the baseline as at the end.
    heap_of("prefault");
    let mut world = World {
        providers,
        ports,
        provider_options,
        proxy,
        config_path,
        engine: opts.engine.clone(),
        route_timeout: ROUTE_TIMEOUT,
        tls_listener,
        callers: Vec::new(),
        started,
        zookeeper,
    };

    // The warm-up's fault cycle: every kind once (and a tenth of the hostile frames) under
    // the same load, untimed, so that what the fault paths first touch (their code pages,
    // stack depth, tables grown to their working size under faults) is in the baseline.
    let mut warmup_faults = FaultCounts::default();
    if opts.warmup_faults {
        let cycle = shared(opts.seed.rotate_left(17) ^ 0x5eed);
        let phase = faulted_load(
            &runtime,
            world,
            &kinds,
            &cycle,
            opts,
            opts.hostile_frames / 10,
            0,
        )?;
        world = phase.world;
        warmup_faults = phase.counts;
        tally.merge(phase.tally);
        eprintln!("warm-up fault cycle done");
    }

    // The baseline and the end: fds and memory with no caller connected, read alike. The
    // admin reads (`/metrics`) come before the memory is read, so that what they allocate is
    // in both readings.
    let settled = |name: &str, fds_target: Option<usize>| {
        let fds = settled_fds(pid, fds_target);
        std::thread::sleep(opts.settle);
        let (trims, held) = (Trims::read(admin), Held::read(admin));
        let memory = memory_kib(pid);
        save_smaps(opts, pid, name);
        (fds, trims, held, memory, heap_of(name))
    };
    let (fds_before, trims_before, held_before, memory_before, heap_before) =
        settled("baseline", None);

    // The load under the fault schedule.
    let main = shared(opts.seed);
    let phase = faulted_load(
        &runtime,
        world,
        &kinds,
        &main,
        opts,
        opts.hostile_frames,
        opts.calls,
    )?;
    let trims_load = Trims::read(admin);
    let (world, counts, hostile, hostile_tls, load_secs) = (
        phase.world,
        phase.counts,
        phase.hostile,
        phase.hostile_tls,
        phase.secs,
    );
    tally.merge(phase.tally);
    let tls_counters = match tls {
        Some(_) => Some(TlsCounters::read(|series| metric(admin, series))?),
        None => None,
    };

    // Every caller has closed; the proxy should be back to its baseline.
    let slack = WORKERS * PROVIDERS;
    let (fds_after, trims_after, held_after, memory_after, heap_after) =
        settled("end", Some(fds_before + slack));
    drop(world);
    Ok(Report {
        engine: opts.engine.clone(),
        discovery: opts.zookeeper,
        kinds,
        seed: opts.seed,
        load_secs,
        tally,
        faults: counts,
        fds_before,
        fds_after,
        fds_prefault,
        memory_prefault,
        held: [held_before, held_after],
        warmup_faults,
        rss_tolerance: opts.rss_tolerance,
        fd_slack: slack,
        memory_before,
        memory_after,
        heap_before,
        heap_after,
        trims: [trims_before, trims_load, trims_after],
        hostile_wanted: opts.hostile_frames,
        hostile,
        hostile_tls,
        tls_counters,
    })
}

/// Runs `callers` callers on `shared` until `done()` holds (checked every 100 ms), then stops
/// them, waits for what they have in flight and merges their tallies.
/// What one phase of load under the fault schedule gave back.
struct Phase {
    world: World,
    tally: Tally,
    counts: FaultCounts,
    hostile: hostile::Hostile,
    hostile_tls: HostileTls,
    secs: f64,
}

/// The callers' load paced by `calls`, with the fault schedule (seeded by `calls.seed`) on a
/// thread of its own and `hostile_frames` bad frames on connections of their own; the
/// schedule stops at the end of the cycle in which `until_sent` calls were sent (0: after
/// its first cycle).
fn faulted_load(
    runtime: &tokio::runtime::Runtime,
    mut world: World,
    kinds: &[Fault],
    calls: &Arc<Shared>,
    opts: &Options,
    hostile_frames: u64,
    until_sent: u64,
) -> Result<Phase, Box<dyn std::error::Error>> {
    let notifies: Vec<Arc<Notify>> = (0..opts.callers).map(|_| Arc::new(Notify::new())).collect();
    world.callers = notifies.clone();
    let enough = Arc::new(AtomicBool::new(until_sent == 0));
    let schedule = {
        let (seed, gaps, enough, kinds) =
            (calls.seed, opts.gaps_ms, enough.clone(), kinds.to_vec());
        std::thread::spawn(move || run_schedule(world, &kinds, seed, gaps, enough))
    };
    let started = Instant::now();
    let hostile = runtime.spawn(hostile::send(calls.proxy, hostile_frames, calls.seed));
    let hostile_tls = calls.tls.clone().map(|(addr, door)| {
        let rounds = hostile_frames / FRAMES_PER_TLS_ROUND;
        runtime.spawn(tls::hostile(door, calls.proxy, addr, rounds))
    });
    let tally = runtime.block_on(load(opts.callers, calls, &notifies, || {
        if calls.sent.load(Ordering::Relaxed) >= until_sent {
            enough.store(true, Ordering::Release);
        }
        schedule.is_finished()
    }));
    let secs = started.elapsed().as_secs_f64();
    let hostile = runtime.block_on(hostile)?;
    let hostile_tls = match hostile_tls {
        Some(h) => runtime.block_on(h)?,
        None => HostileTls::default(),
    };
    let (world, counts) = schedule.join().map_err(|_| "the fault schedule panicked")?;
    Ok(Phase {
        world,
        tally,
        counts: counts?,
        hostile,
        hostile_tls,
        secs,
    })
}

async fn load(
    callers: u32,
    shared: &Arc<Shared>,
    notifies: &[Arc<Notify>],
    mut done: impl FnMut() -> bool,
) -> Tally {
    let tasks: Vec<_> = (0..callers)
        .map(|id| {
            let notify = notifies
                .get(id as usize)
                .cloned()
                .unwrap_or_else(|| Arc::new(Notify::new()));
            match Kind::of(id, shared.tls.is_some()) {
                Kind::Triple => tokio::spawn(triple_caller(id, shared.clone(), notify)),
                Kind::Dubbo | Kind::Bridged | Kind::Tls => {
                    tokio::spawn(caller(id, shared.clone(), notify))
                }
            }
        })
        .collect();
    while !done() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    shared.stop.store(true, Ordering::Release);
    let mut tally = Tally::default();
    for t in tasks {
        tally.merge(t.await.expect("a caller panicked"));
    }
    tally
}

/// The proxy's open fds once they stop changing (the proxy closes the connections of callers
/// that left on its own time): the same count three reads in a row, or at most `target`,
/// within 5 s.
fn settled_fds(pid: u32, target: Option<usize>) -> usize {
    let end = Instant::now() + Duration::from_secs(5);
    let mut last = open_fds(pid);
    let mut same = 0;
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
        let now = open_fds(pid);
        same = if now == last { same + 1 } else { 0 };
        last = now;
        if same >= 3 && target.is_none_or(|t| now <= t) {
            break;
        }
    }
    last
}

/// Copies the proxy's `/proc/PID/smaps` to `--smaps DIR`/`name`.smaps (when asked).
fn save_smaps(opts: &Options, pid: u32, name: &str) {
    if let Some(dir) = &opts.smaps {
        let copied = std::fs::create_dir_all(dir).and_then(|()| {
            std::fs::copy(
                format!("/proc/{pid}/smaps"),
                dir.join(format!("{name}.smaps")),
            )
        });
        if let Err(e) = copied {
            eprintln!("--smaps: {e}");
        }
    }
}
