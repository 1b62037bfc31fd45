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

/// MQ's HBINT default for message channels, seconds (IBM MQ "DEFINE
/// CHANNEL": HBINT 300 on SYSTEM.DEF.SENDER and SYSTEM.DEF.RECEIVER).
pub const MQ_CHANNEL_HBINT_S: u32 = 300;
