//! The transmission-queue form of a message: what a put to a remote destination
//! stores on the transmission queue (IBM MQ "MQXQH - Transmission-queue
//! header", "Name resolution").

use super::QmError;
use super::message::Message;
use crate::route::RemoteName;
use mqgate_codecs::mq::constants::{enc, fmt};
use mqgate_codecs::mq::xqh::{parse_xqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc, Mqxqh};

/// CodedCharSetId of mqgate's own headers (MQXQH, MQDLH): the queue
/// manager's, UTF-8 (1208), whose invariant characters are ASCII's. One
/// value with the exits' [`mqgate_exits::Q_MGR_CCSID`], which headers an exit
/// inserts take for MQCCSI_Q_MGR.
pub const Q_MGR_CCSID: i32 = mqgate_exits::Q_MGR_CCSID;

/// The transmission-queue form of a message: data = MQXQH (RemoteQName,
/// RemoteQMgrName, the MD as version 1, every character field blank padded:
/// [`Mqxqh::for_message`]) + the original data; the outer MD is a copy with
/// Format MQXMIT, Encoding 546, CodedCharSetId 1208.
pub(super) fn wrap(
    remote: &RemoteName,
    md: Mqmd,
    cs: Charset,
    data: &[u8],
    expires_at_ms: Option<u64>,
) -> Result<Message, QmError> {
    if md.needs_mde() {
        return Err(QmError::new(
            Mqrc::MD_ERROR,
            "GroupId/MsgSeqNumber/Offset/MsgFlags/OriginalLength need an MQMDE, which remote puts do not carry",
        ));
    }
    let name_error = |what: &str, e: mqgate_codecs::mq::FieldError| {
        QmError::new(Mqrc::OBJECT_NAME_ERROR, format!("{what}: {e}"))
    };
    // Both names are checked apart so the error names the one at fault.
    CharField::<48>::name(&remote.remote_q_name, cs).map_err(|e| name_error("RemoteQName", e))?;
    CharField::<48>::name(&remote.remote_q_mgr_name, cs)
        .map_err(|e| name_error("RemoteQMgrName", e))?;
    // A structure mqgate builds: blank padded, no NUL copied from the MD.
    let xqh = Mqxqh::for_message(&remote.remote_q_name, &remote.remote_q_mgr_name, &md, cs)
        .map_err(|e| name_error("MQXQH", e))?;
    let mut out = Vec::with_capacity(mqgate_codecs::mq::xqh::XQH_LENGTH + data.len());
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(data);
    let outer = Mqmd {
        format: CharField(*fmt::XMIT_Q_HEADER),
        encoding: enc::REVERSED,
        coded_char_set_id: Q_MGR_CCSID,
        ..md
    };
    Ok(Message {
        md: outer,
        charset: cs,
        data: out.into(),
        expires_at_ms,
    })
}

