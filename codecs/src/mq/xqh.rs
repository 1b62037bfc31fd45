//! MQXQH, the transmission queue header (IBM MQ "MQXQH - Transmission-queue
//! header"): StrucId `XQH `, Version 1, 428 bytes, with an embedded MQMD
//! version 1.

use super::chain::Descriptor;
use super::enc::{ByteOrder, Fixed};
use super::error::{DecodeError, DecodeErrorKind, need};
use super::field::{CharField, Charset, FieldError};
use super::md::{Mqmd, parse_md, write_md};
use super::strucid::Structure;

/// Length of an MQXQH version 1 in bytes (MQXQH_LENGTH_1).
pub const XQH_LENGTH: usize = 428;
/// Offset of RemoteQName (48 bytes) from the XQH's start.
pub const REMOTE_Q_NAME_OFFSET: usize = 8;
/// Offset of RemoteQMgrName (48 bytes) from the XQH's start.
pub const REMOTE_Q_MGR_NAME_OFFSET: usize = 56;
/// Offset of the embedded MsgDesc (MQMD version 1, 324 bytes).
pub const MSG_DESC_OFFSET: usize = 104;

/// An MQXQH. Its integers use the Encoding of the structure before it (the
/// outer MD of a transmission-queue message); the embedded MQMD describes the
/// original message and its Encoding/CCSID/Format the data after the XQH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqxqh {
    /// Always 1 (the only version IBM defines).
    pub version: i32,
    /// Name of the destination queue at the remote queue manager.
    pub remote_q_name: CharField<48>,
    /// Name of the destination queue manager.
    pub remote_q_mgr_name: CharField<48>,
    /// The original message's MD, version 1.
    pub msg_desc: Mqmd,
}

impl Mqxqh {
    /// The MQXQH mqgate builds for a message put to a remote destination:
    /// RemoteQName `remote_q_name`, RemoteQMgrName `remote_q_mgr_name` and
    /// `md` as version 1, every character field in `cs` (the charset of
    /// `md`'s fields) and blank padded: a name ends at its first NUL
    /// ([`CharField::name`]) and the MD's character fields are rebuilt
    /// without NULs ([`CharField::normalized`]), because a NUL ends a name
    /// in MQ and the next queue manager must not see one (IBM MQ
    /// "Rules for naming IBM MQ objects"). An XQH that is forwarded unchanged keeps its
    /// bytes ([`parse_xqh`] / [`write_xqh`]).
    ///
    /// Errors: a name longer than its field or with non-invariant characters.
    pub fn for_message(
        remote_q_name: &str,
        remote_q_mgr_name: &str,
        md: &Mqmd,
        cs: Charset,
    ) -> Result<Mqxqh, FieldError> {
        Ok(Mqxqh {
            version: 1,
            remote_q_name: CharField::name(remote_q_name, cs)?,
            remote_q_mgr_name: CharField::name(remote_q_mgr_name, cs)?,
            msg_desc: blank_padded_md(md, cs),
        })
    }
}

/// `md` as version 1 with its character fields blank padded in `cs`.
fn blank_padded_md(md: &Mqmd, cs: Charset) -> Mqmd {
    Mqmd {
        version: 1,
        format: md.format.normalized(cs),
        reply_to_q: md.reply_to_q.normalized(cs),
        reply_to_q_mgr: md.reply_to_q_mgr.normalized(cs),
        user_identifier: md.user_identifier.normalized(cs),
        appl_identity_data: md.appl_identity_data.normalized(cs),
        put_appl_name: md.put_appl_name.normalized(cs),
        put_date: md.put_date.normalized(cs),
        put_time: md.put_time.normalized(cs),
        appl_origin_data: md.appl_origin_data.normalized(cs),
        ..md.clone()
    }
}

