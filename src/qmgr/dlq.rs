//! The dead-letter queue: a message the queue manager cannot deliver on
//! someone's behalf goes there behind an MQDLH that names the MQRC reason and
//! the destination it was meant for (IBM MQ "MQDLH - Dead-letter header";
//! mqgate's rule: a message is never dropped silently).

use super::{PutOptions, PutResult, QmError, QueueManager, clock};
use bytes::Bytes;
use mqgate_codecs::mq::constants::at;
use mqgate_codecs::mq::dlh::{self, Mqdlh, write_dlh};
use mqgate_codecs::mq::{ByteOrder, Charset, Mqmd, Mqrc};

/// A message bound for the dead-letter queue and why: the original MQMD
/// (character fields in `charset`) and data, the MQRC reason and the
/// destination it was meant for (the MQDLH's Reason, DestQName and
/// DestQMgrName; IBM MQ "MQDLH - Dead-letter header").
#[derive(Clone, Copy, Debug)]
pub struct DeadLetter<'a> {
    pub md: &'a Mqmd,
    pub charset: Charset,
    pub data: &'a [u8],
    pub reason: Mqrc,
    pub dest_q: &'a str,
    pub dest_q_mgr: &'a str,
}

impl QueueManager {
    /// Puts a message on the dead-letter queue: data = MQDLH (Reason `reason`,
    /// DestQName `dest_q`, DestQMgrName `dest_q_mgr`, the original
    /// Encoding/CodedCharSetId/Format, PutApplType 7 MQAT_QMGR, PutApplName
    /// `mqgate`) + the original data; the MD keeps its MsgId, CorrelId and
    /// context, with Format `MQDEAD`. The DLH's integers follow the MD's Encoding.
    ///
    /// Errors: no dead-letter queue is configured (2085), a name does not fit
    /// the DLH (2152), or the put to the dead-letter queue fails.
    pub fn dead_letter(
        &self,
        md: &Mqmd,
        charset: Charset,
        data: &[u8],
        reason: Mqrc,
        dest_q: &str,
        dest_q_mgr: &str,
    ) -> Result<PutResult, QmError> {
        let msg = DeadLetter {
            md,
            charset,
            data,
            reason,
            dest_q,
            dest_q_mgr,
        };
        self.dead_letter_as(&msg, "mqgate", None)
    }

    /// Like [`QueueManager::dead_letter`] for `msg`, with the MQDLH
    /// PutApplName `put_appl_name` (a channel puts its channel name there, as
    /// MQ's channel agents do) and under unit of work `uow` (so a
    /// dead-lettered message of a channel batch is committed with the batch,
    /// never alone).
    pub fn dead_letter_as(
        &self,
        msg: &DeadLetter<'_>,
        put_appl_name: &str,
        uow: Option<u64>,
    ) -> Result<PutResult, QmError> {
        let DeadLetter {
            md,
            charset,
            data,
            reason,
            dest_q,
            dest_q_mgr,
        } = *msg;
        if self.dead_letter_queue.is_empty() {
            return Err(QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                "no dead-letter queue is configured",
            ));
        }
        let put_at = clock::put_timestamp(clock::now_ms())
            .ok_or_else(|| QmError::new(Mqrc::UNEXPECTED_ERROR, "the clock is out of range"))?;
        let dl = dlh::DeadLetter {
            reason: reason.0,
            dest_q_name: dest_q,
            dest_q_mgr_name: dest_q_mgr,
            put_appl_type: at::QMGR,
            put_appl_name,
            put_at,
        };
        let (dlh, dlq_md) = Mqdlh::for_message(md, &dl, charset)
            .map_err(|e| QmError::new(Mqrc::OBJECT_NAME_ERROR, format!("MQDLH: {e}")))?;
        let mut out = Vec::with_capacity(mqgate_codecs::mq::dlh::DLH_LENGTH + data.len());
        write_dlh(
            &dlh,
            ByteOrder::from_encoding(dlq_md.encoding),
            charset,
            &mut out,
        );
        out.extend_from_slice(data);
        let opts = PutOptions {
            pass_all_context: true,
            uow,
            ..PutOptions::default()
        };
        let dlq = self.dead_letter_queue.clone();
        let r = self.put(&dlq, dlq_md, charset, Bytes::from(out), &opts)?;
        tracing::warn!(
            queue = %dlq,
            msg_id = %hex::encode_upper(r.msg_id),
            correl_id = %hex::encode_upper(r.correl_id),
            reason = reason.0,
            dest_q = %dest_q,
            dest_q_mgr = %dest_q_mgr,
            "message dead-lettered"
        );
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::qmgr::{GetMode, QueueManager, Selector};
    use crate::store::redb::RedbStore;
    use mqgate_codecs::mq::dlh::parse_dlh;
    use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
    use std::sync::Arc;

