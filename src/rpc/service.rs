//! [`RpcService`]: runs RPC calls as MQ operations through the queue
//! interface ([`Mqi`]; Software AG EntireX "EntireX WebSphere MQ RPC Server": request/reply,
//! dynamic parameters, transactional behaviour, user exit; docs/rpc.md "Mapping
//! rules").
//!
//! - put (only IN data): one put to MQ_QUEUE_NAME or `rpc.output_queue`; a
//!   Request with ReplyToQ when MQ_REPLY_QUEUE is IN;
//! - get (only OUT data): one get from MQ_QUEUE_NAME or `rpc.input_queue`,
//!   matching MQ_CORREL_ID when given, waiting MQ_WAIT_INTERVAL;
//! - request/reply: a Request put with ReplyToQ = the input queue and a new
//!   CorrelId (MQPMO_NEW_CORREL_ID) unless MQ_CORREL_ID is given, then a get
//!   from the input queue matching that CorrelId; none in time → NO_REPLY 2033.
//!
//! The queue interface runs the `rpc.exits` chains: before_put once per put; before_get, the get,
//! then after_get once per get; the answer is built from what after_get left. Outside a
//! conversation a get is taken under a private unit of work that is committed before the answer
//! returns (the message is gone at once, as the EntireX WebSphere MQ RPC Server documentation
//! says); if the message cannot be read as the reply it goes to the dead-letter queue instead of
//! being lost.

use super::error::{RpcError, RpcErrorKind};
use super::payload::{self, Described};
use super::programs::Programs;
use crate::config::RpcConfig;
use crate::mqi::{CallError, DeadLetterPut, GetRequest, Got, Mqi, Outgoing};
use crate::mqi::{GetMode, GetResult, PutOptions, PutResult, Selector, Token};
use crate::security::{Authority, ObjectType, Principal};
use mqgate_codecs::ccsid::Ccsid;
use mqgate_codecs::idl::{
    BridgeProgram, CallInputs, CallKind, DynamicKind, ReceivedMessage, Record, Value, WaitInterval,
    correl_id_to_hex,
};
use mqgate_codecs::mq::constants::{mt, per};
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use mqgate_exits::ExitRegistry;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long an "unlimited" wait (MQWI_UNLIMITED, -1) lasts: one year.
pub const UNLIMITED_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// The RPC bridge of one gateway.
pub struct RpcService {
    /// The queue interface, running the chains of `rpc.exits` for every queue.
    mqi: Mqi,
    config: RpcConfig,
    ccsid: Ccsid,
    programs: Programs,
    conversations: Mutex<HashSet<Token>>,
}

/// One put of a call: the program, its values, and where and how it goes.
struct PutCall<'a> {
    prog: &'a BridgeProgram,
    values: &'a Record,
    inputs: &'a CallInputs,
    queue: &'a str,
    /// ReplyToQ; `Some` makes the message a Request.
    reply_to: Option<&'a str>,
    /// MQPMO_NEW_CORREL_ID.
    new_correl_id: bool,
    /// The conversation's unit of work; `None` = put at once.
    uow: Option<u64>,
}

/// One get of a call: the program whose reply layout reads the message, and
/// which message to wait for how long.
struct GetCall<'a> {
    prog: &'a BridgeProgram,
    queue: &'a str,
    correl_id: Option<[u8; 24]>,
    wait: WaitInterval,
    /// The conversation's unit of work; `None` = a private one (module docs).
    conversation_uow: Option<u64>,
    /// The get of a request/reply (NO_REPLY instead of NO_MESSAGE).
    is_reply: bool,
}

/// Where a call runs: its conversation's unit of work, its wait interval
/// and the principal it is made by.
struct Scope<'a> {
    uow: Option<u64>,
    wait: WaitInterval,
    principal: Option<&'a Principal>,
}

impl RpcService {
    /// Loads the IDL files and starts the exit chains of `config` (MQXR_INIT),
    /// which `mqi` then runs for every queue the bridge uses.
    ///
    /// Errors: an IDL file or exit that cannot be used, or a CCSID that is not
    /// supported (the same checks as `mqgate check-config`).
    pub fn start(mqi: &Mqi, config: &RpcConfig) -> Result<Arc<RpcService>, String> {
        RpcService::start_with(mqi, config, &ExitRegistry::with_builtins())
    }

