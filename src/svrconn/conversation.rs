//! One conversation of a socket: CONAUTH_INFO, MQCONN and the verbs after
//! it, each answered in turn. The conversation's unit of work (puts and
//! gets under syncpoint) is committed by MQCMIT or MQDISC and backed out by
//! MQBACK or when the conversation ends without MQDISC (IBM MQ "MQDISC":
//! a normal disconnect commits; a broken connection backs out).

use super::connection::{Flow, Shared};
use super::handles::{Handles, Target};
use super::out::{Out, own_header, reply_header, segments};
use super::{Service, config::SvrconnChannel, padded, trimmed};
use crate::mqi::QmError;
use crate::security::chlauth::Attempt;
use crate::security::{Authority, ObjectType, Principal};
use mqgate_codecs::fap::caut::parse_caut;
use mqgate_codecs::fap::conn::ConnData;
use mqgate_codecs::fap::status::write_status;
use mqgate_codecs::fap::{
    ApiHeader, Body, FapError, FapStructure, Reassembled, SegmentType, StatusCode, StatusData, Tsh,
    TshKind, Verb, decode_body, parse_api, tcf, write_api,
};
use mqgate_codecs::mq::{ByteOrder, Mqrc};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The XA calls a client sends (segment types 0xA1-0xAA; their replies are
/// 0xB1-0xBA), as the Wireshark MQ dissector lists them.
pub(super) const XA_CALLS: std::ops::RangeInclusive<u8> = 0xA1..=0xAA;
/// The MQI verbs a client sends (0x81 MQCONN to 0x8F MQSUBRQ).
pub(super) const VERBS: std::ops::RangeInclusive<u8> = 0x81..=0x8F;

/// A message for the conversation: CONAUTH_INFO, an MQI verb or XA call.
pub(super) struct Request {
    pub message: Reassembled,
}

/// The application connected by MQCONN.
pub(super) struct Connected {
    /// The user id the conversation runs as (UserIdentifier of its puts).
    pub user: String,
    pub appl_name: [u8; 28],
    /// MQAT_* (28 = Java).
    pub appl_type: i32,
    /// Whose authorities its calls need: the principal a channel
    /// authentication rule mapped, else the user id (docs/security.md "MQ
    /// client connections"); `None` when the user id is no valid principal.
    pub principal: Option<Principal>,
}

/// A reply's API header values and parameters.
pub(super) struct Reply {
    pub comp_code: i32,
    pub reason: i32,
    pub hobj: i32,
    pub params: Vec<u8>,
}

impl Reply {
    /// MQCC_OK, MQRC_NONE.
    pub fn ok(hobj: i32, params: Vec<u8>) -> Reply {
        Reply {
            comp_code: 0,
            reason: 0,
            hobj,
            params,
        }
    }

    /// Reason `rc` with its completion code (MQCC_FAILED, or MQCC_WARNING
    /// for the warnings), parameters `params`.
    pub fn reason(rc: Mqrc, hobj: i32, params: Vec<u8>) -> Reply {
        // 2080 MQRC_TRUNCATED_MSG_FAILED is a warning too (IBM MQ "2080
        // (0820) (RC2080): MQRC_TRUNCATED_MSG_FAILED": MQCC_WARNING).
        let warning = rc == Mqrc::TRUNCATED_MSG_FAILED;
        Reply {
            comp_code: if warning { 1 } else { rc.completion_code() },
            reason: rc.0,
            hobj,
            params,
        }
    }

    /// The queue manager's refusal `e`.
    pub fn error(e: &QmError, hobj: i32, params: Vec<u8>) -> Reply {
        Reply::reason(e.mqrc, hobj, params)
    }
}

/// The state of one conversation.
pub(super) struct Conv {
    pub svc: Arc<Service>,
    pub shared: Shared,
    pub out: Out,
    /// CONAUTH_INFO: (user id, password bytes).
    pub caut: Option<(String, Vec<u8>)>,
    pub conn: Option<Connected>,
    pub handles: Handles,
    /// The unit of work of syncpoint puts and gets, begun by the first.
    pub uow: Option<u64>,
}

/// Runs a conversation until its request queue closes (the socket ended
/// it), the socket closes, or it breaks the protocol.
pub(super) async fn run(
    svc: Arc<Service>,
    shared: Shared,
    out: Out,
    mut rx: mpsc::Receiver<Request>,
    closed: CancellationToken,
) {
    let mut c = Conv {
        svc,
        shared,
        out,
        caut: None,
        conn: None,
        handles: Handles::default(),
        uow: None,
    };
    loop {
        let req = tokio::select! {
            () = closed.cancelled() => break,
            r = rx.recv() => match r {
                Some(r) => r,
                None => break,
            },
        };
        let flow = tokio::select! {
            () = closed.cancelled() => break,
            f = c.handle(req.message) => f,
        };
        if flow == Flow::Close {
            closed.cancel();
            break;
        }
    }
    if let Err(e) = c.end(false).await {
        tracing::warn!(error = %e, "MQ client conversation ended; backout failed");
    }
}

impl Conv {
    /// The agreed maximum segment length, bytes.
    pub fn max_segment(&self) -> usize {
        self.shared.agreed.max_transmission_size as usize
    }

    async fn handle(&mut self, m: Reassembled) -> Flow {
        let t = m.tsh.segment_type;
        if t == SegmentType::CONAUTH_INFO {
            return self.conauth(&m).await;
        }
        if XA_CALLS.contains(&t.0) {
            return self.xa(&m).await;
        }
        if t != SegmentType::MQCONN && self.conn.is_none() {
            // Nothing but the API header is read before MQCONN: every verb
            // is 2018, whatever its parameters (docs/mq-client-protocol.md
            // "Handshake").
            return match parse_api(&m.body, m.tsh.header_len(), m.tsh.byte_order) {
                Ok((api, _)) => {
                    let r = Reply::reason(Mqrc::HCONN_ERROR, api.hobj, Vec::new());
                    if self.send_reply(&m.tsh, r).await {
                        Flow::Continue
                    } else {
                        Flow::Close
                    }
                }
                Err(e) => self.bad_request(&m.tsh, &m.body, &e).await,
            };
        }
        let body = match decode_body(&m.tsh, &m.body) {
            Ok(b) => b,
            Err(e) => return self.bad_request(&m.tsh, &m.body, &e).await,
        };
        let Body::Api(api, verb) = body else {
            return Flow::Close;
        };
        let reply = if t == SegmentType::MQCONN {
            self.mqconn(&api, &verb, m.tsh.byte_order)
        } else {
            match t {
                SegmentType::MQDISC => self.mqdisc().await,
                SegmentType::MQOPEN => self.mqopen(&verb, m.tsh.byte_order),
                SegmentType::MQCLOSE => self.mqclose(&api, &verb),
                SegmentType::MQINQ => self.mqinq(&api, &verb, m.tsh.byte_order),
                SegmentType::MQPUT => self.mqput(&api, &verb, m.tsh.byte_order).await,
                SegmentType::MQPUT1 => self.mqput1(&api, &verb, m.tsh.byte_order).await,
                SegmentType::MQGET => self.mqget(&api, &verb, m.tsh.byte_order).await,
                SegmentType::MQCMIT => self.mqcmit().await,
                SegmentType::MQBACK => self.mqback().await,
                SegmentType::SPI => self.spi(&api, &verb, m.tsh.byte_order),
                _ => Reply::reason(Mqrc::FUNCTION_NOT_SUPPORTED, api.hobj, Vec::new()),
            }
        };
        if self.send_reply(&m.tsh, reply).await {
            Flow::Continue
        } else {
            Flow::Close
        }
    }

    /// Sends `r` as the reply to the request of header `req`; ReplyLength is
    /// the reply's length with a 28-byte header, as a queue manager gives it.
    pub async fn send_reply(&self, req: &Tsh, r: Reply) -> bool {
        let h = reply_header(req, req.segment_type.reply());
        let mut body = Vec::with_capacity(16 + r.params.len());
        let api = ApiHeader {
            reply_length: (28 + 16 + r.params.len()).min(u32::MAX as usize) as u32,
            comp_code: r.comp_code,
            reason: r.reason,
            hobj: r.hobj,
        };
        write_api(&api, req.byte_order, &mut body);
        body.extend_from_slice(&r.params);
        self.out.send(segments(&h, &body, self.max_segment())).await
    }

    /// A request whose parameters do not decode: a verb gets MQ's reason for
    /// the structure at fault; anything else ends the socket with a
    /// STATUS_DATA.
    async fn bad_request(&self, tsh: &Tsh, body: &[u8], e: &FapError) -> Flow {
        use FapStructure as S;
        let recoverable = matches!(
            e.structure,
            S::Od | S::Md | S::Pmo | S::Gmo | S::MessageData | S::Inq | S::Open | S::Spi | S::Lpoo
        );
        if tsh.segment_type.is_api() && recoverable {
            tracing::debug!(error = %e, "MQI call refused");
            let hobj = mqgate_codecs::fap::parse_api(body, tsh.header_len(), tsh.byte_order)
                .map(|(h, _)| h.hobj)
                .unwrap_or(0);
            if self
                .send_reply(tsh, Reply::reason(e.mqrc(), hobj, Vec::new()))
                .await
            {
                return Flow::Continue;
            }
            return Flow::Close;
        }
        tracing::info!(peer = %self.shared.peer, error = %e, "MQ client protocol error; closing");
        self.status(tsh, e.status_code(), e.mqrc().0).await;
        Flow::Close
    }

    async fn status(&self, req: &Tsh, code: StatusCode, value: i32) {
        let h = own_header(
            TshKind::Tshm,
            req.conversation_id,
            req.byte_order,
            SegmentType::STATUS_DATA,
            tcf::ERROR | tcf::CLOSE_CHANNEL,
        );
        let mut body = Vec::new();
        write_status(
            &StatusData::Status {
                code,
                value: Some(value),
            },
            req.byte_order,
            &mut body,
        );
        self.out.send(segments(&h, &body, usize::MAX)).await;
    }

    /// CONAUTH_INFO: the credentials are kept for MQCONN, which checks
    /// them; the client is told they arrived with an empty STATUS_DATA
    /// flagged REQUEST_ACCEPTED, as a queue manager answers.
    async fn conauth(&mut self, m: &Reassembled) -> Flow {
        let c = match parse_caut(&m.body, m.tsh.header_len(), m.tsh.byte_order) {
            Ok(c) => c,
            Err(e) => {
                self.status(&m.tsh, e.status_code(), e.mqrc().0).await;
                return Flow::Close;
            }
        };
        self.caut = Some((
            String::from_utf8_lossy(c.user_id).into_owned(),
            c.password.to_vec(),
        ));
        let h = own_header(
            TshKind::Tshm,
            m.tsh.conversation_id,
            m.tsh.byte_order,
            SegmentType::STATUS_DATA,
            tcf::REQUEST_ACCEPTED,
        );
        if self.out.send(segments(&h, &[], usize::MAX)).await {
            Flow::Continue
        } else {
            Flow::Close
        }
    }

    /// XA calls (segment types 0xA1-0xAA): mqgate is no XA resource
    /// manager; each is answered with XAER_RMERR (-3) in its reply
    /// (docs/mq-client-protocol.md "Not implemented").
    async fn xa(&self, m: &Reassembled) -> Flow {
        let mut h = reply_header(&m.tsh, SegmentType(m.tsh.segment_type.0 | 0x10));
        h.control_flags1 = tcf::FIRST | tcf::LAST;
        let mut body = Vec::with_capacity(16);
        body.extend_from_slice(&16u32.to_be_bytes());
        let order = m.tsh.byte_order;
        order.put_i32(&mut body, -3);
        order.put_i32(&mut body, 0);
        let rmid = order.read_i32(&m.body, 12).unwrap_or(0);
        order.put_i32(&mut body, rmid);
        if self.out.send(segments(&h, &body, usize::MAX)).await {
            Flow::Continue
        } else {
            Flow::Close
        }
    }

    /// MQCONN / MQCONNX: the queue manager name must be blank, `*` or this
    /// queue manager's (2058 MQRC_Q_MGR_NAME_ERROR); the user must be one
    /// of the channel's (2035 MQRC_NOT_AUTHORIZED); a second MQCONN on the
    /// conversation is 2002 MQRC_ALREADY_CONNECTED. The reply repeats the
    /// request's parameters with the connection's id in its FCNO.
    fn mqconn(&mut self, api: &ApiHeader, verb: &Verb<'_>, order: ByteOrder) -> Reply {
        let Verb::Conn(c) = verb else {
            return Reply::reason(Mqrc::CONNECTION_BROKEN, api.hobj, Vec::new());
        };
        let echo = |c: &ConnData<'_>| {
            let mut b = Vec::new();
            mqgate_codecs::fap::conn::write_conn(c, order, &mut b);
            b
        };
        let mut reply = (**c).clone();
        let n = self.svc.next_conn.fetch_add(1, Ordering::Relaxed);
        let name = self.svc.mqi.q_mgr_name().to_string();
        let mut id = [0u8; 24];
        id[..4].copy_from_slice(b"AMQC");
        id[4..16].copy_from_slice(&padded::<12>(&name));
        id[16..].copy_from_slice(&n.to_be_bytes());
        if let Some(f) = reply.fcno.as_mut() {
            // As a queue manager answered a version 4 FCNO in real JMS
            // client traffic, refused or not: version 3, option 0x01 added,
            // the ConnectionId first in the tag (docs/mq-client-protocol.md).
            f.version = f.version.min(3);
            f.options |= 1;
            if let Some(tag) = f.conn_tag.as_mut() {
                *tag = [0; 128];
                tag[..24].copy_from_slice(&id);
            }
            if let Some(tag) = f.conn_tag2.as_mut() {
                *tag = [0; 128];
            }
        }
        if self.conn.is_some() {
            return Reply::reason(Mqrc::ALREADY_CONNECTED, 0, echo(&reply));
        }
        let qm = trimmed(&c.q_mgr_name);
        if !(qm.is_empty() || qm == "*" || qm == self.svc.mqi.q_mgr_name()) {
            return Reply::reason(Mqrc::Q_MGR_NAME_ERROR, 0, echo(&reply));
        }
        let uid = self.shared.user.lock().ok().and_then(|u| u.clone());
        let Some(user) = admitted(
            &self.shared.channel,
            self.caut.as_ref().map(|(u, p)| (u.as_str(), p.as_slice())),
            uid.as_ref().map(|(u, p)| (u.as_str(), p.as_str())),
        ) else {
            tracing::info!(peer = %self.shared.peer, channel = %self.shared.channel.name, "MQCONN refused: 2035 MQRC_NOT_AUTHORIZED");
            return Reply::reason(Mqrc::NOT_AUTHORIZED, 0, echo(&reply));
        };
        // Channel authentication rules that name client user ids decide
        // now that the user id is known (IBM MQ USERMAP, BLOCKUSER); a
        // block is 2035, as at INITIAL_DATA.
        let mcauser = if self.shared.chlauth_at_connect {
            let attempt = Attempt {
                channel: &self.shared.channel.name,
                addr: self.shared.peer.ip(),
                dn: self.shared.peer_dn.as_deref(),
                qmgr: None,
                user: Some(&user),
            };
            match self.svc.mqi.channel_access(&attempt) {
                Ok(m) => m,
                Err(e) => {
                    tracing::info!(peer = %self.shared.peer, channel = %self.shared.channel.name,
                        "MQCONN refused: {}", e);
                    return Reply::reason(e.mqrc, 0, echo(&reply));
                }
            }
        } else {
            self.shared.mcauser.clone()
        };
        // Connected: the second tag carries the connection tag text, as a
        // queue manager's.
        if let Some(tag) = reply.fcno.as_mut().and_then(|f| f.conn_tag2.as_mut()) {
            let text = format!(
                "MQCT{}{}{}",
                hex::encode_upper(&id[16..]),
                trimmed(&self.svc.identity.q_mgr_identifier),
                trimmed(&c.appl_name)
            );
            let t = text.as_bytes();
            let k = t.len().min(128);
            tag[..k].copy_from_slice(&t[..k]);
        }
        let principal = mcauser.or_else(|| Principal::new(&user).ok());
        self.conn = Some(Connected {
            user,
            appl_name: c.appl_name,
            appl_type: c.appl_type,
            principal,
        });
        tracing::info!(peer = %self.shared.peer, channel = %self.shared.channel.name, appl = %trimmed(&c.appl_name), "MQ client connected");
        Reply::ok(0, echo(&reply))
    }

    /// MQDISC: commits the unit of work, closes every handle (deleting the
    /// temporary dynamic queues it created) and disconnects.
    async fn mqdisc(&mut self) -> Reply {
        let rc = self.end(true).await;
        self.conn = None;
        match rc {
            Ok(()) => Reply::ok(0, Vec::new()),
            Err(e) => Reply::error(&e, 0, Vec::new()),
        }
    }

    /// MQCMIT.
    async fn mqcmit(&mut self) -> Reply {
        match self.uow.take() {
            None => Reply::ok(0, Vec::new()),
            Some(u) => match self.svc.mqi.commit(u).await {
                Ok(()) => Reply::ok(0, Vec::new()),
                Err(e) => Reply::error(&e, 0, Vec::new()),
            },
        }
    }

    /// MQBACK.
    async fn mqback(&mut self) -> Reply {
        match self.uow.take() {
            None => Reply::ok(0, Vec::new()),
            Some(u) => match self.svc.mqi.backout(u).await {
                Ok(()) => Reply::ok(0, Vec::new()),
                Err(e) => Reply::error(&e, 0, Vec::new()),
            },
        }
    }

    /// Whether the connected principal holds `authority` on object `name`
    /// of type `t` ([`crate::mqi::Mqi::authorize`]); always when
    /// authorities are not checked. Errors: 2035 MQRC_NOT_AUTHORIZED.
    pub fn authorize(
        &self,
        t: ObjectType,
        name: &str,
        authority: Authority,
    ) -> Result<(), QmError> {
        if !self.svc.mqi.checks_authorities() {
            return Ok(());
        }
        let p = self.conn.as_ref().and_then(|c| c.principal.as_ref());
        self.svc.mqi.authorize(p, t, name, authority)
    }

    /// The conversation's unit of work, begun on first use.
    pub fn uow(&mut self) -> Result<u64, QmError> {
        match self.uow {
            Some(u) => Ok(u),
            None => {
                let u = self.svc.mqi.begin(None)?;
                self.uow = Some(u);
                Ok(u)
            }
        }
    }

    /// Ends the connection: the unit of work committed (`commit`, MQDISC)
    /// or backed out, the handles closed.
    pub async fn end(&mut self, commit: bool) -> Result<(), QmError> {
        let mut rc = Ok(());
        if let Some(u) = self.uow.take() {
            rc = if commit {
                self.svc.mqi.commit(u).await
            } else {
                self.svc.mqi.backout(u).await
            };
        }
        for h in self.handles.drain() {
            if let Target::Queue {
                name,
                temporary: true,
                ..
            } = h.target
            {
                let _ = self.svc.mqi.delete_temporary(&name);
            }
        }
        rc
    }
}

