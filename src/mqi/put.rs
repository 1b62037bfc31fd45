//! MQPUT / MQPUT1 and puts to a list of destinations (IBM MQ "Distribution
//! lists"): before_put runs once per destination, then the queue manager's put.

use super::{CallError, Mqi, Object, QueuePointChains};
use crate::qmgr::{PutOptions, PutResult, QmError};
use crate::route::ObjectRecord;
use bytes::{Bytes, BytesMut};
use mqgate_codecs::mq::constants::pmo;
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mq::{Charset, Mqmd};

/// A message to put: its MQMD (character fields in `charset`) and data.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub md: Mqmd,
    pub charset: Charset,
    pub data: Bytes,
}

/// How every error of a put to a destination list names destination
/// `index` (its 0-based place in the list): `destination 1 (B)`, or with a
/// queue manager `destination 1 (INBOX%DEV0001)` — the `QUEUE%QMGR` form in
/// which a transmission message names a device's queue (docs/http-api.md
/// "`POST /v1/messages`"). A name that is no valid MQ name (IBM MQ "Rules for
/// naming IBM MQ objects") is quoted and cut as error messages quote values
/// ([`crate::qmgr::names::shown`]), so it can neither look like another name
/// nor make the message overlong.
pub fn destination_label(index: usize, queue: &str, q_mgr: &str) -> String {
    use crate::qmgr::names::{check_object_name, shown};
    use mqgate_codecs::mq::constants::len;
    let name = if q_mgr.is_empty() {
        queue.to_string()
    } else {
        format!("{queue}%{q_mgr}")
    };
    let plain = check_object_name(queue, len::Q_NAME).is_ok()
        && (q_mgr.is_empty() || check_object_name(q_mgr, len::Q_MGR_NAME).is_ok());
    if plain {
        format!("destination {index} ({name})")
    } else {
        format!("destination {index} ({})", shown(&name))
    }
}

/// Fills the origin context of `md` (character fields in `charset`) as an
/// application that puts with MQPMO_SET_ALL_CONTEXT does (IBM MQ "MQPMO
/// options": the application sets the context, the queue manager takes it
/// as given): PutApplType MQAT_UNIX, PutApplName `appl_name` (its first 28
/// characters), PutDate and PutTime now (GMT). A front end that puts on
/// behalf of a client (an MQTT device, docs/mqtt.md) names the client so,
/// then puts with `pass_all_context`.
pub fn set_origin_context(md: &mut Mqmd, charset: Charset, appl_name: &str) {
    use mqgate_codecs::mq::CharField;
    use mqgate_codecs::mq::constants::{at, len};
    if let Some(ts) = crate::qmgr::clock::put_timestamp(crate::qmgr::clock::now_ms()) {
        md.put_date = ts.put_date(charset);
        md.put_time = ts.put_time(charset);
    }
    md.put_appl_type = at::UNIX;
    let name: String = appl_name.chars().take(len::PUT_APPL_NAME).collect();
    md.put_appl_name = CharField::new(&name, charset).unwrap_or_default();
}

