//! MQMD, the message descriptor (IBM MQ "MQMD - Message descriptor"): the data
//! model, [`parse_md`] and [`write_md`].

use super::chain::Descriptor;
use super::constants::{ccsi, enc, md, mt, per};
use super::enc::{ByteOrder, Fixed};
use super::error::{DecodeError, DecodeErrorKind, need};
use super::field::{CharField, Charset};
use super::strucid::Structure;

/// MsgId, CorrelId, GroupId: 24 binary bytes, never converted (MQBYTE24).
pub type Id24 = [u8; 24];

/// MQMI_NONE / MQCI_NONE / MQGI_NONE: 24 × 0x00.
pub const ID_NONE: Id24 = [0; 24];

/// An MQMD, version 1 (324 bytes) or 2 (364 bytes).
///
/// Character fields keep their raw bytes (see [`CharField`]); the charset they
/// are in is the one of the structure that carried the MD. The v2 fields hold
/// their defaults when `version` is 1. Field names are MQ's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqmd {
    /// 1 or 2.
    pub version: i32,
    /// MQRO_* flags.
    pub report: i32,
    /// MQMT_*.
    pub msg_type: i32,
    /// Tenths of a second; -1 = unlimited.
    pub expiry: i32,
    /// MQFB_* or MQRC_*.
    pub feedback: i32,
    /// MQENC_* of the body (the first structure after the MD).
    pub encoding: i32,
    /// CCSID of the body.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the body.
    pub format: CharField<8>,
    /// 0-9, -1 = as queue definition.
    pub priority: i32,
    /// MQPER_*.
    pub persistence: i32,
    pub msg_id: Id24,
    pub correl_id: Id24,
    pub backout_count: i32,
    pub reply_to_q: CharField<48>,
    pub reply_to_q_mgr: CharField<48>,
    pub user_identifier: CharField<12>,
    /// 32 binary bytes.
    pub accounting_token: [u8; 32],
    pub appl_identity_data: CharField<32>,
    /// MQAT_*.
    pub put_appl_type: i32,
    pub put_appl_name: CharField<28>,
    /// YYYYMMDD, GMT.
    pub put_date: CharField<8>,
    /// HHMMSSTH, GMT, hundredths of a second.
    pub put_time: CharField<8>,
    pub appl_origin_data: CharField<4>,
    /// v2 only.
    pub group_id: Id24,
    /// v2 only; default 1.
    pub msg_seq_number: i32,
    /// v2 only; default 0.
    pub offset: i32,
    /// v2 only; MQMF_*.
    pub msg_flags: i32,
    /// v2 only; -1 = MQOL_UNDEFINED.
    pub original_length: i32,
}

impl Default for Mqmd {
    /// MQMD_DEFAULT as IBM defines it, version 2: Datagram, no expiry,
    /// Encoding 546 (MQENC_REVERSED; mqgate's default, not the platform's),
    /// CodedCharSetId 0 (queue manager's), Format blank, priority and
    /// persistence as queue definition.
    fn default() -> Self {
        Mqmd {
            version: 2,
            report: 0,
            msg_type: mt::DATAGRAM,
            expiry: md::EI_UNLIMITED,
            feedback: 0,
            encoding: enc::REVERSED,
            coded_char_set_id: ccsi::Q_MGR,
            format: CharField::BLANK_ASCII,
            priority: -1,
            persistence: per::PERSISTENCE_AS_Q_DEF,
            msg_id: ID_NONE,
            correl_id: ID_NONE,
            backout_count: 0,
            reply_to_q: CharField::BLANK_ASCII,
            reply_to_q_mgr: CharField::BLANK_ASCII,
            user_identifier: CharField::BLANK_ASCII,
            accounting_token: [0; 32],
            appl_identity_data: CharField::BLANK_ASCII,
            put_appl_type: 0,
            put_appl_name: CharField::BLANK_ASCII,
            put_date: CharField::BLANK_ASCII,
            put_time: CharField::BLANK_ASCII,
            appl_origin_data: CharField::BLANK_ASCII,
            group_id: ID_NONE,
            msg_seq_number: 1,
            offset: 0,
            msg_flags: 0,
            original_length: md::OL_UNDEFINED,
        }
    }
}

