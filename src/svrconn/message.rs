//! MQPUT, MQPUT1 and MQGET over the queue interface (IBM MQ "MQPUT - Put
//! message", "MQPUT1 - Put one message", "MQGET - Get message").

use super::conversation::{Conv, Reply};
use super::handles::Target;
use super::{padded, trimmed};
use crate::mqi::{
    ConvertRequest, GetMode, GetRequest, Got, Outgoing, PutOptions, QmError, Selector,
};
use crate::security::{Authority, ObjectType};
use bytes::Bytes;
use mqgate_codecs::fap::gmo::Mqgmo;
use mqgate_codecs::fap::message::{GetData, PutData, write_get, write_put};
use mqgate_codecs::fap::object::oo;
use mqgate_codecs::fap::{ApiHeader, Verb};
use mqgate_codecs::mq::constants::{gmo, mo, pmo};
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
use std::time::Duration;

/// An unlimited MQGET wait (MQWI_UNLIMITED) waits in steps of this long.
const WAIT_STEP: Duration = Duration::from_secs(3600);

fn put_echo(p: &PutData<'_>, order: ByteOrder) -> Vec<u8> {
    let mut b = Vec::new();
    let mut r = p.clone();
    r.data = &[];
    write_put(&r, order, &mut b);
    b
}

fn get_echo(g: &GetData<'_>, order: ByteOrder) -> Vec<u8> {
    let mut b = Vec::new();
    let mut r = g.clone();
    r.length = 0;
    r.data = &[];
    write_get(&r, order, &mut b);
    b
}

impl Conv {
    /// Fills the MQMD context as the queue manager does for the put options
    /// `options` (IBM MQ "Message context"): MQPMO_SET_ALL_CONTEXT and
    /// PASS_ALL_CONTEXT keep the application's; SET_IDENTITY_CONTEXT and
    /// PASS_IDENTITY_CONTEXT keep its identity and set the origin;
    /// NO_CONTEXT blanks both; otherwise (DEFAULT_CONTEXT) the identity is
    /// the connection's user and the origin its application.
    fn context(&self, md: &mut Mqmd, cs: Charset, options: i32) {
        let all = pmo::SET_ALL_CONTEXT | pmo::PASS_ALL_CONTEXT;
        let identity = pmo::SET_IDENTITY_CONTEXT | pmo::PASS_IDENTITY_CONTEXT;
        if options & all != 0 {
            return;
        }
        let blank = CharField::blank(cs);
        if options & pmo::NO_CONTEXT != 0 {
            md.user_identifier = CharField::blank(cs);
            md.accounting_token = [0; 32];
            md.appl_identity_data = CharField::blank(cs);
            md.put_appl_type = 0;
            md.put_appl_name = CharField::blank(cs);
            md.put_date = blank;
            md.put_time = blank;
            md.appl_origin_data = CharField::blank(cs);
            return;
        }
        let Some(conn) = &self.conn else { return };
        if options & identity == 0 {
            let user: String = conn.user.chars().take(12).collect();
            md.user_identifier =
                CharField::name(&user, cs).unwrap_or_else(|_| CharField::blank(cs));
            md.accounting_token = [0; 32];
            md.appl_identity_data = CharField::blank(cs);
        }
        md.put_appl_type = conn.appl_type;
        md.put_appl_name = CharField::name(&trimmed(&conn.appl_name), cs)
            .unwrap_or_else(|_| CharField(padded(&trimmed(&conn.appl_name))));
        if let Some(ts) = crate::qmgr::clock::put_timestamp(crate::qmgr::clock::now_ms()) {
            md.put_date = ts.put_date(cs);
            md.put_time = ts.put_time(cs);
        }
        md.appl_origin_data = CharField::blank(cs);
    }

    /// The unit of work the put or get options ask for: MQPMO_SYNCPOINT /
    /// MQGMO_SYNCPOINT (or SYNCPOINT_IF_PERSISTENT) the conversation's,
    /// otherwise none (the distributed platforms' default). Both syncpoint
    /// and no-syncpoint: 2046 MQRC_OPTIONS_ERROR.
    fn syncpoint(&mut self, options: i32, yes: i32, no: i32) -> Result<Option<u64>, QmError> {
        if options & yes != 0 && options & no != 0 {
            return Err(QmError::new(
                Mqrc::OPTIONS_ERROR,
                "both syncpoint and no-syncpoint options".to_string(),
            ));
        }
        if options & yes != 0 {
            self.uow().map(Some)
        } else {
            Ok(None)
        }
    }

