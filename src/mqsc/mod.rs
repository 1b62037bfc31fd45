//! MQSC definitions to and from mqgate's YAML configuration
//! (docs/operations.md "mqgate mqsc"). The script is read by
//! [`mqgate_codecs::mqsc`]; this module decides what each command means for
//! mqgate: [`import`] turns DEFINE QLOCAL, QMODEL, QREMOTE, QALIAS, CHANNEL
//! (CHLTYPE SDR, RCVR, SVRCONN, with their TLS attributes: [`tls`]), ALTER
//! QMGR and SET CHLAUTH ([`chlauth`]) into YAML, [`export`] writes a configuration's queues and channels as
//! DEFINE commands and its channel authentication rules as SET CHLAUTH.
//!
//! Nothing is dropped silently: every command, object or attribute with no
//! mqgate equivalent (SET AUTHREC, DESCR, SSLKEYR ...) and every setting with
//! no MQSC one is a [`Note`] naming its line or its YAML path.

pub mod chlauth;
pub mod export;
pub mod import;
pub mod tls;

/// Something the conversion could not carry over, or a value it refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// 1-based line in the MQSC script; 0 when the note is about the YAML side.
    pub line: usize,
    /// What it is about: `QLOCAL('APP.IN') DESCR`, `channels[0].retry` ...
    pub subject: String,
    /// What happened to it.
    pub message: String,
    /// True for a value that is wrong (not a number, a CONNAME mqgate cannot
    /// use); false for one that has no counterpart and was left out.
    pub invalid: bool,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "{}: {}", self.subject, self.message)
    }
}

/// The text of an MQSC script read as `bytes`: UTF-8, a byte order mark at
/// the start (EF BB BF, which Windows editors and dmpmqcfg output on Windows
/// may carry) left out. Errors: bytes that are not UTF-8, with the line and
/// column (1-based, in bytes) and the offset from the start (bytes) of the
/// first invalid byte.
pub fn script_text(bytes: Vec<u8>) -> Result<String, String> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bytes = match bytes.strip_prefix(BOM) {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        format!(
            "not UTF-8 text: line {line}, column {} (byte offset {at}) holds the byte 0x{:02X}, \
             which starts no valid UTF-8 character",
            at - line_start + 1,
            bytes[at]
        )
    })
}

/// MQ's HBINT default for message channels, seconds (IBM MQ "DEFINE
/// CHANNEL": HBINT 300 on SYSTEM.DEF.SENDER and SYSTEM.DEF.RECEIVER).
pub const MQ_CHANNEL_HBINT_S: u32 = 300;
