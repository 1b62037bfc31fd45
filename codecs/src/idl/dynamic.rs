//! Dynamic parameters of the MQ RPC bridge: MQ_QUEUE_NAME, MQ_REPLY_QUEUE,
//! MQ_CORREL_ID, MQ_WAIT_INTERVAL, MQ_RFH_<name> (docs/rpc.md; the EntireX
//! WebSphere MQ RPC Server documentation: "Dynamic parameters have a fixed
//! name; they can be defined only on level 1 ... and before any variable
//! length parameter").
//!
//! They are evaluated by the bridge and are not part of the payload.

use std::collections::HashSet;
use std::fmt;

use super::ast::{Direction, Format, Length, Library, ParamKind, Parameter, Position, Program};
use super::correl::{CORREL_ID_LENGTH, CorrelIdError, correl_id_from_hex, correl_id_to_hex};
use super::error::{IdlError, IdlErrorKind, IdlErrors};
use super::value::{Record, Value};
use crate::mq::Mqrc;

/// Prefix of the MQRFH name/value parameters (the EntireX WebSphere MQ RPC Server documentation "MQ_RFH_*").
pub const RFH_PREFIX: &str = "MQ_RFH_";

/// Longest queue name in MQ_QUEUE_NAME / MQ_REPLY_QUEUE (MQ_Q_NAME_LENGTH).
pub const MAX_QUEUE_NAME: usize = 48;

/// Which dynamic parameter a name stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DynamicKind {
    /// MQ_QUEUE_NAME (A48, IN only): overrides the default queue of the call.
    QueueName,
    /// MQ_REPLY_QUEUE (A48): IN sets ReplyToQ and makes the put a Request;
    /// OUT returns the ReplyToQ of the received message.
    ReplyQueue,
    /// MQ_CORREL_ID (A48, hex): IN sets CorrelId; OUT returns the received one.
    CorrelId,
    /// MQ_WAIT_INTERVAL (A fixed or I4, IN only): get wait in milliseconds.
    WaitInterval,
    /// MQ_RFH_<name> (A fixed): the MQRFH name/value pair `<name>`.
    Rfh(String),
}

/// Which dynamic parameter `name` is, if any. Names are compared without case
/// (IDL names are unique after case folding); the `<name>` of MQ_RFH_<name>
/// keeps its case.
pub fn classify(name: &str) -> Option<DynamicKind> {
    let upper = name.to_ascii_uppercase();
    match upper.as_str() {
        "MQ_QUEUE_NAME" => Some(DynamicKind::QueueName),
        "MQ_REPLY_QUEUE" => Some(DynamicKind::ReplyQueue),
        "MQ_CORREL_ID" => Some(DynamicKind::CorrelId),
        "MQ_WAIT_INTERVAL" => Some(DynamicKind::WaitInterval),
        _ if upper.starts_with(RFH_PREFIX) => {
            Some(DynamicKind::Rfh(name[RFH_PREFIX.len()..].to_string()))
        }
        _ => None,
    }
}

/// One dynamic parameter of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicParam {
    /// Which one.
    pub kind: DynamicKind,
    /// Name as written in the IDL.
    pub name: String,
    /// Its direction (none written = In Out).
    pub direction: Direction,
    /// Its format (A48, An or I4).
    pub format: Format,
    /// Where it is declared.
    pub position: Position,
}

/// The dynamic parameters of one program, checked against the rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynamicParams {
    /// In IDL order.
    pub params: Vec<DynamicParam>,
}

/// MQ get wait (MQGMO WaitInterval).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitInterval {
    /// Wait at most this many milliseconds (0 = do not wait).
    Millis(u32),
    /// Wait without limit (MQWI_UNLIMITED, -1).
    Unlimited,
}

impl WaitInterval {
    /// The MQGMO WaitInterval value in milliseconds (-1 = unlimited).
    pub fn to_mq(self) -> i32 {
        match self {
            WaitInterval::Millis(ms) => i32::try_from(ms).unwrap_or(i32::MAX),
            WaitInterval::Unlimited => -1,
        }
    }

