//! The threads a server starts (workers, discovery, the Triple pipeline's runtime), made so
//! that they log where the thread that started the server logs: a server started under a
//! scoped `tracing` subscriber (a test's per-server log) keeps its whole log there.

use std::io;

/// Starts a thread of the server's (a worker, discovery) named `name`: it logs where the
/// thread that starts it logs (its scoped [`tracing`] dispatcher, else the global one), so
/// that a server started under a scoped subscriber (a test's per-server log) keeps all its
/// log there.
pub(crate) fn spawn_thread(
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> io::Result<std::thread::JoinHandle<()>> {
    let log = tracing::dispatcher::get_default(tracing::Dispatch::clone);
    std::thread::Builder::new()
        .name(name)
        .spawn(move || tracing::dispatcher::with_default(&log, body))
}

/// [`spawn_thread`] for a body that runs on a current-thread runtime of its own; a runtime
/// that cannot be built is logged (`whose`: the thread's part) and the thread ends.
pub(crate) fn spawn_runtime_thread(
    name: String,
    whose: String,
    body: impl FnOnce(tokio::runtime::Runtime) + Send + 'static,
) -> io::Result<std::thread::JoinHandle<()>> {
    spawn_thread(
        name,
        move || match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => body(rt),
            Err(e) => tracing::error!("{whose}: cannot start a runtime: {e}"),
        },
    )
}

/// Has the threads of a runtime the server builds log where the thread that builds it logs,
/// as [`spawn_thread`] does for the server's own threads.
pub(crate) fn log_like_builder(
    runtime: &mut tokio::runtime::Builder,
) -> &mut tokio::runtime::Builder {
    thread_local! {
        static LOG: std::cell::RefCell<Option<tracing::dispatcher::DefaultGuard>> =
            const { std::cell::RefCell::new(None) };
    }
    let log = tracing::dispatcher::get_default(tracing::Dispatch::clone);
    runtime
        .on_thread_start(move || {
            let guard = tracing::dispatcher::set_default(&log);
            LOG.with(|l| *l.borrow_mut() = Some(guard));
        })
        .on_thread_stop(|| LOG.with(|l| drop(l.borrow_mut().take())))
}
