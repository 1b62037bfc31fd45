//! MQDLH, the dead-letter header (IBM MQ "MQDLH - Dead-letter header"): StrucId
//! `DLH `, Version 1, 172 bytes, Format `MQDEAD  `. It has no StrucLength; its
//! Encoding/CodedCharSetId/Format (at 108/112/116) describe the data after it.

use super::chain::Descriptor;
use super::constants::ccsi;
use super::enc::{ByteOrder, Fixed};
use super::error::{DecodeError, DecodeErrorKind, need};
use super::field::{CharField, Charset, FieldError};
use super::md::Mqmd;
use super::puttime::PutTimestamp;
use super::strucid::Structure;

/// Length of an MQDLH in bytes (MQDLH_LENGTH_1).
pub const DLH_LENGTH: usize = 172;

/// An MQDLH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqdlh {
    /// Always 1.
    pub version: i32,
    /// Why the message was dead-lettered: an MQRC_* or MQFB_* value.
    pub reason: i32,
    /// The original destination queue.
    pub dest_q_name: CharField<48>,
    /// The original destination queue manager.
    pub dest_q_mgr_name: CharField<48>,
    /// MQENC_* of the data after the DLH.
    pub encoding: i32,
    /// CCSID of the data after the DLH.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the data after the DLH.
    pub format: CharField<8>,
    /// MQAT_* of who dead-lettered the message (e.g. 7 QMGR, 29 DQM).
    pub put_appl_type: i32,
    /// Name of who dead-lettered the message.
    pub put_appl_name: CharField<28>,
    /// YYYYMMDD, GMT.
    pub put_date: CharField<8>,
    /// HHMMSSTH, GMT.
    pub put_time: CharField<8>,
}

/// What the dead-lettering party supplies besides the original MD.
#[derive(Clone, Debug)]
pub struct DeadLetter<'a> {
    /// MQRC_* (or MQFB_*) reason.
    pub reason: i32,
    /// The queue the message was meant for.
    pub dest_q_name: &'a str,
    /// The queue manager the message was meant for.
    pub dest_q_mgr_name: &'a str,
    /// MQAT_* of the dead-lettering application (mqgate's channel agent: 29 DQM).
    pub put_appl_type: i32,
    /// Name of the dead-lettering application, at most 28 characters.
    pub put_appl_name: &'a str,
    /// When the message was dead-lettered (the caller reads the clock).
    pub put_at: PutTimestamp,
}

impl Mqdlh {
    /// Dead-letters a message described by `original`: returns the MQDLH
    /// (carrying the original Encoding/CodedCharSetId/Format) and the MD for
    /// the dead-letter queue (Format `MQDEAD  `, CodedCharSetId 0 = queue
    /// manager's, everything else unchanged; mq-golang `NewMQDLH`). Character
    /// fields are written in `cs` (the charset of `original`'s fields), blank
    /// padded, never with NULs: a name ends at its first NUL
    /// ([`CharField::name`]) and the Format taken from `original` is
    /// rebuilt ([`CharField::normalized`]), because a NUL ends a name in MQ
    /// and other queue managers read what follows it as part of nothing
    /// (IBM MQ "Rules for naming IBM MQ objects"). The DLH is to be written in the byte
    /// order of the returned MD's Encoding.
    ///
    /// Errors: a name longer than its field or with non-invariant characters.
    pub fn for_message(
        original: &Mqmd,
        dl: &DeadLetter<'_>,
        cs: Charset,
    ) -> Result<(Mqdlh, Mqmd), FieldError> {
        let dlh = Mqdlh {
            version: 1,
            reason: dl.reason,
            dest_q_name: CharField::name(dl.dest_q_name, cs)?,
            dest_q_mgr_name: CharField::name(dl.dest_q_mgr_name, cs)?,
            encoding: original.encoding,
            coded_char_set_id: original.coded_char_set_id,
            format: original.format.normalized(cs),
            put_appl_type: dl.put_appl_type,
            put_appl_name: CharField::name(dl.put_appl_name, cs)?,
            put_date: dl.put_at.put_date(cs),
            put_time: dl.put_at.put_time(cs),
        };
        let mut md = original.clone();
        // MQFMT_DEAD_LETTER_HEADER `MQDEAD  ` in the header charset.
        md.format = CharField::new("MQDEAD", cs)?;
        md.coded_char_set_id = ccsi::Q_MGR;
        Ok((dlh, md))
    }
}

#[inline]
pub(crate) fn scan_dlh(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    need(Structure::Dlh, input, 8)?;
    let cs = Structure::Dlh.match_struc_id(input).ok_or_else(|| {
        let mut found = [0u8; 4];
        found.copy_from_slice(&input[..4]);
        DecodeError::new(Structure::Dlh, 0, DecodeErrorKind::BadStrucId { found })
    })?;
    let f = Fixed { b: input, order };
    let version = f.i32(4);
    if version != 1 {
        return Err(DecodeError::new(
            Structure::Dlh,
            4,
            DecodeErrorKind::UnsupportedVersion { version },
        ));
    }
    need(Structure::Dlh, input, DLH_LENGTH)?;
    let next = Descriptor {
        encoding: f.i32(108),
        coded_char_set_id: f.i32(112),
        format: CharField(f.array(116)),
        charset: cs,
    };
    Ok((DLH_LENGTH, cs, next))
}

