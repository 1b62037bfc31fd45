//! Queue objects as the queue manager holds them, the router's view of them
//! (crate::route::Objects), and carrying out a routing decision.

use super::State;
use super::queue::LocalQueue;
use crate::config::{AliasQueueDef, LocalQueueDef, RemoteQueueDef, Usage};
use crate::route::{Destination, NewQueue, ObjectDef, Objects, Origin, RemoteName};

/// A queue object.
#[derive(Debug)]
pub(super) enum Object {
    Local(LocalQueue),
    Model,
    Remote(RemoteQueueDef),
    Alias(AliasQueueDef),
}

impl Object {
    /// The type as `GET /v1/queues` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Object::Local(q) if q.def.usage == Usage::Xmitq => "xmitq",
            Object::Local(_) => "local",
            Object::Model => "model",
            Object::Remote(r) if r.remote_q_name.is_none() => "qmgr_alias",
            Object::Remote(_) => "remote",
            Object::Alias(_) => "alias",
        }
    }
}

impl Objects for State {
    fn object(&self, name: &str) -> Option<ObjectDef<'_>> {
        self.objects.get(name).map(|o| match o {
            Object::Local(q) => ObjectDef::Local(&q.def),
            Object::Model => ObjectDef::Model,
            Object::Remote(r) => ObjectDef::Remote(r),
            Object::Alias(a) => ObjectDef::Alias(a),
        })
    }

    fn models(&self) -> &[LocalQueueDef] {
        &self.models
    }
}

impl State {
    /// Carries out routing decision `dest`: creates the queue a
    /// [`Destination::Create`] asks for (once), and returns the local queue
    /// the message goes to with the MQXQH names when it is a transmission queue.
    pub(super) fn place(&mut self, dest: Destination) -> (String, Option<RemoteName>) {
        match dest {
            Destination::Local { queue } => (queue, None),
            Destination::Transmit { xmit_q, remote } => (xmit_q, Some(remote)),
            Destination::Create(NewQueue { def, origin }) => {
                let queue = def.name.clone();
                if !self.objects.contains_key(&queue) {
                    match &origin {
                        Origin::Model { model } => {
                            tracing::info!(queue = %queue, model = %model, "dynamic queue created");
                        }
                        Origin::Device { q_mgr } => {
                            tracing::info!(queue = %queue, device = %q_mgr, "device queue created");
                            let tail = queue.get(q_mgr.len() + 1..).unwrap_or_default();
                            self.devices.add(q_mgr, tail);
                        }
                    }
                    self.objects
                        .insert(queue.clone(), Object::Local(LocalQueue::new(def)));
                    // Device queues wake their device's waiters (above) only.
                    if matches!(origin, Origin::Model { .. }) {
                        self.created.notify_waiters();
                    }
                }
                (queue, None)
            }
        }
    }
}
