//! Attachments: `pams_attach_q` and `pams_exit` for clients of the PAMS API
//! (BEA MessageQ 5.0 Programmer's Guide, "Attaching to the message queuing
//! bus" and "Broadcasting Messages"; docs/messageq.md "Attachments").
//!
//! An HTTP client has no process for the bus to watch, so an attachment is a
//! lease: the client attaches a queue of the group (or a new temporary
//! queue) and keeps the attachment alive; when it exits, or misses its
//! keep-alive, the attachment ends. Then
//!
//! - its temporary queue is deleted with what is on it ("Temporary queues
//!   are automatically deregistered when the application exits"), and
//! - the SBS server removes the registrations it owned: those made with
//!   `auto_dereg` while the queue was attached, and every registration of
//!   its temporary queue ("by exiting the BEA MessageQ message queuing bus
//!   when the automatic deregistration was previously set in the
//!   subscription entry").
//!
//! The server learns of ended attachments through [`Attachments::take_departed`],
//! which it reads before serving each message, so a request always sees the
//! registrations as they are after every earlier exit.

use super::group::GroupQueues;
use crate::config::{LocalQueueDef, Usage};
use crate::mqi::{Mqi, QmError, Token};
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::pams::QAddress;
use mqgate_codecs::pams::address::{is_mot, queues};
use mqgate_codecs::pams::status::PamsStatus;
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The number an attachment has inside the gateway (registrations name
/// their owner by it; clients name an attachment by its [`Token`]).
pub type Serial = u64;

/// How attachments are made (the `messageq:` settings of docs/config.md).
#[derive(Clone, Debug)]
pub struct AttachSettings {
    /// Queue numbers temporary queues are given, lowest free first.
    pub temporary_queues: RangeInclusive<u16>,
    /// Keep-alive timeout when the client asks for none.
    pub default_timeout: Duration,
    /// Longest keep-alive timeout a client may ask for.
    pub max_timeout: Duration,
    /// Whether the SBS server runs (then queue 99 is its own).
    pub sbs: bool,
}

/// Shortest keep-alive timeout a client may ask for, in ms.
pub const MIN_TIMEOUT_MS: u64 = 1000;

/// What to attach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachTarget {
    /// A queue of this group (`pams_attach_q` with PSYM_ATTACH_BY_NUMBER).
    Queue(QAddress),
    /// A new temporary queue (PSYM_ATTACH_TEMPORARY).
    Temporary,
}

/// One attachment.
#[derive(Clone, Debug)]
pub struct Attachment {
    /// The client's name for it.
    pub token: Token,
    /// The gateway's number for it.
    pub serial: Serial,
    /// The queue attached (group set to this group's number).
    pub queue: QAddress,
    /// Its mqgate queue.
    pub mq_queue: String,
    /// A temporary queue, deleted when the attachment ends.
    pub temporary: bool,
    /// Keep-alive timeout.
    pub timeout: Duration,
    expires_at: Instant,
}

impl Attachment {
    /// Time left before the attachment ends without a keep-alive.
    pub fn expires_in(&self, now: Instant) -> Duration {
        self.expires_at.saturating_duration_since(now)
    }
}

/// An attachment that ended.
#[derive(Clone, Debug)]
pub struct Ended {
    /// The attachment as it was.
    pub attachment: Attachment,
    /// Messages discarded with its temporary queue.
    pub discarded: usize,
}

/// A refused attachment call: the PAMS status `pams_attach_q` or
/// `pams_exit` would return, what was wrong, and the MQRC when the queue
/// interface refused.
#[derive(Clone, Debug)]
pub struct AttachError {
    /// The `p_return.h` code.
    pub status: PamsStatus,
    /// What was wrong.
    pub message: String,
    /// The queue interface's reason, if it refused.
    pub mqrc: Option<Mqrc>,
}

impl AttachError {
    fn new(status: PamsStatus, message: impl Into<String>) -> Self {
        AttachError {
            status,
            message: message.into(),
            mqrc: None,
        }
    }

    fn qm(status: PamsStatus, e: QmError) -> Self {
        AttachError {
            status,
            message: e.message,
            mqrc: Some(e.mqrc),
        }
    }
}

/// The attachments of one gateway.
pub struct Attachments {
    settings: AttachSettings,
    queues: Arc<GroupQueues>,
    mqi: Mqi,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    by_token: HashMap<Token, Attachment>,
    by_queue: HashMap<QAddress, Token>,
    next_serial: Serial,
    /// Serials of attachments that ended and the SBS server has not yet
    /// been told of.
    departed: Vec<Serial>,
}