#[inline]
pub(crate) fn scan_xqh(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    need(Structure::Xqh, input, 8)?;
    let cs = Structure::Xqh.match_struc_id(input).ok_or_else(|| {
        let mut found = [0u8; 4];
        found.copy_from_slice(&input[..4]);
        DecodeError::new(Structure::Xqh, 0, DecodeErrorKind::BadStrucId { found })
    })?;
    let f = Fixed { b: input, order };
    let version = f.i32(4);
    if version != 1 {
        return Err(DecodeError::new(
            Structure::Xqh,
            4,
            DecodeErrorKind::UnsupportedVersion { version },
        ));
    }
    need(Structure::Xqh, input, XQH_LENGTH)?;
    let md = &input[MSG_DESC_OFFSET..XQH_LENGTH];
    // The XQH and its MD are both in the queue manager's CCSID (IBM docs
    // MQXQH); one charset per structure keeps the round trip exact.
    if Structure::Md.match_struc_id(md) != Some(cs) {
        let mut found = [0u8; 4];
        found.copy_from_slice(&md[..4]);
        let kind = DecodeErrorKind::BadStrucId { found };
        return Err(DecodeError::new(Structure::Md, MSG_DESC_OFFSET, kind));
    }
    let md_version = Fixed { b: md, order }.i32(4);
    if md_version != 1 {
        let kind = DecodeErrorKind::UnsupportedVersion {
            version: md_version,
        };
        return Err(DecodeError::new(Structure::Md, MSG_DESC_OFFSET + 4, kind));
    }
    // IBM MQ "MQXQH - Transmission-queue header": the embedded MD's Encoding @+128,
    // CodedCharSetId @+132, Format @+136 (from the XQH start) describe what follows.
    let next = Descriptor {
        encoding: f.i32(128),
        coded_char_set_id: f.i32(132),
        format: CharField(f.array(136)),
        charset: cs,
    };
    Ok((XQH_LENGTH, cs, next))
}

/// Parses an MQXQH from the start of `input` with integers in `order`.
/// Returns the XQH and the charset of its StrucId (the embedded MD must use
/// the same charset and be version 1).
///
/// Errors: truncated, bad StrucId, Version not 1 (2142 MQRC_HEADER_ERROR);
/// faults in the embedded MD are reported as MQMD at offset 104 + field
/// (2026 MQRC_MD_ERROR).
pub fn parse_xqh(input: &[u8], order: ByteOrder) -> Result<(Mqxqh, Charset), DecodeError> {
    let (_, cs, _) = scan_xqh(input, order)?;
    let f = Fixed { b: input, order };
    let (msg_desc, _) = parse_md(&input[MSG_DESC_OFFSET..XQH_LENGTH], order)
        .map_err(|e| e.shifted(MSG_DESC_OFFSET))?;
    Ok((
        Mqxqh {
            version: 1,
            remote_q_name: CharField(f.array(REMOTE_Q_NAME_OFFSET)),
            remote_q_mgr_name: CharField(f.array(REMOTE_Q_MGR_NAME_OFFSET)),
            msg_desc,
        },
        cs,
    ))
}