impl Mqmd {
    /// Length of this MD on the wire in bytes: 324 (v1) or 364 (v2).
    pub fn wire_len(&self) -> usize {
        if self.version >= 2 {
            md::LENGTH_2
        } else {
            md::LENGTH_1
        }
    }

    /// True when any v2-only field differs from its default, i.e. a v1 MD
    /// (inside an MQXQH) needs an MQMDE to carry it (IBM MQ "MQXQH -
    /// Transmission-queue header").
    pub fn needs_mde(&self) -> bool {
        self.group_id != ID_NONE
            || self.msg_seq_number != 1
            || self.offset != 0
            || self.msg_flags != 0
            || self.original_length != md::OL_UNDEFINED
    }
}

/// What the chain walker needs from an MQMD without building an [`Mqmd`]:
/// its length, charset and the descriptor of what follows it.
#[inline]
pub(crate) fn scan_md(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    need(Structure::Md, input, 8)?;
    let cs = Structure::Md
        .match_struc_id(input)
        .ok_or_else(|| bad_struc_id(input))?;
    let f = Fixed { b: input, order };
    let len = match f.i32(4) {
        1 => md::LENGTH_1,
        2 => md::LENGTH_2,
        v => {
            return Err(DecodeError::new(
                Structure::Md,
                4,
                DecodeErrorKind::UnsupportedVersion { version: v },
            ));
        }
    };
    need(Structure::Md, input, len)?;
    let next = Descriptor {
        encoding: f.i32(24),
        coded_char_set_id: f.i32(28),
        format: CharField(f.array(32)),
        charset: cs,
    };
    Ok((len, cs, next))
}

fn bad_struc_id(input: &[u8]) -> DecodeError {
    let mut found = [0u8; 4];
    found.copy_from_slice(&input[..4]);
    DecodeError::new(Structure::Md, 0, DecodeErrorKind::BadStrucId { found })
}

/// Parses an MQMD version 1 (324 bytes) or 2 (364 bytes) from the start of
/// `input`, integers in `order`. Returns the MD and the charset of its
/// character fields, which its StrucId (`MD  ` in ASCII or EBCDIC) reveals.
/// Character fields are kept as raw bytes so [`write_md`] reproduces them.
///
/// Errors (all 2026 MQRC_MD_ERROR): truncated input, a StrucId that is not
/// `MD  `, a Version other than 1 or 2. Offsets count from the MD's start.
pub fn parse_md(input: &[u8], order: ByteOrder) -> Result<(Mqmd, Charset), DecodeError> {
    let (len, cs, _) = scan_md(input, order)?;
    let f = Fixed { b: input, order };
    let mut m = Mqmd {
        version: f.i32(4),
        report: f.i32(8),
        msg_type: f.i32(12),
        expiry: f.i32(16),
        feedback: f.i32(20),
        encoding: f.i32(24),
        coded_char_set_id: f.i32(28),
        format: CharField(f.array(32)),
        priority: f.i32(40),
        persistence: f.i32(44),
        msg_id: f.array(48),
        correl_id: f.array(72),
        backout_count: f.i32(96),
        reply_to_q: CharField(f.array(100)),
        reply_to_q_mgr: CharField(f.array(148)),
        user_identifier: CharField(f.array(196)),
        accounting_token: f.array(208),
        appl_identity_data: CharField(f.array(240)),
        put_appl_type: f.i32(272),
        put_appl_name: CharField(f.array(276)),
        put_date: CharField(f.array(304)),
        put_time: CharField(f.array(312)),
        appl_origin_data: CharField(f.array(320)),
        ..Mqmd::default()
    };
    if len == md::LENGTH_2 {
        m.group_id = f.array(324);
        m.msg_seq_number = f.i32(348);
        m.offset = f.i32(352);
        m.msg_flags = f.i32(356);
        m.original_length = f.i32(360);
    }
    Ok((m, cs))
}

