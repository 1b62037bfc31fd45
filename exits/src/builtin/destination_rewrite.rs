//! `destination-rewrite`: the receive exit of the WebSphere MQ Everyplace gateway article (IBM developerWorks,
//! "Configuring WebSphere MQ for large-scale deployment of WebSphere MQ
//! Everyplace devices", 2006).
//!
//! A sender addresses a device through the gateway queue manager with
//! RemoteQName `QUEUE<sep>QMGR`. The exit splits RemoteQName at the first
//! separator and sets RemoteQName = `QUEUE`, RemoteQMgrName = prefix + `QMGR`,
//! each blank padded to 48, in place in the MQXQH.
//!
//! Where the XQH is: at offset 0 of the transmission message buffer (the
//! receive/send/message exits' buffer, docs/exits.md). Its charset is the one
//! its StrucId shows (`XQH ` ASCII or `E7 D8 C8 40` EBCDIC); character fields
//! do not depend on the integer encoding, and Version 1 is accepted in either
//! byte order.
//!
//! Exit data (`key=value`, blank or comma separated):
//! - `separator=C`: one MQ name character, default `%` (the article's prose; its
//!   sample code uses `/`);
//! - `prefix=P`: prepended to the queue manager part, default none (the
//!   article: "add the prefix as part of the receive exit processing");
//! - `invalid=suppress|pass`: what to do when a resulting name is empty,
//!   longer than 48, or has a character outside `A-Z a-z 0-9 . / _ %`:
//!   `suppress` (default) answers SuppressFunction with 2152
//!   MQRC_OBJECT_NAME_ERROR (queue part: a queue name that breaks MQ's rules,
//!   as MQOPEN and the HTTP API answer for it) or 2058
//!   MQRC_Q_MGR_NAME_ERROR (queue manager part, likewise), so the message is
//!   dead-lettered; `pass` leaves the
//!   message unchanged. Either way it is logged; nothing is truncated.
//! - `offset=N`: where the MQXQH starts in the buffer, bytes, default 0;
//!   492 where an mq-client channel hands its receive exits the whole MQGET
//!   reply segment, as the article's Java exit saw the MQ client's agent
//!   buffer (docs/exits.md "The agent buffer").
//!
//! The rewrite allocates nothing and changes no byte outside the two fields.

use crate::api::{Exit, ExitContext, ExitPoint, ExitResponse, Payload};
use crate::exit_data;
use mqgate_codecs::mq::edit::set_char_field;
use mqgate_codecs::mq::xqh::{REMOTE_Q_MGR_NAME_OFFSET, REMOTE_Q_NAME_OFFSET, XQH_LENGTH};
use mqgate_codecs::mq::{ByteOrder, Charset, Mqrc, Structure};
use std::fmt;

/// Length of RemoteQName and RemoteQMgrName in bytes (MQ_Q_NAME_LENGTH,
/// MQ_Q_MGR_NAME_LENGTH; IBM MQ "Constants").
pub const NAME_LENGTH: usize = 48;

/// What to do with a name that breaks MQ's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidPolicy {
    /// Leave the message unchanged (logged).
    Pass,
    /// SuppressFunction with 2152 / 2058 (logged); the default.
    Suppress,
}

/// The settings read from the exit data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestinationRewrite {
    separator: u8,
    prefix: [u8; NAME_LENGTH],
    prefix_len: usize,
    on_invalid: InvalidPolicy,
    /// Where the MQXQH starts in the exit's buffer, bytes.
    offset: usize,
}

/// Which of the two names is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamePart {
    /// The part before the separator (becomes RemoteQName): reason 2152.
    Queue,
    /// Prefix + the part after the separator (becomes RemoteQMgrName): reason 2058.
    QueueManager,
}

impl NamePart {
    /// 2152 MQRC_OBJECT_NAME_ERROR (IBM MQ "API reason codes": the object
    /// name is not valid) or 2058 MQRC_Q_MGR_NAME_ERROR (the queue manager
    /// name is not valid), the reasons MQOPEN and the HTTP API give for
    /// such names.
    pub fn mqrc(self) -> Mqrc {
        match self {
            NamePart::Queue => Mqrc::OBJECT_NAME_ERROR,
            NamePart::QueueManager => Mqrc::Q_MGR_NAME_ERROR,
        }
    }
}

