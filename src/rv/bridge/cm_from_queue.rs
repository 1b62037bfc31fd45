//! Certified queue to subject (docs/rendezvous.md "Certified bridges"): a
//! `rv.bridges.from_queues` rule with `certified: CMNAME` sends each
//! message it gets from its queue as a certified message of CM transport
//! CMNAME, a persistent correspondent.
//!
//! The get is made under a unit of work, and the unit is committed
//! together with the sender ledger's records of the send
//! ([`CmTransport::send_with`]): the message leaves the queue exactly when
//! it enters the ledger, which keeps it until every registered listener
//! confirmed it. A crash before the commit leaves it on the queue and the
//! ledger without it (it is got and sent again, under the same sequence
//! number); a crash after it leaves it in the ledger, which sends it again
//! to the listeners that did not confirm it (IBM MQ "Units of work"; TIBCO
//! Rendezvous Concepts, "Certified Message Delivery").

use std::time::Duration;

use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::rv::Subject;

use super::config::FromQueueRule;
use super::from_queue::{
    Outcome, RETRY_PAUSE, bus_refusal_reason, dead_letter, get_under_syncpoint, stopping,
};
use super::mq_form::{FormError, from_mq};
use crate::mqi::{Mqi, Object};
use crate::rv::cm::{CmError, CmTransport};
use crate::rv::{Bus, BusError};

/// How often a rule without listeners looks again for a registered one
/// (AddListener changes no interest on the bus).
const REGISTRATION_POLL: Duration = Duration::from_secs(1);

/// Runs rule `rule`, sending as `transport`, until the bus closes or the
/// queue manager stops.
pub(super) async fn run(mqi: Mqi, bus: Bus, transport: CmTransport, rule: FromQueueRule) {
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
    tracing::info!(queue = %rule.queue, subject = %rule.subject, cm_name = %transport.name(), "certified bridge from queue to subject started");
    let mut watch = bus.watch_interest(None);
    let mut wait_for_change = false;
    loop {
        // A registered listener counts while it is away: the ledger keeps
        // the message for it, as the queue did.
        let ready = !wait_for_change
            && (bus.has_interest(&subject)
                || transport.registered_listeners(&rule.subject).await > 0);
        if !ready {
            tokio::select! {
                change = watch.next() => if change.is_none() { break },
                _ = tokio::time::sleep(REGISTRATION_POLL) => if bus.is_closed() { break },
            }
            wait_for_change = false;
            continue;
        }
        match one(&mqi, &obj, &transport, &rule).await {
            Outcome::Done => {}
            Outcome::NoListener => wait_for_change = true,
            Outcome::Stop => break,
        }
    }
    tracing::info!(queue = %rule.queue, subject = %rule.subject, cm_name = %transport.name(), "certified bridge from queue to subject stopped");
}

/// Gets one message and sends it certified, committing the get with the
/// ledger (or backs it out when no one would have it).
async fn one(mqi: &Mqi, obj: &Object, transport: &CmTransport, rule: &FromQueueRule) -> Outcome {
    let (uow, got) = match get_under_syncpoint(mqi, obj, rule).await {
        Ok(g) => g,
        Err(outcome) => return outcome,
    };
    let msg_id = hex::encode_upper(got.stored.md.msg_id);
    let env = match from_mq(&got.message, rule.body, &rule.subject) {
        Ok(env) => env,
        Err(e) => return dead_letter(mqi, &got, rule, uow, e).await,
    };
    let me = mqi.clone();
    let sent = transport
        .send_with(env, None, move |records| {
            me.commit_with_meta_now(uow, records)
        })
        .await;
    match sent {
        Ok(s) if s.kept == 0 && s.listeners == 0 => {
            let _ = mqi.backout(uow).await;
            tracing::debug!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, "no listener received the message; backed out to wait for one");
            Outcome::NoListener
        }
        Ok(s) => {
            tracing::debug!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, sequence = s.sequence, kept = s.kept, listeners = s.listeners, "queue bridged to subject, certified");
            Outcome::Done
        }
        Err(CmError::Store(e)) => {
            // The commit failed and backed the unit out: the message is
            // back on its queue and not in the ledger.
            if stopping(e.mqrc) {
                return Outcome::Stop;
            }
            tracing::error!(queue = %rule.queue, subject = %rule.subject, msg_id = %msg_id, mqrc = e.mqrc.0, error = %e.message, "queue bridge could not commit its get with the sender's ledger: the message is back on its queue and will be sent again");
            tokio::time::sleep(RETRY_PAUSE).await;
            Outcome::Done
        }
        Err(CmError::Bus(BusError::Closed)) => {
            let _ = mqi.backout(uow).await;
            Outcome::Stop
        }
        Err(e) => {
            let mqrc = match &e {
                CmError::Bus(b) => bus_refusal_reason(b),
                _ => Mqrc::FORMAT_ERROR,
            };
            let why = FormError {
                mqrc,
                message: e.to_string(),
            };
            dead_letter(mqi, &got, rule, uow, why).await
        }
    }
}