    /// Puts `p` to `obj` and fills the reply's MQMD and MQPMO.
    async fn put_to(
        &mut self,
        obj: &crate::mqi::Object,
        obj_name: &str,
        p: &mut PutData<'_>,
    ) -> Result<(), QmError> {
        if p.data_length as usize != p.data.len() {
            return Err(QmError::new(
                Mqrc::DATA_LENGTH_ERROR,
                format!(
                    "DataLength {} but {} bytes of data",
                    p.data_length,
                    p.data.len()
                ),
            ));
        }
        if p.data.len() > self.shared.agreed.max_msg_size as usize {
            return Err(QmError::new(
                Mqrc::MSG_TOO_BIG_FOR_CHANNEL,
                format!(
                    "message of {} bytes is longer than the channel's MAXMSGL {}",
                    p.data.len(),
                    self.shared.agreed.max_msg_size
                ),
            ));
        }
        let options = p.pmo.options;
        if options & pmo::SET_ALL_CONTEXT != 0 {
            // The message's context comes from the application: +setall
            // (IBM MQ "Authorizations for MQI calls").
            self.authorize(ObjectType::Queue, obj_name, Authority::SetAll)?;
        }
        let uow = self.syncpoint(options, pmo::SYNCPOINT, pmo::NO_SYNCPOINT)?;
        let mut md = p.md.clone();
        self.context(&mut md, p.md_charset, options);
        let msg = Outgoing {
            md: md.clone(),
            charset: p.md_charset,
            data: Bytes::copy_from_slice(p.data),
        };
        let put = PutOptions {
            uow,
            new_msg_id: options & pmo::NEW_MSG_ID != 0,
            new_correl_id: options & pmo::NEW_CORREL_ID != 0,
            pass_all_context: true,
            q_mgr_name: String::new(),
        };
        let r = self.svc.mqi.put(obj, msg, put).await?;
        md.msg_id = r.msg_id;
        md.correl_id = r.correl_id;
        p.md = md;
        p.pmo.known_dest_count = 1;
        p.pmo.resolved_q_name = padded(&r.queue);
        p.pmo.resolved_q_mgr_name = padded(self.svc.mqi.q_mgr_name());
        if let Some(w) = r.warning {
            return Err(w);
        }
        Ok(())
    }

    /// MQPUT on an open handle. Errors: 2019 MQRC_HOBJ_ERROR, 2039
    /// MQRC_NOT_OPEN_FOR_OUTPUT, 2010 MQRC_DATA_LENGTH_ERROR, 2218
    /// MQRC_MSG_TOO_BIG_FOR_CHANNEL, 2046, and the queue interface's.
    pub(super) async fn mqput(
        &mut self,
        api: &ApiHeader,
        verb: &Verb<'_>,
        order: ByteOrder,
    ) -> Reply {
        let Verb::Put(p) = verb else {
            return Reply::reason(Mqrc::MD_ERROR, api.hobj, Vec::new());
        };
        let (obj, name) = match self.handles.get(api.hobj) {
            None => return Reply::reason(Mqrc::HOBJ_ERROR, api.hobj, put_echo(p, order)),
            Some(h) if h.options & oo::OUTPUT == 0 => {
                return Reply::reason(Mqrc::NOT_OPEN_FOR_OUTPUT, api.hobj, put_echo(p, order));
            }
            Some(h) => match &h.target {
                Target::Queue { obj, name, .. } => (obj.clone(), name.clone()),
                Target::QMgr => {
                    return Reply::reason(Mqrc::NOT_OPEN_FOR_OUTPUT, api.hobj, put_echo(p, order));
                }
            },
        };
        let mut p = (**p).clone();
        match self.put_to(&obj, &name, &mut p).await {
            Ok(()) => Reply::ok(api.hobj, put_echo(&p, order)),
            Err(e) => {
                tracing::debug!(error = %e, "MQPUT refused");
                Reply::error(&e, api.hobj, put_echo(&p, order))
            }
        }
    }

    /// MQPUT1: the MQOD's object opened for output, put to and closed.
    pub(super) async fn mqput1(
        &mut self,
        api: &ApiHeader,
        verb: &Verb<'_>,
        order: ByteOrder,
    ) -> Reply {
        let Verb::Put(p) = verb else {
            return Reply::reason(Mqrc::OD_ERROR, api.hobj, Vec::new());
        };
        let Some(od) = p.od.clone() else {
            return Reply::reason(Mqrc::OD_ERROR, api.hobj, Vec::new());
        };
        let opened = match self.open_object(&od, oo::OUTPUT) {
            Ok(o) => o,
            Err(e) => return Reply::error(&e, 0, put_echo(p, order)),
        };
        let mut p = (**p).clone();
        let (obj, name) = match self.handles.get(opened.hobj).map(|h| &h.target) {
            Some(Target::Queue { obj, name, .. }) => (obj.clone(), name.clone()),
            _ => return Reply::reason(Mqrc::NOT_OPEN_FOR_OUTPUT, 0, put_echo(&p, order)),
        };
        let r = self.put_to(&obj, &name, &mut p).await;
        if let Some(od) = p.od.as_mut() {
            self.resolved(od, &opened);
        }
        let _ = self.mqclose(
            &ApiHeader {
                hobj: opened.hobj,
                ..ApiHeader::default()
            },
            &Verb::Close(0),
        );
        match r {
            Ok(()) => Reply::ok(0, put_echo(&p, order)),
            Err(e) => Reply::error(&e, 0, put_echo(&p, order)),
        }
    }

