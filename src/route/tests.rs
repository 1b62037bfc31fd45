//! Every step of MQ's resolution order, over a snapshot of definitions.
//!
//! Expected reasons: IBM MQ "API reason codes" for the numbers; IBM MQ documentation
//! "Name resolution", "Opening remote queues", "Queue manager alias definitions" for
//! which step yields which; docs/config.md `devices` for device queue managers; IBM MQ
//! documentation "Distribution lists" / "MQRR - Response record" for lists.

use super::*;
use crate::config::{AliasQueueDef, QueueDef, RemoteQueueDef, Usage};
use crate::qmgr::QmError;
use mqgate_codecs::mq::Mqrc;
use std::collections::HashMap;

/// A snapshot of object definitions (what the queue manager passes in).
#[derive(Default)]
struct Defs {
    objects: HashMap<String, QueueDef>,
    models: Vec<LocalQueueDef>,
}

impl Objects for Defs {
    fn object(&self, name: &str) -> Option<ObjectDef<'_>> {
        self.objects.get(name).map(|d| match d {
            QueueDef::Local(l) => ObjectDef::Local(l),
            QueueDef::Model(_) => ObjectDef::Model,
            QueueDef::Remote(r) => ObjectDef::Remote(r),
            QueueDef::Alias(a) => ObjectDef::Alias(a),
        })
    }
    fn models(&self) -> &[LocalQueueDef] {
        &self.models
    }
}

impl Defs {
    fn add(mut self, def: QueueDef) -> Self {
        if let QueueDef::Model(m) = &def {
            self.models.push(m.clone());
        }
        self.objects.insert(def.name().to_string(), def);
        self
    }
    fn local(self, name: &str) -> Self {
        self.add(QueueDef::Local(LocalQueueDef::with_defaults(
            name,
            Usage::Normal,
        )))
    }
    fn xmitq(self, name: &str) -> Self {
        self.add(QueueDef::Local(LocalQueueDef::with_defaults(
            name,
            Usage::Xmitq,
        )))
    }
    fn model(self, name: &str, pattern: &str, max_depth: usize) -> Self {
        self.add(QueueDef::Model(LocalQueueDef {
            dynamic_q_name: Some(pattern.into()),
            max_depth,
            ..LocalQueueDef::with_defaults(name, Usage::Normal)
        }))
    }
    fn remote(
        self,
        name: &str,
        rname: Option<&str>,
        rqmname: Option<&str>,
        xmitq: Option<&str>,
    ) -> Self {
        self.add(QueueDef::Remote(RemoteQueueDef {
            name: name.into(),
            remote_q_name: rname.map(Into::into),
            remote_q_mgr_name: rqmname.map(Into::into),
            xmit_q: xmitq.map(Into::into),
            put_inhibited: false,
        }))
    }
    fn alias(self, name: &str, target: &str) -> Self {
        self.add(QueueDef::Alias(AliasQueueDef {
            name: name.into(),
            target: target.into(),
            put_inhibited: false,
            get_inhibited: false,
        }))
    }
    /// Sets PUT(DISABLED) / GET(DISABLED) on an alias or remote definition.
    fn inhibit(mut self, name: &str) -> Self {
        match self.objects.get_mut(name) {
            Some(QueueDef::Alias(a)) => {
                a.put_inhibited = true;
                a.get_inhibited = true;
            }
            Some(QueueDef::Remote(r)) => r.put_inhibited = true,
            _ => panic!("{name} is not an alias or remote definition"),
        }
        self
    }
}

/// Queue manager QM1 with default transmission queue `defxmitq` (empty =
/// none) and the default device patterns (`DEV*`, MAXDEPTH 5000).
fn router(defxmitq: &str) -> Router {
    let mut config = Config::default();
    config.queue_manager.name = "QM1".into();
    config.queue_manager.default_xmit_queue = defxmitq.into();
    config.devices.max_depth = 77;
    Router::from_config(&config)
}

