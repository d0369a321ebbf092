//! IDL calls (gRPC), any call shape: the request and response messages are protobuf, sent as
//! they are (no wrapper).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::MessageDecoder;
use dubbo_triple::metadata::CONTENT_TYPE_PROTO;
use dubbo_triple::{prost, Code, Status};
use http::HeaderMap;

use super::{http_status, Client, TripleError};

/// One IDL (gRPC) call from the client's side, any shape: request messages sent with
/// [`send`](GrpcStream::send) and ended with [`finish`](GrpcStream::finish), response
/// messages read with [`message`](GrpcStream::message) until it gives `None` (status `OK`)
/// or the call's status as an error. Dropping it cancels the call (RST_STREAM).
#[derive(Debug)]
pub struct GrpcStream {
    send: h2::SendStream<Bytes>,
    response: Option<h2::client::ResponseFuture>,
    headers: HeaderMap,
    recv: Option<h2::RecvStream>,
    decoder: MessageDecoder,
    buf: BytesMut,
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
    done: bool,
}

impl Client {
    /// Starts an IDL call of `path` (`/package.Service/Method`) with request headers
    /// `metadata` and a deadline (sent as `grpc-timeout`, enforced here too).
    pub async fn grpc(
        &self,
        path: &str,
        metadata: HeaderMap,
        timeout: Option<Duration>,
    ) -> Result<GrpcStream, TripleError> {
        let uri = http::Uri::builder()
            .scheme(self.scheme())
            .authority(self.authority.as_str())
            .path_and_query(path)
            .build()
            .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?;
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri(uri)
            .body(())
            .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?;
        *request.headers_mut() = metadata;
        let headers = request.headers_mut();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(CONTENT_TYPE_PROTO),
        );
        headers.insert(http::header::TE, http::HeaderValue::from_static("trailers"));
        if let Some(t) = timeout {
            if let Ok(v) = http::HeaderValue::from_str(&dubbo_triple::timeout::format_timeout(t)) {
                headers.insert(dubbo_triple::metadata::GRPC_TIMEOUT, v);
            }
        }
        let mut send = self.ready().await?;
        let (response, stream) = send.send_request(request, false)?;
        Ok(GrpcStream {
            send: stream,
            response: Some(response),
            headers: HeaderMap::new(),
            recv: None,
            decoder: MessageDecoder::new(self.config.max_message),
            buf: BytesMut::new(),
            deadline: timeout.map(|t| tokio::time::Instant::now() + t),
            timeout: timeout.unwrap_or_default(),
            done: false,
        })
    }

    /// A unary IDL call with prost types.
    pub async fn grpc_unary<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        path: &str,
        request: &Req,
        timeout: Option<Duration>,
    ) -> Result<Resp, TripleError> {
        let mut call = self.grpc(path, HeaderMap::new(), timeout).await?;
        let sent = match call.send_msg(request).await {
            Ok(()) => call.finish(),
            Err(e) => Err(e),
        };
        if let Err(e) = sent {
            // The server may have ended the call before its request was sent (an unknown
            // method, answered at once): its status says why.
            return Err(call.message().await.err().unwrap_or(e));
        }
        let response = call.decode::<Resp>().await?.ok_or_else(|| {
            TripleError::Status(Status::new(Code::Internal, "no response message"))
        })?;
        if call.message().await?.is_some() {
            return Err(TripleError::Status(Status::new(
                Code::Internal,
                "more than one response message for a unary method",
            )));
        }
        Ok(response)
    }
}