/// Why a resulting name breaks MQ's naming rules (IBM MQ "Rules for naming IBM MQ objects").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    Empty,
    /// The name would have `len` characters; the field holds 48.
    TooLong {
        len: usize,
    },
    /// The byte at `offset` of the buffer is not a name character.
    BadCharacter {
        offset: usize,
        byte: u8,
    },
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameProblem::Empty => f.write_str("empty name"),
            NameProblem::TooLong { len } => {
                write!(f, "{len} characters, more than the field's {NAME_LENGTH}")
            }
            NameProblem::BadCharacter { offset, byte } => write!(
                f,
                "byte 0x{byte:02X} at offset {offset} is not an MQ name character (A-Z a-z 0-9 . / _ %)"
            ),
        }
    }
}

/// The result of [`DestinationRewrite::rewrite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewriteOutcome {
    /// Both fields were rewritten.
    Rewritten,
    /// RemoteQName has no separator: nothing changed.
    NoSeparator,
    /// The buffer does not start with an MQXQH (too short, other StrucId, or
    /// Version not 1 in either byte order): nothing changed.
    NotXqh,
    /// A resulting name breaks MQ's rules: nothing changed.
    Invalid {
        part: NamePart,
        problem: NameProblem,
    },
}

/// Why the exit data was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    #[error(transparent)]
    Syntax(#[from] exit_data::ExitDataError),
    #[error("separator {0:?} must be one MQ name character (A-Z a-z 0-9 . / _ %)")]
    Separator(String),
    #[error("prefix {0:?} must be at most 47 MQ name characters (A-Z a-z 0-9 . / _ %)")]
    Prefix(String),
    #[error("invalid={0:?} must be suppress or pass")]
    Invalid(String),
    #[error("offset={0:?} must be a whole number of bytes, at most 65536")]
    Offset(String),
    #[error("unknown key {0:?} (known: separator, prefix, invalid, offset)")]
    UnknownKey(String),
}

/// MQ object name characters: `A-Z a-z 0-9 . / _ %` (IBM MQ "Rules for naming IBM MQ objects").
pub fn is_name_char(c: u8) -> bool {
    NAME_CHAR[c as usize]
}

const NAME_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'_' | b'%');
        c += 1;
    }
    t
};

impl Default for DestinationRewrite {
    /// Separator `%`, no prefix, invalid names suppressed.
    fn default() -> Self {
        DestinationRewrite {
            separator: b'%',
            prefix: [b' '; NAME_LENGTH],
            prefix_len: 0,
            on_invalid: InvalidPolicy::Suppress,
            offset: 0,
        }
    }
}