    /// MQGET: destructive or browse, waiting or not, matching MsgId,
    /// CorrelId and GroupId, under syncpoint or not, converted with
    /// MQGMO_CONVERT. A message longer than the buffer is returned cut with
    /// 2079 MQRC_TRUNCATED_MSG_ACCEPTED under MQGMO_ACCEPT_TRUNCATED_MSG,
    /// else left on its queue with 2080 MQRC_TRUNCATED_MSG_FAILED and
    /// DataLength telling its length. Errors: 2019, 2036
    /// MQRC_NOT_OPEN_FOR_BROWSE, 2037 MQRC_NOT_OPEN_FOR_INPUT, 2090
    /// MQRC_WAIT_INTERVAL_ERROR, 2046, 2033 MQRC_NO_MSG_AVAILABLE, and the
    /// queue interface's.
    pub(super) async fn mqget(
        &mut self,
        api: &ApiHeader,
        verb: &Verb<'_>,
        order: ByteOrder,
    ) -> Reply {
        let Verb::Get(g) = verb else {
            return Reply::reason(Mqrc::GMO_ERROR, api.hobj, Vec::new());
        };
        match self.get(api.hobj, g, order).await {
            Ok((b, rc)) => Reply::reason(rc, api.hobj, b),
            Err(e) => Reply::error(&e, api.hobj, get_echo(g, order)),
        }
    }

    async fn get(
        &mut self,
        hobj: i32,
        g: &GetData<'_>,
        order: ByteOrder,
    ) -> Result<(Vec<u8>, Mqrc), QmError> {
        let options = g.gmo.options;
        let browse = options & (gmo::BROWSE_FIRST | gmo::BROWSE_NEXT) != 0;
        let (obj, open_options, cursor) = match self.handles.get(hobj) {
            Some(h) => match &h.target {
                Target::Queue { obj, .. } => (obj.clone(), h.options, h.cursor),
                Target::QMgr => {
                    return Err(QmError::new(
                        Mqrc::NOT_OPEN_FOR_INPUT,
                        "the queue manager object".to_string(),
                    ));
                }
            },
            None => return Err(QmError::new(Mqrc::HOBJ_ERROR, format!("no handle {hobj}"))),
        };
        if browse && open_options & oo::BROWSE == 0 {
            return Err(QmError::new(
                Mqrc::NOT_OPEN_FOR_BROWSE,
                "handle not open for browse".to_string(),
            ));
        }
        if !browse && open_options & oo::INPUT_MASK == 0 {
            return Err(QmError::new(
                Mqrc::NOT_OPEN_FOR_INPUT,
                "handle not open for input".to_string(),
            ));
        }
        let wait = if options & gmo::WAIT == 0 {
            Duration::ZERO
        } else {
            match g.gmo.wait_interval {
                -1 => WAIT_STEP,
                w if w < 0 => {
                    return Err(QmError::new(
                        Mqrc::WAIT_INTERVAL_ERROR,
                        format!("WaitInterval {w}"),
                    ));
                }
                w => Duration::from_millis(w as u64),
            }
        };
        let unlimited = options & gmo::WAIT != 0 && g.gmo.wait_interval == -1;
        let mode = if options & gmo::BROWSE_FIRST != 0 {
            if options & gmo::SYNCPOINT != 0 {
                return Err(QmError::new(
                    Mqrc::OPTIONS_ERROR,
                    "browse under syncpoint".to_string(),
                ));
            }
            GetMode::Browse { after: None }
        } else if options & gmo::BROWSE_NEXT != 0 {
            GetMode::Browse { after: cursor }
        } else {
            let yes = gmo::SYNCPOINT | 0x1000;
            GetMode::Destructive {
                uow: self.syncpoint(options, yes, gmo::NO_SYNCPOINT)?,
            }
        };
        let selector = selector(&g.md, &g.gmo);
        let convert = (options & gmo::CONVERT != 0)
            .then(|| ConvertRequest::new(Some(g.md.coded_char_set_id), Some(g.md.encoding)));
        let buffer = g.length.max(0) as usize;
        let accept = options & gmo::ACCEPT_TRUNCATED_MSG != 0;
        let careful = matches!(mode, GetMode::Destructive { .. })
            && !accept
            && buffer < self.svc.mqi.max_msg_length();
        let got = if careful {
            self.get_whole(&obj, selector, wait, unlimited, mode, convert, buffer)
                .await?
        } else {
            self.get_waiting(&obj, selector, wait, unlimited, mode, convert)
                .await?
        };
        if browse && let Some(h) = self.handles.get_mut(hobj) {
            h.cursor = Some(got.message.position);
        }
        Ok(reply(g, got, buffer, accept, order))
    }

