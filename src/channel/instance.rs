//! The one running instance of a receiver channel, and its adoption by a
//! new connection (docs/channel-protocol.md "Adopting a channel instance").
//!
//! IBM MQ adopts an orphaned receiving MCA: with the queue manager
//! attribute ADOPTMCA (qm.ini `AdoptNewMCA`), a new inbound connection for a
//! channel whose instance is still running ends that instance and takes its
//! place, when the elements named by ADOPTCHK (`AdoptNewMCACheck`; ALL = the
//! remote queue manager name and the network address) match, waiting up to
//! `AdoptNewMCAInterval` for it to end (IBM MQ "Adopting an MCA", "Channels
//! stanza of the qm.ini file"). mqgate does the same, always with the
//! ALL check: a new connection adopts an instance started by the same
//! sending queue manager (HELLO `sending_q_mgr`) from the same IP address,
//! and waits for an instance that is ending anyway (its CLOSE is being
//! sent); any other connection is refused with 2537 while an instance runs.
//!
//! An adopted instance ends as every session ends: the complete batches it
//! received are committed or not, its open batch is discarded, its exits end
//! (MQXR_TERM), and only then is the channel free. The new instance reads the
//! last committed sequence number for its HELLO_ACK after that, so the
//! normal resynchronisation settles a batch the old one left in doubt.

use super::handshake::Refusal;
use mqgate_codecs::mq::Mqrc;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// How long a new connection waits for the instance it adopts to end
/// (IBM MQ `AdoptNewMCAInterval`); less than a sender's 10 s wait for its
/// HELLO_ACK. Past it the new connection is refused with 2537.
pub const ADOPT_WAIT: Duration = Duration::from_secs(5);

/// What a running instance is asked to do; its session watches this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// Go on.
    Run,
    /// The gateway is stopping: end with CLOSE 2202 MQRC_CONNECTION_QUIESCING.
    Stopping,
    /// A new connection adopts the channel: end with CLOSE 2009
    /// MQRC_CONNECTION_BROKEN and this text (which names the new peer).
    Adopted(String),
}

/// Who started an instance: what ADOPTCHK(ALL) compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The HELLO's sending queue manager name (may be empty).
    pub sending_q_mgr: String,
    /// The peer's IP address.
    pub addr: IpAddr,
}

/// True when a connection from `new` may take the channel from an instance
/// started from `holder` (`ending`: that instance is already ending): the
/// instance is ending, or both come from the same sending queue manager and
/// address (IBM MQ ADOPTMCA with ADOPTCHK(ALL)).
pub fn adopts(holder: &Origin, ending: bool, new: &Origin) -> bool {
    ending || holder == new
}

/// One running instance of a receiver channel.
#[derive(Debug)]
pub struct Instance {
    origin: Origin,
    /// Set once its session has decided to end.
    ending: AtomicBool,
    halt: watch::Sender<Halt>,
    /// Turns true once the instance has let go of the channel.
    ended: watch::Sender<bool>,
}

impl Instance {
    fn new(origin: Origin) -> Self {
        Instance {
            origin,
            ending: AtomicBool::new(false),
            halt: watch::channel(Halt::Run).0,
            ended: watch::channel(false).0,
        }
    }

    /// What the session watches: [`Halt::Run`] until it is asked to end.
    pub fn halt(&self) -> watch::Receiver<Halt> {
        self.halt.subscribe()
    }

    /// Asks the instance to end because the gateway stops (no-op when it
    /// was asked to end already).
    pub fn stop(&self) {
        self.ask(Halt::Stopping);
    }

    fn ask(&self, h: Halt) {
        self.halt.send_if_modified(|now| {
            if *now == Halt::Run {
                *now = h;
                true
            } else {
                false
            }
        });
    }

    /// Records that the session is ending (it is sending its CLOSE): a new
    /// connection from anywhere waits for it instead of being refused.
    pub fn set_ending(&self) {
        self.ending.store(true, Ordering::SeqCst);
    }

    fn is_ending(&self) -> bool {
        self.ending.load(Ordering::SeqCst)
    }
}

/// Resolves when `halt` leaves [`Halt::Run`], with what it asks for (a
/// closed channel counts as [`Halt::Stopping`]).
pub async fn halted(halt: &mut watch::Receiver<Halt>) -> Halt {
    match halt.wait_for(|h| *h != Halt::Run).await {
        Ok(h) => (*h).clone(),
        Err(_) => Halt::Stopping,
    }
}

/// A receiver channel's place for its one running instance.
#[derive(Debug, Default)]
pub struct Slot {
    holder: Mutex<Option<Arc<Instance>>>,
}

/// The channel held by one instance; dropping it lets the channel go.
#[derive(Debug)]
pub struct Held {
    slot: Arc<Slot>,
    instance: Arc<Instance>,
}