/// The definitions most tests share.
fn defs() -> Defs {
    Defs::default()
        .local("Q")
        .xmitq("QM2")
        .xmitq("XQ")
        .xmitq("DEFXQ")
        .remote("REMOTE.Q", Some("APP.IN"), Some("QM2"), None)
        .remote("REMOTE.VIA.XQ", Some("APP.IN"), Some("QM3"), Some("XQ"))
        .remote("REMOTE.QM9", Some("APP.IN"), Some("QM9"), None)
        .remote("QM.OLD", None, Some("QM2"), None)
        .remote("QM.VIA.XQ", None, Some("QM3"), Some("XQ"))
        .remote("QM.HERE", None, Some("QM1"), None)
        .alias("ALIAS.Q", "Q")
        .alias("ALIAS.REMOTE", "REMOTE.Q")
        .model("DEVICE.MODEL", "DEVICE.*", 3)
}

fn put(r: &Router, d: &Defs, q: &str, q_mgr: &str) -> Result<Destination, QmError> {
    r.resolve_put(d, q, q_mgr)
}

fn rc(res: Result<Destination, QmError>) -> i32 {
    match res {
        Ok(d) => panic!("expected an error, got {d:?}"),
        Err(e) => e.mqrc.0,
    }
}

fn is_local(res: Result<Destination, QmError>, queue: &str) {
    match res {
        Ok(Destination::Local { queue: q }) => assert_eq!(q, queue),
        other => panic!("expected local queue {queue}, got {other:?}"),
    }
}

fn is_transmit(res: Result<Destination, QmError>, xmit_q: &str, rq: &str, rqm: &str) {
    match res {
        Ok(Destination::Transmit { xmit_q: x, remote }) => {
            assert_eq!(x, xmit_q);
            assert_eq!(
                (
                    remote.remote_q_name.as_str(),
                    remote.remote_q_mgr_name.as_str()
                ),
                (rq, rqm)
            );
        }
        other => panic!("expected transmission queue {xmit_q}, got {other:?}"),
    }
}

fn created(res: Result<Destination, QmError>) -> NewQueue {
    match res {
        Ok(Destination::Create(n)) => n,
        other => panic!("expected a queue to create, got {other:?}"),
    }
}

#[test]
fn local_queue_at_blank_or_own_queue_manager() {
    // IBM MQ "Name resolution": ObjectQMgrName blank or the local queue manager
    // → the local definition of ObjectName.
    let (r, d) = (router(""), defs());
    is_local(put(&r, &d, "Q", ""), "Q");
    is_local(put(&r, &d, "Q", "QM1"), "Q");
    // A transmission queue is a local queue: a put may name it directly.
    is_local(put(&r, &d, "XQ", ""), "XQ");
    // Nothing found locally: 2085 UNKNOWN_OBJECT_NAME.
    let e = put(&r, &d, "NOPE", "").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2085));
    assert_eq!(e.message, "queue NOPE is not defined");
}

#[test]
fn alias_resolves_to_its_base_queue() {
    // IBM MQ "Name resolution": an alias resolves to its base queue.
    let (r, d) = (router(""), defs());
    is_local(put(&r, &d, "ALIAS.Q", ""), "Q");
    // An alias of a remote definition resolves as the definition does.
    is_transmit(put(&r, &d, "ALIAS.REMOTE", ""), "QM2", "APP.IN", "QM2");
    // 2082 UNKNOWN_ALIAS_BASE_Q: the base is not defined (an undefined base
    // that a model would match is still undefined: no dynamic queue).
    let d2 = defs()
        .alias("ALIAS.NONE", "MISSING")
        .alias("ALIAS.DYN", "DEVICE.X");
    let e = put(&r, &d2, "ALIAS.NONE", "").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2082));
    assert!(e.message.contains("MISSING"), "{}", e.message);
    assert_eq!(rc(put(&r, &d2, "ALIAS.DYN", "")), 2082);
    // 2001 ALIAS_BASE_Q_TYPE_ERROR: the base is neither a local nor a remote
    // queue (a model, a queue manager alias, another alias).
    let d3 = defs()
        .alias("ALIAS.MODEL", "DEVICE.MODEL")
        .alias("ALIAS.QMALIAS", "QM.OLD")
        .alias("ALIAS.ALIAS", "ALIAS.Q");
    for a in ["ALIAS.MODEL", "ALIAS.QMALIAS", "ALIAS.ALIAS"] {
        assert_eq!(rc(put(&r, &d3, a, "")), 2001, "{a}");
    }
    // 2051 PUT_INHIBITED on the alias itself.
    let e = put(&r, &defs().inhibit("ALIAS.Q"), "ALIAS.Q", "").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2051));
    assert_eq!(e.message, "puts to queue ALIAS.Q are inhibited");
}

