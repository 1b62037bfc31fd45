//! Applying received transmission messages through the queue interface:
//! receive exits, MQXQH parse, message exits, then the put through
//! [`Mqi::put1_now`] — before_put, resolution (IBM MQ "Name resolution",
//! devices per the WebSphere MQ Everyplace gateway article) — and the
//! undelivered rule (docs/channel-protocol.md "Applying one message"). Runs
//! on a blocking thread: exits and store commits may take time.

use super::xmit;
use crate::config::UndeliveredRule;
use crate::mqi::{CallError, DeadLetter, Mqi, Outgoing, PutOptions, QmError, SealedUow};
use crate::security::{Authority, ObjectType, Principal};
use bytes::{Bytes, BytesMut};
use mqgate_codecs::mq::constants::{enc, per};
use mqgate_codecs::mq::xqh::XQH_LENGTH;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
use mqgate_exits::{ExitChain, Verdict};

/// Why a batch (or fast-path message) was not applied. Nothing of it was committed.
#[derive(Debug)]
pub enum ApplyError {
    /// Message `index` of the batch has no destination and the rule is
    /// `retry` (the WebSphere MQ Everyplace gateway article "Unhandled Messages").
    Undelivered {
        index: usize,
        reason: Mqrc,
        text: String,
    },
    /// The channel must close with `reason` (receive or message exit
    /// failure, store failure, dead-letter queue unusable).
    Close { reason: Mqrc, text: String },
}

/// Applies messages for one receiver channel.
pub struct Applier {
    mqi: Mqi,
    channel: String,
    rule: UndeliveredRule,
    /// Receive exits: on the raw transmission message.
    chain: Option<ExitChain>,
    /// Message exits: on the transmission message once its MQXQH parsed.
    message: Option<ExitChain>,
    /// Whose authorities each put needs (docs/security.md "Message
    /// channels"); `None`: puts are not checked.
    principal: Option<Principal>,
}

/// What a chain's verdict does to one message at a receiver channel point.
enum Outcome {
    Continue,
    /// Dead-letter it with this reason and text, whatever the rule.
    Suppressed(Mqrc, String),
}

/// The verdict of `what` (`receive exit`, `message exit`) as what happens to
/// the message; `CloseChannel` closes the channel with 2374
/// MQRC_API_EXIT_ERROR (the batch is not committed).
fn outcome(verdict: Verdict, what: &str) -> Result<Outcome, ApplyError> {
    match verdict {
        Verdict::Continue => Ok(Outcome::Continue),
        Verdict::Suppress { reason, exit, .. } | Verdict::FailCall { reason, exit, .. } => Ok(
            Outcome::Suppressed(reason, format!("{what} {exit} suppressed the message")),
        ),
        Verdict::CloseChannel { exit, failure } => {
            let detail = failure.map(|f| f.to_string()).unwrap_or_default();
            Err(ApplyError::Close {
                reason: Mqrc::API_EXIT_ERROR,
                text: format!("{what} {exit} closed the channel {detail}"),
            })
        }
    }
}

/// True when a put refused with `reason` fails for what the message is, not
/// for where it goes: a retry of the same bytes fails the same way, so the
/// undelivered rule `retry` would only stop the channel for the messages
/// behind it (docs/channel-protocol.md "Applying one message" step 5). These
/// are the MQMD field errors of IBM MQ "MQPUT1 - Put one message" (2026
/// MQRC_MD_ERROR, 2029 MQRC_MSG_TYPE_ERROR, 2047 MQRC_PERSISTENCE_ERROR, 2013
/// MQRC_EXPIRY_ERROR, 2050 MQRC_PRIORITY_ERROR), names no queue manager could
/// hold (2152 MQRC_OBJECT_NAME_ERROR, 2058 MQRC_Q_MGR_NAME_ERROR) and a header
/// that is not valid (2142 MQRC_HEADER_ERROR, e.g. a put straight to a
/// transmission queue of data without an MQXQH).
pub fn never_deliverable(reason: Mqrc) -> bool {
    matches!(
        reason,
        Mqrc::MD_ERROR
            | Mqrc::MSG_TYPE_ERROR
            | Mqrc::PERSISTENCE_ERROR
            | Mqrc::EXPIRY_ERROR
            | Mqrc::PRIORITY_ERROR
            | Mqrc::OBJECT_NAME_ERROR
            | Mqrc::Q_MGR_NAME_ERROR
            | Mqrc::HEADER_ERROR
    )
}

/// Where an undeliverable message was going and under which unit of work.
struct Undeliverable<'a> {
    msg: DeadLetter<'a>,
    uow: Option<u64>,
    /// Dead-letter it whatever the undelivered rule.
    force_dlq: bool,
}

fn close(e: QmError) -> ApplyError {
    ApplyError::Close {
        reason: e.mqrc,
        text: e.message,
    }
}

