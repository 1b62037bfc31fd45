//! Certified subject to queue (docs/rendezvous.md "Certified bridges"): a
//! `rv.bridges.to_queues` rule with `certified: CMNAME` listens as a
//! certified listener of CM transport CMNAME (a persistent correspondent,
//! explicit confirmation) and puts each message to its queue as a
//! persistent MQ message.
//!
//! A certified message is put under a unit of work, and the unit is
//! committed together with the listener ledger's record of its
//! confirmation ([`CmTransport::confirm_with`]): the put and the
//! confirmation are durable together or not at all. A crash before the
//! commit leaves neither, and the sender, which still keeps the message,
//! sends it again; a crash after it leaves both, and the listener's ledger
//! drops the message when it comes again. So each certified message is on
//! the queue exactly once (IBM MQ "Units of work"; TIBCO Rendezvous
//! Concepts, "Certified Message Delivery").

use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::rv::msg::Envelope;

use super::config::{BodyForm, ToQueueRule};
use super::from_queue::{RETRY_PAUSE, stopping};
use super::mq_form::{FormError, to_mq};
use super::to_queue::deliver;
use crate::mqi::{DeadLetter, Mqi, Object, Outgoing, PutOptions, QmError};
use crate::rv::cm::{CmError, CmListener, CmTransport};

/// Runs rule `rule` until its certified listener ends (the gateway stops
/// or the transport is closed).
pub(super) async fn run(mqi: Mqi, mut listener: CmListener, rule: ToQueueRule) {
    let obj = match mqi.open(&rule.queue, &rule.q_mgr) {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(queue = %rule.queue, q_mgr = %rule.q_mgr, mqrc = e.mqrc.0, error = %e.message, "subject bridge cannot open its queue; rule not started");
            return;
        }
    };
    let transport = listener.transport().clone();
    tracing::info!(subject = %rule.subject, queue = %rule.queue, q_mgr = %rule.q_mgr, cm_name = %transport.name(), "certified bridge from subject to queue started");
    while let Some(d) = listener.recv().await {
        let env = d.envelope;
        let json = crate::rv::json::envelope_to_json(&env).to_string();
        let certified = env
            .cm
            .as_ref()
            .filter(|c| c.sequence > 0)
            .map(|c| (c.sender.clone(), c.sequence));
        match certified {
            Some((sender, sequence)) => {
                let m = Certified {
                    env: &env,
                    json: &json,
                    sender: &sender,
                    sequence,
                };
                if !put_and_confirm(&mqi, &obj, &rule, &transport, &m).await {
                    break;
                }
            }
            // Not certified (a sender this listener has no agreement with
            // yet, or an ordinary message): put as the rule puts, at most
            // once, and persistent like every message of the rule.
            None => deliver(&mqi, &obj, &rule, &env, &json, per::PERSISTENT).await,
        }
    }
    tracing::info!(subject = %rule.subject, queue = %rule.queue, cm_name = %transport.name(), "certified bridge from subject to queue stopped");
}

/// A certified message as the listener handed it over.
struct Certified<'a> {
    env: &'a Envelope,
    json: &'a str,
    sender: &'a str,
    sequence: u64,
}

