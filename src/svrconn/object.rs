//! MQOPEN, MQCLOSE and MQINQ over the queue interface (IBM MQ "MQOPEN -
//! Open object", "MQCLOSE - Close object", "MQINQ - Inquire object
//! attributes").

use super::conversation::{Conv, Reply};
use super::handles::{Handle, Target};
use super::{padded, trimmed};
use crate::config::LocalQueueDef;
use crate::mqi::QmError;
use crate::security::{Authority, ObjectType};
use mqgate_codecs::fap::inq::{InqData, sel, write_inq};
use mqgate_codecs::fap::object::{OpenData, oo, write_open};
use mqgate_codecs::fap::od::{Mqod, ot};
use mqgate_codecs::fap::{ApiHeader, HOBJ_UNUSABLE, Verb};
use mqgate_codecs::mq::{ByteOrder, Mqrc};
use std::sync::atomic::Ordering;

/// What an MQOPEN opened, for its reply.
pub(super) struct Opened {
    pub hobj: i32,
    /// ObjectName after the open (the dynamic queue created from a model).
    pub name: String,
    pub q_mgr: bool,
    /// The queue's default persistence (0 or 1) when known.
    pub def_persistence: i32,
}

fn err(rc: Mqrc, m: String) -> QmError {
    QmError::new(rc, m)
}

impl Conv {
    /// Opens the object `od` names with MQOO_* `options`; returns the
    /// handle. Errors: 2043 MQRC_OBJECT_TYPE_ERROR for objects other than
    /// queues and the queue manager; 2046 MQRC_OPTIONS_ERROR for no access
    /// option or two input options; 2045 MQRC_OPTION_NOT_VALID_FOR_TYPE for
    /// input or browse on a remote queue or output on the queue manager;
    /// 2085 MQRC_UNKNOWN_OBJECT_NAME; 2017 MQRC_HANDLE_NOT_AVAILABLE; 2154
    /// MQRC_RECS_PRESENT_ERROR for a distribution list; the queue
    /// interface's errors.
    pub fn open_object(&mut self, od: &Mqod, options: i32) -> Result<Opened, QmError> {
        if od.recs_present() != 0 {
            return Err(err(
                Mqrc::RECS_PRESENT_ERROR,
                "distribution lists are not supported".into(),
            ));
        }
        let name = trimmed(&od.object_name);
        let me = self.svc.mqi.q_mgr_name().to_string();
        let inputs = (options & oo::INPUT_MASK).count_ones();
        let access = oo::INPUT_MASK | oo::BROWSE | oo::OUTPUT | oo::INQUIRE | oo::SET;
        if inputs > 1 || options & access == 0 {
            return Err(err(
                Mqrc::OPTIONS_ERROR,
                format!("open options 0x{options:X} name no or two input options"),
            ));
        }
        match od.object_type {
            ot::Q_MGR => {
                if !(name.is_empty() || name == me) {
                    return Err(err(
                        Mqrc::UNKNOWN_OBJECT_NAME,
                        format!("no queue manager object {name}"),
                    ));
                }
                for (option, a) in [(oo::INQUIRE, Authority::Inq), (oo::SET, Authority::Set)] {
                    if options & option != 0 {
                        self.authorize(ObjectType::Qmgr, &me, a)?;
                    }
                }
                if options & (oo::INPUT_MASK | oo::BROWSE | oo::OUTPUT) != 0 {
                    return Err(err(
                        Mqrc::OPTION_NOT_VALID_FOR_TYPE,
                        "the queue manager object opens for inquire only".into(),
                    ));
                }
                let hobj = self.insert(Handle {
                    target: Target::QMgr,
                    options,
                    cursor: None,
                })?;
                Ok(Opened {
                    hobj,
                    name,
                    q_mgr: true,
                    def_persistence: -1,
                })
            }
            ot::Q => self.open_queue(od, options, name, &me),
            t => Err(err(
                Mqrc::OBJECT_TYPE_ERROR,
                format!("object type {t} cannot be opened here"),
            )),
        }
    }

