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
//! The split itself, with its AVX-512 form, is `mqgate_codecs::mq::destination`.

use crate::api::{Exit, ExitContext, ExitPoint, ExitResponse, Payload};
use crate::exit_data;
use mqgate_codecs::mq::destination::{DestinationSplit, SplitError};

pub use mqgate_codecs::mq::destination::{
    NAME_LENGTH, NamePart, NameProblem, RewriteOutcome, is_name_char,
};

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
    split: DestinationSplit,
    on_invalid: InvalidPolicy,
    /// Where the MQXQH starts in the exit's buffer, bytes.
    offset: usize,
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

impl Default for DestinationRewrite {
    /// Separator `%`, no prefix, invalid names suppressed.
    fn default() -> Self {
        DestinationRewrite {
            split: DestinationSplit::default(),
            on_invalid: InvalidPolicy::Suppress,
            offset: 0,
        }
    }
}

impl DestinationRewrite {
    /// Reads `separator=`, `prefix=`, `invalid=` and `offset=` from the exit data.
    pub fn from_exit_data(data: &str) -> Result<Self, DataError> {
        let mut on_invalid = InvalidPolicy::Suppress;
        let (mut separator, mut prefix) = (b'%', "");
        let mut offset = 0;
        for item in exit_data::items(data) {
            let (k, v) = item?;
            match k {
                "separator" => match v.as_bytes() {
                    [c] if is_name_char(*c) => separator = *c,
                    _ => return Err(DataError::Separator(v.to_string())),
                },
                "prefix" => {
                    if v.len() >= NAME_LENGTH || !v.bytes().all(is_name_char) {
                        return Err(DataError::Prefix(v.to_string()));
                    }
                    prefix = v;
                }
                "invalid" => {
                    on_invalid = match v {
                        "suppress" => InvalidPolicy::Suppress,
                        "pass" => InvalidPolicy::Pass,
                        _ => return Err(DataError::Invalid(v.to_string())),
                    }
                }
                "offset" => {
                    offset = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n <= 65_536)
                        .ok_or_else(|| DataError::Offset(v.to_string()))?;
                }
                _ => return Err(DataError::UnknownKey(k.to_string())),
            }
        }
        // Both were checked above, so this refuses nothing; its errors
        // still map to the same answers.
        let split = DestinationSplit::new(separator, prefix.as_bytes()).map_err(|e| match e {
            SplitError::Separator(_) => DataError::Separator(char::from(separator).to_string()),
            SplitError::PrefixTooLong { .. } | SplitError::PrefixCharacter { .. } => {
                DataError::Prefix(prefix.to_string())
            }
        })?;
        Ok(DestinationRewrite {
            split,
            on_invalid,
            offset,
        })
    }

    /// The separator character (ASCII).
    pub fn separator(&self) -> char {
        char::from(self.split.separator())
    }

    /// The prefix (ASCII).
    pub fn prefix(&self) -> &str {
        // Only name characters (ASCII) are ever stored.
        std::str::from_utf8(self.split.prefix()).unwrap_or("")
    }

    /// The configured policy for invalid names.
    pub fn on_invalid(&self) -> InvalidPolicy {
        self.on_invalid
    }

    /// Rewrites the MQXQH at the start of `buf` in place. Changes only
    /// RemoteQName and RemoteQMgrName, and only on [`RewriteOutcome::Rewritten`].
    pub fn rewrite(&self, buf: &mut [u8]) -> RewriteOutcome {
        self.split.apply(buf)
    }
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