/// Puts `m` and confirms it in one unit of work, again after a pause
/// while the queue and the dead-letter queue both refuse it or the commit
/// fails (unconfirmed, it stays in the sender's ledger meanwhile). False
/// when the gateway is stopping: the message is left unconfirmed, and its
/// sender sends it again when the rule listens again.
async fn put_and_confirm(
    mqi: &Mqi,
    obj: &Object,
    rule: &ToQueueRule,
    transport: &CmTransport,
    m: &Certified<'_>,
) -> bool {
    loop {
        let uow = match mqi.begin(None) {
            Ok(u) => u,
            Err(e) if stopping(e.mqrc) => return false,
            Err(e) => {
                tracing::warn!(queue = %rule.queue, mqrc = e.mqrc.0, error = %e.message, "certified subject bridge cannot begin a unit of work");
                tokio::time::sleep(RETRY_PAUSE).await;
                continue;
            }
        };
        if let Err(e) = store_in(mqi, obj, rule, m, uow).await {
            let _ = mqi.backout(uow).await;
            if stopping(e.mqrc) {
                return false;
            }
            tracing::error!(subject = %m.env.subject, queue = %rule.queue, sender = %m.sender, sequence = m.sequence, dlq_reason = e.mqrc.0, dlq_error = %e.message, "certified subject bridge can neither put a message nor dead-letter it; it stays unconfirmed in its sender's ledger and is tried again");
            tokio::time::sleep(RETRY_PAUSE).await;
            continue;
        }
        let me = mqi.clone();
        let confirmed = transport
            .confirm_with(m.sender, &m.env.subject, m.sequence, move |records| {
                me.commit_with_meta_now(uow, records)
            })
            .await;
        match confirmed {
            Ok(()) => {
                tracing::debug!(subject = %m.env.subject, queue = %rule.queue, sender = %m.sender, sequence = m.sequence, "certified message bridged to queue and confirmed");
                return true;
            }
            Err(CmError::Store(e)) => {
                // The commit failed: the unit was backed out, nothing is
                // put and nothing confirmed.
                if stopping(e.mqrc) {
                    return false;
                }
                tracing::error!(subject = %m.env.subject, queue = %rule.queue, sender = %m.sender, sequence = m.sequence, mqrc = e.mqrc.0, error = %e.message, "certified subject bridge could not commit a put with its confirmation; trying again");
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(e) => {
                // The agreement ended meanwhile (DisallowListener): no one
                // keeps the message any more, so it is put uncertified.
                tracing::warn!(subject = %m.env.subject, queue = %rule.queue, sender = %m.sender, sequence = m.sequence, error = %e, "certified subject bridge cannot confirm a message; putting it uncertified");
                if let Err(e) = mqi.commit(uow).await {
                    tracing::error!(subject = %m.env.subject, queue = %rule.queue, mqrc = e.mqrc.0, error = %e.message, "certified subject bridge could not commit a put; message lost");
                }
                return true;
            }
        }
    }
}

/// Puts `m` as a persistent message under `uow`, or, when the put is
/// refused, dead-letters it under `uow` with the put's reason. Errors:
/// the dead-letter queue's refusal too.
async fn store_in(
    mqi: &Mqi,
    obj: &Object,
    rule: &ToQueueRule,
    m: &Certified<'_>,
    uow: u64,
) -> Result<(), QmError> {
    let (msg, why) = match to_mq(m.env, m.json, rule.body, per::PERSISTENT) {
        Ok(msg) => {
            let pmo = PutOptions {
                uow: Some(uow),
                new_msg_id: true,
                ..PutOptions::default()
            };
            match mqi.put(obj, msg.clone(), pmo).await {
                Ok(r) => {
                    tracing::debug!(subject = %m.env.subject, queue = %r.queue, msg_id = %hex::encode_upper(r.msg_id), "certified message put");
                    return Ok(());
                }
                Err(e) => (
                    msg,
                    FormError {
                        mqrc: e.mqrc,
                        message: e.message,
                    },
                ),
            }
        }
        // The RFH2 form cannot hold it: the JSON form always can.
        Err(e) => match to_mq(m.env, m.json, BodyForm::Json, per::PERSISTENT) {
            Ok(json) => (json, e),
            Err(e) => return Err(QmError::new(Mqrc::FORMAT_ERROR, e.message)),
        },
    };
    dead_letter_in(mqi, rule, msg, why.mqrc, uow).await?;
    tracing::warn!(subject = %m.env.subject, queue = %rule.queue, reason = why.mqrc.0, error = %why.message, "certified subject bridge could not put a message to its queue; dead-lettered");
    Ok(())
}

/// Puts `msg` on the dead-letter queue under `uow` with `reason` and the
/// rule's queue as DestQName.
async fn dead_letter_in(
    mqi: &Mqi,
    rule: &ToQueueRule,
    msg: Outgoing,
    reason: Mqrc,
    uow: u64,
) -> Result<(), QmError> {
    let me = mqi.clone();
    let (dest_q, dest_q_mgr) = (rule.queue.clone(), rule.q_mgr.clone());
    Mqi::blocking(move || {
        let dl = DeadLetter {
            md: &msg.md,
            charset: msg.charset,
            data: &msg.data,
            reason,
            dest_q: &dest_q,
            dest_q_mgr: &dest_q_mgr,
        };
        me.dead_letter_as(&dl, "mqgate", Some(uow)).map(|_| ())
    })
    .await
}