    /// From milliseconds: ≥ 0, or -1 for unlimited (docs/rpc.md).
    /// Other negatives (and values above i32::MAX) give `None` (MQ: 2090
    /// WAIT_INTERVAL_ERROR).
    pub fn from_millis(ms: i64) -> Option<WaitInterval> {
        match ms {
            -1 => Some(WaitInterval::Unlimited),
            0..=0x7FFF_FFFF => Some(WaitInterval::Millis(ms as u32)),
            _ => None,
        }
    }
}

/// The dynamic values of a call, read from its IN parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallInputs {
    /// MQ_QUEUE_NAME, trailing blanks trimmed; `None` when absent or blank.
    pub queue_name: Option<String>,
    /// MQ_REPLY_QUEUE, trailing blanks trimmed; `None` when absent or blank.
    pub reply_queue: Option<String>,
    /// MQ_CORREL_ID as bytes; `None` when absent or blank (MQ generates one).
    pub correl_id: Option<[u8; CORREL_ID_LENGTH]>,
    /// MQ_WAIT_INTERVAL; `None` when absent or blank (the default applies).
    pub wait_interval: Option<WaitInterval>,
    /// MQRFH pairs from every IN MQ_RFH_<name>, in IDL order, values with
    /// trailing blanks trimmed (an absent value gives an empty one).
    pub rfh_pairs: Vec<(String, String)>,
}

/// What the bridge learnt from a received (or just put) message, for the OUT
/// dynamic parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceivedMessage {
    /// MQMD CorrelId.
    pub correl_id: [u8; CORREL_ID_LENGTH],
    /// MQMD ReplyToQ (trailing blanks are trimmed on output).
    pub reply_to_q: String,
    /// Name/value pairs of the message's MQRFH, if it had one.
    pub rfh_pairs: Vec<(String, String)>,
}

/// A dynamic parameter value that cannot be used; the call fails before any MQ
/// call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicValueError {
    /// Parameter name.
    pub name: String,
    /// What was wrong.
    pub reason: String,
    /// The MQRC MQ would give for this value, where there is one: 2152
    /// MQRC_OBJECT_NAME_ERROR for a queue name over 48 characters, 2207
    /// MQRC_CORREL_ID_ERROR for a bad CorrelId, 2090
    /// MQRC_WAIT_INTERVAL_ERROR for a bad wait interval; `None` for a value
    /// of the wrong type.
    pub mqrc: Option<Mqrc>,
}

impl fmt::Display for DynamicValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dynamic parameter {}: {}", self.name, self.reason)?;
        if let Some(rc) = self.mqrc {
            write!(f, " (MQRC {})", rc.0)?;
        }
        Ok(())
    }
}

impl std::error::Error for DynamicValueError {}

