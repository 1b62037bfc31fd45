//! Queue objects and MQ name resolution (spec: mq-structures.md §12): which
//! local queue a put or get really uses.

use super::message::Message;
use super::names::matches_pattern;
use super::queue::LocalQueue;
use super::{QmError, QueueManager, State};
use crate::config::{AliasQueueDef, LocalQueueDef, RemoteQueueDef, Usage};
use mqgate_codecs::mq::constants::{enc, fmt};
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc, Mqxqh};

/// CodedCharSetId of mqgate's own headers (MQXQH, MQDLH): UTF-8 (1208), whose
/// invariant characters are ASCII's.
pub const Q_MGR_CCSID: i32 = 1208;

/// A queue object.
#[derive(Debug)]
pub(super) enum Object {
    Local(LocalQueue),
    Model,
    Remote(RemoteQueueDef),
    Alias(AliasQueueDef),
}

impl Object {
    /// The type as `GET /v1/queues` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Object::Local(q) if q.def.usage == Usage::Xmitq => "xmitq",
            Object::Local(_) => "local",
            Object::Model => "model",
            Object::Remote(r) if r.remote_q_name.is_none() => "qmgr_alias",
            Object::Remote(_) => "remote",
            Object::Alias(_) => "alias",
        }
    }
}

/// Where a message for another queue manager goes: RemoteQName and
/// RemoteQMgrName of its MQXQH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Remote {
    pub remote_q: String,
    pub remote_q_mgr: String,
}

/// The local queue a put lands on, and the XQH names when it is a transmission queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PutTarget {
    pub queue: String,
    pub remote: Option<Remote>,
}

/// The first model whose DynamicQName pattern matches `name`.
pub(super) fn model_for(models: &[LocalQueueDef], name: &str) -> Option<LocalQueueDef> {
    models
        .iter()
        .find(|m| {
            m.dynamic_q_name
                .as_deref()
                .is_some_and(|p| matches_pattern(p, name))
        })
        .cloned()
}

fn unknown(q: &str) -> QmError {
    QmError::new(
        Mqrc::UNKNOWN_OBJECT_NAME,
        format!("queue {q} is not defined"),
    )
}

/// Creates the dynamic queue `q` from the first matching model; `false` when none matches.
fn create_dynamic(st: &mut State, q: &str) -> bool {
    let Some(model) = model_for(&st.models, q) else {
        return false;
    };
    if super::names::check_object_name(q, 48).is_err() {
        return false;
    }
    let def = LocalQueueDef {
        name: q.to_string(),
        dynamic_q_name: None,
        ..model
    };
    tracing::info!(queue = %q, "dynamic queue created");
    st.objects
        .insert(q.to_string(), Object::Local(LocalQueue::new(def)));
    true
}

/// Resolves a put to (`q` at queue manager `q_mgr`); `q_mgr` empty = local.
pub(super) fn for_put(
    qm: &QueueManager,
    st: &mut State,
    q: &str,
    q_mgr: &str,
) -> Result<PutTarget, QmError> {
    if q_mgr.is_empty() || q_mgr == qm.name {
        return local_put(qm, st, q);
    }
    // 2.1: a queue manager alias named like the target queue manager.
    if let Some(Object::Remote(r)) = st.objects.get(q_mgr)
        && r.remote_q_name.is_none()
    {
        if r.put_inhibited {
            return Err(put_inhibited(&r.name));
        }
        let target_qm = r
            .remote_q_mgr_name
            .clone()
            .unwrap_or_else(|| q_mgr.to_string());
        let xmit_q = r.xmit_q.clone();
        if target_qm == qm.name && xmit_q.is_none() {
            return local_put(qm, st, q);
        }
        return match xmit_q {
            Some(x) => Ok(PutTarget {
                queue: check_xmitq(st, &x)?,
                remote: Some(Remote {
                    remote_q: q.to_string(),
                    remote_q_mgr: target_qm,
                }),
            }),
            None => to_q_mgr(qm, st, q, &target_qm),
        };
    }
    to_q_mgr(qm, st, q, q_mgr)
}

/// 2.2 / device / 2.4 / 2.5: the transmission queue named like `q_mgr`, else
/// the device queue when `q_mgr` is a device queue manager (seed 001), else
/// the default transmission queue, else 2087.
fn to_q_mgr(qm: &QueueManager, st: &mut State, q: &str, q_mgr: &str) -> Result<PutTarget, QmError> {
    let named_xmitq = matches!(st.objects.get(q_mgr),
        Some(Object::Local(l)) if l.def.usage == Usage::Xmitq);
    if !named_xmitq && qm.is_device(q_mgr) {
        return Ok(PutTarget {
            queue: device_queue(qm, st, q_mgr, q)?,
            remote: None,
        });
    }
    let queue = xmitq_for(qm, st, q_mgr)?;
    Ok(PutTarget {
        queue,
        remote: Some(Remote {
            remote_q: q.to_string(),
            remote_q_mgr: q_mgr.to_string(),
        }),
    })
}

