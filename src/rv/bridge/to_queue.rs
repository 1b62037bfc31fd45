//! Subject to queue (docs/rendezvous.md "Bridge to MQ queues"): one task per
//! `rv.bridges.to_queues` rule, reading its bus listener and putting each
//! message to the rule's queue through the queue interface (name resolution
//! included, so a remote queue goes to its transmission queue). A message
//! that cannot be put is dead-lettered with the put's reason; one that the
//! dead-letter queue refuses too is logged as lost. Nothing is dropped
//! without an error in the log.

use super::config::{BodyForm, ToQueueRule};
use super::mq_form::{FormError, persistence, to_mq};
use crate::mqi::{DeadLetterPut, Mqi, Object, Outgoing, PutOptions};
use crate::rv::{Delivery, Listener};

/// Runs rule `rule` until its listener ends (the bus closed and every
/// queued message was put).
pub(super) async fn run(mqi: Mqi, mut listener: Listener, rule: ToQueueRule) {
    let obj = match mqi.open(&rule.queue, &rule.q_mgr) {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(queue = %rule.queue, q_mgr = %rule.q_mgr, mqrc = e.mqrc.0, error = %e.message, "subject bridge cannot open its queue; rule not started");
            return;
        }
    };
    tracing::info!(subject = %rule.subject, queue = %rule.queue, q_mgr = %rule.q_mgr, "bridge from subject to queue started");
    while let Some(d) = listener.recv().await {
        if d.subject().starts_with("_RV.") {
            // The listener's own CLIENT.SLOWCONSUMER: messages were lost
            // before they reached this rule (the listener logged the counts).
            tracing::error!(subject = %rule.subject, queue = %rule.queue, advisory = %d.subject(), "messages for the queue were discarded: the puts did not keep up with the subject");
            continue;
        }
        deliver(&mqi, &obj, &rule, &d).await;
    }
}

/// Puts one message, or dead-letters it.
async fn deliver(mqi: &Mqi, obj: &Object, rule: &ToQueueRule, d: &Delivery) {
    let per = persistence(rule.persistent);
    let msg = match to_mq(d.envelope(), d.json(), rule.body, per) {
        Ok(m) => m,
        Err(e) => {
            // The RFH2 form cannot hold it: the JSON form always can, and
            // keeps every field for whoever reads the dead-letter queue.
            let Ok(json) = to_mq(d.envelope(), d.json(), BodyForm::Json, per) else {
                return;
            };
            dead_letter(mqi, rule, d, json, e).await;
            return;
        }
    };
    let pmo = PutOptions {
        new_msg_id: true,
        ..PutOptions::default()
    };
    match mqi.put(obj, msg.clone(), pmo).await {
        Ok(r) => {
            tracing::debug!(subject = %d.subject(), queue = %r.queue, msg_id = %hex::encode_upper(r.msg_id), "subject bridged to queue")
        }
        Err(e) => {
            let err = FormError {
                mqrc: e.mqrc,
                message: e.message,
            };
            dead_letter(mqi, rule, d, msg, err).await;
        }
    }
}

/// Puts `msg` on the dead-letter queue with `why.mqrc`; logs either way.
async fn dead_letter(mqi: &Mqi, rule: &ToQueueRule, d: &Delivery, msg: Outgoing, why: FormError) {
    let dl = DeadLetterPut {
        message: msg,
        reason: why.mqrc,
        dest_q: rule.queue.clone(),
        dest_q_mgr: rule.q_mgr.clone(),
    };
    match mqi.dead_letter(dl).await {
        Ok(r) => tracing::warn!(
            subject = %d.subject(),
            queue = %rule.queue,
            dead_letter_queue = %r.queue,
            reason = why.mqrc.0,
            error = %why.message,
            "subject bridge could not put a message to its queue; dead-lettered"
        ),
        Err(e) => tracing::error!(
            subject = %d.subject(),
            queue = %rule.queue,
            reason = why.mqrc.0,
            error = %why.message,
            dlq_reason = e.mqrc.0,
            dlq_error = %e.message,
            "subject bridge could not put a message to its queue nor dead-letter it; message lost"
        ),
    }
}
