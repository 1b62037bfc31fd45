//! What an RTQ queue may hold: RTQ requests only (docs/tuxedo.md "How it
//! works"). The queue manager runs [`RtqQueues`] on every put onto one of
//! the DMCONFIG's RTQ queues — an HTTP or CLI put, a distribution list, a
//! message channel's message, a tpenqueue after its before_put exits — so a
//! message the RTQ API could never hand out is refused with 2110
//! MQRC_FORMAT_ERROR instead of taking a place on the queue unseen.

use super::envelope;
use super::load::Loaded;
use super::qm_queue_name;
use crate::mqi::{PutCheck, QmError};
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use std::collections::HashMap;

/// The RTQ queues of a DMCONFIG (queue-manager name `RTQ.<group>.<name>` →
/// the QSPACE entries that name it) and the check a put onto one must pass.
#[derive(Clone, Debug)]
pub struct RtqQueues {
    queues: HashMap<String, Vec<String>>,
}

impl RtqQueues {
    /// The RTQ queues every QSPACE entry of `loaded` names.
    pub fn new(loaded: &Loaded) -> RtqQueues {
        let mut queues: HashMap<String, Vec<String>> = HashMap::new();
        for q in &loaded.dm.remote_services.qspaces {
            queues
                .entry(qm_queue_name(&q.rtq_group, &q.rtq_name))
                .or_default()
                .push(q.name.clone());
        }
        RtqQueues { queues }
    }
}

impl PutCheck for RtqQueues {
    /// A put onto an RTQ queue must be an RTQ request: MQMD Format `MQGRTQ`
    /// and data that reads as the request envelope ([`envelope::decode`]:
    /// header length, JSON header, buffer). Otherwise 2110
    /// MQRC_FORMAT_ERROR (IBM MQ "API reason codes": the message format is
    /// not valid), naming the queue, its QSPACE and what is wrong. Any put
    /// onto another queue passes.
    fn check(&self, queue: &str, md: &Mqmd, charset: Charset, data: &[u8]) -> Result<(), QmError> {
        let Some(qspaces) = self.queues.get(queue) else {
            return Ok(());
        };
        let format = md.format.text(charset);
        let wrong = if format != envelope::FORMAT {
            format!("its MQMD Format is {format:?}")
        } else {
            match envelope::decode(data) {
                Ok(_) => return Ok(()),
                Err(e) => format!("its data is not the RTQ request envelope: {e}"),
            }
        };
        Err(QmError::new(
            Mqrc::FORMAT_ERROR,
            format!(
                "queue {queue} is the RTQ queue of QSPACE {}: only RTQ requests (MQMD Format {} \
                 and the request envelope, docs/tuxedo.md) may be put on it, and {wrong}; \
                 enqueue with tpenqueue (POST /v1/tux/tpenqueue, mqgate tpenqueue)",
                qspaces.join(", "),
                envelope::FORMAT
            ),
        ))
    }
}