/// The local queue holding messages for queue `q` of device queue manager
/// `q_mgr`: `q_mgr/q` (`/` is an MQ name character, so the name cannot be
/// mistaken for another device's). Created on first use with the devices'
/// MAXDEPTH. 2085 when `q` is not a valid queue name.
pub(super) fn device_queue(
    qm: &QueueManager,
    st: &mut State,
    q_mgr: &str,
    q: &str,
) -> Result<String, QmError> {
    super::names::check_object_name(q, 48).map_err(|e| {
        QmError::new(
            Mqrc::UNKNOWN_OBJECT_NAME,
            format!("device queue name {q:?}: {e}"),
        )
    })?;
    let name = format!("{q_mgr}/{q}");
    if !st.objects.contains_key(&name) {
        let def = LocalQueueDef {
            max_depth: qm.device_max_depth,
            ..LocalQueueDef::with_defaults(&name, Usage::Normal)
        };
        tracing::info!(queue = %name, device = %q_mgr, "device queue created");
        st.objects
            .insert(name.clone(), Object::Local(LocalQueue::new(def)));
    }
    Ok(name)
}

fn put_inhibited(name: &str) -> QmError {
    QmError::new(
        Mqrc::PUT_INHIBITED,
        format!("puts to queue {name} are inhibited"),
    )
}

fn local_put(qm: &QueueManager, st: &mut State, q: &str) -> Result<PutTarget, QmError> {
    let local = |queue: &str| PutTarget {
        queue: queue.to_string(),
        remote: None,
    };
    if !st.objects.contains_key(q) && create_dynamic(st, q) {
        return Ok(local(q));
    }
    match st.objects.get(q) {
        Some(Object::Local(_)) => Ok(local(q)),
        Some(Object::Alias(a)) => {
            if a.put_inhibited {
                return Err(put_inhibited(&a.name));
            }
            let target = a.target.clone();
            match st.objects.get(&target) {
                Some(Object::Local(_)) => Ok(local(&target)),
                Some(Object::Remote(r)) if r.remote_q_name.is_some() => {
                    let r = r.clone();
                    remote_def(qm, st, &r)
                }
                Some(_) => Err(QmError::new(
                    Mqrc::ALIAS_BASE_Q_TYPE_ERROR,
                    format!("alias {q} names {target}, which is not a local or remote queue"),
                )),
                None => Err(QmError::new(
                    Mqrc::UNKNOWN_ALIAS_BASE_Q,
                    format!("alias {q} names {target}, which is not defined"),
                )),
            }
        }
        Some(Object::Remote(r)) if r.remote_q_name.is_some() => {
            let r = r.clone();
            remote_def(qm, st, &r)
        }
        Some(Object::Remote(_)) | Some(Object::Model) => Err(QmError::new(
            Mqrc::Q_TYPE_ERROR,
            format!("{q} is a queue manager alias or model queue; put to a queue"),
        )),
        None => Err(unknown(q)),
    }
}

/// A remote queue definition: (RNAME, RQMNAME) through XMITQ, else the queue
/// named like RQMNAME, else DEFXMITQ.
fn remote_def(qm: &QueueManager, st: &mut State, r: &RemoteQueueDef) -> Result<PutTarget, QmError> {
    if r.put_inhibited {
        return Err(put_inhibited(&r.name));
    }
    let rqm = r.remote_q_mgr_name.clone().unwrap_or_default();
    if rqm.is_empty() || rqm == qm.name {
        return Err(QmError::new(
            Mqrc::UNKNOWN_REMOTE_Q_MGR,
            format!("remote queue {} has RemoteQMgrName {rqm:?}", r.name),
        ));
    }
    let rq = r.remote_q_name.clone().unwrap_or_default();
    match &r.xmit_q {
        Some(x) => Ok(PutTarget {
            queue: check_xmitq(st, x)?,
            remote: Some(Remote {
                remote_q: rq,
                remote_q_mgr: rqm,
            }),
        }),
        None => to_q_mgr(qm, st, &rq, &rqm),
    }
}

