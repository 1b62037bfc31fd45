//! The messages between the members of a distributed queue, on `_RVCMQ.`
//! subjects over the subject bus (docs/rendezvous.md "Distributed queues",
//! "Protocol").
//!
//! TIBCO's distributed queue protocol is not public (TIBCO Rendezvous
//! Administration, "Forward Administrative Messages across Network
//! Boundaries", says only that it uses `_RVCMQ.>` and `_RVCM.>`
//! subjects); this layout is mqgate's. `<name>` is the queue's name (it
//! may have several elements, so it comes last), `<member>` a member id
//! (one element).
//!
//! | subject | to | `op` values |
//! |---|---|---|
//! | `_RVCMQ.MEMBER.<name>` | every member | `heartbeat`, `leave`, `report_request` |
//! | `_RVCMQ.WORKER.<member>.<name>` | one member | `task`, `withdraw`, `ack` |
//! | `_RVCMQ.SCHEDULER.<name>` | the active scheduler | `complete`, `release`, `report` |
//!
//! A task key is a nested message: `sender`, `subject` (strings), `seqno`
//! (u64) for a certified task; `scheduler` (string), `n` (u64) for a
//! reliable one. Reading never panics; a message that cannot be read is
//! logged and dropped by the member.

use std::fmt;

use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Message, Value};

use super::schedule::TaskKey;

/// Subject of the messages every member of `name` reads.
pub fn member_subject(name: &str) -> String {
    format!("_RVCMQ.MEMBER.{name}")
}

/// Subject of the messages to member `member` of `name`.
pub fn worker_subject(member: &str, name: &str) -> String {
    format!("_RVCMQ.WORKER.{member}.{name}")
}

/// Subject of the messages to the active scheduler of `name`.
pub fn scheduler_subject(name: &str) -> String {
    format!("_RVCMQ.SCHEDULER.{name}")
}

/// A member's heartbeat: who it is, what it offers, whether it schedules.
#[derive(Clone, Debug, PartialEq)]
pub struct Heartbeat {
    /// Member id.
    pub member: String,
    /// Worker weight.
    pub worker_weight: u32,
    /// Task capacity.
    pub worker_tasks: u32,
    /// Scheduler weight.
    pub scheduler_weight: u16,
    /// When it joined, ms since the Unix epoch.
    pub joined_ms: u64,
    /// Its heartbeat interval, ms.
    pub heartbeat_ms: u64,
    /// Its activation interval, ms.
    pub activation_ms: u64,
    /// True while it is the active scheduler.
    pub active: bool,
    /// The task subjects it listens to.
    pub subjects: Vec<String>,
}

/// A message on `_RVCMQ.MEMBER.<name>`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToMembers {
    /// A heartbeat.
    Heartbeat(Heartbeat),
    /// The member leaves the queue.
    Leave {
        /// Member id.
        member: String,
    },
    /// A new scheduler asks every member for its tasks.
    ReportRequest {
        /// The scheduler's member id.
        scheduler: String,
    },
}

/// A message on `_RVCMQ.WORKER.<member>.<name>`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToWorker {
    /// A task assigned to the worker.
    Task {
        /// Its key.
        key: TaskKey,
        /// The task as the scheduler received it.
        task: Envelope,
    },
    /// The task is no longer the worker's.
    Withdraw(TaskKey),
    /// The worker's completion is recorded.
    Ack(TaskKey),
}

/// A message on `_RVCMQ.SCHEDULER.<name>`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToScheduler {
    /// `member` completed the task.
    Complete {
        /// Member id.
        member: String,
        /// The task.
        key: TaskKey,
    },
    /// `member` gives the task back undone.
    Release {
        /// Member id.
        member: String,
        /// The task.
        key: TaskKey,
    },
    /// `member`'s answer to a report request.
    Report {
        /// Member id.
        member: String,
        /// The tasks it holds.
        pending: Vec<TaskKey>,
        /// The tasks it completed that no scheduler acknowledged.
        completed: Vec<TaskKey>,
    },
}

/// A message that cannot be read: its `op` (when it has one), the field
/// at fault and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// The `op` value, when there was one.
    pub op: Option<String>,
    /// The field at fault.
    pub field: &'static str,
    /// What was wrong.
    pub problem: &'static str,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.op {
            Some(op) => write!(f, "op {op:?}: field '{}' {}", self.field, self.problem),
            None => write!(f, "field '{}' {}", self.field, self.problem),
        }
    }
}

impl std::error::Error for ProtocolError {}

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

