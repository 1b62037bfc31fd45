//! Numeric and format constants (IBM MQ "Constants" reference; format names: "Format
//! (MQCHAR8)").
//!
//! Values are IBM's, as in pymqi `CMQC.py` and mq-golang `cmqc_linux_amd64.go`.

/// MQENC_* encodings and masks (IBM MQ "Encoding (MQLONG)", "MQENC_* (Encoding)").
pub mod enc {
    /// Big-endian integers, normal packed decimal, IEEE normal floats (AIX, s390x Linux).
    pub const NORMAL: i32 = 0x111;
    /// Little-endian integers (x86/x64/arm64 Linux, Windows).
    pub const REVERSED: i32 = 0x222;
    /// z/OS: big-endian integers, S/390 hex floats.
    pub const S390: i32 = 0x311;
    /// NonStop (TNS) floats.
    pub const TNS: i32 = 0x411;
    /// As published.
    pub const AS_PUBLISHED: i32 = -1;
    /// Integer part of an Encoding.
    pub const INTEGER_MASK: i32 = 0x0000_000F;
    /// Packed-decimal part of an Encoding.
    pub const DECIMAL_MASK: i32 = 0x0000_00F0;
    /// Float part of an Encoding.
    pub const FLOAT_MASK: i32 = 0x0000_0F00;
    /// Reserved bits; must be zero.
    pub const RESERVED_MASK: i32 = 0xFFFF_F000_u32 as i32;
    /// Integer part: reversed (little-endian).
    pub const INTEGER_REVERSED: i32 = 2;
    /// Integer part: normal (big-endian).
    pub const INTEGER_NORMAL: i32 = 1;
}

/// MQMT_* message types.
pub mod mt {
    pub const REQUEST: i32 = 1;
    pub const REPLY: i32 = 2;
    pub const REPORT: i32 = 4;
    pub const DATAGRAM: i32 = 8;
}

/// MQPER_* persistence values.
pub mod per {
    pub const NOT_PERSISTENT: i32 = 0;
    pub const PERSISTENT: i32 = 1;
    pub const PERSISTENCE_AS_Q_DEF: i32 = 2;
}

/// MQPRI_* priority specials (normal range 0-9).
pub mod pri {
    pub const PRIORITY_AS_Q_DEF: i32 = -1;
}

/// MD special values.
pub mod md {
    /// MQEI_UNLIMITED: Expiry never.
    pub const EI_UNLIMITED: i32 = -1;
    /// MQOL_UNDEFINED: OriginalLength not set.
    pub const OL_UNDEFINED: i32 = -1;
    /// MQMD version 1 length in bytes.
    pub const LENGTH_1: usize = 324;
    /// MQMD version 2 length in bytes.
    pub const LENGTH_2: usize = 364;
}

/// MQRO_* report options.
pub mod ro {
    pub const NONE: i32 = 0;
    pub const PASS_CORREL_ID: i32 = 0x40;
    pub const PASS_MSG_ID: i32 = 0x80;
    pub const COA: i32 = 0x100;
    pub const COD: i32 = 0x800;
    pub const EXPIRATION: i32 = 0x0020_0000;
    pub const EXCEPTION: i32 = 0x0100_0000;
    pub const DISCARD_MSG: i32 = 0x0800_0000;
}

/// MQPMO_* put options.
pub mod pmo {
    pub const NONE: i32 = 0;
    pub const SYNCPOINT: i32 = 0x2;
    pub const NO_SYNCPOINT: i32 = 0x4;
    pub const DEFAULT_CONTEXT: i32 = 0x20;
    pub const NEW_MSG_ID: i32 = 0x40;
    pub const NEW_CORREL_ID: i32 = 0x80;
    pub const PASS_IDENTITY_CONTEXT: i32 = 0x100;
    pub const PASS_ALL_CONTEXT: i32 = 0x200;
    pub const SET_IDENTITY_CONTEXT: i32 = 0x400;
    pub const SET_ALL_CONTEXT: i32 = 0x800;
    pub const FAIL_IF_QUIESCING: i32 = 0x2000;
    pub const NO_CONTEXT: i32 = 0x4000;
}

/// MQGMO_* get options.
pub mod gmo {
    pub const NO_WAIT: i32 = 0;
    pub const WAIT: i32 = 0x1;
    pub const SYNCPOINT: i32 = 0x2;
    pub const NO_SYNCPOINT: i32 = 0x4;
    pub const BROWSE_FIRST: i32 = 0x10;
    pub const BROWSE_NEXT: i32 = 0x20;
    pub const ACCEPT_TRUNCATED_MSG: i32 = 0x40;
    pub const FAIL_IF_QUIESCING: i32 = 0x2000;
    pub const CONVERT: i32 = 0x4000;
    /// MQWI_UNLIMITED: wait without limit.
    pub const WI_UNLIMITED: i32 = -1;
}