    /// A get that waits without limit in steps when `unlimited`.
    async fn get_waiting(
        &self,
        obj: &crate::mqi::Object,
        selector: Selector,
        wait: Duration,
        unlimited: bool,
        mode: GetMode,
        convert: Option<ConvertRequest>,
    ) -> Result<Got, QmError> {
        loop {
            let req = GetRequest {
                selector: selector.clone(),
                wait,
                max_wait: wait,
            };
            match self.svc.mqi.get_with_convert(obj, req, mode, convert).await {
                Err(e) if unlimited && e.mqrc == Mqrc::NO_MSG_AVAILABLE => continue,
                r => return r,
            }
        }
    }

    /// A destructive get that must leave a message longer than `buffer` on
    /// its queue: the first match is browsed, then taken by its MsgId if it
    /// fits. A message taken meanwhile by another getter makes it look
    /// again, within the same WaitInterval: each such loss means another
    /// getter got a message, so this ends — with a message, or with 2033
    /// MQRC_NO_MSG_AVAILABLE only when the browse itself finds none in the
    /// time left (IBM MQ "MQGET - Get message": 2033 means no message
    /// matched within the wait, never that others were faster).
    #[allow(clippy::too_many_arguments)]
    async fn get_whole(
        &self,
        obj: &crate::mqi::Object,
        selector: Selector,
        wait: Duration,
        unlimited: bool,
        mode: GetMode,
        convert: Option<ConvertRequest>,
        buffer: usize,
    ) -> Result<Got, QmError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let seen = self
                .get_waiting(
                    obj,
                    selector.clone(),
                    if unlimited { wait } else { left },
                    unlimited,
                    GetMode::Browse { after: None },
                    convert,
                )
                .await?;
            if seen.message.data.len() > buffer {
                return Ok(seen);
            }
            let mut exact = selector.clone();
            exact.msg_id = Some(seen.stored.md.msg_id);
            let req = GetRequest {
                selector: exact,
                wait: Duration::ZERO,
                max_wait: Duration::ZERO,
            };
            match self.svc.mqi.get_with_convert(obj, req, mode, convert).await {
                Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => continue,
                r => return r,
            }
        }
    }
}

/// The MQMO match options of `gmo` as a selector over `md`'s ids; an id of
/// MQMI_NONE / MQCI_NONE / MQGI_NONE matches any (IBM MQ "MatchOptions").
fn selector(md: &Mqmd, g: &Mqgmo) -> Selector {
    let m = g.effective_match_options();
    let pick = |flag: i32, id: [u8; 24]| (m & flag != 0 && id != ID_NONE).then_some(id);
    Selector {
        msg_id: pick(mo::MATCH_MSG_ID, md.msg_id),
        correl_id: pick(mo::MATCH_CORREL_ID, md.correl_id),
        group_id: if md.version >= 2 {
            pick(mo::MATCH_GROUP_ID, md.group_id)
        } else {
            None
        },
        filter: None,
        put_before: None,
    }
}

/// The MQGET reply for `got`, encoded in `order`: its MQMD in the version
/// the application gave, the MQGMO with the queue's name and the length
/// returned, DataLength the message's whole length, the data cut to
/// `buffer`; and the reason it completes with.
fn reply(
    g: &GetData<'_>,
    got: Got,
    buffer: usize,
    accept: bool,
    order: ByteOrder,
) -> (Vec<u8>, Mqrc) {
    let m = got.message;
    let full = m.data.len();
    let returned = full.min(buffer);
    let mut md = m.md.clone();
    md.version = g.md.version;
    let mut gmo = g.gmo.clone();
    gmo.resolved_q_name = padded(&m.queue);
    gmo.returned_length = returned as i32;
    let rc = if full > buffer {
        if accept {
            Mqrc::TRUNCATED_MSG_ACCEPTED
        } else {
            Mqrc::TRUNCATED_MSG_FAILED
        }
    } else {
        m.warning.map_or(Mqrc::NONE, |w| w.mqrc)
    };
    let data = m.data.slice(..returned);
    let r = GetData {
        md,
        md_charset: m.charset,
        gmo,
        length: full as i32,
        data: &data,
    };
    let mut b = Vec::with_capacity(returned + 512);
    write_get(&r, order, &mut b);
    (b, rc)
}
