//! Writing gRPC messages on an HTTP/2 stream within the peer's window (feature `triple`),
//! shared by the Triple server and client.

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::{prefix, PREFIX_LEN};
use h2::SendStream;

/// The receive window of each stream: what one stream's unread data may hold (HTTP/2's 64
/// KiB default would leave a fast link idle between window updates).
pub(crate) const STREAM_WINDOW: u32 = 256 * 1024;

/// The receive window of a connection: a multiple of a stream's, so that streams whose
/// reader stopped do not hold back the others on the connection until 16 of them do.
pub(crate) const CONNECTION_WINDOW: u32 = 16 * STREAM_WINDOW;

/// Sends one message (its prefix and bytes) on `send`, a window's worth at a time: waits
/// while the peer does not read, so a slow reader holds back only this stream and nothing
/// piles up in memory.
pub(crate) async fn send_message(
    send: &mut SendStream<Bytes>,
    message: &[u8],
) -> Result<(), h2::Error> {
    let mut data = BytesMut::with_capacity(PREFIX_LEN + message.len());
    data.extend_from_slice(&prefix(message.len()));
    data.extend_from_slice(message);
    send_framed(send, data.freeze()).await
}

/// Sends `data`, whole messages with their prefixes, as [`send_message`] sends one.
pub(crate) async fn send_framed(
    send: &mut SendStream<Bytes>,
    mut data: Bytes,
) -> Result<(), h2::Error> {
    while !data.is_empty() {
        send.reserve_capacity(data.len());
        let granted = match std::future::poll_fn(|cx| send.poll_capacity(cx)).await {
            Some(granted) => granted?,
            // The stream can take no more data (reset, or ended).
            None => return Err(h2::Error::from(h2::Reason::CANCEL)),
        };
        if granted > 0 {
            send.send_data(data.split_to(granted.min(data.len())), false)?;
        }
    }
    Ok(())
}