/// Commits a prepared (sealed) group with the channel's last committed
/// sequence number (docs/channel-protocol.md "Pipelining and group commit").
#[derive(Clone)]
pub struct GroupCommit {
    mqi: Mqi,
}

impl GroupCommit {
    /// Commits `sealed` and the sequence number sealed with it, in one store
    /// transaction. Errors: the store failed (the unit of work is backed
    /// out; MQRC 2003 MQRC_BACKED_OUT).
    pub fn commit(&self, sealed: SealedUow) -> Result<(), ApplyError> {
        self.mqi.commit_seal(sealed).map_err(close)
    }

    /// Backs out a prepared group that will not be committed.
    pub fn backout(&self, sealed: SealedUow) {
        self.mqi.backout_seal(sealed);
    }
}

/// What happened to one message.
enum Placed {
    Delivered,
    DeadLettered,
}

impl Applier {
    /// An applier for `channel` putting through `mqi` (whose queue exits
    /// run: before_put, by the RemoteQName each message names), with its
    /// receive exit chain (already started).
    pub fn new(mqi: Mqi, channel: &str, rule: UndeliveredRule, chain: Option<ExitChain>) -> Self {
        Applier {
            mqi,
            channel: channel.to_string(),
            rule,
            chain,
            message: None,
            principal: None,
        }
    }

    /// Checks each put as `principal` when the queue interface checks
    /// authorities: +put and +setall on a queue of this queue manager
    /// (the message keeps the sender's context), +put on another queue
    /// manager (`rqmname`) the message is forwarded to. A refused message
    /// is dead-lettered with 2035 MQRC_NOT_AUTHORIZED whatever the
    /// undelivered rule.
    pub fn with_principal(mut self, principal: Option<Principal>) -> Self {
        self.principal = principal;
        self
    }

    /// The authority check of a put to `rq` at `rqm` ([`Applier::with_principal`]).
    fn authorize_put(&self, rq: &str, rqm: &str) -> Result<(), QmError> {
        let Some(p) = self.principal.as_ref() else {
            return Ok(());
        };
        if !self.mqi.checks_authorities() {
            return Ok(());
        }
        if rqm.is_empty() || rqm == self.mqi.q_mgr_name() {
            self.mqi
                .authorize(Some(p), ObjectType::Queue, rq, Authority::Put)?;
            self.mqi
                .authorize(Some(p), ObjectType::Queue, rq, Authority::SetAll)
        } else {
            self.mqi
                .authorize(Some(p), ObjectType::Rqmname, rqm, Authority::Put)
        }
    }

    /// Adds the channel's message exit chain (already started): it runs on
    /// each transmission message after its MQXQH parsed, before it is
    /// resolved and put (docs/exits.md "Where each point runs").
    pub fn with_message_exits(mut self, chain: Option<ExitChain>) -> Self {
        self.message = chain;
        self
    }

    /// Applies consecutive batches in one unit of work and commits them
    /// together with the channel's last committed sequence number `seq` (the
    /// last batch's): one store transaction, one fsync (group commit). Returns
    /// how many messages went to the dead-letter queue. On error nothing is
    /// committed; an `Undelivered` index counts messages across `batches`.
    pub fn apply_batches(&mut self, batches: &[&[Bytes]], seq: u64) -> Result<usize, ApplyError> {
        let (sealed, dead) = self.prepare(batches, seq)?;
        self.group_commit().commit(sealed)?;
        Ok(dead)
    }

    /// Applies consecutive batches in one unit of work and seals it with the
    /// channel's last committed sequence number `seq` (the last batch's):
    /// returns the sealed unit (commit it with [`GroupCommit::commit`]) and
    /// how many messages went to the dead-letter queue. On error the unit of
    /// work is backed out; an `Undelivered` index counts messages across
    /// `batches`.
    pub fn prepare(
        &mut self,
        batches: &[&[Bytes]],
        seq: u64,
    ) -> Result<(SealedUow, usize), ApplyError> {
        let msgs = batches.iter().flat_map(|b| b.iter()).map(|raw| (raw, 0));
        let meta = vec![(super::seq_key(&self.channel), seq.to_be_bytes().to_vec())];
        self.prepare_with(msgs, meta)
    }

    /// Applies `msgs` in one unit of work and commits it together with the
    /// state records `meta` (name, bytes): one store transaction. Each
    /// message is (the buffer the receive exits see, where the transmission
    /// message starts in it): 0 for a transmission message, 492 for an MQ
    /// client's agent buffer (docs/exits.md "The agent buffer"). Returns how
    /// many went to the dead-letter queue; on error nothing is committed.
    pub fn apply_with_meta(
        &mut self,
        msgs: &[(Bytes, usize)],
        meta: Vec<(String, Vec<u8>)>,
    ) -> Result<usize, ApplyError> {
        let (sealed, dead) = self.prepare_with(msgs.iter().map(|(b, at)| (b, *at)), meta)?;
        self.group_commit().commit(sealed)?;
        Ok(dead)
    }

