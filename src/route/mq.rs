//! MQ's name resolution order for a put and a get (IBM MQ documentation "Name
//! resolution", "Opening remote queues", "Queue manager alias definitions").
//! ObjectQMgrName is resolved before ObjectName; a device queue manager comes
//! after a transmission queue named like it and before the default transmission
//! queue (docs/config.md `devices`).

use super::view::{ObjectDef, Objects, model_for};
use super::{Destination, NewQueue, Origin, RemoteName, Router};
use crate::config::{LocalQueueDef, RemoteQueueDef};
use crate::qmgr::QmError;
use crate::qmgr::names::check_object_name;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::constants::len;

fn unknown(q: &str) -> QmError {
    QmError::new(
        Mqrc::UNKNOWN_OBJECT_NAME,
        format!("queue {q} is not defined"),
    )
}

fn put_inhibited(name: &str) -> QmError {
    QmError::new(
        Mqrc::PUT_INHIBITED,
        format!("puts to queue {name} are inhibited"),
    )
}

/// The dynamic queue `q` from the first model whose DynamicQName matches,
/// when `q` is a valid queue name. Callers ask only after finding no object
/// named `q`, so a put or get costs one lookup of the name.
fn dynamic(objs: &dyn Objects, q: &str) -> Option<Destination> {
    let model = model_for(objs.models(), q)?;
    check_object_name(q, len::Q_NAME).ok()?;
    Some(Destination::Create(NewQueue {
        def: LocalQueueDef {
            name: q.to_string(),
            dynamic_q_name: None,
            ..model.clone()
        },
        origin: Origin::Model {
            model: model.name.clone(),
        },
    }))
}

fn local(queue: &str) -> Destination {
    Destination::Local {
        queue: queue.to_string(),
    }
}

impl Router {
    /// Resolves a put to queue `q` at queue manager `q_mgr` (empty = this one):
    /// the local queue manager's definitions, or the way to another queue
    /// manager (IBM MQ "Name resolution").
    pub(super) fn resolve_put(
        &self,
        objs: &dyn Objects,
        q: &str,
        q_mgr: &str,
    ) -> Result<Destination, QmError> {
        if q_mgr.is_empty() || q_mgr == self.q_mgr_name {
            return self.local_put(objs, q);
        }
        // 2.1: a queue manager alias named like the target queue manager.
        if let Some(ObjectDef::Remote(r)) = objs.object(q_mgr)
            && r.remote_q_name.is_none()
        {
            if r.put_inhibited {
                return Err(put_inhibited(&r.name));
            }
            let target_qm = r.remote_q_mgr_name.as_deref().unwrap_or(q_mgr);
            if target_qm == self.q_mgr_name && r.xmit_q.is_none() {
                return self.local_put(objs, q);
            }
            return match &r.xmit_q {
                Some(x) => Ok(Destination::Transmit {
                    xmit_q: check_xmitq(objs, x)?,
                    remote: RemoteName::new(q, target_qm),
                }),
                None => self.to_q_mgr(objs, q, target_qm),
            };
        }
        self.to_q_mgr(objs, q, q_mgr)
    }

    /// 2.2 / device / 2.4 / 2.5: the transmission queue named like `q_mgr`,
    /// else the device queue when `q_mgr` is a device queue manager, else the
    /// default transmission queue, else 2087.
    fn to_q_mgr(&self, objs: &dyn Objects, q: &str, q_mgr: &str) -> Result<Destination, QmError> {
        let named_xmitq = objs.object(q_mgr).is_some_and(|o| o.is_xmitq());
        if !named_xmitq && self.devices.is_device(q_mgr) {
            return self.devices.destination(objs, q_mgr, q);
        }
        Ok(Destination::Transmit {
            xmit_q: self.xmitq_for(objs, q_mgr)?,
            remote: RemoteName::new(q, q_mgr),
        })
    }

