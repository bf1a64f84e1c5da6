//! The server's lifetime as the protocol defines it: `shutdown`, then the
//! `exit` notification ends the process with status 0; `exit` without
//! `shutdown` ends it with 1; a closed input ends it too.
//!
//! tower-lsp notices `exit` only when the next message arrives, so with an
//! editor that keeps the pipe open after `exit` the server would never end.
//! A thin service wrapper watches the two methods and ends serving at once.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Notify;
use tower::Service;
use tower_lsp::jsonrpc::{Request, Response};
use tower_lsp::{LspService, Server};

/// What the wrapper has seen of the lifecycle.
#[derive(Clone, Default)]
struct Lifecycle {
    shutdown_requested: Arc<AtomicBool>,
    exit_received: Arc<Notify>,
}

/// The language server's service, watching `shutdown` and `exit`.
struct LifecycleService<S> {
    inner: S,
    lifecycle: Lifecycle,
}

impl<S> Service<Request> for LifecycleService<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Option<Response>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method().to_string();
        let response = self.inner.call(request);
        let lifecycle = self.lifecycle.clone();
        Box::pin(async move {
            let response = response.await;
            match method.as_str() {
                // A `shutdown` refused (before `initialize`) does not count.
                "shutdown" => {
                    if matches!(&response, Ok(Some(r)) if r.is_ok()) {
                        lifecycle.shutdown_requested.store(true, Ordering::SeqCst);
                    }
                }
                "exit" => lifecycle.exit_received.notify_one(),
                _ => {}
            }
            response
        })
    }
}

/// Serves the protocol on `input` and `output` until `exit` arrives or the
/// input closes; the exit status the protocol asks for.
pub async fn serve<I, O>(input: I, output: O) -> u8
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let (service, socket) = LspService::new(crate::server::Backend::new);
    let lifecycle = Lifecycle::default();
    let service = LifecycleService {
        inner: service,
        lifecycle: lifecycle.clone(),
    };
    tokio::select! {
        () = Server::new(input, output, socket).serve(service) => {}
        () = lifecycle.exit_received.notified() => {}
    }
    if lifecycle.shutdown_requested.load(Ordering::SeqCst) {
        0
    } else {
        1
    }
}
