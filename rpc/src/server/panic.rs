//! A handler's panic caught where the handler runs, so that it can run inside the task that
//! reads and answers its call rather than in a task of its own: one task per call instead of
//! two (each extra task spawned is a wake-up of another worker, an `eventfd` write, on the
//! hot path), with the same isolation a `JoinHandle` gave.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::service::{Call, Handler, HandlerError, Reply};

/// Runs a method's handler on `call` in the current task; its panic becomes an error answer.
pub(super) async fn run_handler(handler: &Handler, call: Call) -> Result<Reply, HandlerError> {
    catch_panic(handler(call))
        .await
        .unwrap_or_else(|Panicked| Err(HandlerError::runtime("the handler panicked")))
}

/// The handler panicked; the panic's message went to the panic hook, as in a task.
#[derive(Debug)]
pub(super) struct Panicked;

/// Runs `future` to its output, or to [`Panicked`] if polling it panics. Handlers' futures
/// are boxed already (`Unpin`), so this adds no allocation.
pub(super) fn catch_panic<F: Future + Unpin>(future: F) -> CatchPanic<F> {
    CatchPanic { future }
}

/// The future of [`catch_panic`].
pub(super) struct CatchPanic<F> {
    future: F,
}

impl<F: Future + Unpin> Future for CatchPanic<F> {
    type Output = Result<F::Output, Panicked>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // A future that panicked is never polled again (the caller drops it with this
        // result), so whatever state the panic left it in is never observed: the unwind
        // safety `AssertUnwindSafe` claims.
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut self.future).poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(Panicked)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn output_passes_through() {
        assert_eq!(catch_panic(Box::pin(async { 7 })).await.ok(), Some(7));
    }

    #[tokio::test]
    async fn a_panic_after_a_pending_poll_is_caught() {
        let out = catch_panic(Box::pin(async {
            tokio::task::yield_now().await;
            if std::hint::black_box(true) {
                panic!("handler bug");
            }
            1
        }))
        .await;
        assert!(out.is_err());
    }
}