#[test]
fn remote_definition_with_and_without_xmitq() {
    // A remote queue definition (IBM MQ "Opening remote queues"): destination
    // (RNAME, RQMNAME); xmitq = XMITQ if set, else the queue named RQMNAME,
    // else DEFXMITQ.
    let r = router("DEFXQ");
    let d = defs();
    is_transmit(put(&r, &d, "REMOTE.VIA.XQ", ""), "XQ", "APP.IN", "QM3");
    is_transmit(put(&r, &d, "REMOTE.Q", ""), "QM2", "APP.IN", "QM2");
    is_transmit(put(&r, &d, "REMOTE.QM9", ""), "DEFXQ", "APP.IN", "QM9");
    // ... and no DEFXMITQ: 2087 UNKNOWN_REMOTE_Q_MGR.
    assert_eq!(rc(put(&router(""), &d, "REMOTE.QM9", "")), 2087);
    // RQMNAME blank or the local queue manager: 2087.
    let d2 = defs()
        .remote("R.BLANK", Some("APP.IN"), None, Some("XQ"))
        .remote("R.LOCAL", Some("APP.IN"), Some("QM1"), None);
    for q in ["R.BLANK", "R.LOCAL"] {
        let e = put(&r, &d2, q, "").unwrap_err();
        assert_eq!(e.mqrc, Mqrc(2087), "{q}");
        assert!(e.message.contains("RemoteQMgrName"), "{}", e.message);
    }
    // 2051 on a PUT(DISABLED) remote definition.
    assert_eq!(
        rc(put(&r, &defs().inhibit("REMOTE.Q"), "REMOTE.Q", "")),
        2051
    );
}

#[test]
fn named_xmitq_errors_2196_2091_2092() {
    // IBM MQ reason code pages: 2196 UNKNOWN_XMIT_Q (XMITQ named but
    // undefined), 2091 XMIT_Q_TYPE_ERROR (not a local queue), 2092
    // XMIT_Q_USAGE_ERROR (a local queue of usage normal).
    let r = router("DEFXQ");
    let d = defs()
        .remote("R.UNDEF", Some("APP.IN"), Some("QM3"), Some("NO.SUCH.XQ"))
        .remote("R.ALIASXQ", Some("APP.IN"), Some("QM3"), Some("ALIAS.Q"))
        .remote("R.NORMALXQ", Some("APP.IN"), Some("QM3"), Some("Q"))
        .remote("QMA.UNDEF", None, Some("QM3"), Some("NO.SUCH.XQ"))
        .remote("QMA.NORMALXQ", None, Some("QM3"), Some("Q"));
    let e = put(&r, &d, "R.UNDEF", "").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2196));
    assert_eq!(e.message, "transmission queue NO.SUCH.XQ is not defined");
    assert_eq!(rc(put(&r, &d, "R.ALIASXQ", "")), 2091);
    assert_eq!(rc(put(&r, &d, "R.NORMALXQ", "")), 2092);
    // The same checks for a queue manager alias's XMITQ.
    assert_eq!(rc(put(&r, &d, "APP.IN", "QMA.UNDEF")), 2196);
    assert_eq!(rc(put(&r, &d, "APP.IN", "QMA.NORMALXQ")), 2092);
}