    /// [`RpcService::start`] with the built-in exits of `registry` (tests add
    /// their own).
    pub(super) fn start_with(
        mqi: &Mqi,
        config: &RpcConfig,
        registry: &ExitRegistry,
    ) -> Result<Arc<RpcService>, String> {
        let (programs, errors) = Programs::load(&config.idl_files);
        if let Some(e) = errors.first() {
            return Err(format!("rpc.idl_files[{}]: {}", e.file_index, e.message));
        }
        let ccsid = Ccsid::new(config.ccsid).map_err(|e| format!("rpc.ccsid: {e}"))?;
        let chains = super::exits::start(registry, &config.exits, mqi.q_mgr_name())
            .map_err(|e| format!("rpc.exits: {e}"))?;
        Ok(Arc::new(RpcService {
            mqi: mqi.with_chains(Arc::new(chains)),
            config: config.clone(),
            ccsid,
            programs,
            conversations: Mutex::new(HashSet::new()),
        }))
    }

    /// The callable programs.
    pub fn programs(&self) -> &Programs {
        &self.programs
    }

    /// Idle time after which a conversation is backed out, in ms.
    pub fn conversation_timeout_ms(&self) -> u64 {
        self.config.conversation_timeout_ms
    }

    fn conversations(&self) -> std::sync::MutexGuard<'_, HashSet<Token>> {
        self.conversations.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs one call of `library`/`program` with its IN parameters `params`,
    /// inside conversation `conversation` if given. Returns the OUT
    /// parameters: data parameters from the message got, MQ_CORREL_ID,
    /// MQ_REPLY_QUEUE and MQ_RFH_* from its MQMD and MQRFH (a put returns the
    /// CorrelId it put).
    ///
    /// The call runs in its own task, so a caller that goes away (an HTTP
    /// client disconnecting) does not cut it off between the get and the end
    /// of its unit of work. The task hands its answer back through a oneshot;
    /// once this future is dropped (the client is gone) a get outside a
    /// conversation stops waiting, and a message it already got is backed
    /// out instead of committed (it returns to its queue, BackoutCount + 1),
    /// because its answer could no longer be delivered (docs/rpc.md
    /// "Client disconnects").
    ///
    /// The call is made by `principal`: when the queue interface checks
    /// authorities, its put needs +put on its output queue and its get +get
    /// on its input (reply) queue (docs/security.md "Authorities").
    ///
    /// Errors: [`RpcError`] (docs/rpc.md "Errors"); an authority refused:
    /// [`RpcErrorKind::Mq`] with 2035 MQRC_NOT_AUTHORIZED, nothing put or
    /// got.
    pub async fn call(
        self: &Arc<Self>,
        library: &str,
        program: &str,
        params: Record,
        conversation: Option<Token>,
        principal: Option<Principal>,
    ) -> Result<Record, RpcError> {
        let svc = Arc::clone(self);
        let (library, program) = (library.to_string(), program.to_string());
        let (mut answer, rx) = oneshot::channel();
        self.mqi.tasks().spawn_request(async move {
            let result = svc
                .run_call(
                    &library,
                    &program,
                    params,
                    conversation,
                    principal.as_ref(),
                    &mut answer,
                )
                .await;
            // The receiver is gone when the caller went away; nothing to do then.
            let _ = answer.send(result);
        });
        rx.await.map_err(|_| {
            RpcError::with_mqrc(
                RpcErrorKind::Mq,
                Mqrc::UNEXPECTED_ERROR,
                "call task failed before answering",
            )
        })?
    }