impl DynamicParams {
    /// Finds and checks the dynamic parameters of `program` (structs resolve in
    /// `library`). Rules (docs/rpc.md): level 1 only; before any
    /// variable-length parameter; MQ_QUEUE_NAME, MQ_REPLY_QUEUE, MQ_CORREL_ID
    /// are A48; MQ_WAIT_INTERVAL is A with a fixed length or I4; MQ_RFH_<name>
    /// is A with a fixed length and a non-empty `<name>`; MQ_QUEUE_NAME and
    /// MQ_WAIT_INTERVAL are IN only; no arrays.
    ///
    /// Errors: one [`IdlErrorKind::DynamicParameter`] per broken rule, with the
    /// parameter's line and column.
    pub fn of_program(program: &Program, library: &Library) -> Result<DynamicParams, IdlErrors> {
        let mut errors = Vec::new();
        let mut params = Vec::new();
        let mut first_variable: Option<&Parameter> = None;
        for p in &program.params {
            check_members(&p.members, &mut errors);
            let Some(kind) = classify(&p.name) else {
                if first_variable.is_none() && is_variable(p, library) {
                    first_variable = Some(p);
                }
                continue;
            };
            let mut fault = |reason: String| {
                errors.push(IdlError::new(
                    p.position,
                    IdlErrorKind::DynamicParameter {
                        name: p.name.clone(),
                        reason,
                    },
                ));
            };
            if let Some(v) = first_variable {
                fault(format!(
                    "must come before any variable-length parameter, but follows '{}' (line {})",
                    v.name, v.position.line
                ));
            }
            if p.array.is_some() {
                fault("must not be an array".into());
            }
            let format = match &p.kind {
                ParamKind::Field(f) => Some(*f),
                _ => None,
            };
            let ok_format = matches!(
                (&kind, format),
                (
                    DynamicKind::QueueName | DynamicKind::ReplyQueue | DynamicKind::CorrelId,
                    Some(Format::Alpha(Length::Fixed(48))),
                ) | (
                    DynamicKind::WaitInterval,
                    Some(Format::Alpha(Length::Fixed(_)) | Format::Integer(4)),
                ) | (DynamicKind::Rfh(_), Some(Format::Alpha(Length::Fixed(_))))
            );
            if !ok_format {
                let want = match kind {
                    DynamicKind::WaitInterval => "A with a fixed length, or I4",
                    DynamicKind::Rfh(_) => "A with a fixed length",
                    _ => "A48",
                };
                let found = format.map_or_else(
                    || match &p.kind {
                        ParamKind::StructRef(s) => format!("struct '{s}'"),
                        _ => "a group".to_string(),
                    },
                    |f| f.to_string(),
                );
                fault(format!("expected format {want}, found {found}"));
            }
            if matches!(kind, DynamicKind::QueueName | DynamicKind::WaitInterval)
                && p.direction != Direction::In
            {
                let note = if p.declared_direction.is_none() {
                    " (no direction written means IN OUT)"
                } else {
                    ""
                };
                fault(format!(
                    "is an IN parameter only, found {}{note}",
                    p.direction
                ));
            }
            if kind == DynamicKind::Rfh(String::new()) {
                fault("expected a pair name after MQ_RFH_".into());
            }
            if let Some(format) = format {
                params.push(DynamicParam {
                    kind,
                    name: p.name.clone(),
                    direction: p.direction,
                    format,
                    position: p.position,
                });
            }
        }
        if errors.is_empty() {
            Ok(DynamicParams { params })
        } else {
            Err(IdlErrors(errors))
        }
    }

    /// The parameter of this kind, if the program declares it.
    pub fn get(&self, kind: &DynamicKind) -> Option<&DynamicParam> {
        self.params.iter().find(|p| &p.kind == kind)
    }

    /// True when the program has any MQ_RFH_ parameter: then a put carries one
    /// MQRFH v1 built from the IN ones (the EntireX WebSphere MQ RPC Server documentation "a MQRFH header is built if at
    /// least one parameter in the IDL file has a name with prefix MQ_RFH_").
    pub fn has_rfh(&self) -> bool {
        self.params
            .iter()
            .any(|p| matches!(p.kind, DynamicKind::Rfh(_)))
    }

    /// Reads the IN dynamic parameters of a call from `values` (the call's
    /// parameters by IDL name).
    ///
    /// Errors: a queue name over 48 characters (MQRC 2152), a bad
    /// MQ_CORREL_ID (MQRC 2207; see [`correl_id_from_hex`]), a bad
    /// MQ_WAIT_INTERVAL (MQRC 2090), or a value of
    /// the wrong type.
    pub fn inputs(&self, values: &Record) -> Result<CallInputs, DynamicValueError> {
        let mut out = CallInputs::default();
        for p in self.params.iter().filter(|p| p.direction.is_in()) {
            let fault = |reason: String, mqrc: Option<Mqrc>| DynamicValueError {
                name: p.name.clone(),
                reason,
                mqrc,
            };
            let value = values.get(&p.name);
            let text = match value {
                None => None,
                Some(Value::Text(t)) => Some(t.trim_end_matches(' ')),
                Some(Value::Integer(_)) if p.kind == DynamicKind::WaitInterval => None,
                Some(other) => {
                    return Err(fault(format!("expected text, found {other:?}"), None));
                }
            };
            let text = text.filter(|t| !t.is_empty());
            match &p.kind {
                DynamicKind::QueueName | DynamicKind::ReplyQueue => {
                    if let Some(t) = text {
                        if t.chars().count() > MAX_QUEUE_NAME {
                            // 2152 MQRC_OBJECT_NAME_ERROR: MQ's names have at
                            // most 48 characters (IBM MQ "Rules for naming IBM
                            // MQ objects").
                            return Err(fault(
                                format!("queue name longer than {MAX_QUEUE_NAME} characters"),
                                Some(Mqrc::OBJECT_NAME_ERROR),
                            ));
                        }
                        let slot = if p.kind == DynamicKind::QueueName {
                            &mut out.queue_name
                        } else {
                            &mut out.reply_queue
                        };
                        *slot = Some(t.to_string());
                    }
                }
                DynamicKind::CorrelId => {
                    if let Some(t) = text {
                        // 2207 MQRC_CORREL_ID_ERROR (IBM MQ "API reason codes").
                        out.correl_id = correl_id_from_hex(t).map_err(|e: CorrelIdError| {
                            fault(e.to_string(), Some(Mqrc::CORREL_ID_ERROR))
                        })?;
                    }
                }
                DynamicKind::WaitInterval => {
                    let ms = match (value, text) {
                        (Some(Value::Integer(n)), _) => Some(*n),
                        (_, Some(t)) => {
                            Some(t.trim_start_matches(' ').parse::<i64>().map_err(|_| {
                                fault(
                                    format!("'{t}' is not a number of milliseconds"),
                                    Some(Mqrc::WAIT_INTERVAL_ERROR),
                                )
                            })?)
                        }
                        _ => None,
                    };
                    if let Some(ms) = ms {
                        out.wait_interval =
                            Some(WaitInterval::from_millis(ms).ok_or_else(|| {
                                fault(
                                    format!("{ms} ms: expected 0 to {} ms (MQLONG), or -1 for unlimited", i32::MAX),
                                    Some(Mqrc::WAIT_INTERVAL_ERROR),
                                )
                            })?);
                    }
                }
                DynamicKind::Rfh(name) => out
                    .rfh_pairs
                    .push((name.clone(), text.unwrap_or("").to_string())),
            }
        }
        Ok(out)
    }