impl Held {
    /// The instance that holds the channel.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        {
            let mut holder = self.slot.lock();
            if holder
                .as_ref()
                .is_some_and(|i| Arc::ptr_eq(i, &self.instance))
            {
                *holder = None;
            }
        }
        self.instance.ended.send_replace(true);
    }
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, Option<Arc<Instance>>> {
        self.holder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Asks the running instance, if any, to end as a gateway stop does
    /// (after its current batch); the channel's definition changed or went.
    pub fn stop_holder(&self) {
        if let Some(i) = self.lock().as_ref() {
            i.stop();
        }
    }

    /// Takes the channel for a new instance started from `origin` (peer
    /// `peer`, shown in the texts). A running instance that [`adopts`]
    /// allows is asked to end and waited for, up to `wait`. Errors: 2537
    /// MQRC_CHANNEL_NOT_AVAILABLE when an instance of another sending queue
    /// manager or address runs, or the adopted one did not end within
    /// `wait`.
    pub async fn acquire(
        self: &Arc<Self>,
        channel: &str,
        origin: &Origin,
        peer: &str,
        wait: Duration,
    ) -> Result<Held, Refusal> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let old = {
                let mut holder = self.lock();
                match holder.as_ref() {
                    Some(old) => Arc::clone(old),
                    None => {
                        let instance = Arc::new(Instance::new(origin.clone()));
                        *holder = Some(Arc::clone(&instance));
                        return Ok(Held {
                            slot: Arc::clone(self),
                            instance,
                        });
                    }
                }
            };
            if !adopts(&old.origin, old.is_ending(), origin) {
                let o = &old.origin;
                return Err(Refusal::busy(channel, &o.sending_q_mgr, o.addr));
            }
            tracing::info!(channel = %channel, peer = %peer, sending_q_mgr = %origin.sending_q_mgr,
                ending = old.is_ending(), "adopting the running channel instance");
            old.ask(Halt::Adopted(format!(
                "the channel instance was adopted by a new connection of sending queue manager {:?} from {peer}",
                origin.sending_q_mgr
            )));
            let mut ended = old.ended.subscribe();
            let timed_out = tokio::time::timeout_at(deadline, ended.wait_for(|e| *e))
                .await
                .is_err();
            if timed_out {
                return Err(Refusal {
                    reason: Mqrc::CHANNEL_NOT_AVAILABLE,
                    text: format!(
                        "channel {channel} is running and its instance did not end within {} ms of being adopted",
                        wait.as_millis()
                    ),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(q_mgr: &str, addr: &str) -> Origin {
        Origin {
            sending_q_mgr: q_mgr.into(),
            addr: addr.parse().unwrap(),
        }
    }

    #[test]
    fn only_an_ending_instance_or_the_same_origin_is_adopted() {
        // IBM MQ ADOPTCHK(ALL): the queue manager name and the network
        // address must both match.
        let qm1 = origin("QM1", "10.0.0.1");
        assert!(adopts(&qm1, false, &origin("QM1", "10.0.0.1")));
        assert!(!adopts(&qm1, false, &origin("QM2", "10.0.0.1")));
        assert!(!adopts(&qm1, false, &origin("QM1", "10.0.0.2")));
        assert!(!adopts(&qm1, false, &origin("", "10.0.0.1")));
        // An instance that is ending is waited for, whoever comes.
        assert!(adopts(&qm1, true, &origin("QM2", "10.0.0.2")));
    }

    #[tokio::test]
    async fn an_adopted_instance_is_asked_to_end_and_the_new_one_waits_for_it() {
        let slot = Arc::new(Slot::default());
        let qm1 = origin("QM1", "127.0.0.1");
        let first = slot.acquire("C", &qm1, "p1", ADOPT_WAIT).await.unwrap();
        let mut halt = first.instance().halt();
        // Another queue manager: refused at once with 2537.
        let r = slot
            .acquire("C", &origin("QM2", "127.0.0.1"), "p2", ADOPT_WAIT)
            .await
            .unwrap_err();
        assert_eq!(r.reason, Mqrc(2537));
        assert!(
            r.text
                .contains("sending queue manager \"QM1\" from 127.0.0.1"),
            "{}",
            r.text
        );
        // The same one: the first is told it is adopted; the second gets
        // the channel once the first let it go.
        let second = tokio::spawn({
            let slot = Arc::clone(&slot);
            let qm1 = qm1.clone();
            async move { slot.acquire("C", &qm1, "p3", ADOPT_WAIT).await }
        });
        match halted(&mut halt).await {
            Halt::Adopted(text) => assert!(text.contains("from p3"), "{text}"),
            other => panic!("{other:?}"),
        }
        assert!(!second.is_finished());
        drop(first);
        let second = second.await.unwrap().unwrap();
        // A stop after adoption does not change what the new one is told.
        second.instance().stop();
        assert_eq!(halted(&mut second.instance().halt()).await, Halt::Stopping);
        second.instance().ask(Halt::Adopted("x".into()));
        assert_eq!(*second.instance().halt().borrow(), Halt::Stopping);
    }

    #[tokio::test]
    async fn an_instance_that_does_not_end_keeps_the_channel_and_the_new_one_gets_2537() {
        let slot = Arc::new(Slot::default());
        let qm1 = origin("QM1", "127.0.0.1");
        let _stuck = slot.acquire("C", &qm1, "p1", ADOPT_WAIT).await.unwrap();
        let r = slot
            .acquire("C", &qm1, "p2", Duration::from_millis(50))
            .await
            .unwrap_err();
        assert_eq!(r.reason, Mqrc(2537));
        assert!(r.text.contains("did not end within 50 ms"), "{}", r.text);
    }

    #[tokio::test]
    async fn an_ending_instance_is_waited_for_by_any_sender() {
        let slot = Arc::new(Slot::default());
        let first = slot
            .acquire("C", &origin("QM1", "127.0.0.1"), "p1", ADOPT_WAIT)
            .await
            .unwrap();
        first.instance().set_ending();
        let second = tokio::spawn({
            let slot = Arc::clone(&slot);
            async move {
                slot.acquire("C", &origin("QM2", "10.0.0.9"), "p2", ADOPT_WAIT)
                    .await
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(first);
        assert!(second.await.unwrap().is_ok());
    }
}
