//! The response messages of a streaming IDL call on their way from its handler to its stream
//! (feature `triple`): one buffer of whole gRPC messages, prefixes included, that the
//! handler's [`Responder`](super::Responder)s encode into and the stream's task takes
//! whole, as one DATA frame.
//!
//! It replaces a channel of one `Bytes` per message: no allocation, no permit and no wake-up
//! per message (a channel's cost was a fifth of a server stream's CPU), and a bound in bytes
//! rather than in messages. A sender waits while the buffer holds [`ROOM`] bytes or more, so
//! a stream holds at most `ROOM` plus one message, however fast its handler and however slow
//! its caller.

use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use bytes::{Bytes, BytesMut};

/// The bytes past which senders wait for the stream to take what the buffer holds.
pub(super) const ROOM: usize = 64 * 1024;

/// The messages one call's handler has sent and its stream has not taken yet.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    buf: BytesMut,
    /// The call is over: nothing more is accepted.
    closed: bool,
    /// The stream's task, waiting for messages.
    taker: Option<Waker>,
    /// Senders waiting for room.
    senders: Vec<Waker>,
}

/// The call is over: a message sent now goes nowhere.
#[derive(Debug)]
pub(super) struct Closed;

impl Outbox {
    /// Appends what `write` writes (whole messages) once there is room; `write` is taken
    /// only then.
    pub(super) fn poll_push<F: FnOnce(&mut BytesMut)>(
        &self,
        cx: &mut Context<'_>,
        write: &mut Option<F>,
    ) -> Poll<Result<(), Closed>> {
        let mut state = super::lock(&self.state);
        if state.closed {
            return Poll::Ready(Err(Closed));
        }
        if state.buf.len() >= ROOM {
            if !state.senders.iter().any(|w| w.will_wake(cx.waker())) {
                state.senders.push(cx.waker().clone());
            }
            return Poll::Pending;
        }
        if let Some(write) = write.take() {
            write(&mut state.buf);
        }
        if let Some(taker) = state.taker.take() {
            taker.wake();
        }
        Poll::Ready(Ok(()))
    }

    /// Everything sent so far, at once; `None` once the outbox is closed and empty.
    pub(super) fn poll_take(&self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let mut state = super::lock(&self.state);
        if !state.buf.is_empty() {
            let batch = state.buf.split().freeze();
            for sender in state.senders.drain(..) {
                sender.wake();
            }
            return Poll::Ready(Some(batch));
        }
        if state.closed {
            return Poll::Ready(None);
        }
        match &state.taker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => state.taker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Accepts no more messages (those already in stay to be taken), and fails the senders
    /// that wait.
    pub(super) fn close(&self) {
        let mut state = super::lock(&self.state);
        state.closed = true;
        for sender in state.senders.drain(..) {
            sender.wake();
        }
        if let Some(taker) = state.taker.take() {
            taker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use std::sync::Arc;

    async fn push(outbox: &Outbox, bytes: &[u8]) -> Result<(), Closed> {
        let mut write = Some(|b: &mut BytesMut| b.extend_from_slice(bytes));
        poll_fn(|cx| outbox.poll_push(cx, &mut write)).await
    }

    #[tokio::test]
    async fn messages_are_taken_together_and_a_full_outbox_holds_its_sender_back() {
        let outbox = Arc::new(Outbox::default());
        push(&outbox, b"ab").await.unwrap();
        push(&outbox, b"cd").await.unwrap();
        let batch = poll_fn(|cx| outbox.poll_take(cx)).await;
        assert_eq!(batch.as_deref(), Some(&b"abcd"[..]));
        // Past ROOM, the next sender waits until the stream takes.
        push(&outbox, &vec![0; ROOM]).await.unwrap();
        let waiting = tokio::spawn({
            let outbox = outbox.clone();
            async move { push(&outbox, b"x").await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        let batch = poll_fn(|cx| outbox.poll_take(cx)).await.unwrap();
        assert_eq!(batch.len(), ROOM);
        waiting.await.unwrap().unwrap();
        assert_eq!(
            poll_fn(|cx| outbox.poll_take(cx)).await.as_deref(),
            Some(&b"x"[..])
        );
    }

    #[tokio::test]
    async fn closing_keeps_what_was_sent_and_refuses_the_rest() {
        let outbox = Outbox::default();
        push(&outbox, b"last").await.unwrap();
        outbox.close();
        assert!(push(&outbox, b"late").await.is_err());
        let batch = poll_fn(|cx| outbox.poll_take(cx)).await;
        assert_eq!(batch.as_deref(), Some(&b"last"[..]));
        assert_eq!(poll_fn(|cx| outbox.poll_take(cx)).await, None);
    }
}