impl Attachments {
    /// No attachments yet.
    pub fn new(settings: AttachSettings, queues: Arc<GroupQueues>, mqi: Mqi) -> Self {
        Attachments {
            settings,
            queues,
            mqi,
            table: Mutex::new(Table::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every change is a few map operations: state after a panic is usable.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The timeout a client asked for (`None` = the default), checked.
    ///
    /// Errors: PAMS__BADPARAM outside [`MIN_TIMEOUT_MS`] to the maximum.
    pub fn timeout(&self, asked_ms: Option<u64>) -> Result<Duration, AttachError> {
        let Some(ms) = asked_ms else {
            return Ok(self.settings.default_timeout);
        };
        let max = self.settings.max_timeout.as_millis() as u64;
        if (MIN_TIMEOUT_MS..=max).contains(&ms) {
            Ok(Duration::from_millis(ms))
        } else {
            Err(AttachError::new(
                PamsStatus::BADPARAM,
                format!("timeout_ms: {ms} is not {MIN_TIMEOUT_MS} to {max}"),
            ))
        }
    }

    /// `pams_attach_q`: attaches `target` for `timeout` (see
    /// [`Attachments::timeout`]).
    ///
    /// Errors: PAMS__BADPARAM (-186) for a queue of another group;
    /// PAMS__BADPROCNUM (-62) for queue 0 or a MOT (a stream is read through
    /// a registered queue); PAMS__DECLARED (-106) for a queue attached
    /// already, or queue 99 while the SBS server serves it; PAMS__NOOBJECT
    /// (-166) for a queue of the group that is not defined; PAMS__DCLTMPFAIL
    /// (-136) when no temporary queue number is free or the queue cannot be
    /// created; PAMS__PAMSDOWN (-138) while the gateway stops.
    pub fn attach(
        &self,
        target: AttachTarget,
        timeout: Duration,
    ) -> Result<Attachment, AttachError> {
        let token = Token::random().map_err(|e| AttachError::qm(PamsStatus::FAILED, e))?;
        let mut t = self.lock();
        let (queue, mq_queue, temporary) = match target {
            AttachTarget::Queue(a) => {
                let (queue, name) = self.permanent(a)?;
                if t.by_queue.contains_key(&queue) {
                    return Err(AttachError::new(
                        PamsStatus::DECLARED,
                        format!(
                            "queue {queue} is attached already (pams_exit ends that attachment)"
                        ),
                    ));
                }
                (queue, name, false)
            }
            AttachTarget::Temporary => {
                let (queue, name) = self.create_temporary()?;
                (queue, name, true)
            }
        };
        t.next_serial += 1;
        let a = Attachment {
            token,
            serial: t.next_serial,
            queue,
            mq_queue,
            temporary,
            timeout,
            expires_at: Instant::now() + timeout,
        };
        t.by_queue.insert(queue, token);
        t.by_token.insert(token, a.clone());
        tracing::info!(queue = %a.queue, mq_queue = %a.mq_queue, temporary, timeout_ms = timeout.as_millis() as u64, "PAMS attachment made");
        Ok(a)
    }

    /// Checks permanent queue `a` can be attached: its address and mqgate
    /// queue.
    fn permanent(&self, a: QAddress) -> Result<(QAddress, String), AttachError> {
        let group = self.queues.group();
        if !self.queues.is_local(a) {
            return Err(AttachError::new(
                PamsStatus::BADPARAM,
                format!(
                    "queue: {a} is a queue of group {}; a client attaches queues of this group ({group})",
                    a.group
                ),
            ));
        }
        let a = self.queues.normalize(a);
        if a.queue == 0 || is_mot(a.queue) {
            return Err(AttachError::new(
                PamsStatus::BADPROCNUM,
                format!(
                    "queue: {a} cannot be attached: {}",
                    if a.queue == 0 {
                        "queue 0 is no queue"
                    } else {
                        "4000-6000 are MOTs (broadcast streams), read through a registered queue"
                    }
                ),
            ));
        }
        if self.settings.sbs && a.queue == queues::PAMS_SBS_SERVER {
            return Err(AttachError::new(
                PamsStatus::DECLARED,
                format!("queue {a} is the SBS server's"),
            ));
        }
        let name = self.queues.queue_name(a).unwrap_or_default();
        if self.mqi.depth(&name).is_none() {
            return Err(AttachError::new(
                PamsStatus::NOOBJECT,
                format!("queue {a} ({name}) is not a queue of this group"),
            ));
        }
        Ok((a, name))
    }

    /// Creates the temporary queue with the lowest free number.
    fn create_temporary(&self) -> Result<(QAddress, String), AttachError> {
        let group = self.queues.group();
        for n in self.settings.temporary_queues.clone() {
            if self.queues.in_qct(n) {
                continue;
            }
            let name = super::group::default_name(group, n);
            let def = LocalQueueDef::with_defaults(&name, Usage::Normal);
            match self.mqi.create_temporary(def) {
                Ok(_) => return Ok((QAddress::new(group, n), name)),
                Err(e) if e.mqrc == Mqrc::OBJECT_ALREADY_EXISTS => continue,
                Err(e) if e.mqrc == Mqrc::Q_MGR_QUIESCING || e.mqrc == Mqrc::Q_MGR_STOPPING => {
                    return Err(AttachError::qm(PamsStatus::PAMSDOWN, e));
                }
                Err(e) => return Err(AttachError::qm(PamsStatus::DCLTMPFAIL, e)),
            }
        }
        let r = &self.settings.temporary_queues;
        Err(AttachError::new(
            PamsStatus::DCLTMPFAIL,
            format!(
                "no temporary queue is free: numbers {} to {} are in use (messageq.temporary_queues)",
                r.start(),
                r.end()
            ),
        ))
    }

    /// Keeps attachment `token` alive for another timeout.
    ///
    /// Errors: PAMS__NOTDCL (-70) when no attachment has the token (it
    /// ended, or never was).
    pub fn keepalive(&self, token: Token) -> Result<Attachment, AttachError> {
        let mut t = self.lock();
        let a = t
            .by_token
            .get_mut(&token)
            .ok_or_else(|| not_attached(token))?;
        a.expires_at = Instant::now() + a.timeout;
        Ok(a.clone())
    }

    /// The attachment of `token`.
    ///
    /// Errors: PAMS__NOTDCL (-70) as [`Attachments::keepalive`].
    pub fn get(&self, token: Token) -> Result<Attachment, AttachError> {
        self.lock()
            .by_token
            .get(&token)
            .cloned()
            .ok_or_else(|| not_attached(token))
    }

    /// `pams_exit`: ends attachment `token`.
    ///
    /// Errors: PAMS__NOTDCL (-70) as [`Attachments::keepalive`].
    pub fn exit(&self, token: Token) -> Result<Ended, AttachError> {
        let a = {
            let mut t = self.lock();
            let a = t
                .by_token
                .remove(&token)
                .ok_or_else(|| not_attached(token))?;
            t.by_queue.remove(&a.queue);
            t.departed.push(a.serial);
            a
        };
        Ok(self.ended(a, "pams_exit"))
    }

    /// Ends every attachment whose keep-alive timeout passed.
    pub fn reap(&self, now: Instant) -> Vec<Ended> {
        let gone: Vec<Attachment> = {
            let mut t = self.lock();
            let due: Vec<Token> = t
                .by_token
                .values()
                .filter(|a| a.expires_at <= now)
                .map(|a| a.token)
                .collect();
            let mut gone = Vec::with_capacity(due.len());
            for token in due {
                if let Some(a) = t.by_token.remove(&token) {
                    t.by_queue.remove(&a.queue);
                    t.departed.push(a.serial);
                    gone.push(a);
                }
            }
            gone
        };
        gone.into_iter()
            .map(|a| self.ended(a, "keep-alive missed"))
            .collect()
    }

    fn ended(&self, attachment: Attachment, why: &str) -> Ended {
        let mut discarded = 0;
        if attachment.temporary {
            match self.mqi.delete_temporary(&attachment.mq_queue) {
                Ok(n) => discarded = n,
                Err(e) => {
                    tracing::warn!(queue = %attachment.mq_queue, mqrc = e.mqrc.0, error = %e.message, "temporary queue not deleted")
                }
            }
        }
        tracing::info!(queue = %attachment.queue, mq_queue = %attachment.mq_queue, temporary = attachment.temporary, discarded, why, "PAMS attachment ended");
        Ended {
            attachment,
            discarded,
        }
    }

    /// The attachment a new registration of `queue` ends with: the
    /// queue's attachment when the registration asked for `auto_dereg` or
    /// the queue is temporary; `None` otherwise, or when `queue` is not
    /// attached (the registration then stays until deregistered).
    pub fn registration_owner(&self, queue: QAddress, auto_dereg: bool) -> Option<Serial> {
        let queue = self.queues.normalize(queue);
        let t = self.lock();
        let a = t.by_token.get(t.by_queue.get(&queue)?)?;
        (auto_dereg || a.temporary).then_some(a.serial)
    }

    /// The serials of the attachments that ended since the last call.
    pub fn take_departed(&self) -> Vec<Serial> {
        std::mem::take(&mut self.lock().departed)
    }

    /// Ends attachments whose keep-alive passed, once a second, until the
    /// gateway's timers end (a [`crate::tasks::TaskGroup::Timers`] task).
    pub async fn reaper(self: Arc<Self>) {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            self.reap(Instant::now());
        }
    }
}

fn not_attached(token: Token) -> AttachError {
    AttachError::new(
        PamsStatus::NOTDCL,
        format!(
            "no attachment {token}: it ended (pams_exit, or its keep-alive was missed) or never was"
        ),
    )
}