/// Checks a message put straight onto transmission queue `queue` (not
/// through a remote destination, whose MQXQH the queue manager builds
/// itself, [`wrap`]): its data must start with a valid MQXQH, its embedded
/// MQMD included (IBM MQ "MQXQH - Transmission-queue header": an application
/// that puts directly to a transmission queue prefixes the data with one).
/// Integers are big-endian when the Version field reads `00 00 00 01`,
/// little-endian otherwise; StrucIds in ASCII or EBCDIC. A message without
/// one would be sent on the sender channel and could never be delivered.
/// Errors: 2142 MQRC_HEADER_ERROR naming the queue, the structure, the
/// offset and what was wrong.
pub(super) fn check_xqh(queue: &str, data: &[u8]) -> Result<(), QmError> {
    let order = match data.get(4..8) {
        Some([0, 0, 0, 1]) => ByteOrder::Big,
        _ => ByteOrder::Little,
    };
    parse_xqh(data, order).map(|_| ()).map_err(|e| {
        QmError::new(
            Mqrc::HEADER_ERROR,
            format!(
                "queue {queue} is a transmission queue: a message put on it must start with a valid MQXQH; {e}"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::qmgr::{GetMode, PutOptions, QueueManager, Selector};
    use crate::store::redb::RedbStore;
    use bytes::Bytes;
    use mqgate_codecs::mq::{CharField, Charset, Mqmd};
    use std::sync::Arc;

    /// Queue manager QM1 with transmission queue QM2 and remote queue
    /// REMOTE.Q (APP.IN at QM2), its store in `dir`.
    fn qm_with_xmitq(dir: &std::path::Path) -> Arc<QueueManager> {
        let config = Config::from_yaml(
            "queue_manager:\n  name: QM1\nqueues:\n  - type: local\n    name: QM2\n    usage: xmitq\n  - type: remote\n    name: REMOTE.Q\n    remote_q_name: APP.IN\n    remote_q_mgr_name: QM2\n",
            "test",
        )
        .unwrap();
        let store = Arc::new(RedbStore::open(dir).unwrap());
        Arc::new(QueueManager::open(&config, store).unwrap())
    }

    #[test]
    fn an_mqmd_with_nul_padded_fields_is_wrapped_into_a_blank_padded_mqxqh() {
        let dir = tempfile::tempdir().unwrap();
        let qm = qm_with_xmitq(dir.path());
        // An application's MQMD with NUL-padded ReplyToQ, ReplyToQMgr and
        // Format (MQ allows either padding on input; a NUL ends the name).
        let mut reply_to_q = [0u8; 48];
        reply_to_q[..8].copy_from_slice(b"REPLY.TO");
        let mut reply_to_q_mgr = [0u8; 48];
        reply_to_q_mgr[..3].copy_from_slice(b"QMR");
        let md = Mqmd {
            format: CharField(*b"MQSTR\0\0\0"),
            reply_to_q: CharField(reply_to_q),
            reply_to_q_mgr: CharField(reply_to_q_mgr),
            ..Mqmd::default()
        };
        qm.put(
            "REMOTE.Q",
            md,
            Charset::Ascii,
            Bytes::from_static(b"payload"),
            &PutOptions::default(),
        )
        .unwrap();
        let got = qm
            .get(
                "QM2",
                &Selector::default(),
                GetMode::Destructive { uow: None },
            )
            .unwrap();
        let x = &got.data;
        // IBM MQ "MQXQH - Transmission-queue header": RemoteQName @8, RemoteQMgrName @56,
        // MsgDesc @104; "MQMD - Message descriptor" offsets: Format @32, ReplyToQ
        // @100, ReplyToQMgr @148, UserIdentifier @196 (12), ApplIdentityData
        // @240 (32), PutApplName @276 (28), PutDate @304, PutTime @312,
        // ApplOriginData @320 (4). "Rules for naming IBM MQ objects": mqgate
        // writers pad with blanks, never NUL.
        let blank_after = |at: usize, len: usize, text: &[u8]| {
            let f = &x[at..at + len];
            assert_eq!(&f[..text.len()], text, "field at {at}");
            assert!(f[text.len()..].iter().all(|&b| b == b' '), "{at}: {f:02X?}");
        };
        blank_after(8, 48, b"APP.IN");
        blank_after(56, 48, b"QM2");
        blank_after(104 + 32, 8, b"MQSTR");
        blank_after(104 + 100, 48, b"REPLY.TO");
        blank_after(104 + 148, 48, b"QMR");
        for (at, len) in [
            (196, 12),
            (240, 32),
            (276, 28),
            (304, 8),
            (312, 8),
            (320, 4),
        ] {
            assert!(
                !x[104 + at..104 + at + len].contains(&0),
                "NUL in the MD field at {at}"
            );
        }
        assert_eq!(&x[428..], b"payload");
    }

    #[test]
    fn a_put_straight_to_a_transmission_queue_needs_an_mqxqh() {
        let dir = tempfile::tempdir().unwrap();
        let qm = qm_with_xmitq(dir.path());
        let opts = PutOptions::default();
        // Data that is no MQXQH: 2142 MQRC_HEADER_ERROR (IBM MQ "2142
        // (08AE) (RC2142): MQRC_HEADER_ERROR": the message data holds a
        // header structure that is not valid); nothing is queued.
        let e = qm
            .put(
                "QM2",
                Mqmd::default(),
                Charset::Ascii,
                Bytes::from_static(b"junk"),
                &opts,
            )
            .unwrap_err();
        assert_eq!(e.mqrc.0, 2142);
        assert!(
            e.message.starts_with("queue QM2 is a transmission queue"),
            "{}",
            e.message
        );
        // An MQXQH whose embedded MQMD (at offset 104, StrucId "MD  ") is
        // damaged: the same.
        qm.put(
            "REMOTE.Q",
            Mqmd::default(),
            Charset::Ascii,
            Bytes::from_static(b"p"),
            &opts,
        )
        .unwrap();
        let wrapped = qm
            .get(
                "QM2",
                &Selector::default(),
                GetMode::Destructive { uow: None },
            )
            .unwrap()
            .data;
        let mut bad = wrapped.to_vec();
        // The MQMD's StrucId "MD  " replaced (IBM MQ "MQMD - Message descriptor").
        bad[104..108].copy_from_slice(b"BAD ");
        let e = qm
            .put(
                "QM2",
                Mqmd::default(),
                Charset::Ascii,
                Bytes::from(bad),
                &opts,
            )
            .unwrap_err();
        assert_eq!(e.mqrc.0, 2142, "{}", e.message);
        // A valid transmission message is taken as it is.
        qm.put(
            "QM2",
            Mqmd::default(),
            Charset::Ascii,
            wrapped.clone(),
            &opts,
        )
        .unwrap();
        let got = qm
            .get(
                "QM2",
                &Selector::default(),
                GetMode::Destructive { uow: None },
            )
            .unwrap();
        assert_eq!(got.data, wrapped);
    }
}
