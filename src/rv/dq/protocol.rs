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

use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Message, Value};

pub use crate::rv::control::ProtocolError;
use crate::rv::control::{Reader, envelope, string as s};

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

/// The task key in the nested message `m`, field `name` of the message `r`
/// reads.
fn key_of(r: &Reader<'_>, m: &Message, name: &'static str) -> Result<TaskKey, ProtocolError> {
    let sub = r.nested(m);
    if m.get("sender").is_some() {
        let seqno = sub
            .u64("seqno")
            .map_err(|_| r.error(name, "has no u64 seqno"))?;
        if seqno == 0 {
            return Err(r.error(name, "has seqno 0, which is not certified"));
        }
        Ok(TaskKey::Certified {
            sender: sub
                .string("sender")
                .map_err(|_| r.error(name, "has no string sender"))?,
            subject: sub
                .string("subject")
                .map_err(|_| r.error(name, "has no string subject"))?,
            seqno,
        })
    } else {
        Ok(TaskKey::Reliable {
            scheduler: sub
                .string("scheduler")
                .map_err(|_| r.error(name, "has neither sender nor scheduler"))?,
            n: sub.u64("n").map_err(|_| r.error(name, "has no u64 n"))?,
        })
    }
}

/// The task key in field `key`.
fn key(r: &Reader<'_>) -> Result<TaskKey, ProtocolError> {
    key_of(r, r.msg("key")?, "key")
}

/// The task keys in the msgarray field `name`.
fn keys(r: &Reader<'_>, name: &'static str) -> Result<Vec<TaskKey>, ProtocolError> {
    r.msgs(name)?.iter().map(|m| key_of(r, m, name)).collect()
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
                    key: key(&r)?,
                    task: Envelope {
                        subject: r.string("subject")?,
                        reply_subject,
                        cm,
                        message: r.msg("data")?.clone(),
                    },
                }
            }
            "withdraw" => ToWorker::Withdraw(key(&r)?),
            "ack" => ToWorker::Ack(key(&r)?),
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
                key: key(&r)?,
            },
            "release" => ToScheduler::Release {
                member: r.string("member")?,
                key: key(&r)?,
            },
            "report" => ToScheduler::Report {
                member: r.string("member")?,
                pending: keys(&r, "pending")?,
                completed: keys(&r, "completed")?,
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