impl DestinationRewrite {
    /// Reads `separator=`, `prefix=`, `invalid=` and `offset=` from the exit data.
    pub fn from_exit_data(data: &str) -> Result<Self, DataError> {
        let mut r = DestinationRewrite::default();
        for item in exit_data::items(data) {
            let (k, v) = item?;
            match k {
                "separator" => match v.as_bytes() {
                    [c] if is_name_char(*c) => r.separator = *c,
                    _ => return Err(DataError::Separator(v.to_string())),
                },
                "prefix" => {
                    if v.len() >= NAME_LENGTH || !v.bytes().all(is_name_char) {
                        return Err(DataError::Prefix(v.to_string()));
                    }
                    r.prefix[..v.len()].copy_from_slice(v.as_bytes());
                    r.prefix_len = v.len();
                }
                "invalid" => {
                    r.on_invalid = match v {
                        "suppress" => InvalidPolicy::Suppress,
                        "pass" => InvalidPolicy::Pass,
                        _ => return Err(DataError::Invalid(v.to_string())),
                    }
                }
                "offset" => {
                    r.offset = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n <= 65_536)
                        .ok_or_else(|| DataError::Offset(v.to_string()))?;
                }
                _ => return Err(DataError::UnknownKey(k.to_string())),
            }
        }
        Ok(r)
    }

    /// The separator character (ASCII).
    pub fn separator(&self) -> char {
        char::from(self.separator)
    }

    /// The prefix (ASCII).
    pub fn prefix(&self) -> &str {
        // Only name characters (ASCII) are ever stored.
        std::str::from_utf8(&self.prefix[..self.prefix_len]).unwrap_or("")
    }

    /// The configured policy for invalid names.
    pub fn on_invalid(&self) -> InvalidPolicy {
        self.on_invalid
    }

    /// Rewrites the MQXQH at the start of `buf` in place. Changes only
    /// RemoteQName and RemoteQMgrName, and only on [`RewriteOutcome::Rewritten`].
    pub fn rewrite(&self, buf: &mut [u8]) -> RewriteOutcome {
        let Some(cs) = xqh_charset(buf) else {
            return RewriteOutcome::NotXqh;
        };
        let sep = match cs {
            Charset::Ascii => self.separator,
            // The separator is a name character, so it has an EBCDIC code point.
            Charset::Ebcdic => cs.encode_invariant(char::from(self.separator)).unwrap_or(0),
        };
        let field = &buf[REMOTE_Q_NAME_OFFSET..REMOTE_Q_NAME_OFFSET + NAME_LENGTH];
        let blank = cs.blank();
        let base = REMOTE_Q_NAME_OFFSET;
        // The name ends at the first NUL and trailing blanks do not count
        // (IBM MQ "Rules for naming IBM MQ objects"); the first separator before
        // that splits it.
        let Some(at) = field.iter().position(|&b| b == sep || b == 0) else {
            return RewriteOutcome::NoSeparator;
        };
        if field[at] == 0 {
            return RewriteOutcome::NoSeparator;
        }
        // The queue name is already in place: RemoteQName = QUEUE only needs
        // the separator and what follows blanked (the WebSphere MQ Everyplace gateway article: "deleting the
        // characters following the first occurrence of %").
        if let Err(problem) = check_name(&field[..at], cs, base) {
            return RewriteOutcome::Invalid {
                part: NamePart::Queue,
                problem,
            };
        }
        let invalid_q_mgr = |problem| RewriteOutcome::Invalid {
            part: NamePart::QueueManager,
            problem,
        };
        // The queue manager part runs to the first blank or NUL; after it
        // only blanks may follow (up to a NUL), else a blank is embedded.
        let rest = &field[at + 1..];
        let part_len = rest
            .iter()
            .position(|&b| b == blank || b == 0)
            .unwrap_or(rest.len());
        let tail = &rest[part_len..];
        // Usually all blanks: checked without early exit so it vectorises.
        let all_blank = tail.iter().fold(0u8, |acc, &b| acc | (b ^ blank)) == 0;
        if !all_blank
            && tail.first() == Some(&blank)
            && let Some(i) = tail.iter().position(|&b| b != blank)
            && tail[i] != 0
        {
            return invalid_q_mgr(NameProblem::BadCharacter {
                offset: base + at + 1 + part_len,
                byte: blank,
            });
        }
        let q_mgr_part = &rest[..part_len];
        let q_mgr_len = self.prefix_len + part_len;
        if q_mgr_part.is_empty() {
            return invalid_q_mgr(NameProblem::Empty);
        }
        if q_mgr_len > NAME_LENGTH {
            return invalid_q_mgr(NameProblem::TooLong { len: q_mgr_len });
        }
        // The queue manager name is decoded into ASCII on the stack;
        // set_char_field (the mqcodec editor) encodes it into the header's charset.
        let mut q_mgr = [0u8; NAME_LENGTH];
        q_mgr[..self.prefix_len].copy_from_slice(&self.prefix[..self.prefix_len]);
        if let Err(problem) =
            decode_name(q_mgr_part, cs, base + at + 1, &mut q_mgr[self.prefix_len..])
        {
            return invalid_q_mgr(problem);
        }
        // ASCII name characters by now, so valid UTF-8.
        let Ok(q_mgr) = std::str::from_utf8(&q_mgr[..q_mgr_len]) else {
            return RewriteOutcome::NotXqh;
        };
        // The name was checked above (name characters, 1..=48 long, field
        // inside the 428-byte header), so the editor cannot refuse it and
        // the edit is all or nothing.
        if set_char_field(buf, REMOTE_Q_MGR_NAME_OFFSET, NAME_LENGTH, q_mgr, cs).is_err() {
            return RewriteOutcome::NotXqh;
        }
        buf[REMOTE_Q_NAME_OFFSET + at..REMOTE_Q_NAME_OFFSET + NAME_LENGTH].fill(blank);
        RewriteOutcome::Rewritten
    }
}

