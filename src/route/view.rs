//! The router's view of the object definitions. The queue manager passes its
//! own in (under its lock, so a decision and the creation it asks for see the
//! same objects); route/ keeps none.

use crate::config::{AliasQueueDef, LocalQueueDef, RemoteQueueDef, Usage};
use crate::qmgr::names::matches_pattern;

/// What an object name is defined as (MQ object types QLOCAL, QMODEL,
/// QREMOTE, QALIAS).
#[derive(Clone, Copy, Debug)]
pub enum ObjectDef<'a> {
    /// A local queue; a transmission queue when its usage is `xmitq`.
    Local(&'a LocalQueueDef),
    /// A model queue; its attributes come from [`Objects::models`].
    Model,
    /// A remote queue definition; with no RNAME, a queue manager alias.
    Remote(&'a RemoteQueueDef),
    /// An alias queue.
    Alias(&'a AliasQueueDef),
}

impl ObjectDef<'_> {
    /// True for a local queue with USAGE(XMITQ).
    pub fn is_xmitq(&self) -> bool {
        matches!(self, ObjectDef::Local(l) if l.usage == Usage::Xmitq)
    }
}

/// Object definitions by name, as the router reads them.
pub trait Objects {
    /// The object named exactly `name` (MQ names are case-sensitive), if defined.
    fn object(&self, name: &str) -> Option<ObjectDef<'_>>;
    /// The model queues in definition order: the first whose DynamicQName
    /// matches a name is the one a dynamic queue is created from.
    fn models(&self) -> &[LocalQueueDef];
}

/// The first of `models` whose DynamicQName pattern (`*` matching any tail)
/// matches `name`.
pub fn model_for<'a>(models: &'a [LocalQueueDef], name: &str) -> Option<&'a LocalQueueDef> {
    models.iter().find(|m| {
        m.dynamic_q_name
            .as_deref()
            .is_some_and(|p| matches_pattern(p, name))
    })
}
