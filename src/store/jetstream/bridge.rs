//! The async NATS client behind the synchronous [`crate::store::Store`]
//! calls: a runtime of its own on one thread, so that a call from any thread
//! (a tokio worker included) blocks on a reply instead of on a runtime.

use crate::store::StoreError;
use std::future::Future;

/// A runtime for the store's client; shut down in the background on drop.
pub struct Bridge {
    rt: Option<tokio::runtime::Runtime>,
}

impl Bridge {
    /// A runtime with one worker thread named `mqgate-jetstream`.
    pub fn new() -> std::io::Result<Bridge> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mqgate-jetstream")
            .enable_all()
            .build()?;
        Ok(Bridge { rt: Some(rt) })
    }

    /// Runs `fut` on the runtime and waits for its output; `Err` only when
    /// the runtime is gone or the task panicked.
    pub fn run<F, T>(&self, op: &str, fut: F) -> Result<T, StoreError>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let closed = |detail: &str| StoreError::Closed {
            op: op.to_string(),
            detail: detail.to_string(),
        };
        let rt = self
            .rt
            .as_ref()
            .ok_or_else(|| closed("the store is closed"))?;
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| closed("the NATS client's task ended"))
    }
}

impl Bridge {
    /// The runtime's handle (`None` once it is shut down), for a thread of
    /// the store's own.
    pub fn handle(&self) -> Option<tokio::runtime::Handle> {
        self.rt.as_ref().map(|rt| rt.handle().clone())
    }

    /// Starts `fut` on the runtime without waiting for it.
    pub fn spawn<F>(&self, fut: F) -> Result<tokio::task::JoinHandle<()>, StoreError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let rt = self.rt.as_ref().ok_or_else(|| StoreError::Closed {
            op: "spawn".into(),
            detail: "the store is closed".into(),
        })?;
        Ok(rt.spawn(fut))
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}