    async fn run_call(
        self: &Arc<Self>,
        library: &str,
        program: &str,
        params: Record,
        conversation: Option<Token>,
        principal: Option<&Principal>,
        answer: &mut Answer,
    ) -> Result<Record, RpcError> {
        let prog = self.programs.find(library, program).ok_or_else(|| {
            RpcError::new(
                RpcErrorKind::UnknownProgram,
                format!(
                    "no program '{program}' in library '{library}' of the configured IDL files"
                ),
            )
        })?;
        let inputs = prog.dynamic.inputs(&params).map_err(|e| match e.mqrc {
            Some(mqrc) => RpcError::bad_with(mqrc, e.to_string()),
            None => RpcError::bad(e.to_string()),
        })?;
        let uow = conversation
            .map(|token| self.conversation_uow(token))
            .transpose()?;
        let wait = match inputs.wait_interval {
            Some(w) => w,
            None => WaitInterval::from_millis(self.config.wait_interval_ms)
                .unwrap_or(WaitInterval::Unlimited),
        };
        tracing::debug!(
            library = %prog.library,
            program = %prog.program,
            operation = ?prog.call_kind,
            conversation = ?uow,
            "RPC call"
        );
        let result = self
            .dispatch(
                &prog,
                &params,
                &inputs,
                Scope {
                    uow,
                    wait,
                    principal,
                },
                answer,
            )
            .await;
        if let (Some(token), Err(e)) = (conversation, &result)
            && e.kind == RpcErrorKind::ConversationEnded
        {
            self.conversations().remove(&token);
        }
        result
    }

    /// The unit of work of conversation `token`: CONVERSATION_ENDED (2003)
    /// when it is no conversation this gateway run opened (a token from
    /// before a restart, an HTTP unit of work, a guess), or its unit of work
    /// is no longer open (ended, or backed out at its timeout; the token is
    /// forgotten then).
    fn conversation_uow(&self, token: Token) -> Result<u64, RpcError> {
        let known = self.conversations().contains(&token);
        let uow = if known {
            self.mqi.conversation_for_token(token)
        } else {
            None
        };
        match uow {
            Some(id) => Ok(id),
            None => {
                self.conversations().remove(&token);
                Err(conversation_ended(token))
            }
        }
    }

    /// The MQ operations of one call (module docs); an error ends only this
    /// function, so `run_call` can do its conversation bookkeeping.
    async fn dispatch(
        &self,
        prog: &BridgeProgram,
        params: &Record,
        inputs: &CallInputs,
        scope: Scope<'_>,
        answer: &mut Answer,
    ) -> Result<Record, RpcError> {
        let Scope {
            uow,
            wait,
            principal,
        } = scope;
        let authorize = |queue: &str, a: Authority| {
            if !self.mqi.checks_authorities() {
                return Ok(());
            }
            self.mqi
                .authorize(principal, ObjectType::Queue, queue, a)
                .map_err(|e| RpcError::with_mqrc(RpcErrorKind::Mq, e.mqrc, e.message))
        };
        match prog.call_kind {
            CallKind::Put => {
                let queue = self.queue(&inputs.queue_name, &self.config.output_queue, "output")?;
                authorize(&queue, Authority::Put)?;
                let reply_to = inputs.reply_queue.clone();
                let correl_out = prog
                    .dynamic
                    .get(&DynamicKind::CorrelId)
                    .is_some_and(|d| d.direction.is_out());
                let new_correl = inputs.correl_id.is_none() && (reply_to.is_some() || correl_out);
                let put = self
                    .put(PutCall {
                        prog,
                        values: params,
                        inputs,
                        queue: &queue,
                        reply_to: reply_to.as_deref(),
                        new_correl_id: new_correl,
                        uow,
                    })
                    .await?;
                Ok(prog.dynamic.outputs(&ReceivedMessage {
                    correl_id: put.correl_id,
                    reply_to_q: reply_to.unwrap_or_default(),
                    rfh_pairs: Vec::new(),
                }))
            }
            CallKind::Get => {
                let queue = self.queue(&inputs.queue_name, &self.config.input_queue, "input")?;
                authorize(&queue, Authority::Get)?;
                let call = GetCall {
                    prog,
                    queue: &queue,
                    correl_id: inputs.correl_id,
                    wait,
                    conversation_uow: uow,
                    is_reply: false,
                };
                self.get(call, answer).await
            }
            CallKind::RequestReply => {
                if uow.is_some() {
                    return Err(RpcError::new(
                        RpcErrorKind::NotPossible,
                        format!(
                            "{}/{} is a request/reply: in a conversation its request would only be \
                             visible at commit, so no reply could come; call it outside the \
                             conversation, or put and get in two calls",
                            prog.library, prog.program
                        ),
                    ));
                }
                let queue = self.queue(&inputs.queue_name, &self.config.output_queue, "output")?;
                let reply_q = self.queue(&inputs.reply_queue, &self.config.input_queue, "input")?;
                authorize(&queue, Authority::Put)?;
                authorize(&reply_q, Authority::Get)?;
                if reply_q == queue {
                    return Err(RpcError::new(
                        RpcErrorKind::NotPossible,
                        format!(
                            "request/reply needs an input (reply) queue that differs from the \
                             output queue; both are {queue}"
                        ),
                    ));
                }
                let put = self
                    .put(PutCall {
                        prog,
                        values: params,
                        inputs,
                        queue: &queue,
                        reply_to: Some(&reply_q),
                        new_correl_id: inputs.correl_id.is_none(),
                        uow: None,
                    })
                    .await?;
                let call = GetCall {
                    prog,
                    queue: &reply_q,
                    correl_id: Some(put.correl_id),
                    wait,
                    conversation_uow: None,
                    is_reply: true,
                };
                self.get(call, answer).await
            }
        }
    }