#[test]
fn queue_manager_alias_remaps_and_picks_an_xmitq() {
    // A QREMOTE named like the target queue manager with blank RNAME remaps the
    // queue manager to RQMNAME and/or picks XMITQ; the rename shows in the
    // MQXQH (RemoteQMgrName = RQMNAME). IBM MQ "Queue manager alias
    // definitions".
    let r = router("DEFXQ");
    let d = defs();
    is_transmit(put(&r, &d, "APP.IN", "QM.OLD"), "QM2", "APP.IN", "QM2");
    is_transmit(put(&r, &d, "APP.IN", "QM.VIA.XQ"), "XQ", "APP.IN", "QM3");
    // RQMNAME local and no XMITQ: delivered locally.
    is_local(put(&r, &d, "Q", "QM.HERE"), "Q");
    // A queue manager alias with only XMITQ keeps the queue manager name.
    let d2 = defs().remote("QM7", None, None, Some("XQ"));
    is_transmit(put(&r, &d2, "APP.IN", "QM7"), "XQ", "APP.IN", "QM7");
    // PUT(DISABLED): 2051 naming the alias.
    let e = put(&r, &defs().inhibit("QM.OLD"), "APP.IN", "QM.OLD").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2051));
    assert!(e.message.contains("QM.OLD"), "{}", e.message);
    // A queue manager alias or a model is no queue to put to: 2057 Q_TYPE_ERROR.
    assert_eq!(rc(put(&r, &d, "QM.OLD", "")), 2057);
    assert_eq!(rc(put(&r, &d, "DEVICE.MODEL", "")), 2057);
}

#[test]
fn transmission_queue_named_like_the_queue_manager() {
    // IBM MQ "Name resolution": a transmission queue named exactly like the
    // target queue manager (case must match), before the default transmission
    // queue.
    let r = router("DEFXQ");
    let d = defs();
    is_transmit(put(&r, &d, "APP.IN", "QM2"), "QM2", "APP.IN", "QM2");
    is_transmit(put(&r, &d, "APP.IN", "qm2"), "DEFXQ", "APP.IN", "qm2");
    // A local queue of usage normal named like the queue manager is not one.
    let d2 = defs().local("QM5");
    is_transmit(put(&r, &d2, "APP.IN", "QM5"), "DEFXQ", "APP.IN", "QM5");
}

#[test]
fn default_xmitq_then_2087_2198_2199() {
    // IBM MQ "Name resolution" and the reason code pages: DEFXMITQ if set, else
    // 2087; 2198 DEF_XMIT_Q_TYPE_ERROR when it is not a local queue, 2199
    // DEF_XMIT_Q_USAGE_ERROR when it is a local queue of usage normal.
    let d = defs();
    is_transmit(
        put(&router("DEFXQ"), &d, "APP.IN", "QM9"),
        "DEFXQ",
        "APP.IN",
        "QM9",
    );
    let e = put(&router(""), &d, "APP.IN", "QM9").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2087));
    assert_eq!(
        e.message,
        "no transmission queue for queue manager QM9 and no default transmission queue"
    );
    let e = put(&router("Q"), &d, "APP.IN", "QM9").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2199));
    assert!(e.message.contains("usage normal"), "{}", e.message);
    assert_eq!(rc(put(&router("ALIAS.Q"), &d, "APP.IN", "QM9")), 2198);
    assert_eq!(rc(put(&router("UNDEFINED.XQ"), &d, "APP.IN", "QM9")), 2198);
}

#[test]
fn device_queue_manager_after_named_xmitq_before_default_xmitq() {
    // docs/config.md `devices`: a name matching `devices.queue_managers` is a
    // device; its queue Q is the local queue QMGR/Q, created on first use
    // with the devices' MAXDEPTH. Order: transmission queue named like the
    // queue manager; device queue manager; default transmission queue.
    let r = router("DEFXQ");
    let d = defs();
    let n = created(put(&r, &d, "INBOX", "DEV0001"));
    assert_eq!(n.def.name, "DEV0001/INBOX");
    assert_eq!(n.def.max_depth, 77);
    assert_eq!(
        n.origin,
        Origin::Device {
            q_mgr: "DEV0001".into()
        }
    );
    // Once it exists it is used as it is.
    let d2 = defs().local("DEV0001/INBOX");
    is_local(put(&r, &d2, "INBOX", "DEV0001"), "DEV0001/INBOX");
    // A transmission queue named like the device wins.
    let d3 = defs().xmitq("DEV0002");
    is_transmit(
        put(&r, &d3, "INBOX", "DEV0002"),
        "DEV0002",
        "INBOX",
        "DEV0002",
    );
    // A queue manager alias may name a device; so may a remote definition.
    let d4 = defs()
        .remote("DEVICE.ALIAS", None, Some("DEV0500"), None)
        .remote("DEVICE.INBOX", Some("INBOX"), Some("DEV0600"), None);
    assert_eq!(
        created(put(&r, &d4, "INBOX", "DEVICE.ALIAS")).def.name,
        "DEV0500/INBOX"
    );
    assert_eq!(
        created(put(&r, &d4, "DEVICE.INBOX", "")).def.name,
        "DEV0600/INBOX"
    );
    // A name with `/` is never a device: DEFXMITQ, or 2087 without one.
    is_transmit(put(&r, &d, "B", "DEV1/A"), "DEFXQ", "B", "DEV1/A");
    assert_eq!(rc(put(&router(""), &d, "B", "DEV1/A")), 2087);
}

