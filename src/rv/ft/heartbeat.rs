//! The fault tolerance protocol messages: mqgate's own layout. TIBCO does
//! not publish the protocol between RVFT members, and mqgate does not speak
//! it (docs/rendezvous.md "Fault tolerance", "Protocol").
//!
//! Every member publishes a heartbeat on `_RVFT.<group>` every heartbeat
//! interval, active or not, and a LEAVE when it leaves; each member (and
//! each monitor) ranks the group from what it hears. The fields:
//!
//! | field | type | content |
//! |---|---|---|
//! | `version` | u16 | 1 |
//! | `kind` | string | `HEARTBEAT` or `LEAVE` |
//! | `member` | string | the member's id, 1-64 bytes |
//! | `weight` | u16 | its weight (0: disabled) |
//! | `active_goal` | u16 | its active goal |
//! | `heartbeat_interval` | f64 | seconds |
//! | `preparation_interval` | f64 | seconds, 0 = none |
//! | `activation_interval` | f64 | seconds |
//! | `joined` | u64 | when it joined, ms since 1970 (seniority) |
//! | `active` | bool | whether it is active |

use std::fmt;
use std::time::Duration;

use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value};

/// The version of the layout this module writes and reads.
pub const VERSION: u16 = 1;

/// Longest member id, bytes.
pub const MAX_MEMBER_ID: usize = 64;

/// The subject of a group's protocol messages: `_RVFT.<group>`.
pub fn subject(group: &str) -> String {
    format!("_RVFT.{group}")
}

/// What a protocol message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The member is there (and whether it is active).
    Heartbeat,
    /// The member leaves the group.
    Leave,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Heartbeat => "HEARTBEAT",
            Kind::Leave => "LEAVE",
        }
    }
}

/// One protocol message.
#[derive(Clone, Debug, PartialEq)]
pub struct Heartbeat {
    /// Heartbeat or leave.
    pub kind: Kind,
    /// The member's id.
    pub member: String,
    /// Its weight.
    pub weight: u16,
    /// Its active goal.
    pub active_goal: u16,
    /// Its heartbeat interval.
    pub heartbeat: Duration,
    /// Its preparation interval (zero: none).
    pub preparation: Duration,
    /// Its activation interval.
    pub activation: Duration,
    /// When it joined, ms since 1970.
    pub joined: u64,
    /// Whether it is active.
    pub active: bool,
}

/// Why a message on `_RVFT.<group>` is not a protocol message this
/// gateway reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeartbeatError {
    /// The field at fault.
    pub field: &'static str,
    /// What is wrong with it.
    pub why: String,
}

impl fmt::Display for HeartbeatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field '{}': {}", self.field, self.why)
    }
}

impl std::error::Error for HeartbeatError {}

impl Heartbeat {
    /// The message on `_RVFT.<group>`.
    pub fn to_envelope(&self, group: &str) -> Envelope {
        let fields = vec![
            Field::new("version", Value::U16(VERSION)),
            Field::new("kind", Value::String(self.kind.as_str().into())),
            Field::new("member", Value::String(self.member.clone())),
            Field::new("weight", Value::U16(self.weight)),
            Field::new("active_goal", Value::U16(self.active_goal)),
            Field::new(
                "heartbeat_interval",
                Value::F64(self.heartbeat.as_secs_f64()),
            ),
            Field::new(
                "preparation_interval",
                Value::F64(self.preparation.as_secs_f64()),
            ),
            Field::new(
                "activation_interval",
                Value::F64(self.activation.as_secs_f64()),
            ),
            Field::new("joined", Value::U64(self.joined)),
            Field::new("active", Value::Bool(self.active)),
        ];
        Envelope {
            subject: subject(group),
            reply_subject: None,
            cm: None,
            message: Message::new(fields),
        }
    }

