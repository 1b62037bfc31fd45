//! Expiry: messages met past their Expiry are discarded, with the report the
//! message asked for (MQ docs: MQMD Expiry and Report, MQRO_EXPIRATION*).

use super::queue::Entry;
use super::{Message, PutOptions, QueueManager};
use crate::store::Batch;
use bytes::Bytes;
use mqgate_codecs::mq::Mqmd;
use mqgate_codecs::mq::constants::{mt, ro};
use mqgate_codecs::mq::md::ID_NONE;

/// MQFB_EXPIRATION: feedback of an expiry report (MQ docs: MQMD Feedback).
pub const FB_EXPIRATION: i32 = 258;
/// MQRO_EXPIRATION_WITH_DATA: the report carries the first 100 bytes.
const RO_EXPIRATION_WITH_DATA: i32 = 0x0060_0000;
/// MQRO_EXPIRATION_WITH_FULL_DATA: the report carries all the data.
const RO_EXPIRATION_WITH_FULL_DATA: i32 = 0x00E0_0000;

impl QueueManager {
    /// Removes expired messages (store key, entry) from the store and the
    /// body cache and sends the expiry reports they asked for; a stored
    /// message that wants one is read back first. Failures are logged: the
    /// message has expired either way.
    pub(super) fn discard_expired(&self, expired: Vec<(u64, Entry)>) {
        if expired.is_empty() {
            return;
        }
        let mut reports = Vec::new();
        for (key, e) in &expired {
            if !e.index.wants_expiry_report() {
                continue;
            }
            let msg = match &e.resident {
                Some(m) => Ok(std::sync::Arc::new((**m).clone())),
                None => self.read_stored(*key, false),
            };
            match msg {
                Ok(m) => reports.push(m),
                Err(err) => {
                    tracing::error!(msg_id = %hex::encode_upper(e.index.msg_id), error = %err, "expiry report lost: the expired message cannot be read")
                }
            }
        }
        let deletes = expired
            .iter()
            .filter(|(_, e)| e.index.is_persistent())
            .map(|(seq, _)| *seq)
            .collect();
        if let Err(e) = self.store.apply(&Batch {
            deletes,
            ..Batch::default()
        }) {
            tracing::error!(error = %e, "could not remove expired messages from the store");
        }
        for (key, e) in expired {
            self.cache.remove(key);
            tracing::debug!(
                msg_id = %hex::encode_upper(e.index.msg_id),
                correl_id = %hex::encode_upper(e.index.correl_id()),
                "expired message discarded"
            );
        }
        for m in reports {
            self.send_expiry_report(&m);
        }
    }

    /// MQRO_EXPIRATION*: a report (MsgType REPORT, Feedback MQFB_EXPIRATION) to
    /// ReplyToQ at ReplyToQMgr; CorrelId = the original MsgId unless
    /// MQRO_PASS_CORREL_ID, MsgId new unless MQRO_PASS_MSG_ID (MQ docs: MQMD Report).
    fn send_expiry_report(&self, m: &Message) {
        let report = m.md.report;
        if report & ro::EXPIRATION == 0 {
            return;
        }
        let cs = m.charset;
        let reply_q = m.md.reply_to_q.text(cs);
        if reply_q.is_empty() {
            return;
        }
        let data = if report & RO_EXPIRATION_WITH_FULL_DATA == RO_EXPIRATION_WITH_FULL_DATA {
            m.data.clone()
        } else if report & RO_EXPIRATION_WITH_DATA == RO_EXPIRATION_WITH_DATA {
            m.data.slice(..m.data.len().min(100))
        } else {
            Bytes::new()
        };
        let md = Mqmd {
            msg_type: mt::REPORT,
            feedback: FB_EXPIRATION,
            encoding: m.md.encoding,
            coded_char_set_id: m.md.coded_char_set_id,
            format: m.md.format,
            priority: m.md.priority,
            persistence: m.md.persistence,
            msg_id: if report & ro::PASS_MSG_ID != 0 {
                m.md.msg_id
            } else {
                ID_NONE
            },
            correl_id: if report & ro::PASS_CORREL_ID != 0 {
                m.md.correl_id
            } else {
                m.md.msg_id
            },
            ..Mqmd::default()
        };
        let opts = PutOptions {
            q_mgr_name: m.md.reply_to_q_mgr.text(cs),
            ..PutOptions::default()
        };
        let reply_q_mgr = opts.q_mgr_name.clone();
        if let Err(e) = self.put(&reply_q, md.clone(), cs, data.clone(), &opts) {
            // MQ puts an undeliverable report on the dead-letter queue.
            if let Err(e2) = self.dead_letter(&md, cs, &data, e.mqrc, &reply_q, &reply_q_mgr) {
                tracing::error!(queue = %reply_q, error = %e, dead_letter_error = %e2, "expiry report lost: neither delivered nor dead-lettered");
            }
        }
    }
}