/// The charset of the MQXQH at the start of `buf`, if one is there: a whole
/// 428-byte header, StrucId `XQH ` in ASCII or EBCDIC, Version 1 read in
/// either byte order (the XQH's encoding is not inside the buffer).
fn xqh_charset(buf: &[u8]) -> Option<Charset> {
    if buf.len() < XQH_LENGTH {
        return None;
    }
    let cs = Structure::Xqh.match_struc_id(buf)?;
    let v1 = |order: ByteOrder| order.read_i32(buf, 4) == Some(1);
    (v1(ByteOrder::Big) || v1(ByteOrder::Little)).then_some(cs)
}

/// Checks every character of `part` (in `cs`) against MQ's name rules
/// without copying it. `offset` is the buffer offset of `part[0]`.
fn check_name(part: &[u8], cs: Charset, offset: usize) -> Result<(), NameProblem> {
    if part.is_empty() {
        return Err(NameProblem::Empty);
    }
    let bad = part.iter().position(|&b| !is_name_char(to_ascii(b, cs)));
    match bad {
        None => Ok(()),
        Some(i) => Err(NameProblem::BadCharacter {
            offset: offset + i,
            byte: part[i],
        }),
    }
}

/// The ASCII code of an invariant character in `cs`, 0 for anything else
/// in EBCDIC (ASCII bytes are returned as they are).
fn to_ascii(b: u8, cs: Charset) -> u8 {
    match cs {
        Charset::Ascii => b,
        Charset::Ebcdic => {
            let c = cs.decode_byte(b);
            if c.is_ascii() { c as u8 } else { 0 }
        }
    }
}

/// Decodes `part` (in `cs`) into ASCII in `out`, checking every character
/// against MQ's name rules. `offset` is the buffer offset of `part[0]`.
fn decode_name(part: &[u8], cs: Charset, offset: usize, out: &mut [u8]) -> Result<(), NameProblem> {
    if part.is_empty() {
        return Err(NameProblem::Empty);
    }
    if part.len() > out.len() {
        return Err(NameProblem::TooLong { len: part.len() });
    }
    for (i, (&b, o)) in part.iter().zip(out.iter_mut()).enumerate() {
        let a = to_ascii(b, cs);
        if !is_name_char(a) {
            return Err(NameProblem::BadCharacter {
                offset: offset + i,
                byte: b,
            });
        }
        *o = a;
    }
    Ok(())
}

impl Exit for DestinationRewrite {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        let Payload::Buffer(buf) = payload else {
            return ExitResponse::Ok;
        };
        let at = self.offset.min(buf.len());
        match self.rewrite(&mut buf[at..]) {
            RewriteOutcome::Rewritten | RewriteOutcome::NoSeparator => ExitResponse::Ok,
            RewriteOutcome::NotXqh => {
                tracing::warn!(point = %ctx.exit_point, object = ctx.object_name, len = buf.len(),
                    "destination-rewrite: buffer does not start with an MQXQH; left unchanged");
                ExitResponse::Ok
            }
            RewriteOutcome::Invalid { part, problem } => {
                let reason = part.mqrc();
                let suppress = self.on_invalid == InvalidPolicy::Suppress;
                tracing::warn!(point = %ctx.exit_point, object = ctx.object_name,
                    part = ?part, %problem, reason = %reason,
                    action = if suppress { "suppress" } else { "pass unchanged" },
                    "destination-rewrite: resulting name breaks MQ's naming rules");
                if suppress {
                    ExitResponse::SuppressFunction(reason)
                } else {
                    ExitResponse::Ok
                }
            }
        }
    }

    fn edits_atomically(&self) -> bool {
        true
    }
}

/// The exit points where `destination-rewrite` may be configured.
pub fn allowed_at(point: ExitPoint) -> bool {
    point.is_channel_point()
}