/// Parses an MQDLH from the start of `input`. Errors (2142
/// MQRC_HEADER_ERROR): truncated, bad StrucId, Version not 1.
pub fn parse_dlh(input: &[u8], order: ByteOrder) -> Result<(Mqdlh, Charset), DecodeError> {
    let (_, cs, next) = scan_dlh(input, order)?;
    let f = Fixed { b: input, order };
    Ok((
        Mqdlh {
            version: 1,
            reason: f.i32(8),
            dest_q_name: CharField(f.array(12)),
            dest_q_mgr_name: CharField(f.array(60)),
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            put_appl_type: f.i32(124),
            put_appl_name: CharField(f.array(128)),
            put_date: CharField(f.array(156)),
            put_time: CharField(f.array(164)),
        },
        cs,
    ))
}

/// Appends `d` (172 bytes) to `out`, integers in `order`, StrucId in `cs`.
pub fn write_dlh(d: &Mqdlh, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    out.reserve(DLH_LENGTH);
    out.extend_from_slice(&Structure::Dlh.struc_id(cs));
    order.put_i32(out, d.version);
    order.put_i32(out, d.reason);
    out.extend_from_slice(&d.dest_q_name.0);
    out.extend_from_slice(&d.dest_q_mgr_name.0);
    order.put_i32(out, d.encoding);
    order.put_i32(out, d.coded_char_set_id);
    out.extend_from_slice(&d.format.0);
    order.put_i32(out, d.put_appl_type);
    out.extend_from_slice(&d.put_appl_name.0);
    out.extend_from_slice(&d.put_date.0);
    out.extend_from_slice(&d.put_time.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dlh_for_a_message_put_at_2020_12_31() {
        let original = Mqmd {
            encoding: 546,
            coded_char_set_id: 1208,
            format: CharField(*b"MQSTR   "),
            ..Mqmd::default()
        };
        let dl = DeadLetter {
            reason: 2051,
            dest_q_name: "DLQ.TARGET",
            dest_q_mgr_name: "QM1",
            put_appl_type: 29,
            put_appl_name: "mqgate",
            put_at: PutTimestamp::new(2020, 12, 31, 1, 2, 3, 44).unwrap(),
        };
        let (dlh, md) = Mqdlh::for_message(&original, &dl, Charset::Ascii).unwrap();
        // The put instant 2020-12-31 01:02:03.44 as PutDate `20201231`, PutTime
        // `01020344`.
        assert_eq!(&dlh.put_date.0, b"20201231");
        assert_eq!(&dlh.put_time.0, b"01020344");
        // IBM MQ "MQDLH - Dead-letter header": the original Encoding/CCSID/Format move
        // into the DLH.
        assert_eq!(
            (dlh.encoding, dlh.coded_char_set_id, dlh.format.0),
            (546, 1208, *b"MQSTR   ")
        );
        assert_eq!((&md.format.0, md.coded_char_set_id), (b"MQDEAD  ", 0));
        let mut out = Vec::new();
        write_dlh(
            &dlh,
            ByteOrder::from_encoding(md.encoding),
            Charset::Ascii,
            &mut out,
        );
        assert_eq!(out.len(), 172);
        // A published dmpmqmsg dump of a dead-letter message (reason 2051,
        // little-endian): 44 4C 48 20 | 01 00 00 00 | 03 08 00 00 | "DLQ.TARGET".
        assert_eq!(&out[0..22], b"DLH \x01\0\0\0\x03\x08\0\0DLQ.TARGET");
        assert_eq!(&out[156..172], b"2020123101020344");
        assert_eq!(
            parse_dlh(&out, ByteOrder::Little).unwrap(),
            (dlh, Charset::Ascii)
        );
    }

    #[test]
    fn a_dlh_built_from_nul_padded_fields_is_blank_padded() {
        // The original MD's Format is NUL padded, the names were read from
        // NUL-padded fields. IBM MQ "Rules for naming IBM MQ objects": a NUL ends the
        // data; mqgate writers pad with blanks. IBM MQ "MQDLH - Dead-letter
        // header": DestQName @12 (48), DestQMgrName @60 (48), Format @116 (8),
        // PutApplName @128 (28).
        let original = Mqmd {
            format: CharField(*b"MQSTR\0\0\0"),
            ..Mqmd::default()
        };
        let dl = DeadLetter {
            reason: 2087,
            dest_q_name: "APP.IN\0\0\0",
            dest_q_mgr_name: "QM.NOWHERE\0",
            put_appl_type: 29,
            put_appl_name: "TO.GW",
            put_at: PutTimestamp::new(2020, 1, 1, 0, 0, 0, 0).unwrap(),
        };
        let (dlh, _) = Mqdlh::for_message(&original, &dl, Charset::Ascii).unwrap();
        let mut out = Vec::new();
        write_dlh(&dlh, ByteOrder::Little, Charset::Ascii, &mut out);
        let blank_after = |field: &[u8], text: &[u8]| {
            assert_eq!(&field[..text.len()], text);
            assert!(field[text.len()..].iter().all(|&b| b == b' '), "{field:?}");
        };
        blank_after(&out[12..60], b"APP.IN");
        blank_after(&out[60..108], b"QM.NOWHERE");
        blank_after(&out[116..124], b"MQSTR");
        blank_after(&out[128..156], b"TO.GW");
        for (a, b) in [(12, 108), (116, 124), (128, 172)] {
            assert!(
                !out[a..b].contains(&0),
                "NUL in the character fields {a}..{b}"
            );
        }
    }

    #[test]
    fn dlh_builder_refuses_long_names() {
        let dl = DeadLetter {
            reason: 2053,
            dest_q_name: &"Q".repeat(49),
            dest_q_mgr_name: "QM1",
            put_appl_type: 29,
            put_appl_name: "mqgate",
            put_at: PutTimestamp::new(2020, 1, 1, 0, 0, 0, 0).unwrap(),
        };
        assert_eq!(
            Mqdlh::for_message(&Mqmd::default(), &dl, Charset::Ascii).unwrap_err(),
            FieldError::TooLong { len: 49, max: 48 }
        );
    }
}