    /// Values for the OUT dynamic parameters from a received message:
    /// MQ_CORREL_ID as 48 upper-case hex digits, MQ_REPLY_QUEUE trimmed, and each
    /// MQ_RFH_<name> from the first pair named `<name>`. Pairs without a
    /// parameter are ignored; parameters without a pair are left out (the EntireX WebSphere MQ RPC Server documentation).
    pub fn outputs(&self, received: &ReceivedMessage) -> Record {
        let mut out = Record::new();
        for p in self.params.iter().filter(|p| p.direction.is_out()) {
            let value = match &p.kind {
                DynamicKind::CorrelId => Some(correl_id_to_hex(&received.correl_id)),
                DynamicKind::ReplyQueue => Some(
                    received
                        .reply_to_q
                        .trim_end_matches([' ', '\0'])
                        .to_string(),
                ),
                DynamicKind::Rfh(name) => received
                    .rfh_pairs
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone()),
                DynamicKind::QueueName | DynamicKind::WaitInterval => None,
            };
            if let Some(v) = value {
                out.set(p.name.clone(), Value::Text(v));
            }
        }
        out
    }
}

/// A dynamic name below level 1 is an error (the EntireX WebSphere MQ RPC Server documentation: "only on level 1").
fn check_members(members: &[Parameter], errors: &mut Vec<IdlError>) {
    let mut pending: Vec<&Parameter> = members.iter().collect();
    while let Some(p) = pending.pop() {
        if classify(&p.name).is_some() {
            errors.push(IdlError::new(
                p.position,
                IdlErrorKind::DynamicParameter {
                    name: p.name.clone(),
                    reason: format!("must be at level 1, found level {}", p.level),
                },
            ));
        }
        pending.extend(p.members.iter());
    }
}

/// True when `p` has no fixed size: AV/BV/KV/UV, an unbounded array, or a group
/// or struct holding one. Each struct is looked into once, so cycles end.
pub(crate) fn is_variable(p: &Parameter, library: &Library) -> bool {
    let mut seen: HashSet<String> = HashSet::new();
    let mut pending: Vec<&Parameter> = vec![p];
    while let Some(p) = pending.pop() {
        if p.is_variable_length() {
            return true;
        }
        pending.extend(p.members.iter());
        if let ParamKind::StructRef(name) = &p.kind
            && seen.insert(name.to_lowercase())
            && let Some(s) = library.struct_def(name)
        {
            pending.extend(s.params.iter());
        }
    }
    false
}

/// True when `name` is one of the dynamic parameters (they are not payload).
pub fn is_dynamic(name: &str) -> bool {
    classify(name).is_some()
}