    fn prepare_with<'b>(
        &mut self,
        msgs: impl Iterator<Item = (&'b Bytes, usize)>,
        meta: Vec<(String, Vec<u8>)>,
    ) -> Result<(SealedUow, usize), ApplyError> {
        let uow = self.mqi.begin(None).map_err(close)?;
        let mut dead = 0;
        for (index, (raw, at)) in msgs.enumerate() {
            match self.one(raw, at, Some(uow), false) {
                Ok(Placed::Delivered) => {}
                Ok(Placed::DeadLettered) => dead += 1,
                Err(e) => {
                    let _ = self.mqi.backout_now(uow);
                    return Err(match e {
                        ApplyError::Undelivered { reason, text, .. } => ApplyError::Undelivered {
                            index,
                            reason,
                            text,
                        },
                        other => other,
                    });
                }
            }
        }
        let sealed = self.mqi.seal(uow, meta).map_err(close)?;
        Ok((sealed, dead))
    }

    /// What commits this channel's prepared units of work; it can run on
    /// another thread while the applier prepares the next group.
    pub fn group_commit(&self) -> GroupCommit {
        GroupCommit {
            mqi: self.mqi.clone(),
        }
    }

    /// Ends the receive and message exit chains (MQXR_TERM).
    pub fn terminate(&mut self) {
        for mut c in [self.chain.take(), self.message.take()]
            .into_iter()
            .flatten()
        {
            for (exit, failure) in c.terminate() {
                tracing::warn!(channel = %self.channel, %exit, %failure, "exit failed at MQXR_TERM");
            }
        }
    }

    /// Applies one message sent outside a batch (non-persistent fast path).
    /// An undelivered message goes to the dead-letter queue whatever the rule,
    /// since the sender no longer holds it.
    pub fn apply_fast(&mut self, raw: &Bytes) -> Result<(), ApplyError> {
        self.one(raw, 0, None, true).map(|_| ())
    }