impl GrpcStream {
    /// Runs `f` by the call's deadline; past it the call is cancelled.
    async fn by_deadline<T>(
        &mut self,
        f: impl FnOnce(
            &mut Self,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<T, TripleError>> + Send + '_>,
        >,
    ) -> Result<T, TripleError> {
        let Some(at) = self.deadline else {
            return f(self).await;
        };
        let timeout = self.timeout;
        match tokio::time::timeout_at(at, f(self)).await {
            Ok(r) => r.map_err(|e| e.at_deadline(at, timeout)),
            Err(_) => {
                self.cancel();
                Err(TripleError::Timeout(timeout))
            }
        }
    }

    /// Sends one request message; waits while the server does not read.
    pub async fn send(&mut self, message: &[u8]) -> Result<(), TripleError> {
        let message = message.to_vec();
        self.by_deadline(move |s| {
            Box::pin(async move {
                crate::h2_send::send_message(&mut s.send, &message).await?;
                Ok(())
            })
        })
        .await
    }

    /// Sends one protobuf request message.
    pub async fn send_msg<M: prost::Message>(&mut self, message: &M) -> Result<(), TripleError> {
        self.send(&message.encode_to_vec()).await
    }

    /// Ends the request stream (no more request messages).
    pub fn finish(&mut self) -> Result<(), TripleError> {
        self.send.send_data(Bytes::new(), true)?;
        Ok(())
    }

    /// Cancels the call (RST_STREAM with CANCEL).
    pub fn cancel(&mut self) {
        self.done = true;
        self.send.send_reset(h2::Reason::CANCEL);
    }

    /// The response headers (waits for them).
    pub async fn headers(&mut self) -> Result<&HeaderMap, TripleError> {
        self.by_deadline(|s| Box::pin(async move { s.recv().await.map(|_| ()) }))
            .await?;
        Ok(&self.headers)
    }

    /// The response body, once the headers have come.
    async fn recv(&mut self) -> Result<Option<&mut h2::RecvStream>, TripleError> {
        if let Some(response) = self.response.take() {
            let response = response.await?;
            let (parts, recv) = response.into_parts();
            self.headers = parts.headers;
            if let Some(status) = Status::from_headers(&self.headers) {
                // Trailers-only (whatever the HTTP status: Java 3.3 sends 500 with a status).
                self.done = true;
                return if status.is_ok() {
                    Ok(None)
                } else {
                    Err(TripleError::Status(status))
                };
            }
            if parts.status != http::StatusCode::OK {
                self.done = true;
                return Err(TripleError::Status(http_status(parts.status)));
            }
            self.recv = Some(recv);
        }
        Ok(self.recv.as_mut())
    }

    /// The next response message: `None` once the call ended with `OK`, its status as an
    /// error otherwise.
    pub async fn message(&mut self) -> Result<Option<Bytes>, TripleError> {
        self.by_deadline(|s| Box::pin(s.next_message())).await
    }

    async fn next_message(&mut self) -> Result<Option<Bytes>, TripleError> {
        loop {
            let internal = |e: dubbo_triple::MessageError| {
                TripleError::Status(Status::new(Code::Internal, e.to_string()))
            };
            if let Some(m) = self.decoder.decode(&mut self.buf).map_err(internal)? {
                return Ok(Some(m.data));
            }
            if self.done {
                return Ok(None);
            }
            let Some(recv) = self.recv().await? else {
                return Ok(None);
            };
            match recv.data().await {
                Some(chunk) => {
                    let chunk = chunk?;
                    let _ = recv.flow_control().release_capacity(chunk.len());
                    self.buf.extend_from_slice(&chunk);
                }
                None => {
                    let trailers = recv.trailers().await?.unwrap_or_default();
                    self.done = true;
                    self.decoder.finish(&self.buf).map_err(internal)?;
                    let status = Status::from_headers(&trailers).unwrap_or_else(|| {
                        Status::new(Code::Internal, "the response ended without grpc-status")
                    });
                    if !status.is_ok() {
                        return Err(TripleError::Status(status));
                    }
                    return Ok(None);
                }
            }
        }
    }

    /// The next response message decoded as `M`.
    pub async fn decode<M: prost::Message + Default>(&mut self) -> Result<Option<M>, TripleError> {
        match self.message().await? {
            Some(bytes) => M::decode(bytes)
                .map(Some)
                .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string()))),
            None => Ok(None),
        }
    }
}