/// Whether the channel admits a client that gave `caut` (CONAUTH_INFO:
/// user id, password) or else `uid` (USERID_DATA: user id, password):
/// the user id it runs as, or `None` (2035). A channel without users
/// admits everyone; a listed user without a password by user id alone.
pub(super) fn admitted(
    channel: &SvrconnChannel,
    caut: Option<(&str, &[u8])>,
    uid: Option<(&str, &str)>,
) -> Option<String> {
    let given: Option<(&str, &[u8])> = caut.or(uid.map(|(u, p)| (u, p.as_bytes())));
    if channel.users.is_empty() {
        return Some(given.map(|(u, _)| u.to_string()).unwrap_or_default());
    }
    let (user, password) = given?;
    let u = channel.users.iter().find(|u| u.name == user)?;
    (u.password.is_empty() || u.password.as_bytes() == password).then(|| user.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svrconn::config::SvrconnUser;

    #[test]
    fn who_a_channel_admits() {
        let mut ch = SvrconnChannel::default();
        assert_eq!(admitted(&ch, None, None), Some(String::new()));
        assert_eq!(admitted(&ch, None, Some(("root", ""))), Some("root".into()));
        ch.users = vec![
            SvrconnUser {
                name: "app".into(),
                password: "secret".into(),
            },
            SvrconnUser {
                name: "trusted".into(),
                password: String::new(),
            },
        ];
        assert_eq!(
            admitted(&ch, Some(("app", b"secret")), None),
            Some("app".into())
        );
        assert_eq!(admitted(&ch, Some(("app", b"wrong")), None), None);
        // A password protected by the client is not the password.
        assert_eq!(admitted(&ch, Some(("app", &[1, 0xF4, 0xBA])), None), None);
        assert_eq!(
            admitted(&ch, Some(("trusted", b"anything")), None),
            Some("trusted".into())
        );
        // Without CONAUTH_INFO the USERID_DATA's user and password count.
        assert_eq!(admitted(&ch, None, Some(("root", ""))), None);
        assert_eq!(
            admitted(&ch, None, Some(("app", "secret"))),
            Some("app".into())
        );
        assert_eq!(admitted(&ch, None, None), None);
    }
}