    fn open_queue(
        &mut self,
        od: &Mqod,
        options: i32,
        mut name: String,
        me: &str,
    ) -> Result<Opened, QmError> {
        let mut q_mgr = trimmed(&od.object_q_mgr_name);
        if q_mgr == me {
            q_mgr.clear();
        }
        self.authorize_open(&name, &q_mgr, options)?;
        let reads = options & (oo::INPUT_MASK | oo::BROWSE) != 0;
        let kind = if q_mgr.is_empty() {
            self.svc
                .mqi
                .queues()
                .into_iter()
                .find(|q| q.name == name)
                .map(|q| q.kind)
        } else {
            Some("remote")
        };
        let mut temporary = false;
        let obj = match kind {
            None => {
                return Err(err(
                    Mqrc::UNKNOWN_OBJECT_NAME,
                    format!("queue {name} is not defined"),
                ));
            }
            Some("remote" | "qmgr_alias") if reads => {
                return Err(err(
                    Mqrc::OPTION_NOT_VALID_FOR_TYPE,
                    format!("queue {name} is remote: it opens for output and inquire only"),
                ));
            }
            Some("model") => {
                let model = self
                    .svc
                    .mqi
                    .model_def(&name)
                    .unwrap_or_else(|| LocalQueueDef::with_defaults(&name, Default::default()));
                name = self.dynamic_name(&trimmed(&od.dynamic_q_name));
                temporary = true;
                self.svc.mqi.create_temporary(LocalQueueDef {
                    name: name.clone(),
                    ..model
                })?
            }
            Some(_) => self.svc.mqi.open(&name, &q_mgr)?,
        };
        // The queue interface does not tell a queue's DEFPSIST: MQPER_NOT_PERSISTENT.
        let def_persistence = 0;
        let hobj = match self.insert(Handle {
            target: Target::Queue {
                obj,
                name: name.clone(),
                q_mgr,
                temporary,
            },
            options,
            cursor: None,
        }) {
            Ok(h) => h,
            Err(e) => {
                if temporary {
                    let _ = self.svc.mqi.delete_temporary(&name);
                }
                return Err(e);
            }
        };
        Ok(Opened {
            hobj,
            name,
            q_mgr: false,
            def_persistence,
        })
    }

    /// The authorities MQOPEN of queue `name` at `q_mgr` (empty: this
    /// queue manager) with `options` needs, as IBM MQ's object authority
    /// manager asks them at MQOPEN ("Authorizations for MQI calls"):
    /// +get for input, +browse, +put for output, +inq, +set, +setall for
    /// MQOO_SET_ALL_CONTEXT; output to another queue manager needs +put on
    /// it (`rqmname`). Errors: 2035 MQRC_NOT_AUTHORIZED.
    fn authorize_open(&self, name: &str, q_mgr: &str, options: i32) -> Result<(), QmError> {
        if !q_mgr.is_empty() {
            if options & oo::OUTPUT != 0 {
                self.authorize(ObjectType::Rqmname, q_mgr, Authority::Put)?;
            }
            return Ok(());
        }
        let needs = [
            (oo::INPUT_MASK, Authority::Get),
            (oo::BROWSE, Authority::Browse),
            (oo::OUTPUT, Authority::Put),
            (oo::INQUIRE, Authority::Inq),
            (oo::SET, Authority::Set),
            (oo::SET_ALL_CONTEXT, Authority::SetAll),
        ];
        for (option, a) in needs {
            if options & option != 0 {
                self.authorize(ObjectType::Queue, name, a)?;
            }
        }
        Ok(())
    }

    fn insert(&mut self, h: Handle) -> Result<i32, QmError> {
        self.handles.insert(h).ok_or_else(|| {
            err(
                Mqrc::HANDLE_NOT_AVAILABLE,
                "the conversation holds the most handles it may".into(),
            )
        })
    }

    /// A dynamic queue name from DynamicQName: a trailing `*` is replaced
    /// by 16 hex digits unique in this run of the gateway (IBM MQ
    /// "DynamicQName (MQCHAR48)").
    fn dynamic_name(&self, pattern: &str) -> String {
        let n = self.svc.next_conn.fetch_add(1, Ordering::Relaxed);
        let stem = pattern.strip_suffix('*').unwrap_or(pattern);
        if stem.len() == pattern.len() && !pattern.is_empty() {
            return pattern.to_string();
        }
        let stem = if stem.is_empty() { "AMQ." } else { stem };
        let mut s = format!("{stem}{:08X}{:08X}", std::process::id(), n as u32);
        s.truncate(48);
        s
    }

