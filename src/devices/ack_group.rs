//! Group commit of device acknowledgements: many devices acknowledging at
//! once (an MQTT PUBACK each, docs/mqtt.md) have their leases committed in
//! one store transaction per group instead of one each, so the store's
//! durable write is shared. Each acknowledgement still answers only once
//! its own lease is durably gone.

use crate::mqi::{Mqi, Object, QmError, Token};
use mqgate_codecs::mq::Mqrc;
use tokio::sync::{mpsc, oneshot};

/// The most acknowledgements one store transaction takes.
const MAX_GROUP: usize = 1024;

type Request = (Object, Token, oneshot::Sender<Result<(), QmError>>);

/// A committer of acknowledgements; clones share it. Its task ends when
/// the last clone is dropped.
#[derive(Clone)]
pub struct AckGroup {
    tx: mpsc::UnboundedSender<Request>,
}

impl AckGroup {
    /// Starts the committer over `mqi`. It serves requests but is not one:
    /// it runs with the timers, so a stop drains the requests (whose acks it
    /// still commits) without waiting for it, and ends it with the rest.
    pub fn start(mqi: Mqi) -> AckGroup {
        let (tx, rx) = mpsc::unbounded_channel();
        mqi.tasks().spawn_timer(commit_loop(mqi.clone(), rx));
        AckGroup { tx }
    }

    /// Acknowledges lease `lease` on `obj` (as [`Mqi::ack`]) together with
    /// whatever else is waiting. Errors: as [`Mqi::ack`]; 2161 when the
    /// committer has ended (the gateway is stopping; nothing was changed).
    pub async fn ack(&self, obj: &Object, lease: Token) -> Result<(), QmError> {
        let (done, answer) = oneshot::channel();
        let stopping = || QmError::new(Mqrc::Q_MGR_QUIESCING, "the gateway is stopping");
        self.tx
            .send((obj.clone(), lease, done))
            .map_err(|_| stopping())?;
        answer.await.unwrap_or_else(|_| Err(stopping()))
    }
}

async fn commit_loop(mqi: Mqi, mut rx: mpsc::UnboundedReceiver<Request>) {
    let mut group = Vec::new();
    while rx.recv_many(&mut group, MAX_GROUP).await > 0 {
        let (leases, answers): (Vec<_>, Vec<_>) = group
            .drain(..)
            .map(|(obj, lease, done)| ((obj, lease), done))
            .unzip();
        let results = mqi.ack_many(leases).await;
        for (done, r) in answers.into_iter().zip(results) {
            let _ = done.send(r);
        }
    }
}
