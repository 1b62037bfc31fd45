//! Queue to subject (docs/rendezvous.md "Bridge to MQ queues"): one task per
//! `rv.bridges.from_queues` rule. It waits until someone listens to the
//! rule's subject, gets the next message from the queue under a unit of
//! work, publishes it on the subject and commits only then: a message
//! leaves its queue once it was handed to at least one listener. A message
//! that cannot become a Rendezvous message (a body that cannot be read, too
//! large for the bus) is dead-lettered in the same unit of work.

use std::time::Duration;

use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::rv::Subject;

use super::config::FromQueueRule;
use super::mq_form::{FormError, from_mq};
use crate::mqi::{DeadLetter, GetMode, GetRequest, GetResult, Got, Mqi, Object};
use crate::rv::{Bus, BusError, LinkId, Origin};

/// How long one get waits before it is issued again (and interest checked).
const GET_WAIT: Duration = Duration::from_secs(5);
/// The pause after a failure that is likely to repeat at once.
pub(super) const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// True for the reasons of a stopping queue manager (2161, 2162).
pub(super) fn stopping(mqrc: Mqrc) -> bool {
    mqrc == Mqrc::Q_MGR_QUIESCING || mqrc == Mqrc::Q_MGR_STOPPING
}

/// The reason a refused publish gets in the MQDLH: 2031
/// MQRC_MSG_TOO_BIG_FOR_Q_MGR for a message over `rv.max_message_bytes`,
/// 2110 MQRC_FORMAT_ERROR for another rule of the message model.
pub(super) fn bus_refusal_reason(e: &BusError) -> Mqrc {
    if e.is_too_large() {
        Mqrc::MSG_TOO_BIG_FOR_Q_MGR
    } else {
        Mqrc::FORMAT_ERROR
    }
}

/// What became of one message.
pub(super) enum Outcome {
    /// Published and committed, or dead-lettered and committed.
    Done,
    /// Nobody received it: backed out; wait for interest to change.
    NoListener,
    /// The bus or the queue manager is stopping.
    Stop,
}

/// Runs rule `rule`, publishing as `link`, until the bus closes or the
/// queue manager stops.
pub(super) async fn run(mqi: Mqi, bus: Bus, link: LinkId, rule: FromQueueRule) {
    let obj = match mqi.open(&rule.queue, "") {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(queue = %rule.queue, mqrc = e.mqrc.0, error = %e.message, "queue bridge cannot open its queue; rule not started");
            return;
        }
    };
    let subject = match Subject::parse_internal(&rule.subject) {
        Ok(s) => s.into_owned(),
        Err(e) => {
            tracing::error!(subject = %rule.subject, error = %e, "queue bridge subject is invalid; rule not started");
            return;
        }
    };
    tracing::info!(queue = %rule.queue, subject = %rule.subject, "bridge from queue to subject started");
    let mut watch = bus.watch_interest(None);
    let mut wait_for_change = false;
    loop {
        if wait_for_change || !bus.has_interest(&subject) {
            // Messages stay on the queue while no one listens.
            if watch.next().await.is_none() {
                break;
            }
            wait_for_change = false;
            continue;
        }
        match one(&mqi, &obj, &bus, link, &rule).await {
            Outcome::Done => {}
            Outcome::NoListener => wait_for_change = true,
            Outcome::Stop => break,
        }
    }
    tracing::info!(queue = %rule.queue, subject = %rule.subject, "bridge from queue to subject stopped");
}