#[test]
fn a_device_queue_named_by_its_local_name_is_created_like_one_named_at_its_device() {
    // docs/config.md `devices`: queue Q of device QMGR is the local queue
    // QMGR/Q, created by the first message for it; a put naming QMGR/Q at
    // this queue manager creates it too (it exists only while needed).
    let r = router("DEFXQ");
    let d = defs();
    let n = created(put(&r, &d, "DEV0001/INBOX", ""));
    assert_eq!(n.def.name, "DEV0001/INBOX");
    assert_eq!(n.def.max_depth, 77);
    assert_eq!(
        n.origin,
        Origin::Device {
            q_mgr: "DEV0001".into()
        }
    );
    // Split at the first `/`: the queue part may hold `/`.
    assert_eq!(
        created(put(&r, &d, "DEV0001/A/B", "QM1")).def.name,
        "DEV0001/A/B"
    );
    // Not a device, or no queue part: 2085 as for any undefined name;
    // an object of that name is used as it is.
    assert_eq!(rc(put(&r, &d, "NODEV/INBOX", "")), 2085);
    assert_eq!(rc(put(&r, &d, "QM1/INBOX", "")), 2085);
    assert_eq!(rc(put(&r, &d, "DEV0001/", "")), 2085);
    is_local(
        put(&r, &defs().local("DEV0001/INBOX"), "DEV0001/INBOX", ""),
        "DEV0001/INBOX",
    );
}

#[test]
fn device_queue_names_must_fit_48_characters() {
    // IBM MQ "Rules for naming IBM MQ objects": a queue name has at most 48
    // characters; a device queue whose local name QMGR/QUEUE is longer could
    // never be read back, so the put is refused: 2152 OBJECT_NAME_ERROR, naming
    // both parts.
    let r = router("DEFXQ");
    let d = defs();
    let q_mgr = "DEV".to_string() + &"9".repeat(20);
    let e = put(&r, &d, &"Q".repeat(25), &q_mgr).unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2152));
    assert!(e.message.contains(&q_mgr), "{}", e.message);
    assert!(e.message.contains("49 characters"), "{}", e.message);
    // One shorter fits (23 + 1 + 24 = 48).
    assert_eq!(
        created(put(&r, &d, &"Q".repeat(24), &q_mgr)).def.name.len(),
        48
    );
    // A queue name that is no MQ name at all: 2152 too, as the queue API
    // answers a malformed name (IBM MQ "Rules for naming IBM MQ objects").
    let e = put(&r, &d, "BAD NAME", "DEV0001").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2152));
    assert!(
        e.message.starts_with("device queue name \"BAD NAME\""),
        "{}",
        e.message
    );
    // An overlong one is quoted as docs/http-api.md "Errors" says: its
    // first 64 characters, `…` and its length in bytes, never whole.
    let e = put(&r, &d, &"Q".repeat(5000), "DEV0001").unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2152));
    assert!(
        e.message.starts_with(&format!(
            "device queue name \"{}\"… (5000 bytes): ",
            "Q".repeat(64)
        )),
        "{}",
        e.message
    );
    assert!(!e.message.contains(&"Q".repeat(65)), "{}", e.message);
}