impl Mqi {
    /// MQPUT of `msg` to `obj` with `pmo` (its `q_mgr_name` is taken from the
    /// object), on the blocking pool. before_put runs first and may change the
    /// MQMD, the data and the MQPMO_NEW_MSG_ID / NEW_CORREL_ID options; a
    /// MsgId of MQMI_NONE still gets a new one.
    ///
    /// Errors: an exit stopped the put (its reason, or 2374
    /// MQRC_API_EXIT_ERROR) and nothing was put; the queue manager's put
    /// errors (2085, 2053, 2030, 2051, ...).
    pub async fn put(
        &self,
        obj: &Object,
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<PutResult, QmError> {
        let (me, obj) = (self.clone(), obj.clone());
        Mqi::blocking(move || me.put_now(&obj, msg, pmo)).await
    }

    /// [`Mqi::put`], with the error telling an exit's stop apart from the
    /// queue manager's refusal ([`CallError`]).
    pub async fn put_detailed(
        &self,
        obj: &Object,
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<PutResult, CallError> {
        let (me, obj) = (self.clone(), obj.clone());
        Mqi::blocking(move || Ok(me.put_now_detailed(&obj, msg, pmo))).await?
    }

    /// [`Mqi::put`] on the caller's thread, for callers already on a blocking
    /// thread (a channel applying a batch inside [`Mqi::blocking`]).
    pub fn put_now(
        &self,
        obj: &Object,
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<PutResult, QmError> {
        self.put_now_detailed(obj, msg, pmo).map_err(QmError::from)
    }

    fn put_now_detailed(
        &self,
        obj: &Object,
        msg: Outgoing,
        mut pmo: PutOptions,
    ) -> Result<PutResult, CallError> {
        pmo.q_mgr_name = obj.q_mgr.clone();
        self.put_with(&obj.name, obj.chains.as_deref(), msg, pmo)
    }

    /// MQPUT1 of `msg` to queue `name` at `pmo.q_mgr_name` (empty = this
    /// queue manager), on the caller's thread: the object is opened, put to
    /// and closed in one call, as a receiving channel puts each message to
    /// the destination its MQXQH names (IBM MQ "MQPUT1"; "Channel exit
    /// programs for messaging channels": the receiving MCA puts the message
    /// after its message exit ran). The before_put chain of `name` (as
    /// given, e.g. RemoteQName) runs first, exactly once, with the put
    /// options MQPMO_SYNCPOINT (when `pmo.uow` is set) or NO_SYNCPOINT, and
    /// PASS_ALL_CONTEXT, NEW_MSG_ID, NEW_CORREL_ID as `pmo` says; what it
    /// leaves is put. Nothing is allocated besides what the put itself
    /// stores (no [`Object`] is built), so a channel's batch pays no more
    /// per message than the queue manager's put; without exits the data is
    /// not copied.
    ///
    /// Errors: [`CallError::Exit`] when before_put stopped the put (its
    /// reason, or 2374 MQRC_API_EXIT_ERROR; nothing was put, `stored` is
    /// `None`); [`CallError::Queue`] for a name that is not a valid MQ name
    /// (2152 MQRC_OBJECT_NAME_ERROR, 2058 MQRC_Q_MGR_NAME_ERROR), exits that
    /// cannot start (2374), and the queue manager's put errors (2085, 2087,
    /// 2053, 2030, 2051, 2003, 2161, ...).
    pub fn put1_now(
        &self,
        name: &str,
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<PutResult, CallError> {
        crate::qmgr::names::check_q_name(name)?;
        crate::qmgr::names::check_q_mgr_name(&pmo.q_mgr_name)?;
        let chains = self.chains_for(name)?;
        self.put_with(name, chains.as_deref(), msg, pmo)
    }

    /// before_put (when `chains` has exits), then the queue manager's put
    /// of `msg` to `name` at `pmo.q_mgr_name`.
    fn put_with(
        &self,
        name: &str,
        chains: Option<&QueuePointChains>,
        msg: Outgoing,
        mut pmo: PutOptions,
    ) -> Result<PutResult, CallError> {
        let Outgoing {
            mut md,
            charset,
            mut data,
        } = msg;
        if let Some(chains) = chains {
            let mut options = if pmo.uow.is_some() {
                pmo::SYNCPOINT
            } else {
                pmo::NO_SYNCPOINT
            };
            if pmo.new_msg_id {
                options |= pmo::NEW_MSG_ID;
            }
            if pmo.new_correl_id {
                options |= pmo::NEW_CORREL_ID;
            }
            if pmo.pass_all_context {
                options |= pmo::PASS_ALL_CONTEXT;
            }
            let mut pmo_exit = mqgate_exits::PutOptions { options };
            let mut buf = BytesMut::from(&data[..]);
            chains
                .before_put(&mut md, charset, &mut buf, &mut pmo_exit)
                .map_err(CallError::exit)?;
            data = buf.freeze();
            pmo.new_msg_id = pmo_exit.options & pmo::NEW_MSG_ID != 0 || md.msg_id == ID_NONE;
            pmo.new_correl_id = pmo_exit.options & pmo::NEW_CORREL_ID != 0;
        }
        Ok(self.qm.put(name, md, charset, data, &pmo)?)
    }

    /// Puts one message to every object of `objs` in one unit of work: the
    /// caller's (`pmo.uow`) or a private one committed here, so the copies are
    /// stored all together or not at all (one store transaction). Each
    /// destination runs its own before_put on its own copy and gets its own
    /// MsgId when MQPMO_NEW_MSG_ID is set (MQ distribution lists do the same).
    ///
    /// Errors: the first destination that fails, named by
    /// [`destination_label`] (`destination 1 (INBOX%DEV0001): ...`), with
    /// its reason; in a private unit of work nothing is stored, in the
    /// caller's the copies already put stay in it until the caller backs it
    /// out.
    pub async fn put_many(
        &self,
        objs: &[Object],
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<Vec<PutResult>, QmError> {
        let (me, objs) = (self.clone(), objs.to_vec());
        Mqi::blocking(move || me.put_many_now(&objs, msg, pmo)).await
    }

    /// [`Mqi::put_many`] on the caller's thread (see [`Mqi::put_now`]).
    pub fn put_many_now(
        &self,
        objs: &[Object],
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Result<Vec<PutResult>, QmError> {
        // As MQOPEN of a distribution list: every record is resolved first,
        // so a list with a destination that cannot be reached puts nothing.
        let list = objs
            .iter()
            .map(|o| ObjectRecord::new(&o.name, &o.q_mgr))
            .collect();
        for (index, (obj, resolved)) in objs.iter().zip(self.qm.resolve_list(&list)).enumerate() {
            if let Err(e) = resolved {
                return Err(QmError::new(
                    e.mqrc,
                    format!(
                        "{}: {}; nothing was put",
                        destination_label(index, &obj.name, &obj.q_mgr),
                        e.message
                    ),
                ));
            }
        }
        let private = match pmo.uow {
            Some(_) => None,
            None => Some(self.qm.begin_uow(None, None)?),
        };
        let in_uow = PutOptions {
            uow: pmo.uow.or(private),
            ..pmo
        };
        let mut results = Vec::with_capacity(objs.len());
        for (index, obj) in objs.iter().enumerate() {
            match self.put_now(obj, msg.clone(), in_uow.clone()) {
                Ok(r) => results.push(r),
                Err(e) => {
                    if let Some(id) = private {
                        let _ = self.qm.backout(id);
                    }
                    return Err(QmError::new(
                        e.mqrc,
                        format!(
                            "{}: {}; {}",
                            destination_label(index, &obj.name, &obj.q_mgr),
                            e.message,
                            if private.is_some() {
                                "nothing was put"
                            } else {
                                "the unit of work holds the copies already put"
                            }
                        ),
                    ));
                }
            }
        }
        if let Some(id) = private {
            self.qm.commit(id).map_err(|e| {
                QmError::new(
                    e.mqrc,
                    format!("put to {} destinations: {}", objs.len(), e.message),
                )
            })?;
        }
        Ok(results)
    }
}