/// MQMO_* match options.
pub mod mo {
    pub const NONE: i32 = 0;
    pub const MATCH_MSG_ID: i32 = 0x1;
    pub const MATCH_CORREL_ID: i32 = 0x2;
    pub const MATCH_GROUP_ID: i32 = 0x4;
}

/// MQCCSI_* CodedCharSetId specials.
pub mod ccsi {
    /// Queue manager's CCSID (also MQCCSI_DEFAULT, MQCCSI_UNDEFINED).
    pub const Q_MGR: i32 = 0;
    pub const EMBEDDED: i32 = -1;
    /// Same as this header; the queue manager substitutes it on put.
    pub const INHERIT: i32 = -2;
    pub const APPL: i32 = -3;
    pub const AS_PUBLISHED: i32 = -4;
}

/// MQAT_* PutApplType values.
pub mod at {
    pub const UNKNOWN: i32 = -1;
    pub const NO_CONTEXT: i32 = 0;
    pub const UNIX: i32 = 6;
    pub const QMGR: i32 = 7;
    pub const DQM: i32 = 29;
    pub const USER_FIRST: i32 = 65536;
}

/// MQFMT_* format names: 8 bytes, blank padded (IBM MQ "Format (MQCHAR8)").
pub mod fmt {
    pub const NONE: &[u8; 8] = b"        ";
    pub const STRING: &[u8; 8] = b"MQSTR   ";
    pub const XMIT_Q_HEADER: &[u8; 8] = b"MQXMIT  ";
    pub const DEAD_LETTER_HEADER: &[u8; 8] = b"MQDEAD  ";
    pub const RF_HEADER_1: &[u8; 8] = b"MQHRF   ";
    pub const RF_HEADER_2: &[u8; 8] = b"MQHRF2  ";
    pub const MD_EXTENSION: &[u8; 8] = b"MQHMDE  ";
    pub const CICS: &[u8; 8] = b"MQCICS  ";
    pub const IMS: &[u8; 8] = b"MQIMS   ";
    pub const IMS_VAR_STRING: &[u8; 8] = b"MQIMSVS ";
    pub const DIST_HEADER: &[u8; 8] = b"MQHDIST ";
    pub const REF_MSG_HEADER: &[u8; 8] = b"MQHREF  ";
    pub const WORK_INFO_HEADER: &[u8; 8] = b"MQHWIH  ";
    pub const PCF: &[u8; 8] = b"MQPCF   ";
    pub const ADMIN: &[u8; 8] = b"MQADMIN ";
    pub const EVENT: &[u8; 8] = b"MQEVENT ";
    pub const TRIGGER: &[u8; 8] = b"MQTRIG  ";
}

/// MQXCC_* exit responses (IBM MQ "MQCXP - Channel exit parameter", ExitResponse).
pub mod xcc {
    pub const OK: i32 = 0;
    pub const SUPPRESS_FUNCTION: i32 = -1;
    pub const SKIP_FUNCTION: i32 = -2;
    pub const SUPPRESS_EXIT: i32 = -5;
    pub const CLOSE_CHANNEL: i32 = -6;
    pub const FAILED: i32 = -8;
}

/// MQXR_* exit reasons.
pub mod xr {
    pub const BEFORE: i32 = 1;
    pub const AFTER: i32 = 2;
    pub const INIT: i32 = 11;
    pub const TERM: i32 = 12;
    pub const MSG: i32 = 13;
    pub const XMIT: i32 = 14;
}

/// MQXT_* exit identifiers.
pub mod xt {
    pub const API: i32 = 2;
    pub const CHANNEL_MSG: i32 = 12;
    pub const CHANNEL_SEND: i32 = 13;
    pub const CHANNEL_RCV: i32 = 14;
}

/// MQ_*_LENGTH name and field lengths in bytes.
pub mod len {
    pub const Q_NAME: usize = 48;
    pub const Q_MGR_NAME: usize = 48;
    pub const CHANNEL_NAME: usize = 20;
    pub const FORMAT: usize = 8;
    pub const MSG_ID: usize = 24;
    pub const CORREL_ID: usize = 24;
    pub const GROUP_ID: usize = 24;
    pub const USER_ID: usize = 12;
    pub const ACCOUNTING_TOKEN: usize = 32;
    pub const APPL_IDENTITY_DATA: usize = 32;
    pub const PUT_APPL_NAME: usize = 28;
    pub const PUT_DATE: usize = 8;
    pub const PUT_TIME: usize = 8;
    pub const APPL_ORIGIN_DATA: usize = 4;
    pub const EXIT_DATA: usize = 32;
}