/// An explicitly named transmission queue: 2196 when undefined, 2091/2092 when
/// not a local queue with usage xmitq.
fn check_xmitq(st: &State, x: &str) -> Result<String, QmError> {
    match st.objects.get(x) {
        Some(Object::Local(l)) if l.def.usage == Usage::Xmitq => Ok(x.to_string()),
        Some(Object::Local(_)) => Err(QmError::new(
            Mqrc::XMIT_Q_USAGE_ERROR,
            format!("{x} is not a transmission queue (usage normal)"),
        )),
        Some(_) => Err(QmError::new(
            Mqrc::XMIT_Q_TYPE_ERROR,
            format!("{x} is not a local queue"),
        )),
        None => Err(QmError::new(
            Mqrc::UNKNOWN_XMIT_Q,
            format!("transmission queue {x} is not defined"),
        )),
    }
}

/// The transmission queue named exactly like `q_mgr`, else the default
/// transmission queue, else 2087.
fn xmitq_for(qm: &QueueManager, st: &State, q_mgr: &str) -> Result<String, QmError> {
    if let Some(Object::Local(l)) = st.objects.get(q_mgr)
        && l.def.usage == Usage::Xmitq
    {
        return Ok(q_mgr.to_string());
    }
    let def = &qm.default_xmit_queue;
    if def.is_empty() {
        return Err(QmError::new(
            Mqrc::UNKNOWN_REMOTE_Q_MGR,
            format!(
                "no transmission queue for queue manager {q_mgr} and no default transmission queue"
            ),
        ));
    }
    match st.objects.get(def) {
        Some(Object::Local(l)) if l.def.usage == Usage::Xmitq => Ok(def.clone()),
        Some(Object::Local(_)) => Err(QmError::new(
            Mqrc::DEF_XMIT_Q_USAGE_ERROR,
            format!("default transmission queue {def} has usage normal"),
        )),
        _ => Err(QmError::new(
            Mqrc::DEF_XMIT_Q_TYPE_ERROR,
            format!("default transmission queue {def} is not a local queue"),
        )),
    }
}

/// Resolves a get or browse of `q` to a local queue: local, alias of a local,
/// or a dynamic queue created from a model.
pub(super) fn for_get(_qm: &QueueManager, st: &mut State, q: &str) -> Result<String, QmError> {
    if !st.objects.contains_key(q) && create_dynamic(st, q) {
        return Ok(q.to_string());
    }
    match st.objects.get(q) {
        Some(Object::Local(_)) => Ok(q.to_string()),
        Some(Object::Alias(a)) => {
            if a.get_inhibited {
                return Err(QmError::new(
                    Mqrc::GET_INHIBITED,
                    format!("gets from alias {q} are inhibited"),
                ));
            }
            match st.objects.get(&a.target) {
                Some(Object::Local(_)) => Ok(a.target.clone()),
                _ => Err(QmError::new(
                    Mqrc::OPTION_NOT_VALID_FOR_TYPE,
                    format!("alias {q} does not name a local queue; it cannot be read"),
                )),
            }
        }
        Some(_) => Err(QmError::new(
            Mqrc::OPTION_NOT_VALID_FOR_TYPE,
            format!("{q} is not a local queue; it cannot be read"),
        )),
        None => Err(unknown(q)),
    }
}

/// The transmission-queue form of a message: data = MQXQH (RemoteQName,
/// RemoteQMgrName, the MD as version 1) + the original data; the outer MD is a
/// copy with Format MQXMIT, Encoding 546, CodedCharSetId 1208.
pub(super) fn wrap_for_xmitq(
    remote: &Remote,
    md: Mqmd,
    cs: Charset,
    data: &[u8],
    expires_at_ms: Option<u64>,
) -> Result<Message, QmError> {
    if md.needs_mde() {
        return Err(QmError::new(
            Mqrc::MD_ERROR,
            "GroupId/MsgSeqNumber/Offset/MsgFlags/OriginalLength need an MQMDE, which remote puts do not carry",
        ));
    }
    let name_error = |what: &str, e: mqgate_codecs::mq::FieldError| {
        QmError::new(Mqrc::OBJECT_NAME_ERROR, format!("{what}: {e}"))
    };
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(&remote.remote_q, cs)
            .map_err(|e| name_error("RemoteQName", e))?,
        remote_q_mgr_name: CharField::new(&remote.remote_q_mgr, cs)
            .map_err(|e| name_error("RemoteQMgrName", e))?,
        msg_desc: Mqmd {
            version: 1,
            ..md.clone()
        },
    };
    let mut out = Vec::with_capacity(mqgate_codecs::mq::xqh::XQH_LENGTH + data.len());
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(data);
    let outer = Mqmd {
        format: CharField(*fmt::XMIT_Q_HEADER),
        encoding: enc::REVERSED,
        coded_char_set_id: Q_MGR_CCSID,
        ..md
    };
    Ok(Message {
        md: outer,
        charset: cs,
        data: out.into(),
        expires_at_ms,
    })
}
