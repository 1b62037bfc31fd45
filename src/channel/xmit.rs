//! Transmission messages (MQXQH + data; IBM MQ "MQXQH - Transmission-queue header"): byte
//! order detection and building one from a plain message.

use mqgate_codecs::mq::xqh::{XQH_LENGTH, parse_xqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, DecodeError, Mqmd, Mqxqh};

/// The byte order of an MQXQH's integers, from its Version field (offset 4,
/// always 1): `00 00 00 01` is big-endian, anything else little-endian.
pub fn xqh_order(buf: &[u8]) -> ByteOrder {
    match buf.get(4..8) {
        Some([0, 0, 0, 1]) => ByteOrder::Big,
        _ => ByteOrder::Little,
    }
}

/// True when `buf` starts with an MQXQH StrucId (`XQH ` in ASCII or EBCDIC).
pub fn starts_with_xqh(buf: &[u8]) -> bool {
    matches!(buf.get(..4), Some(b"XQH ") | Some([0xE7, 0xD8, 0xC8, 0x40]))
}

/// Parses the MQXQH at the start of a transmission message.
/// Errors: as [`parse_xqh`] (2142 / 2026 with structure and offset).
pub fn parse(buf: &[u8]) -> Result<(Mqxqh, Charset), DecodeError> {
    parse_xqh(buf, xqh_order(buf))
}

/// Builds a transmission message: an MQXQH (Version 1, integers little-endian
/// as Encoding 546, ASCII names) carrying RemoteQName `remote_q`,
/// RemoteQMgrName `remote_q_mgr` and `md` (written as version 1), then `data`.
/// Errors: a name longer than 48 or with a non-invariant character.
pub fn wrap(remote_q: &str, remote_q_mgr: &str, md: Mqmd, data: &[u8]) -> Result<Vec<u8>, String> {
    let cs = Charset::Ascii;
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(remote_q, cs).map_err(|e| format!("RemoteQName: {e}"))?,
        remote_q_mgr_name: CharField::new(remote_q_mgr, cs)
            .map_err(|e| format!("RemoteQMgrName: {e}"))?,
        msg_desc: Mqmd { version: 1, ..md },
    };
    let mut out = Vec::with_capacity(XQH_LENGTH + data.len());
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(data);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::mq::xqh::{REMOTE_Q_MGR_NAME_OFFSET, REMOTE_Q_NAME_OFFSET};

    #[test]
    fn a_wrapped_message_parses_back_with_its_names_and_data() {
        let md = Mqmd {
            format: CharField(*b"MQHRF2  "),
            encoding: 273,
            ..Mqmd::default()
        };
        let t = wrap("INBOX%DEV0001", "MQGATE", md, b"body").unwrap();
        // IBM MQ "MQXQH - Transmission-queue header": StrucId "XQH ", RemoteQName at 8,
        // RemoteQMgrName at 56, MD at 104, 428 bytes in all.
        assert_eq!(&t[..4], b"XQH ");
        assert_eq!(
            &t[REMOTE_Q_NAME_OFFSET..REMOTE_Q_NAME_OFFSET + 13],
            b"INBOX%DEV0001"
        );
        assert_eq!(
            &t[REMOTE_Q_MGR_NAME_OFFSET..REMOTE_Q_MGR_NAME_OFFSET + 6],
            b"MQGATE"
        );
        assert_eq!(&t[428..], b"body");
        assert_eq!(xqh_order(&t), ByteOrder::Little);
        let (x, cs) = parse(&t).unwrap();
        assert_eq!(x.remote_q_name.text(cs), "INBOX%DEV0001");
        assert_eq!(x.msg_desc.encoding, 273);
        assert_eq!(x.msg_desc.format.0, *b"MQHRF2  ");
    }
}