    /// Applies one message; the receive exits see `raw`, whose transmission
    /// message starts at offset `at` (0, or an agent buffer's 492).
    fn one(
        &mut self,
        raw: &Bytes,
        at: usize,
        uow: Option<u64>,
        force_dlq: bool,
    ) -> Result<Placed, ApplyError> {
        let mut buf = BytesMut::from(&raw[..]);
        let mut suppressed = None;
        if let Some(chain) = self.chain.as_mut()
            && let Outcome::Suppressed(reason, text) =
                outcome(chain.run_buffer(&mut buf), "receive exit")?
        {
            suppressed = Some((reason, text));
        }
        // The agent buffer's headers are the queue manager's, not the
        // message's: what goes on is the transmission message alone.
        let mut buf = buf.split_off(at.min(buf.len()));
        if suppressed.is_none()
            && let Some(chain) = self.message.as_mut()
            && xmit::parse(&buf).is_ok()
            && let Outcome::Suppressed(reason, text) =
                outcome(chain.run_buffer(&mut buf), "message exit")?
        {
            suppressed = Some((reason, text));
        }
        let buf = buf.freeze();
        let (xqh, cs) = match xmit::parse(&buf) {
            Ok(v) => v,
            Err(e) => {
                // Never deliverable, however often it is tried: dead-lettered
                // at once whatever the rule, so it does not stop the channel
                // for the messages behind it (docs/channel-protocol.md
                // "Applying one message" step 5). The reason is 2142
                // MQRC_HEADER_ERROR (the MQXQH, its MQMD included, is not
                // valid); the log names the structure, offset and fault.
                let text = format!("not a transmission message: {e}");
                // A batch's message is kept as safely as the batch.
                let md = Mqmd {
                    persistence: if uow.is_some() {
                        per::PERSISTENT
                    } else {
                        per::NOT_PERSISTENT
                    },
                    ..Mqmd::default()
                };
                let u = Undeliverable {
                    msg: DeadLetter {
                        md: &md,
                        charset: Charset::Ascii,
                        data: &buf,
                        reason: Mqrc::HEADER_ERROR,
                        dest_q: "",
                        dest_q_mgr: "",
                    },
                    uow,
                    force_dlq: true,
                };
                return self.undelivered(&u, text);
            }
        };
        let rq = xqh.remote_q_name.text(cs);
        let rqm = xqh.remote_q_mgr_name.text(cs);
        let md = xqh.msg_desc;
        let data = buf.slice(XQH_LENGTH..);
        let undeliverable = |reason: Mqrc, force_dlq: bool| Undeliverable {
            msg: DeadLetter {
                md: &md,
                charset: cs,
                data: &data,
                reason,
                dest_q: &rq,
                dest_q_mgr: &rqm,
            },
            uow,
            force_dlq,
        };
        if let Some((reason, text)) = suppressed {
            return self.undelivered(&undeliverable(reason, true), text);
        }
        if let Err(e) = self.authorize_put(&rq, &rqm) {
            // Never deliverable as this principal: dead-lettered at once,
            // the channel goes on.
            let text = format!("the put to {rq} at {rqm} was refused: {}", e.message);
            return self.undelivered(&undeliverable(e.mqrc, true), text);
        }
        let opts = PutOptions {
            uow,
            pass_all_context: true,
            q_mgr_name: rqm.clone(),
            ..PutOptions::default()
        };
        let msg = Outgoing {
            md: md.clone(),
            charset: cs,
            data: data.clone(),
        };
        // MQPUT1 through the queue interface: before_put of RemoteQName runs
        // once, then resolution and the put in the batch's unit of work.
        match self.mqi.put1_now(&rq, msg, opts) {
            Ok(r) => {
                tracing::debug!(channel = %self.channel, queue = %r.queue,
                    msg_id = %hex::encode_upper(r.msg_id), "received");
                Ok(Placed::Delivered)
            }
            Err(CallError::Exit { stop, .. }) => {
                // A before_put that stops the put: the message, as it
                // arrived (after the message exits), goes to the dead-letter
                // queue with the exit's reason whatever the rule, like a
                // suppressing receive or message exit; the channel goes on.
                let text = format!("{stop}: the put to {rq} at {rqm} was refused");
                self.undelivered(&undeliverable(stop.reason, true), text)
            }
            Err(CallError::Queue(e)) if never_deliverable(e.mqrc) => {
                // The message itself is at fault (its MQMD, its names, a
                // transmission queue put without an MQXQH): retrying cannot
                // help, so it is dead-lettered at once whatever the rule.
                // Its MQMD or names may be what the put refused, so it goes
                // whole, MQXQH included, behind an MQMD that only says so.
                let text = format!("the put to {rq} at {rqm} was refused: {}", e.message);
                let xmit_md = Mqmd {
                    format: CharField::new("MQXMIT", cs).unwrap_or_default(),
                    encoding: match xmit::xqh_order(&buf) {
                        ByteOrder::Big => enc::NORMAL,
                        ByteOrder::Little => enc::REVERSED,
                    },
                    msg_id: md.msg_id,
                    correl_id: md.correl_id,
                    // As safe as it came: persistent unless it said it is
                    // not, or came outside a batch.
                    persistence: if md.persistence == per::NOT_PERSISTENT || uow.is_none() {
                        per::NOT_PERSISTENT
                    } else {
                        per::PERSISTENT
                    },
                    ..Mqmd::default()
                };
                let bad_names = matches!(e.mqrc, Mqrc::OBJECT_NAME_ERROR | Mqrc::Q_MGR_NAME_ERROR);
                let (dest_q, dest_q_mgr) = if bad_names {
                    ("", "")
                } else {
                    (&rq[..], &rqm[..])
                };
                let u = Undeliverable {
                    msg: DeadLetter {
                        md: &xmit_md,
                        charset: cs,
                        data: &buf,
                        reason: e.mqrc,
                        dest_q,
                        dest_q_mgr,
                    },
                    uow,
                    force_dlq: true,
                };
                self.undelivered(&u, text)
            }
            Err(CallError::Queue(e)) => {
                let text = format!("no destination for {rq} at {rqm}: {}", e.message);
                self.undelivered(&undeliverable(e.mqrc, force_dlq), text)
            }
        }
    }

    /// Applies the undelivered rule to `u`: `retry` (and not forced) hands
    /// the reason back, otherwise the message goes to the dead-letter queue
    /// with PutApplName = the channel name, in `u`'s unit of work.
    fn undelivered(&self, u: &Undeliverable<'_>, text: String) -> Result<Placed, ApplyError> {
        let m = &u.msg;
        tracing::warn!(channel = %self.channel, reason = m.reason.0,
            msg_id = %hex::encode_upper(m.md.msg_id),
            correl_id = %hex::encode_upper(m.md.correl_id),
            dest_q = %m.dest_q, dest_q_mgr = %m.dest_q_mgr, %text, "message undelivered");
        if self.rule == UndeliveredRule::Retry && !u.force_dlq {
            return Err(ApplyError::Undelivered {
                index: 0,
                reason: m.reason,
                text,
            });
        }
        self.mqi
            .dead_letter_as(m, &self.channel, u.uow)
            .map_err(|e| ApplyError::Close {
                reason: e.mqrc,
                text: format!("{text}; and it cannot be dead-lettered: {}", e.message),
            })?;
        Ok(Placed::DeadLettered)
    }
}
