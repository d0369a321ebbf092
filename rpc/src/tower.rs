//! [`tower`](https://docs.rs/tower) integration (feature `tower`): the client and the
//! server's handlers as `tower::Service`s, so the middleware of the tokio ecosystem (timeouts,
//! retries, rate and concurrency limits, load shedding, tracing) stacks on them the way it does
//! on tonic and hyper.
//!
//! * A [`Client`] is a `Service<Request>` whose response is the result as a [`Value`] (the
//!   Triple client likewise a `Service<TripleCall>`, with feature `triple`); a
//!   [`TypedClient<T>`] ([`Client::typed`]) reads it into `T` through serde. A Java exception,
//!   a non-OK status, a timeout or a broken connection is the [`CallError`].
//! * [`Service::method_service`](crate::server::Service::method_service) makes any
//!   `Service<Call, Response = Reply>` the handler of a method. Its error converts into a
//!   [`HandlerError`]: a `HandlerError` itself is answered as it is; any other error (a
//!   middleware's `Elapsed`, `Overloaded`, ...) is answered as a Java `RuntimeException`
//!   carrying its message, which is what a Java consumer sees from a throwing provider.
//!
//! The plain async API (`Client::call`, `Service::method`) stays the simple path; these
//! adapters cost one boxed future per call.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! use std::time::Duration;
//! use dubbo_rpc::client::Client;
//! use dubbo_rpc::server::{Call, HandlerError, Reply, Server, Service};
//! use dubbo_codec::Request;
//! use tower::{service_fn, Service as _, ServiceBuilder, ServiceExt};
//!
//! // A handler written as a tower service, behind a timeout and a concurrency limit.
//! let hello = ServiceBuilder::new()
//!     .concurrency_limit(64)
//!     .timeout(Duration::from_secs(1))
//!     .service(service_fn(|call: Call| async move {
//!         let (name,): (String,) = call.args()?;
//!         Reply::typed(&format!("hello, {name}"))
//!     }));
//! let server = Server::builder()
//!     .service(Service::new("com.example.Greeter").method_service("sayHello", hello))
//!     .bind("127.0.0.1:0")
//!     .await?;
//!
//! // The client as a tower service, with the same layers.
//! let client = Client::connect(server.local_addr().to_string()).await?;
//! let mut greeter = ServiceBuilder::new()
//!     .concurrency_limit(16)
//!     .timeout(Duration::from_secs(2))
//!     .service(client.typed::<String>());
//! let call = Request::builder("com.example.Greeter", "sayHello")
//!     .arg("java.lang.String", "tower")
//!     .build()?;
//! let greeting = greeter.ready().await?.call(call).await?;
//! assert_eq!(greeting, "hello, tower");
//! server.shutdown(Duration::from_secs(1)).await;
//! # Ok(())
//! # }
//! ```

use std::future::{poll_fn, Future};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use hessian2::value::Value;
use serde::de::DeserializeOwned;
use tower_service::Service as TowerService;

use crate::client::{CallError, Client};
use crate::server::{Call, HandlerError, Reply, Service};
use dubbo_codec::exception::JavaException;
use dubbo_codec::request::Request;

/// The boxed future of the client's services.
pub type CallFuture<T> = Pin<Box<dyn Future<Output = Result<T, CallError>> + Send>>;

/// The error type of tower middleware (`tower::BoxError`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl TowerService<Request> for Client {
    type Response = Value;
    type Error = CallError;
    type Future = CallFuture<Value>;

    /// Always ready: calls are multiplexed on one connection, which is (re)opened by the call.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.call_value(&req).await })
    }
}

/// The Triple client (feature `triple`) is a `Service<TripleCall>` whose response is the
/// result as a [`Value`], as the Dubbo client is a `Service<Request>`.
#[cfg(feature = "triple")]
impl TowerService<crate::triple_client::TripleCall> for crate::triple_client::Client {
    type Response = Value;
    type Error = crate::triple_client::TripleError;
    type Future =
        Pin<Box<dyn Future<Output = Result<Value, crate::triple_client::TripleError>> + Send>>;

    /// Always ready: calls are multiplexed on one connection, (re)opened by the call.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: crate::triple_client::TripleCall) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.call_value(&call).await })
    }
}

impl Client {
    /// This client as a `tower::Service<Request>` whose response is read into `T` through
    /// serde (see [`Client::call`]).
    pub fn typed<T>(&self) -> TypedClient<T> {
        TypedClient {
            client: self.clone(),
            result: PhantomData,
        }
    }
}

/// A [`Client`] as a `tower::Service<Request>` answering `T` ([`Client::typed`]).
pub struct TypedClient<T> {
    client: Client,
    // `fn() -> T`: the service makes `T`s, it holds none (Send and Sync whatever `T` is).
    result: PhantomData<fn() -> T>,
}

impl<T> Clone for TypedClient<T> {
    fn clone(&self) -> Self {
        self.client.typed()
    }
}

impl<T> std::fmt::Debug for TypedClient<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedClient")
            .field("client", &self.client)
            .field("result", &std::any::type_name::<T>())
            .finish()
    }
}

impl<T: DeserializeOwned + Send + 'static> TowerService<Request> for TypedClient<T> {
    type Response = T;
    type Error = CallError;
    type Future = CallFuture<T>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), CallError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let client = self.client.clone();
        Box::pin(async move { client.call(&req).await })
    }
}

impl Service {
    /// The handler of method `name` is the tower service `service`: each call waits for it
    /// to be ready, then calls a clone of it (the clone shares the middleware's state, such as
    /// a concurrency limit's semaphore). See the [module documentation](crate::tower) for how
    /// its errors are answered.
    pub fn method_service<S>(self, name: impl Into<String>, service: S) -> Self
    where
        S: TowerService<Call, Response = Reply> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        self.method(name, move |call| {
            let mut service = service.clone();
            async move {
                poll_fn(|cx| service.poll_ready(cx))
                    .await
                    .map_err(handler_error)?;
                service.call(call).await.map_err(handler_error)
            }
        })
    }
}

/// A middleware's error as the handler's: a `HandlerError` as it is, anything else as a Java
/// `RuntimeException` with its message.
fn handler_error(error: impl Into<BoxError>) -> HandlerError {
    match error.into().downcast::<HandlerError>() {
        Ok(e) => *e,
        Err(other) => HandlerError::Exception(JavaException::runtime(other.to_string())),
    }
}