    #[test]
    fn a_dead_lettered_message_carries_an_mqdlh() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(RedbStore::open(dir.path()).unwrap());
        let qm = QueueManager::open(&Config::default(), store).unwrap();
        let md = Mqmd {
            msg_id: [3; 24],
            format: CharField(*b"MQSTR   "),
            coded_char_set_id: 819,
            put_appl_name: CharField::new("sender", Charset::Ascii).unwrap(),
            ..Mqmd::default()
        };
        qm.dead_letter(
            &md,
            Charset::Ascii,
            b"body",
            Mqrc::PUT_INHIBITED,
            "DLQ.TARGET",
            "QM2",
        )
        .unwrap();
        let got = qm
            .get(
                "SYSTEM.DEAD.LETTER.QUEUE",
                &Selector::default(),
                GetMode::Browse { after: None },
            )
            .unwrap();
        // IBM MQ "MQDLH - Dead-letter header": MD Format MQDEAD, DLH 172 bytes
        // carrying the original Format/CCSID; the example DLH has Reason 2051
        // PUT_INHIBITED.
        assert_eq!(got.md.format.0, *b"MQDEAD  ");
        assert_eq!(got.md.msg_id, [3; 24]);
        assert_eq!(got.md.put_appl_name.text(Charset::Ascii), "sender");
        let (dlh, _) = parse_dlh(&got.data, ByteOrder::Little).unwrap();
        assert_eq!(dlh.reason, 2051);
        assert_eq!(dlh.dest_q_name.text(Charset::Ascii), "DLQ.TARGET");
        assert_eq!(dlh.dest_q_mgr_name.text(Charset::Ascii), "QM2");
        assert_eq!(dlh.format.0, *b"MQSTR   ");
        assert_eq!(dlh.coded_char_set_id, 819);
        assert_eq!(dlh.put_appl_type, 7);
        assert_eq!(&got.data[172..], b"body");
    }

    #[test]
    fn names_and_format_from_nul_padded_fields_are_blank_padded_in_the_mqdlh() {
        // A transmission message whose MQXQH RemoteQName/RemoteQMgrName and
        // MQMD Format are NUL padded, dead-lettered as a receiver channel
        // does it: the names read up to the first NUL (CharField::text).
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(RedbStore::open(dir.path()).unwrap());
        let qm = QueueManager::open(&Config::default(), store).unwrap();
        let mut rq = [0u8; 48];
        rq[..11].copy_from_slice(b"APP.NOWHERE");
        let mut rqm = [0u8; 48];
        rqm[..10].copy_from_slice(b"QM.NOWHERE");
        let (rq, rqm) = (CharField(rq), CharField(rqm));
        let md = Mqmd {
            format: CharField(*b"MQSTR\0\0\0"),
            ..Mqmd::default()
        };
        let msg = super::DeadLetter {
            md: &md,
            charset: Charset::Ascii,
            data: b"body",
            reason: Mqrc::UNKNOWN_REMOTE_Q_MGR,
            dest_q: &rq.text(Charset::Ascii),
            dest_q_mgr: &rqm.text(Charset::Ascii),
        };
        qm.dead_letter_as(&msg, "TO.GW", None).unwrap();
        let got = qm
            .get(
                "SYSTEM.DEAD.LETTER.QUEUE",
                &Selector::default(),
                GetMode::Destructive { uow: None },
            )
            .unwrap();
        let d = &got.data;
        // IBM MQ "MQDLH - Dead-letter header": DestQName @12 (48), DestQMgrName @60
        // (48), Format @116 (8), PutApplName @128 (28), PutDate @156,
        // PutTime @164; IBM MQ "Rules for naming IBM MQ objects": mqgate writers
        // pad with blanks, never NUL.
        let blank_after = |at: usize, len: usize, text: &[u8]| {
            let f = &d[at..at + len];
            assert_eq!(&f[..text.len()], text, "field at {at}");
            assert!(f[text.len()..].iter().all(|&b| b == b' '), "{at}: {f:02X?}");
        };
        blank_after(12, 48, b"APP.NOWHERE");
        blank_after(60, 48, b"QM.NOWHERE");
        blank_after(116, 8, b"MQSTR");
        blank_after(128, 28, b"TO.GW");
        assert!(!d[156..172].contains(&0));
        // 2087 MQRC_UNKNOWN_REMOTE_Q_MGR, little-endian as the MD's Encoding 546.
        assert_eq!(&d[8..12], &2087i32.to_le_bytes());
        assert_eq!(&d[172..], b"body");
    }
}
