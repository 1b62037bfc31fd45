//! dmpmqmsg's three-letter MQMD codes (`A <CODE> <value>` lines).
//!
//! Sources: IBM MQ "Meaning of three letter codes in dmpmqmsg output file" and the field
//! table of the qload source, ibm-messaging/mq-q-qload `qloadfnc.c`. The table is in
//! write order.

use crate::mq::Mqmd;

/// How a field's value is written after its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Decimal integer (`A ENC 273`, `A EXP -1`).
    Int,
    /// Uppercase hex, two digits per byte, full field length (`A MSI 414D51…`).
    Hex,
    /// Raw characters up to the first NUL or the field length, trailing blanks included.
    Char,
}

/// One `A` line code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// The three letters, e.g. `"MSI"`.
    pub code: &'static str,
    /// The MQMD field's MQ name, e.g. `"MsgId"`.
    pub field: &'static str,
    /// How the value is written.
    pub form: Form,
    /// Length of the field in bytes (4 for ints).
    pub len: usize,
    /// Written only for an MQMD of at least this Version (the v2 fields).
    pub min_version: i32,
    /// True for a code written only with an option (AID/AOD need `-dc`, whose
    /// default counterparts are AIX/AOX); the writer emits the default one.
    pub optional: bool,
}

/// Where a code's value lives in an [`Mqmd`].
pub(crate) enum Slot<'a> {
    /// [`Form::Int`].
    Int(&'a mut i32),
    /// [`Form::Hex`]: binary bytes.
    Hex(&'a mut [u8]),
    /// [`Form::Char`]: character bytes.
    Char(&'a mut [u8]),
}

macro_rules! codes {
    ($( $code:literal $field:literal $form:ident $len:literal $ver:literal $opt:literal => $f:ident $(. $sub:tt)? ; )*) => {
        /// All codes, in the order dmpmqmsg writes them.
        pub const CODES: &[Code] = &[
            $(Code { code: $code, field: $field, form: Form::$form, len: $len, min_version: $ver, optional: $opt },)*
        ];

        /// The slot of `code` in `md`; `None` for an unknown code.
        pub(crate) fn slot_mut<'a>(md: &'a mut Mqmd, code: &str) -> Option<(Code, Slot<'a>)> {
            let mut i = 0usize;
            $(
                if code == $code {
                    return Some((CODES[i], codes!(@slot $form md $f $($sub)?)));
                }
                i += 1;
            )*
            let _ = i;
            None
        }
    };
    (@slot Int $md:ident $f:ident $($sub:tt)?) => { Slot::Int(&mut $md.$f $(.$sub)?) };
    (@slot Hex $md:ident $f:ident $($sub:tt)?) => { Slot::Hex(&mut $md.$f $(.$sub)?[..]) };
    (@slot Char $md:ident $f:ident $($sub:tt)?) => { Slot::Char(&mut $md.$f $(.$sub)?[..]) };
}

codes! {
    "VER" "Version" Int 4 1 false => version;
    "RPT" "Report" Int 4 1 false => report;
    "MST" "MsgType" Int 4 1 false => msg_type;
    "EXP" "Expiry" Int 4 1 false => expiry;
    "FDB" "Feedback" Int 4 1 false => feedback;
    "ENC" "Encoding" Int 4 1 false => encoding;
    "CCS" "CodedCharSetId" Int 4 1 false => coded_char_set_id;
    "FMT" "Format" Char 8 1 false => format.0;
    "PRI" "Priority" Int 4 1 false => priority;
    "PER" "Persistence" Int 4 1 false => persistence;
    "MSI" "MsgId" Hex 24 1 false => msg_id;
    "COI" "CorrelId" Hex 24 1 false => correl_id;
    "BOC" "BackoutCount" Int 4 1 false => backout_count;
    "RTQ" "ReplyToQ" Char 48 1 false => reply_to_q.0;
    "RTM" "ReplyToQMgr" Char 48 1 false => reply_to_q_mgr.0;
    "USR" "UserIdentifier" Char 12 1 false => user_identifier.0;
    "ACC" "AccountingToken" Hex 32 1 false => accounting_token;
    "AID" "ApplIdentityData" Char 32 1 true => appl_identity_data.0;
    "AIX" "ApplIdentityData" Hex 32 1 false => appl_identity_data.0;
    "PAT" "PutApplType" Int 4 1 false => put_appl_type;
    "PAN" "PutApplName" Char 28 1 false => put_appl_name.0;
    "PTD" "PutDate" Char 8 1 false => put_date.0;
    "PTT" "PutTime" Char 8 1 false => put_time.0;
    "AOD" "ApplOriginData" Char 4 1 true => appl_origin_data.0;
    "AOX" "ApplOriginData" Hex 4 1 false => appl_origin_data.0;
    "GRP" "GroupId" Hex 24 2 false => group_id;
    "MSQ" "MsgSeqNumber" Int 4 2 false => msg_seq_number;
    "OFF" "Offset" Int 4 2 false => offset;
    "MSF" "MsgFlags" Int 4 2 false => msg_flags;
    "ORL" "OriginalLength" Int 4 2 false => original_length;
}

/// The code entry for `code`, if dmpmqmsg has it.
pub fn lookup(code: &str) -> Option<Code> {
    CODES.iter().copied().find(|c| c.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_codes_in_write_order() {
        // IBM's three-letter code page and qload's field table (with the AID/AOD char
        // forms): 30 codes, VER first and ORL last.
        assert_eq!(CODES.len(), 30);
        assert_eq!(CODES[0].code, "VER");
        assert_eq!(CODES[10].code, "MSI");
        assert_eq!(CODES[29].code, "ORL");
        let v2: Vec<_> = CODES
            .iter()
            .filter(|c| c.min_version == 2)
            .map(|c| c.code)
            .collect();
        assert_eq!(v2, ["GRP", "MSQ", "OFF", "MSF", "ORL"]);
    }

    #[test]
    fn every_code_reaches_its_field() {
        // IBM MQ "MQMD - Message descriptor" field lengths (MsgId 24, ReplyToQ 48,
        // ApplOriginData 4).
        let mut md = Mqmd::default();
        for c in CODES {
            let (found, slot) = slot_mut(&mut md, c.code).unwrap();
            assert_eq!(found, *c);
            match slot {
                Slot::Int(_) => assert_eq!(c.form, Form::Int),
                Slot::Hex(b) => assert_eq!((c.form, b.len()), (Form::Hex, c.len), "{}", c.code),
                Slot::Char(b) => assert_eq!((c.form, b.len()), (Form::Char, c.len), "{}", c.code),
            }
        }
        assert!(slot_mut(&mut md, "XYZ").is_none());
        assert_eq!(lookup("RTQ").unwrap().len, 48);
        assert_eq!(lookup("AIX").unwrap().field, "ApplIdentityData");
    }
}