    /// Reads a protocol message. Fields after those of the table are
    /// ignored, so a later version may add some.
    ///
    /// Errors: [`HeartbeatError`] naming the first field missing, of
    /// another type, or out of range (a version other than 1, an unknown
    /// kind, an empty or over-long member id, an interval that is negative,
    /// not finite or over a day).
    pub fn from_message(m: &Message) -> Result<Heartbeat, HeartbeatError> {
        let version = u16_field(m, "version")?;
        if version != VERSION {
            return Err(HeartbeatError {
                field: "version",
                why: format!("version {version} is not {VERSION}"),
            });
        }
        let kind = match string_field(m, "kind")? {
            "HEARTBEAT" => Kind::Heartbeat,
            "LEAVE" => Kind::Leave,
            other => {
                return Err(HeartbeatError {
                    field: "kind",
                    why: format!("{other:?} is not HEARTBEAT or LEAVE"),
                });
            }
        };
        let member = string_field(m, "member")?;
        if member.is_empty() || member.len() > MAX_MEMBER_ID {
            return Err(HeartbeatError {
                field: "member",
                why: format!(
                    "a member id is 1 to {MAX_MEMBER_ID} bytes, not {}",
                    member.len()
                ),
            });
        }
        let joined = match m.get("joined").map(|f| &f.value) {
            Some(Value::U64(v)) => *v,
            other => return Err(wrong("joined", "u64", other)),
        };
        let active = match m.get("active").map(|f| &f.value) {
            Some(Value::Bool(v)) => *v,
            other => return Err(wrong("active", "bool", other)),
        };
        Ok(Heartbeat {
            kind,
            member: member.to_string(),
            weight: u16_field(m, "weight")?,
            active_goal: u16_field(m, "active_goal")?,
            heartbeat: seconds_field(m, "heartbeat_interval")?,
            preparation: seconds_field(m, "preparation_interval")?,
            activation: seconds_field(m, "activation_interval")?,
            joined,
            active,
        })
    }
}

fn wrong(field: &'static str, ty: &str, found: Option<&Value>) -> HeartbeatError {
    HeartbeatError {
        field,
        why: match found {
            None => "missing".to_string(),
            Some(v) => format!("is {}, not {ty}", v.field_type()),
        },
    }
}

fn u16_field(m: &Message, field: &'static str) -> Result<u16, HeartbeatError> {
    match m.get(field).map(|f| &f.value) {
        Some(Value::U16(v)) => Ok(*v),
        other => Err(wrong(field, "u16", other)),
    }
}

fn string_field<'m>(m: &'m Message, field: &'static str) -> Result<&'m str, HeartbeatError> {
    match m.get(field).map(|f| &f.value) {
        Some(Value::String(v)) => Ok(v),
        other => Err(wrong(field, "string", other)),
    }
}

fn seconds_field(m: &Message, field: &'static str) -> Result<Duration, HeartbeatError> {
    let s = match m.get(field).map(|f| &f.value) {
        Some(Value::F64(v)) => *v,
        other => return Err(wrong(field, "f64", other)),
    };
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| *d <= super::params::MAX_INTERVAL)
        .ok_or_else(|| HeartbeatError {
            field,
            why: format!("{s} is no interval of 0 to 86400 s"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Heartbeat {
        Heartbeat {
            kind: Kind::Heartbeat,
            member: "5F0C27A1D3B9E684-1".into(),
            weight: 20,
            active_goal: 1,
            heartbeat: Duration::from_millis(200),
            preparation: Duration::ZERO,
            activation: Duration::from_secs(1),
            joined: 1_700_000_000_000,
            active: true,
        }
    }

    #[test]
    fn a_heartbeat_reads_back_as_written() {
        let hb = sample();
        let env = hb.to_envelope("Acme.FT.Group");
        assert_eq!(env.subject, "_RVFT.Acme.FT.Group");
        assert_eq!(Heartbeat::from_message(&env.message), Ok(hb.clone()));
        let leave = Heartbeat {
            kind: Kind::Leave,
            active: false,
            ..hb
        };
        let env = leave.to_envelope("G");
        assert_eq!(Heartbeat::from_message(&env.message), Ok(leave));
    }

    #[test]
    fn fields_of_another_type_or_missing_are_named() {
        let mut env = sample().to_envelope("G");
        env.message.fields[3] = Field::new("weight", Value::U32(20));
        assert_eq!(
            Heartbeat::from_message(&env.message),
            Err(HeartbeatError {
                field: "weight",
                why: "is u32, not u16".into()
            })
        );
        env.message.fields.remove(3);
        assert_eq!(
            Heartbeat::from_message(&env.message).unwrap_err().why,
            "missing"
        );
        let mut env = sample().to_envelope("G");
        env.message.fields[0] = Field::new("version", Value::U16(2));
        assert_eq!(
            Heartbeat::from_message(&env.message).unwrap_err().field,
            "version"
        );
        let mut env = sample().to_envelope("G");
        env.message.fields[5] = Field::new("heartbeat_interval", Value::F64(-1.0));
        assert_eq!(
            Heartbeat::from_message(&env.message).unwrap_err().field,
            "heartbeat_interval"
        );
        let mut env = sample().to_envelope("G");
        env.message.fields[2] = Field::new("member", Value::String("x".repeat(65)));
        assert_eq!(
            Heartbeat::from_message(&env.message).unwrap_err().field,
            "member"
        );
    }
}