    /// MQOPEN: the reply repeats the request with the handle, the names
    /// the queue manager resolved and, in its FOPA, the queue's defaults.
    pub(super) fn mqopen(&mut self, verb: &Verb<'_>, order: ByteOrder) -> Reply {
        let Verb::Open(o) = verb else {
            return Reply::reason(Mqrc::OD_ERROR, 0, Vec::new());
        };
        let echo = |o: &OpenData<'_>| {
            let mut b = Vec::new();
            write_open(o, order, &mut b);
            b
        };
        match self.open_object(&o.od, o.options) {
            Ok(opened) => {
                let mut r = (**o).clone();
                self.resolved(&mut r.od, &opened);
                if let Some(f) = r.fopa.as_mut() {
                    // A queue manager's FOPA for its own object in real JMS
                    // client traffic: all four values -1.
                    let (p, rt, ra, pc) = if opened.q_mgr {
                        (-1, -1, -1, -1)
                    } else {
                        (opened.def_persistence, 1, 0, 0)
                    };
                    f.def_persistence = p;
                    f.def_put_response_type = rt;
                    f.def_read_ahead = ra;
                    f.property_control = pc;
                }
                Reply::ok(opened.hobj, echo(&r))
            }
            Err(e) => {
                tracing::debug!(error = %e, "MQOPEN refused");
                Reply::error(&e, 0, echo(o))
            }
        }
    }

    /// Fills what a queue manager returns in an MQOD after an open.
    pub(super) fn resolved(&self, od: &mut Mqod, opened: &Opened) {
        if !opened.q_mgr {
            od.object_name = padded(&opened.name);
        }
        if od.version >= 2 {
            od.v2[1] = 1;
        }
        if od.version >= 3 {
            od.resolved_q_name = padded(if opened.q_mgr { "" } else { &opened.name });
            od.resolved_q_mgr_name = padded(self.svc.mqi.q_mgr_name());
        }
    }

    /// MQCLOSE: the handle is released (a temporary dynamic queue it
    /// created deleted) and the reply's handle is MQHO_UNUSABLE_HOBJ.
    pub(super) fn mqclose(&mut self, api: &ApiHeader, verb: &Verb<'_>) -> Reply {
        if !matches!(verb, Verb::Close(_)) {
            return Reply::reason(Mqrc::OPTIONS_ERROR, api.hobj, Vec::new());
        }
        match self.handles.remove(api.hobj) {
            None => Reply::reason(Mqrc::HOBJ_ERROR, api.hobj, Vec::new()),
            Some(h) => {
                if let Target::Queue {
                    name,
                    temporary: true,
                    ..
                } = h.target
                {
                    let _ = self.svc.mqi.delete_temporary(&name);
                }
                Reply::ok(HOBJ_UNUSABLE, Vec::new())
            }
        }
    }

    /// MQINQ of the common queue manager and queue attributes. Errors:
    /// 2019 MQRC_HOBJ_ERROR, 2038 MQRC_NOT_OPEN_FOR_INQUIRE, 2067
    /// MQRC_SELECTOR_ERROR for a selector not answered here, 2068
    /// MQRC_SELECTOR_NOT_FOR_TYPE; warnings 2022 / 2008 when the counts
    /// given are too small (the values that fit are returned).
    pub(super) fn mqinq(&mut self, api: &ApiHeader, verb: &Verb<'_>, order: ByteOrder) -> Reply {
        let Verb::Inq(q) = verb else {
            return Reply::reason(Mqrc::SELECTOR_COUNT_ERROR, api.hobj, Vec::new());
        };
        let Some(h) = self.handles.get(api.hobj) else {
            return Reply::reason(Mqrc::HOBJ_ERROR, api.hobj, Vec::new());
        };
        if h.options & oo::INQUIRE == 0 {
            return Reply::reason(Mqrc::NOT_OPEN_FOR_INQUIRE, api.hobj, Vec::new());
        }
        let mut ints = Vec::new();
        let mut chars = Vec::new();
        for &s in &q.selectors {
            let v = match &h.target {
                Target::QMgr => self.q_mgr_attr(s),
                Target::Queue { name, q_mgr, .. } => self.queue_attr(s, name, q_mgr),
            };
            match v {
                Ok(Attr::Int(i)) => ints.push(i),
                Ok(Attr::Char(c)) => chars.extend_from_slice(&c),
                Err(rc) => return Reply::reason(rc, api.hobj, Vec::new()),
            }
        }
        let want_ints = usize::try_from(q.int_attr_count).unwrap_or(0);
        let want_chars = usize::try_from(q.char_attr_length).unwrap_or(0);
        let mut rc = Mqrc::NONE;
        if ints.len() > want_ints {
            ints.truncate(want_ints);
            rc = Mqrc::INT_ATTR_COUNT_TOO_SMALL;
        }
        if chars.len() > want_chars {
            chars.truncate(want_chars);
            rc = Mqrc::CHAR_ATTRS_TOO_SHORT;
        }
        let reply = InqData {
            selectors: q.selectors.clone(),
            int_attr_count: ints.len() as i32,
            char_attr_length: chars.len() as i32,
            int_attrs: ints,
            char_attrs: &chars,
        };
        let mut b = Vec::new();
        write_inq(&reply, order, &mut b);
        Reply {
            comp_code: if rc == Mqrc::NONE { 0 } else { 1 },
            reason: rc.0,
            hobj: api.hobj,
            params: b,
        }
    }

    fn q_mgr_attr(&self, s: i32) -> Result<Attr, Mqrc> {
        let mqi = &self.svc.mqi;
        Ok(match s {
            sel::MQIA_CODED_CHAR_SET_ID => Attr::Int(crate::mqi::convert::Q_MGR_CCSID),
            // MQCMDL_LEVEL_940: the level of the ProductId mqgate gives.
            sel::MQIA_COMMAND_LEVEL => Attr::Int(940),
            // MQPL_UNIX.
            sel::MQIA_PLATFORM => Attr::Int(3),
            // MQSP_AVAILABLE.
            sel::MQIA_SYNCPOINT => Attr::Int(1),
            sel::MQIA_MAX_MSG_LENGTH => Attr::Int(mqi.max_msg_length() as i32),
            sel::MQIA_MAX_PRIORITY => Attr::Int(9),
            // MQDL_NOT_SUPPORTED.
            sel::MQIA_DIST_LISTS => Attr::Int(0),
            sel::MQIA_MAX_UNCOMMITTED_MSGS => Attr::Int(10_000),
            // MQCAP_NOT_SUPPORTED: no IBM MQ Advanced entitlement.
            sel::MQIA_ADVANCED_CAPABILITY => Attr::Int(0),
            sel::MQCA_Q_MGR_NAME => Attr::Char(padded::<48>(mqi.q_mgr_name()).to_vec()),
            sel::MQCA_Q_MGR_IDENTIFIER => Attr::Char(self.svc.identity.q_mgr_identifier.to_vec()),
            sel::MQCA_DEAD_LETTER_Q_NAME => {
                Attr::Char(padded::<48>(mqi.dead_letter_queue()).to_vec())
            }
            sel::MQCA_Q_MGR_DESC => Attr::Char(padded::<64>("mqgate").to_vec()),
            _ => return Err(Mqrc::SELECTOR_ERROR),
        })
    }

    fn queue_attr(&self, s: i32, name: &str, q_mgr: &str) -> Result<Attr, Mqrc> {
        let mqi = &self.svc.mqi;
        let kind = if q_mgr.is_empty() {
            mqi.queues()
                .into_iter()
                .find(|q| q.name == name)
                .map_or("remote", |q| q.kind)
        } else {
            "remote"
        };
        Ok(match s {
            sel::MQCA_Q_NAME => Attr::Char(padded::<48>(name).to_vec()),
            sel::MQIA_Q_TYPE => Attr::Int(match kind {
                "local" | "xmitq" => 1,
                "model" => 2,
                "alias" => 3,
                _ => 6,
            }),
            sel::MQIA_CURRENT_Q_DEPTH => match mqi.depth(name) {
                Some(d) => Attr::Int(d as i32),
                None => return Err(Mqrc::SELECTOR_NOT_FOR_TYPE),
            },
            sel::MQIA_MAX_MSG_LENGTH => Attr::Int(mqi.max_msg_length() as i32),
            sel::MQIA_USAGE => Attr::Int(i32::from(kind == "xmitq")),
            sel::MQCA_Q_DESC => Attr::Char(padded::<64>("").to_vec()),
            sel::MQIA_CODED_CHAR_SET_ID => Attr::Int(crate::mqi::convert::Q_MGR_CCSID),
            _ => return Err(Mqrc::SELECTOR_ERROR),
        })
    }
}

/// One attribute value.
enum Attr {
    Int(i32),
    Char(Vec<u8>),
}