    /// Step 1: `q` at this queue manager.
    fn local_put(&self, objs: &dyn Objects, q: &str) -> Result<Destination, QmError> {
        match objs.object(q) {
            Some(ObjectDef::Local(_)) => Ok(local(q)),
            Some(ObjectDef::Alias(a)) => {
                if a.put_inhibited {
                    return Err(put_inhibited(&a.name));
                }
                let target = a.target.as_str();
                match objs.object(target) {
                    Some(ObjectDef::Local(_)) => Ok(local(target)),
                    Some(ObjectDef::Remote(r)) if r.remote_q_name.is_some() => {
                        self.remote_def(objs, r)
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
            Some(ObjectDef::Remote(r)) if r.remote_q_name.is_some() => self.remote_def(objs, r),
            Some(ObjectDef::Remote(_)) | Some(ObjectDef::Model) => Err(QmError::new(
                Mqrc::Q_TYPE_ERROR,
                format!("{q} is a queue manager alias or model queue; put to a queue"),
            )),
            None => match dynamic(objs, q) {
                Some(d) => Ok(d),
                None => self.device_by_local_name(objs, q),
            },
        }
    }

    /// A put naming a device queue by its local name `QMGR/QUEUE` that no
    /// object has: the device queue, created as a put to QUEUE at QMGR
    /// creates it. A device queue exists only while it holds something
    /// (docs/config.md `devices`), so without this a put by that name would
    /// succeed or fail (2085) depending on whether the sweep had retired
    /// the queue. Any other name: 2085.
    fn device_by_local_name(&self, objs: &dyn Objects, q: &str) -> Result<Destination, QmError> {
        match self.devices.split(q) {
            Some((q_mgr, queue)) => self.devices.destination(objs, q_mgr, queue),
            None => Err(unknown(q)),
        }
    }

    /// A remote queue definition: (RNAME, RQMNAME) through XMITQ, else the
    /// queue named like RQMNAME (or the device queue), else DEFXMITQ.
    /// RQMNAME blank or this queue manager: 2087.
    fn remote_def(&self, objs: &dyn Objects, r: &RemoteQueueDef) -> Result<Destination, QmError> {
        if r.put_inhibited {
            return Err(put_inhibited(&r.name));
        }
        let rqm = r.remote_q_mgr_name.as_deref().unwrap_or_default();
        if rqm.is_empty() || rqm == self.q_mgr_name {
            return Err(QmError::new(
                Mqrc::UNKNOWN_REMOTE_Q_MGR,
                format!("remote queue {} has RemoteQMgrName {rqm:?}", r.name),
            ));
        }
        let rq = r.remote_q_name.as_deref().unwrap_or_default();
        match &r.xmit_q {
            Some(x) => Ok(Destination::Transmit {
                xmit_q: check_xmitq(objs, x)?,
                remote: RemoteName::new(rq, rqm),
            }),
            None => self.to_q_mgr(objs, rq, rqm),
        }
    }

    /// The transmission queue named exactly like `q_mgr`, else the default
    /// transmission queue (2198/2199 when it is not a local transmission
    /// queue), else 2087.
    fn xmitq_for(&self, objs: &dyn Objects, q_mgr: &str) -> Result<String, QmError> {
        if objs.object(q_mgr).is_some_and(|o| o.is_xmitq()) {
            return Ok(q_mgr.to_string());
        }
        let def = &self.default_xmit_queue;
        if def.is_empty() {
            return Err(QmError::new(
                Mqrc::UNKNOWN_REMOTE_Q_MGR,
                format!(
                    "no transmission queue for queue manager {q_mgr} and no default transmission queue"
                ),
            ));
        }
        match objs.object(def) {
            Some(o) if o.is_xmitq() => Ok(def.clone()),
            Some(ObjectDef::Local(_)) => Err(QmError::new(
                Mqrc::DEF_XMIT_Q_USAGE_ERROR,
                format!("default transmission queue {def} has usage normal"),
            )),
            _ => Err(QmError::new(
                Mqrc::DEF_XMIT_Q_TYPE_ERROR,
                format!("default transmission queue {def} is not a local queue"),
            )),
        }
    }

    /// Resolves a get or browse of `q` (IBM MQ "Opening remote queues": input
    /// must resolve to a local queue): a local queue, the local base queue of
    /// an alias, or a dynamic queue from a model. 2016 when the alias is
    /// GET(DISABLED), 2045 when `q` is not something one can read, 2085 when
    /// undefined.
    pub fn resolve_get(&self, objs: &dyn Objects, q: &str) -> Result<Destination, QmError> {
        match objs.object(q) {
            Some(ObjectDef::Local(_)) => Ok(local(q)),
            Some(ObjectDef::Alias(a)) => {
                if a.get_inhibited {
                    return Err(QmError::new(
                        Mqrc::GET_INHIBITED,
                        format!("gets from alias {q} are inhibited"),
                    ));
                }
                match objs.object(&a.target) {
                    Some(ObjectDef::Local(_)) => Ok(local(&a.target)),
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
            None => dynamic(objs, q).ok_or_else(|| unknown(q)),
        }
    }
}

/// An explicitly named transmission queue (XMITQ): 2196 when undefined,
/// 2092 when a local queue of usage normal, 2091 when not a local queue.
fn check_xmitq(objs: &dyn Objects, x: &str) -> Result<String, QmError> {
    match objs.object(x) {
        Some(o) if o.is_xmitq() => Ok(x.to_string()),
        Some(ObjectDef::Local(_)) => Err(QmError::new(
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