/// Appends `m` to `out`: 324 bytes for version 1, 364 for version 2 or more,
/// integers in `order`, StrucId `MD  ` in `cs`, character fields exactly as
/// held (a field built by mqgate is blank padded; a parsed one keeps its NULs).
pub fn write_md(m: &Mqmd, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    out.reserve(m.wire_len());
    out.extend_from_slice(&Structure::Md.struc_id(cs));
    for v in [
        m.version, m.report, m.msg_type, m.expiry, m.feedback, m.encoding,
    ] {
        order.put_i32(out, v);
    }
    order.put_i32(out, m.coded_char_set_id);
    out.extend_from_slice(&m.format.0);
    order.put_i32(out, m.priority);
    order.put_i32(out, m.persistence);
    out.extend_from_slice(&m.msg_id);
    out.extend_from_slice(&m.correl_id);
    order.put_i32(out, m.backout_count);
    out.extend_from_slice(&m.reply_to_q.0);
    out.extend_from_slice(&m.reply_to_q_mgr.0);
    out.extend_from_slice(&m.user_identifier.0);
    out.extend_from_slice(&m.accounting_token);
    out.extend_from_slice(&m.appl_identity_data.0);
    order.put_i32(out, m.put_appl_type);
    out.extend_from_slice(&m.put_appl_name.0);
    out.extend_from_slice(&m.put_date.0);
    out.extend_from_slice(&m.put_time.0);
    out.extend_from_slice(&m.appl_origin_data.0);
    if m.version >= 2 {
        out.extend_from_slice(&m.group_id);
        for v in [m.msg_seq_number, m.offset, m.msg_flags, m.original_length] {
            order.put_i32(out, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_v2_fields_at_their_offsets() {
        // Offsets of IBM MQ "MQMD - Message descriptor" (v1 324, v2 364 bytes).
        let mut m = Mqmd {
            encoding: 273,
            coded_char_set_id: 1208,
            format: CharField(*b"MQHRF2  "),
            msg_seq_number: 7,
            ..Mqmd::default()
        };
        m.msg_id[0] = 0x41;
        let mut out = Vec::new();
        write_md(&m, ByteOrder::Little, Charset::Ascii, &mut out);
        assert_eq!(out.len(), 364);
        assert_eq!(&out[0..8], b"MD  \x02\0\0\0");
        assert_eq!(&out[24..28], &[0x11, 0x01, 0, 0]);
        assert_eq!(&out[28..32], &[0xB8, 0x04, 0, 0]);
        assert_eq!(&out[32..40], b"MQHRF2  ");
        assert_eq!(out[48], 0x41);
        assert_eq!(&out[348..352], &[7, 0, 0, 0]);
        assert_eq!(&out[360..364], &[0xFF; 4]);
        let (back, cs) = parse_md(&out, ByteOrder::Little).unwrap();
        assert_eq!((back, cs), (m, Charset::Ascii));
    }

    #[test]
    fn md_v1_is_324_bytes_and_ebcdic_struc_id_sets_charset() {
        let m = Mqmd {
            version: 1,
            ..Mqmd::default()
        };
        let mut out = Vec::new();
        write_md(&m, ByteOrder::Big, Charset::Ebcdic, &mut out);
        assert_eq!(out.len(), 324);
        // EBCDIC "MD  " = D4 C4 40 40 (the Wireshark MQ dissector, packet-mq.c).
        assert_eq!(&out[0..4], &[0xD4, 0xC4, 0x40, 0x40]);
        assert_eq!(&out[4..8], &[0, 0, 0, 1]);
        let (_, cs) = parse_md(&out, ByteOrder::Big).unwrap();
        assert_eq!(cs, Charset::Ebcdic);
    }

    #[test]
    fn md_errors_name_offset_and_2026() {
        let m = Mqmd::default();
        let mut out = Vec::new();
        write_md(&m, ByteOrder::Little, Charset::Ascii, &mut out);
        let e = parse_md(&out[..300], ByteOrder::Little).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::Truncated {
                needed: 364,
                available: 300
            }
        );
        assert_eq!(e.mqrc().0, 2026);
        // Read in the wrong byte order the Version is 0x02000000.
        let e = parse_md(&out, ByteOrder::Big).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (
                4,
                DecodeErrorKind::UnsupportedVersion {
                    version: 0x0200_0000
                }
            )
        );
        out[0] = b'X';
        let e = parse_md(&out, ByteOrder::Little).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::BadStrucId { found: *b"XD  " });
    }
}
