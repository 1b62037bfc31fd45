//! Pulling a device's queues for its MQTT connection: one task per device
//! queue its subscriptions cover, each pulling the next message under a
//! lease ([`crate::devices`]) and handing it to the connection, which
//! publishes it and acknowledges the lease when the device's PUBACK comes
//! (docs/mqtt.md "Delivery"). A lease no one acknowledges is backed out
//! when its [`HeldLease`] goes, so a message is never lost with a
//! connection: it returns to its place, BackoutCount + 1.

use crate::devices::{AckGroup, Devices};
use crate::mqi::{Leased, Object, QmError, Token};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long one pull waits before it asks again (the connection's
/// pullers wait as long as the connection lives).
const PULL_WAIT: Duration = Duration::from_secs(60);

/// A lease on one device message, backed out when dropped unless it was
/// acknowledged or backed out explicitly.
pub struct HeldLease {
    devices: Devices,
    acks: AckGroup,
    obj: Object,
    lease: Token,
    open: bool,
}

impl HeldLease {
    /// Acknowledges the lease: the message leaves the store (durable on
    /// return; committed with other devices' acknowledgements, [`AckGroup`]).
    /// Errors: 2003 when the lease is no longer open.
    pub async fn ack(mut self) -> Result<(), QmError> {
        self.open = false;
        self.acks.ack(&self.obj, self.lease).await
    }

    /// Backs the lease out now: the message returns, BackoutCount + 1.
    pub async fn backout(mut self) -> Result<(), QmError> {
        self.open = false;
        self.devices.backout_on(&self.obj, self.lease).await
    }
}

impl Drop for HeldLease {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        // A connection task ended while holding it (the gateway stopping,
        // a puller ended): back it out on the runtime when there is one.
        // Without one the queue manager's shutdown backs every lease out.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let (devices, obj, lease) = (self.devices.clone(), self.obj.clone(), self.lease);
            rt.spawn(async move {
                let _ = devices.backout_on(&obj, lease).await;
            });
        }
    }
}

/// What a puller hands its connection.
pub enum Pulled {
    /// A message of device queue `queue`, leased.
    Message {
        queue: String,
        leased: Box<Leased>,
        held: HeldLease,
    },
    /// The puller of `queue` stopped on an error (2161 when the queue
    /// manager is stopping).
    Failed { queue: String, error: QmError },
}

/// Pulls device queue `queue` of `device` until the connection goes (the
/// channel closes) or an error: waits for the queue to exist, then for
/// each message, hands it over and waits until the connection takes it
/// (`tx` holds one at a time).
pub async fn pull_queue(
    devices: Devices,
    acks: AckGroup,
    device: String,
    queue: String,
    tx: mpsc::Sender<Box<Pulled>>,
) {
    let failed = |error: QmError| Pulled::Failed {
        queue: queue.clone(),
        error,
    };
    let obj = loop {
        match Box::pin(devices.open(&device, &queue, PULL_WAIT)).await {
            Ok(Some(o)) => break o,
            Ok(None) if tx.is_closed() => return,
            Ok(None) => {}
            Err(e) => {
                let _ = tx.send(Box::new(failed(e))).await;
                return;
            }
        }
    };
    loop {
        match Box::pin(devices.pull_from(&obj, PULL_WAIT)).await {
            Ok(Some(leased)) => {
                let held = HeldLease {
                    devices: devices.clone(),
                    acks: acks.clone(),
                    obj: obj.clone(),
                    lease: leased.lease,
                    open: true,
                };
                let m = Pulled::Message {
                    queue: queue.clone(),
                    leased: Box::new(leased),
                    held,
                };
                if tx.send(Box::new(m)).await.is_err() {
                    return;
                }
            }
            Ok(None) if tx.is_closed() => return,
            Ok(None) => {}
            Err(e) => {
                let _ = tx.send(Box::new(failed(e))).await;
                return;
            }
        }
    }
}
