//! The transmission-queue form of a message: what a put to a remote destination
//! stores on the transmission queue (IBM MQ "MQXQH - Transmission-queue
//! header", "Name resolution").

use super::QmError;
use super::message::Message;
use crate::route::RemoteName;
use mqgate_codecs::mq::constants::{enc, fmt};
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc, Mqxqh};

/// CodedCharSetId of mqgate's own headers (MQXQH, MQDLH): UTF-8 (1208), whose
/// invariant characters are ASCII's.
pub const Q_MGR_CCSID: i32 = 1208;

/// The transmission-queue form of a message: data = MQXQH (RemoteQName,
/// RemoteQMgrName, the MD as version 1) + the original data; the outer MD is a
/// copy with Format MQXMIT, Encoding 546, CodedCharSetId 1208.
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
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(&remote.remote_q_name, cs)
            .map_err(|e| name_error("RemoteQName", e))?,
        remote_q_mgr_name: CharField::new(&remote.remote_q_mgr_name, cs)
            .map_err(|e| name_error("RemoteQMgrName", e))?,
        msg_desc: Mqmd {
            version: 1,
            ..md.clone()
        },
    };
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