fn envelope(subject: String, fields: Vec<Field>) -> Envelope {
    Envelope {
        subject,
        reply_subject: None,
        cm: None,
        message: Message::new(fields),
    }
}

fn key_msg(k: &TaskKey) -> Message {
    match k {
        TaskKey::Certified {
            sender,
            subject,
            seqno,
        } => Message::new(vec![
            Field::new("sender", s(sender)),
            Field::new("subject", s(subject)),
            Field::new("seqno", Value::U64(*seqno)),
        ]),
        TaskKey::Reliable { scheduler, n } => Message::new(vec![
            Field::new("scheduler", s(scheduler)),
            Field::new("n", Value::U64(*n)),
        ]),
    }
}

fn keys_value(keys: &[TaskKey]) -> Value {
    Value::MsgArray(keys.iter().map(key_msg).collect())
}

/// Reads the fields of one protocol message.
struct Reader<'a> {
    m: &'a Message,
    op: Option<String>,
}

impl<'a> Reader<'a> {
    fn new(m: &'a Message) -> Result<Reader<'a>, ProtocolError> {
        let mut r = Reader { m, op: None };
        r.op = Some(r.string("op")?);
        Ok(r)
    }

    fn error(&self, field: &'static str, problem: &'static str) -> ProtocolError {
        ProtocolError {
            op: self.op.clone(),
            field,
            problem,
        }
    }

    fn op(&self) -> &str {
        self.op.as_deref().unwrap_or("")
    }

    fn string(&self, name: &'static str) -> Result<String, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::String(v)) => Ok(v.clone()),
            Some(_) => Err(self.error(name, "is not a string")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn u64(&self, name: &'static str) -> Result<u64, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::U64(v)) => Ok(*v),
            Some(_) => Err(self.error(name, "is not a u64")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn u32(&self, name: &'static str) -> Result<u32, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::U32(v)) => Ok(*v),
            Some(_) => Err(self.error(name, "is not a u32")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn u16(&self, name: &'static str) -> Result<u16, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::U16(v)) => Ok(*v),
            Some(_) => Err(self.error(name, "is not a u16")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn bool(&self, name: &'static str) -> Result<bool, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::Bool(v)) => Ok(*v),
            Some(_) => Err(self.error(name, "is not a bool")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn strings(&self, name: &'static str) -> Result<Vec<String>, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::StringArray(v)) => Ok(v.clone()),
            Some(_) => Err(self.error(name, "is not a stringarray")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn msg(&self, name: &'static str) -> Result<&'a Message, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::Msg(v)) => Ok(v),
            Some(_) => Err(self.error(name, "is not a msg")),
            None => Err(self.error(name, "is missing")),
        }
    }

    fn key_of(&self, m: &Message, name: &'static str) -> Result<TaskKey, ProtocolError> {
        let sub = Reader {
            m,
            op: self.op.clone(),
        };
        if m.get("sender").is_some() {
            let seqno = sub
                .u64("seqno")
                .map_err(|_| self.error(name, "has no u64 seqno"))?;
            if seqno == 0 {
                return Err(self.error(name, "has seqno 0, which is not certified"));
            }
            Ok(TaskKey::Certified {
                sender: sub
                    .string("sender")
                    .map_err(|_| self.error(name, "has no string sender"))?,
                subject: sub
                    .string("subject")
                    .map_err(|_| self.error(name, "has no string subject"))?,
                seqno,
            })
        } else {
            Ok(TaskKey::Reliable {
                scheduler: sub
                    .string("scheduler")
                    .map_err(|_| self.error(name, "has neither sender nor scheduler"))?,
                n: sub.u64("n").map_err(|_| self.error(name, "has no u64 n"))?,
            })
        }
    }

    fn key(&self) -> Result<TaskKey, ProtocolError> {
        let m = self.msg("key")?;
        self.key_of(m, "key")
    }

    fn keys(&self, name: &'static str) -> Result<Vec<TaskKey>, ProtocolError> {
        match self.m.get(name).map(|f| &f.value) {
            Some(Value::MsgArray(v)) => v.iter().map(|m| self.key_of(m, name)).collect(),
            Some(_) => Err(self.error(name, "is not a msgarray")),
            None => Err(self.error(name, "is missing")),
        }
    }
}

impl ToMembers {
    /// The message to every member of `name`.
    pub fn to_envelope(&self, name: &str) -> Envelope {
        let fields = match self {
            ToMembers::Heartbeat(h) => vec![
                Field::new("op", s("heartbeat")),
                Field::new("member", s(&h.member)),
                Field::new("worker_weight", Value::U32(h.worker_weight)),
                Field::new("worker_tasks", Value::U32(h.worker_tasks)),
                Field::new("scheduler_weight", Value::U16(h.scheduler_weight)),
                Field::new("joined", Value::U64(h.joined_ms)),
                Field::new("heartbeat_ms", Value::U64(h.heartbeat_ms)),
                Field::new("activation_ms", Value::U64(h.activation_ms)),
                Field::new("active", Value::Bool(h.active)),
                Field::new("subjects", Value::StringArray(h.subjects.clone())),
            ],
            ToMembers::Leave { member } => vec![
                Field::new("op", s("leave")),
                Field::new("member", s(member)),
            ],
            ToMembers::ReportRequest { scheduler } => vec![
                Field::new("op", s("report_request")),
                Field::new("scheduler", s(scheduler)),
            ],
        };
        envelope(member_subject(name), fields)
    }

    /// Reads a message to every member.
    ///
    /// Errors: [`ProtocolError`].
    pub fn from_message(m: &Message) -> Result<ToMembers, ProtocolError> {
        let r = Reader::new(m)?;
        Ok(match r.op() {
            "heartbeat" => ToMembers::Heartbeat(Heartbeat {
                member: r.string("member")?,
                worker_weight: r.u32("worker_weight")?,
                worker_tasks: r.u32("worker_tasks")?,
                scheduler_weight: r.u16("scheduler_weight")?,
                joined_ms: r.u64("joined")?,
                heartbeat_ms: r.u64("heartbeat_ms")?,
                activation_ms: r.u64("activation_ms")?,
                active: r.bool("active")?,
                subjects: r.strings("subjects")?,
            }),
            "leave" => ToMembers::Leave {
                member: r.string("member")?,
            },
            "report_request" => ToMembers::ReportRequest {
                scheduler: r.string("scheduler")?,
            },
            _ => return Err(r.error("op", "is not an operation for members")),
        })
    }
}

impl ToWorker {
    /// The message to member `member` of `name`.
    pub fn to_envelope(&self, member: &str, name: &str) -> Envelope {
        let fields = match self {
            ToWorker::Task { key, task } => {
                let mut f = vec![
                    Field::new("op", s("task")),
                    Field::new("key", Value::Msg(key_msg(key))),
                    Field::new("subject", s(&task.subject)),
                ];
                if let Some(reply) = &task.reply_subject {
                    f.push(Field::new("reply_subject", s(reply)));
                }
                if let Some(cm) = &task.cm {
                    f.push(Field::new("sender", s(&cm.sender)));
                    f.push(Field::new("seqno", Value::U64(cm.sequence)));
                    f.push(Field::new("time_limit", Value::F64(cm.time_limit)));
                }
                f.push(Field::new("data", Value::Msg(task.message.clone())));
                f
            }
            ToWorker::Withdraw(key) => vec![
                Field::new("op", s("withdraw")),
                Field::new("key", Value::Msg(key_msg(key))),
            ],
            ToWorker::Ack(key) => vec![
                Field::new("op", s("ack")),
                Field::new("key", Value::Msg(key_msg(key))),
            ],
        };
        envelope(worker_subject(member, name), fields)
    }

    /// Reads a message to one member.
    ///
    /// Errors: [`ProtocolError`].
    pub fn from_message(m: &Message) -> Result<ToWorker, ProtocolError> {
        let r = Reader::new(m)?;
        Ok(match r.op() {
            "task" => {
                let cm = match m.get("sender") {
                    Some(_) => Some(CmLabels {
                        sender: r.string("sender")?,
                        sequence: r.u64("seqno")?,
                        time_limit: match m.get("time_limit").map(|f| &f.value) {
                            Some(Value::F64(v)) if v.is_finite() && *v >= 0.0 => *v,
                            _ => return Err(r.error("time_limit", "is not an f64 >= 0")),
                        },
                    }),
                    None => None,
                };
                let reply_subject = match m.get("reply_subject") {
                    Some(_) => Some(r.string("reply_subject")?),
                    None => None,
                };
                ToWorker::Task {
                    key: r.key()?,
                    task: Envelope {
                        subject: r.string("subject")?,
                        reply_subject,
                        cm,
                        message: r.msg("data")?.clone(),
                    },
                }
            }
            "withdraw" => ToWorker::Withdraw(r.key()?),
            "ack" => ToWorker::Ack(r.key()?),
            _ => return Err(r.error("op", "is not an operation for a worker")),
        })
    }
}

impl ToScheduler {
    /// The message to the active scheduler of `name`.
    pub fn to_envelope(&self, name: &str) -> Envelope {
        let fields = match self {
            ToScheduler::Complete { member, key } => vec![
                Field::new("op", s("complete")),
                Field::new("member", s(member)),
                Field::new("key", Value::Msg(key_msg(key))),
            ],
            ToScheduler::Release { member, key } => vec![
                Field::new("op", s("release")),
                Field::new("member", s(member)),
                Field::new("key", Value::Msg(key_msg(key))),
            ],
            ToScheduler::Report {
                member,
                pending,
                completed,
            } => vec![
                Field::new("op", s("report")),
                Field::new("member", s(member)),
                Field::new("pending", keys_value(pending)),
                Field::new("completed", keys_value(completed)),
            ],
        };
        envelope(scheduler_subject(name), fields)
    }

    /// Reads a message to the scheduler.
    ///
    /// Errors: [`ProtocolError`].
    pub fn from_message(m: &Message) -> Result<ToScheduler, ProtocolError> {
        let r = Reader::new(m)?;
        Ok(match r.op() {
            "complete" => ToScheduler::Complete {
                member: r.string("member")?,
                key: r.key()?,
            },
            "release" => ToScheduler::Release {
                member: r.string("member")?,
                key: r.key()?,
            },
            "report" => ToScheduler::Report {
                member: r.string("member")?,
                pending: r.keys("pending")?,
                completed: r.keys("completed")?,
            },
            _ => return Err(r.error("op", "is not an operation for the scheduler")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert(seqno: u64) -> TaskKey {
        TaskKey::Certified {
            sender: "PRICER".into(),
            subject: "WORK.A".into(),
            seqno,
        }
    }

    #[test]
    fn every_message_reads_back_as_written() {
        let hb = ToMembers::Heartbeat(Heartbeat {
            member: "5F0C27A1D3B9E684-1".into(),
            worker_weight: 7,
            worker_tasks: 3,
            scheduler_weight: 2,
            joined_ms: 1_700_000_000_000,
            heartbeat_ms: 1000,
            activation_ms: 3500,
            active: true,
            subjects: vec!["WORK.A".into()],
        });
        let e = hb.to_envelope("Q.ONE");
        assert_eq!(e.subject, "_RVCMQ.MEMBER.Q.ONE");
        assert_eq!(ToMembers::from_message(&e.message).unwrap(), hb);
        let task = ToWorker::Task {
            key: cert(7),
            task: Envelope {
                subject: "WORK.A".into(),
                reply_subject: Some("_INBOX.X.1".into()),
                cm: Some(CmLabels {
                    sender: "PRICER".into(),
                    sequence: 7,
                    time_limit: 60.0,
                }),
                message: Message::new(vec![Field::new("n", Value::U32(1))]),
            },
        };
        let e = task.to_envelope("m-1", "Q.ONE");
        assert_eq!(e.subject, "_RVCMQ.WORKER.m-1.Q.ONE");
        assert_eq!(ToWorker::from_message(&e.message).unwrap(), task);
        let report = ToScheduler::Report {
            member: "m-1".into(),
            pending: vec![
                cert(1),
                TaskKey::Reliable {
                    scheduler: "m-2".into(),
                    n: 4,
                },
            ],
            completed: vec![cert(2)],
        };
        let e = report.to_envelope("Q.ONE");
        assert_eq!(e.subject, "_RVCMQ.SCHEDULER.Q.ONE");
        assert_eq!(ToScheduler::from_message(&e.message).unwrap(), report);
    }

    #[test]
    fn unreadable_messages_name_the_field() {
        let m = Message::new(vec![
            Field::new("op", s("complete")),
            Field::new("member", s("m")),
        ]);
        assert_eq!(
            ToScheduler::from_message(&m).unwrap_err().to_string(),
            "op \"complete\": field 'key' is missing"
        );
        let bad_key = Message::new(vec![
            Field::new("op", s("ack")),
            Field::new(
                "key",
                Value::Msg(Message::new(vec![Field::new("sender", s("S"))])),
            ),
        ]);
        assert_eq!(
            ToWorker::from_message(&bad_key).unwrap_err().to_string(),
            "op \"ack\": field 'key' has no u64 seqno"
        );
        assert_eq!(
            ToMembers::from_message(&Message::default())
                .unwrap_err()
                .to_string(),
            "field 'op' is missing"
        );
    }
}