/// Begins a unit of work and gets the next message of `obj` under it,
/// waiting up to [`GET_WAIT`]: the unit and the message, or what became of
/// the attempt when there is none (the unit backed out; a failure other
/// than 2033 MQRC_NO_MSG_AVAILABLE logged and paused on).
pub(super) async fn get_under_syncpoint(
    mqi: &Mqi,
    obj: &Object,
    rule: &FromQueueRule,
) -> Result<(u64, Got), Outcome> {
    let uow = match mqi.begin(None) {
        Ok(u) => u,
        Err(e) if stopping(e.mqrc) => return Err(Outcome::Stop),
        Err(e) => {
            tracing::warn!(queue = %rule.queue, mqrc = e.mqrc.0, error = %e.message, "queue bridge cannot begin a unit of work");
            tokio::time::sleep(RETRY_PAUSE).await;
            return Err(Outcome::Done);
        }
    };
    let req = GetRequest {
        wait: GET_WAIT,
        max_wait: GET_WAIT,
        ..GetRequest::default()
    };
    match mqi
        .get(obj, req, GetMode::Destructive { uow: Some(uow) })
        .await
    {
        Ok(g) => Ok((uow, g)),
        Err(e) => {
            // Nothing was taken: the unit holds nothing to undo.
            let _ = mqi.backout(uow).await;
            if stopping(e.mqrc) {
                return Err(Outcome::Stop);
            }
            if e.mqrc != Mqrc::NO_MSG_AVAILABLE {
                tracing::warn!(queue = %rule.queue, mqrc = e.mqrc.0, error = %e.message, "queue bridge get failed");
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(Outcome::Done)
        }
    }
}

/// Gets, publishes and commits (or backs out) one message.
async fn one(mqi: &Mqi, obj: &Object, bus: &Bus, link: LinkId, rule: &FromQueueRule) -> Outcome {
    let (uow, got) = match get_under_syncpoint(mqi, obj, rule).await {
        Ok(g) => g,
        Err(outcome) => return outcome,
    };
    let msg_id = hex::encode_upper(got.stored.md.msg_id);
    let published = from_mq(&got.message, rule.body, &rule.subject).and_then(|env| {
        bus.publish(env, Origin::Link(link)).map_err(|e| match e {
            BusError::Closed => FormError {
                mqrc: Mqrc::Q_MGR_QUIESCING,
                message: e.to_string(),
            },
            e => FormError {
                mqrc: bus_refusal_reason(&e),
                message: e.to_string(),
            },
        })
    });
    match published {
        Ok(0) => {
            let _ = mqi.backout(uow).await;
            tracing::debug!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, "no listener received the message; backed out to wait for one");
            Outcome::NoListener
        }
        Ok(n) => {
            if let Err(e) = mqi.commit(uow).await {
                tracing::error!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, mqrc = e.mqrc.0, error = %e.message, "queue bridge published a message but could not commit its get: it is back on its queue and will be published again");
                tokio::time::sleep(RETRY_PAUSE).await;
            } else {
                tracing::debug!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, listeners = n, "queue bridged to subject");
            }
            Outcome::Done
        }
        Err(e) if e.mqrc == Mqrc::Q_MGR_QUIESCING => {
            let _ = mqi.backout(uow).await;
            Outcome::Stop
        }
        Err(e) => dead_letter(mqi, &got, rule, uow, e).await,
    }
}

/// Dead-letters the message as stored in `uow` and commits, or backs it
/// out (it stays on its queue) when the dead-letter queue refuses it.
pub(super) async fn dead_letter(
    mqi: &Mqi,
    got: &Got,
    rule: &FromQueueRule,
    uow: u64,
    why: FormError,
) -> Outcome {
    let m: GetResult = got.stored.clone();
    let me = mqi.clone();
    let reason = why.mqrc;
    let put = Mqi::blocking(move || {
        let dl = DeadLetter {
            md: &m.md,
            charset: m.charset,
            data: &m.data,
            reason,
            dest_q: &m.queue,
            dest_q_mgr: "",
        };
        me.dead_letter_as(&dl, "mqgate", Some(uow))
    })
    .await;
    let msg_id = hex::encode_upper(got.stored.md.msg_id);
    match put {
        Ok(r) => match mqi.commit(uow).await {
            Ok(()) => {
                tracing::warn!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, dead_letter_queue = %r.queue, reason = why.mqrc.0, error = %why.message, "queue bridge cannot publish a message; dead-lettered")
            }
            Err(e) => {
                tracing::error!(queue = %rule.queue, msg_id = %msg_id, mqrc = e.mqrc.0, error = %e.message, "queue bridge could not commit a dead-lettered message: it is back on its queue")
            }
        },
        Err(e) => {
            let _ = mqi.backout(uow).await;
            tracing::error!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, reason = why.mqrc.0, error = %why.message, dlq_reason = e.mqrc.0, dlq_error = %e.message, "queue bridge cannot publish a message nor dead-letter it; it stays on its queue");
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }
    Outcome::Done
}