/// Appends `x` (428 bytes) to `out`: integers in `order`, StrucIds in `cs`.
/// The embedded MD is written as version 1 whatever `msg_desc.version` says
/// (its v2 fields travel in an MQMDE; see [`Mqmd::needs_mde`]).
pub fn write_xqh(x: &Mqxqh, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    out.reserve(XQH_LENGTH);
    out.extend_from_slice(&Structure::Xqh.struc_id(cs));
    order.put_i32(out, x.version);
    out.extend_from_slice(&x.remote_q_name.0);
    out.extend_from_slice(&x.remote_q_mgr_name.0);
    if x.msg_desc.version == 1 {
        write_md(&x.msg_desc, order, cs, out);
    } else {
        let md = Mqmd {
            version: 1,
            ..x.msg_desc.clone()
        };
        write_md(&md, order, cs, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Mqxqh {
        Mqxqh {
            version: 1,
            remote_q_name: CharField::new("APP.IN", Charset::Ascii).unwrap(),
            remote_q_mgr_name: CharField::new("QM2", Charset::Ascii).unwrap(),
            msg_desc: Mqmd {
                version: 1,
                ..Mqmd::default()
            },
        }
    }

    #[test]
    fn xqh_layout_offsets() {
        // IBM MQ "MQXQH - Transmission-queue header": RemoteQName @8, RemoteQMgrName @56,
        // MsgDesc @104, 428 bytes.
        let mut out = Vec::new();
        write_xqh(&sample(), ByteOrder::Little, Charset::Ascii, &mut out);
        assert_eq!(out.len(), 428);
        assert_eq!(&out[0..8], b"XQH \x01\0\0\0");
        assert_eq!(&out[8..14], b"APP.IN");
        assert_eq!(&out[56..60], b"QM2 ");
        assert_eq!(&out[104..108], b"MD  ");
        assert_eq!(&out[108..112], &[1, 0, 0, 0]);
        let (x, cs) = parse_xqh(&out, ByteOrder::Little).unwrap();
        assert_eq!((x, cs), (sample(), Charset::Ascii));
    }

    #[test]
    fn xqh_errors() {
        let mut out = Vec::new();
        write_xqh(&sample(), ByteOrder::Big, Charset::Ascii, &mut out);
        let e = parse_xqh(&out[..427], ByteOrder::Big).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::Truncated {
                needed: 428,
                available: 427
            }
        );
        assert_eq!(e.mqrc().0, 2142);
        out[104] = b'X';
        let e = parse_xqh(&out, ByteOrder::Big).unwrap_err();
        assert_eq!(
            (e.structure, e.offset, e.mqrc().0),
            (Structure::Md, 104, 2026)
        );
    }

    #[test]
    fn an_xqh_built_from_nul_padded_fields_is_blank_padded() {
        // The names were read from NUL-padded fields, the MD's ReplyToQ,
        // ReplyToQMgr and Format are NUL padded. IBM MQ "Rules for naming IBM MQ objects"
        // (a NUL ends the data, mqgate writers pad with blanks); IBM MQ
        // "MQXQH - Transmission-queue header": RemoteQName @8, RemoteQMgrName
        // @56, MsgDesc @104; "MQMD - Message descriptor": Format @32, ReplyToQ
        // @100, ReplyToQMgr @148 (from the MD's start).
        let mut reply_to_q = [0u8; 48];
        reply_to_q[..8].copy_from_slice(b"REPLY.TO");
        let md = Mqmd {
            format: CharField(*b"MQSTR\0\0\0"),
            reply_to_q: CharField(reply_to_q),
            reply_to_q_mgr: CharField([0; 48]),
            msg_id: [0; 24],
            ..Mqmd::default()
        };
        let x = Mqxqh::for_message("APP.IN\0\0", "QM2\0", &md, Charset::Ascii).unwrap();
        let mut out = Vec::new();
        write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut out);
        let blank_after = |at: usize, len: usize, text: &[u8]| {
            let f = &out[at..at + len];
            assert_eq!(&f[..text.len()], text);
            assert!(f[text.len()..].iter().all(|&b| b == b' '), "{at}: {f:?}");
        };
        blank_after(8, 48, b"APP.IN");
        blank_after(56, 48, b"QM2");
        blank_after(104 + 32, 8, b"MQSTR");
        blank_after(104 + 100, 48, b"REPLY.TO");
        blank_after(104 + 148, 48, b"");
        // Binary fields are not touched: MsgId @104+48 stays 24 x 00.
        assert_eq!(&out[104 + 48..104 + 72], &[0u8; 24]);
        assert_eq!(
            &out[108..112],
            &[1, 0, 0, 0],
            "the embedded MD is version 1"
        );
        // A parsed XQH with NUL padding is written back byte for byte.
        let mut raw = out.clone();
        raw[14..56].fill(0);
        let (back, cs) = parse_xqh(&raw, ByteOrder::Little).unwrap();
        let mut again = Vec::new();
        write_xqh(&back, ByteOrder::Little, cs, &mut again);
        assert_eq!(again, raw);
    }
}