#[test]
fn model_queue_creates_a_dynamic_queue() {
    // IBM MQ "ObjectName (MQCHAR48) for MQOD": a model queue creates a dynamic
    // queue; here the first model whose DynamicQName matches, with its
    // attributes and the asked name.
    let r = router("");
    let d = defs().model("OTHER.MODEL", "DEVICE.*", 9);
    let n = created(put(&r, &d, "DEVICE.A1", ""));
    assert_eq!(n.def.name, "DEVICE.A1");
    assert_eq!(n.def.max_depth, 3, "the first matching model");
    assert_eq!(n.def.dynamic_q_name, None);
    assert_eq!(
        n.origin,
        Origin::Model {
            model: "DEVICE.MODEL".into()
        }
    );
    // Gets create it too.
    assert_eq!(
        created(r.resolve_get(&d, "DEVICE.B2")).def.name,
        "DEVICE.B2"
    );
    // A name a model matches but that is no valid queue name is not created:
    // 2085 as for any undefined name.
    assert_eq!(rc(put(&r, &d, "DEVICE.a b", "")), 2085);
    // An existing object is never replaced by a dynamic queue.
    let d2 = defs().local("DEVICE.A1");
    is_local(put(&r, &d2, "DEVICE.A1", ""), "DEVICE.A1");
}

#[test]
fn gets_resolve_to_a_local_queue_only() {
    // IBM MQ "Opening remote queues": opens for input/browse must resolve to a
    // local queue. IBM MQ reason pages: 2016 GET_INHIBITED, 2045
    // OPTION_NOT_VALID_FOR_TYPE (MQOO_INPUT on a remote queue), 2085
    // UNKNOWN_OBJECT_NAME.
    let r = router("DEFXQ");
    let d = defs().alias("ALIAS.REMOTE.GET", "REMOTE.Q");
    is_local(r.resolve_get(&d, "Q"), "Q");
    is_local(r.resolve_get(&d, "XQ"), "XQ");
    is_local(r.resolve_get(&d, "ALIAS.Q"), "Q");
    let e = r
        .resolve_get(&defs().inhibit("ALIAS.Q"), "ALIAS.Q")
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc(2016));
    assert_eq!(e.message, "gets from alias ALIAS.Q are inhibited");
    assert_eq!(rc(r.resolve_get(&d, "ALIAS.REMOTE.GET")), 2045);
    assert_eq!(rc(r.resolve_get(&d, "REMOTE.Q")), 2045);
    assert_eq!(rc(r.resolve_get(&d, "QM.OLD")), 2045);
    assert_eq!(rc(r.resolve_get(&d, "DEVICE.MODEL")), 2045);
    assert_eq!(rc(r.resolve_get(&d, "NOPE")), 2085);
}

#[test]
fn destination_lists_resolve_each_record_on_its_own() {
    // IBM MQ "Distribution lists" / "MQRR - Response record": each
    // destination gets its own completion code and reason, in the order of
    // the object records; some may succeed while others fail.
    let r = router("");
    let d = defs();
    let list: DestinationList = [
        ("Q", ""),
        ("NOPE", ""),
        ("APP.IN", "QM2"),
        ("BAD NAME", ""),
        ("Q", "bad qmgr"),
        ("APP.IN", "QM9"),
        ("INBOX", "DEV0001"),
        ("Q", "QM1"),
    ]
    .into_iter()
    .map(|(q, qm)| ObjectRecord::new(q, qm))
    .collect();
    assert_eq!(list.records().len(), 8);
    let out = r.resolve(&d, &list);
    assert_eq!(out.len(), 8);
    let mut out = out.into_iter();
    let mut next = || out.next().unwrap();
    is_local(next(), "Q");
    assert_eq!(rc(next()), 2085);
    is_transmit(next(), "QM2", "APP.IN", "QM2");
    // 2152 OBJECT_NAME_ERROR, 2058 Q_MGR_NAME_ERROR (IBM MQ "Rules for naming IBM MQ
    // objects"), checked per record.
    assert_eq!(rc(next()), 2152);
    assert_eq!(rc(next()), 2058);
    assert_eq!(rc(next()), 2087);
    assert_eq!(created(next()).def.name, "DEV0001/INBOX");
    // The same queue twice is two destinations (the message is put twice).
    is_local(next(), "Q");
    assert!(r.resolve(&d, &DestinationList::default()).is_empty());
}

#[test]
fn a_list_of_one_is_an_ordinary_put() {
    let r = router("DEFXQ");
    let d = defs();
    let one = DestinationList::from(ObjectRecord::new("REMOTE.VIA.XQ", ""));
    let out = r.resolve(&d, &one);
    assert_eq!(out.len(), 1);
    let dest = out.into_iter().next().unwrap();
    is_transmit(dest, "XQ", "APP.IN", "QM3");
}