    fn queue(
        &self,
        given: &Option<String>,
        default: &str,
        which: &str,
    ) -> Result<String, RpcError> {
        match given {
            Some(q) => Ok(q.clone()),
            None if !default.is_empty() => Ok(default.to_string()),
            // 2152 MQRC_OBJECT_NAME_ERROR: an empty name is no queue name
            // (IBM MQ "Rules for naming IBM MQ objects"), as Mqi::open answers it.
            None => Err(RpcError::with_mqrc(
                RpcErrorKind::NotPossible,
                Mqrc::OBJECT_NAME_ERROR,
                format!("no queue: set rpc.{which}_queue or pass MQ_QUEUE_NAME"),
            )),
        }
    }

    /// Builds the message of `call` and puts it; the queue interface runs
    /// before_put first (MQPMO_NEW_MSG_ID, SYNCPOINT in a conversation else
    /// NO_SYNCPOINT, NEW_CORREL_ID when asked).
    async fn put(&self, call: PutCall<'_>) -> Result<PutResult, RpcError> {
        let mut md = Mqmd::default();
        let rfh = call
            .prog
            .dynamic
            .has_rfh()
            .then_some(call.inputs.rfh_pairs.as_slice());
        let body = payload::build(
            call.prog,
            self.config.payload,
            self.ccsid,
            md.encoding,
            call.values,
            rfh,
        )?;
        md.format = body.format;
        md.coded_char_set_id = body.ccsid;
        md.persistence = if self.config.persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        };
        md.msg_type = mt::DATAGRAM;
        if let Some(r) = call.reply_to {
            md.msg_type = mt::REQUEST;
            if self.config.request_expiry_ms > 0 {
                // Tenths of a second, at least 1; the range is checked with the config.
                md.expiry =
                    i32::try_from(self.config.request_expiry_ms.div_ceil(100)).unwrap_or(i32::MAX);
            }
            md.reply_to_q = CharField::new(r, Charset::Ascii).map_err(|e| {
                RpcError::bad_with(Mqrc::OBJECT_NAME_ERROR, format!("reply queue {r:?}: {e}"))
            })?;
        }
        if let Some(c) = call.inputs.correl_id {
            md.correl_id = c;
        }
        let obj = self.mqi.open(call.queue, "")?;
        let msg = Outgoing {
            md,
            charset: Charset::Ascii,
            data: body.data.into(),
        };
        let opts = PutOptions {
            uow: call.uow,
            new_msg_id: true,
            new_correl_id: call.new_correl_id,
            ..PutOptions::default()
        };
        Ok(self.mqi.put_detailed(&obj, msg, opts).await?)
    }

    /// Gets the message of `call` (the queue interface runs before_get, the
    /// wait, then after_get) and reads it as the program's reply. Outside a
    /// conversation the get is in a private unit of work: committed when the
    /// reply was read, backed out when the client went away, and a message
    /// that cannot be read goes to the dead-letter queue.
    async fn get(&self, call: GetCall<'_>, answer: &mut Answer) -> Result<Record, RpcError> {
        let obj = self.mqi.open(call.queue, "")?;
        let wait = match call.wait {
            WaitInterval::Millis(ms) => Duration::from_millis(u64::from(ms)),
            WaitInterval::Unlimited => UNLIMITED_WAIT,
        };
        let req = GetRequest {
            selector: Selector {
                msg_id: None,
                correl_id: call.correl_id,
                group_id: None,
                filter: None,
                put_before: None,
            },
            wait,
            max_wait: UNLIMITED_WAIT,
        };
        let (uow, private) = match call.conversation_uow {
            Some(id) => (id, false),
            None => (self.mqi.begin(None)?, true),
        };
        let getting = self
            .mqi
            .get_detailed(&obj, req, GetMode::Destructive { uow: Some(uow) });
        // In a conversation the get stays in the conversation's unit of work,
        // which its client ends; a private get stops when the client is gone.
        let got = if private {
            tokio::select! {
                got = getting => got,
                () = answer.closed() => {
                    self.end_private(uow, false).await;
                    return Err(client_gone(call.queue));
                }
            }
        } else {
            getting.await
        };
        let (read, stored) = match got {
            Ok(Got { message, stored }) => (self.read_reply(call.prog, &message), stored),
            // after_get stopped the call: the message is in `uow`, as unreadable.
            Err(CallError::Exit {
                stop,
                stored: Some(stored),
            }) => (Err(stop.into()), *stored),
            Err(e) => {
                if private {
                    self.end_private(uow, false).await;
                }
                return Err(self.get_error(e, &call, wait));
            }
        };
        match read {
            Ok(values) => {
                if private && answer.is_closed() {
                    // The answer can no longer be delivered: the message goes back.
                    self.end_private(uow, false).await;
                    return Err(client_gone(call.queue));
                }
                if private {
                    self.mqi.commit(uow).await?;
                }
                Ok(values)
            }
            Err(mut e) => {
                if private {
                    e.message.push_str(&self.dead_letter(stored, uow, &e).await);
                } else {
                    e.message
                        .push_str("; the message stays in the conversation's unit of work");
                }
                Err(e)
            }
        }
    }

    /// The body of the message got (as after_get left it) read by the
    /// program's reply layout, then the OUT dynamic parameters from the MQMD
    /// and MQRFH.
    fn read_reply(&self, prog: &BridgeProgram, got: &GetResult) -> Result<Record, RpcError> {
        let md = &got.md;
        let reply = payload::read(
            &prog.reply,
            self.config.payload,
            Described {
                format: &md.format,
                charset: got.charset,
                encoding: md.encoding,
                ccsid: md.coded_char_set_id,
            },
            &got.data,
            self.config.ccsid,
        )?;
        let mut out = prog.dynamic.outputs(&ReceivedMessage {
            correl_id: md.correl_id,
            reply_to_q: md.reply_to_q.text(got.charset),
            rfh_pairs: reply.rfh_pairs,
        });
        // the EntireX WebSphere MQ RPC Server documentation: "the parameter MQ_RFH_H2 gets no value assigned" — it is
        // answered empty rather than left out.
        for p in &prog.dynamic.params {
            if matches!(p.kind, DynamicKind::Rfh(_))
                && p.direction.is_out()
                && out.get(&p.name).is_none()
            {
                out.set(p.name.clone(), Value::Text(String::new()));
            }
        }
        for (n, v) in reply.values.0 {
            out.set(n, v);
        }
        Ok(out)
    }

    /// The error of a get that took no message: NO_REPLY / NO_MESSAGE for
    /// 2033; BAD_PARAMETERS for 2090 (a before_get exit set a WaitInterval
    /// MQ refuses); else as the queue interface answered.
    fn get_error(&self, e: CallError, call: &GetCall<'_>, wait: Duration) -> RpcError {
        let e = match e {
            CallError::Queue(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => e,
            CallError::Queue(e) if e.mqrc == Mqrc::WAIT_INTERVAL_ERROR => {
                return RpcError::with_mqrc(RpcErrorKind::BadParameters, e.mqrc, e.message);
            }
            e => return e.into(),
        };
        let correl = call
            .correl_id
            .map(|c| format!(" with CorrelId {}", correl_id_to_hex(&c)))
            .unwrap_or_default();
        let (kind, what) = if call.is_reply {
            (RpcErrorKind::NoReply, "no reply")
        } else {
            (RpcErrorKind::NoMessage, "no message")
        };
        let queue = call.queue;
        tracing::warn!(queue, correl_id = %correl, wait_ms = wait.as_millis() as u64, "{what}");
        RpcError::with_mqrc(
            kind,
            e.mqrc,
            format!(
                "{what}{correl} on queue {queue} within {} ms",
                wait.as_millis()
            ),
        )
    }

    /// Commits or backs out a private unit of work, logging a failure.
    async fn end_private(&self, uow: u64, commit: bool) {
        let done = if commit {
            self.mqi.commit(uow).await
        } else {
            self.mqi.backout(uow).await
        };
        if let Err(e) = done {
            tracing::error!(uow, error = %e, "ending the RPC get's unit of work failed");
        }
    }

    /// Moves a message that could not be read as a reply (`stored`, as its
    /// queue held it) to the dead-letter queue, committing the get with it;
    /// if that fails, backs the get out so the message returns to its queue.
    /// Returns what happened, for the error.
    async fn dead_letter(&self, stored: GetResult, uow: u64, e: &RpcError) -> String {
        let reason = e.mqrc;
        let queue = stored.queue.clone();
        let put = self
            .mqi
            .dead_letter(DeadLetterPut {
                message: Outgoing {
                    md: stored.md,
                    charset: stored.charset,
                    data: stored.data,
                },
                reason,
                dest_q: stored.queue,
                dest_q_mgr: String::new(),
            })
            .await;
        match put {
            Ok(_) => {
                self.end_private(uow, true).await;
                format!(
                    "; the message was moved to the dead-letter queue {} with reason {}",
                    self.mqi.dead_letter_queue(),
                    reason.0
                )
            }
            Err(dl) => {
                self.end_private(uow, false).await;
                format!(
                    "; it could not be dead-lettered ({}) and is back on queue {queue}",
                    dl.message
                )
            }
        }
    }

    /// Opens a conversation: a unit of work on the queue manager that is
    /// backed out after `rpc.conversation_timeout_ms` idle. Returns its
    /// token (128 random bits, src/qmgr/token.rs; docs/rpc.md "Conversations").
    pub fn open_conversation(self: &Arc<Self>) -> Result<Token, RpcError> {
        let timeout = Duration::from_millis(self.config.conversation_timeout_ms);
        let token = self.mqi.begin_conversation_token(Some(timeout))?;
        self.conversations().insert(token);
        let uow = self.mqi.conversation_for_token(token);
        tracing::info!(uow, "RPC conversation opened");
        Ok(token)
    }

    /// Ends conversation `token`: commit (MQCMIT) or backout (MQBACK) of its
    /// unit of work. CONVERSATION_ENDED (2003) when it is not open, also
    /// when it timed out and was backed out, or is no conversation this
    /// gateway run opened (nothing changes then).
    pub async fn end_conversation(
        self: &Arc<Self>,
        token: Token,
        commit: bool,
    ) -> Result<(), RpcError> {
        // Forgotten first, so two ends of one conversation cannot both run.
        if !self.conversations().remove(&token) {
            return Err(conversation_ended(token));
        }
        let id = self
            .mqi
            .conversation_for_token(token)
            .ok_or_else(|| conversation_ended(token))?;
        if commit {
            self.mqi.commit(id).await?;
        } else {
            self.mqi.backout(id).await?;
        }
        tracing::info!(uow = id, commit, "RPC conversation ended");
        Ok(())
    }
}

/// Where a call's task hands its answer to the HTTP handler (or CLI caller);
/// closed once that caller is gone.
type Answer = oneshot::Sender<Result<Record, RpcError>>;

/// The error of a get whose caller went away: the get was backed out.
fn client_gone(queue: &str) -> RpcError {
    tracing::info!(
        queue,
        "RPC client gone during a get; the get was backed out"
    );
    RpcError::with_mqrc(
        RpcErrorKind::Mq,
        Mqrc::BACKED_OUT,
        format!("the client went away; the get from queue {queue} was backed out"),
    )
}

/// CONVERSATION_ENDED (2003 MQRC_BACKED_OUT) for conversation `token`.
fn conversation_ended(token: Token) -> RpcError {
    RpcError::with_mqrc(
        RpcErrorKind::ConversationEnded,
        Mqrc::BACKED_OUT,
        format!(
            "conversation {token} is not open: it was committed or backed out, it timed out, or it was not opened since the gateway started"
        ),
    )
}
