//! Destination lists: a message for several (ObjectName, ObjectQMgrName)
//! pairs at once, each resolved on its own (IBM MQ documentation
//! "Distribution lists", "Opening distribution lists", "MQRR - Response
//! record": one object record per destination, and a completion code and
//! reason per destination when some succeed and others fail). An ordinary
//! MQ name is a list of one; fan-out (SBS registrations, subject wildcards)
//! is a longer list.

use super::view::Objects;
use super::{Destination, Router};
use crate::qmgr::QmError;
use crate::qmgr::names::{check_q_mgr_name, check_q_name};

/// One destination of a list, as MQ's object record (MQOR) names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRecord {
    /// ObjectName: the queue.
    pub object_name: String,
    /// ObjectQMgrName: its queue manager; empty = this queue manager.
    pub object_q_mgr_name: String,
}

impl ObjectRecord {
    /// Queue `object_name` at queue manager `object_q_mgr_name` (empty = local).
    pub fn new(object_name: &str, object_q_mgr_name: &str) -> Self {
        ObjectRecord {
            object_name: object_name.to_string(),
            object_q_mgr_name: object_q_mgr_name.to_string(),
        }
    }
}

/// An ordered list of destinations, independent of any configuration; the
/// same record may appear twice (the message is then put twice, as MQ does).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DestinationList {
    records: Vec<ObjectRecord>,
}

impl DestinationList {
    /// The records in order.
    pub fn records(&self) -> &[ObjectRecord] {
        &self.records
    }
}

impl From<ObjectRecord> for DestinationList {
    fn from(record: ObjectRecord) -> Self {
        DestinationList {
            records: vec![record],
        }
    }
}

impl FromIterator<ObjectRecord> for DestinationList {
    fn from_iter<I: IntoIterator<Item = ObjectRecord>>(iter: I) -> Self {
        DestinationList {
            records: iter.into_iter().collect(),
        }
    }
}

/// The outcome for one record of a list (MQ's response record, MQRR, which
/// like it is matched to its object record by position): where the message
/// goes, or the MQRC reason it cannot.
pub type Resolved = Result<Destination, QmError>;

impl Router {
    /// Resolves every record of `list` against `objs`: one [`Resolved`] per
    /// record, in the records' order; a record that fails (2152 / 2058 for a malformed
    /// name, then every error of MQ's resolution order) does not stop the
    /// others. Several records may ask for the same queue to be created; the
    /// queue manager creates it once.
    pub fn resolve(&self, objs: &dyn Objects, list: &DestinationList) -> Vec<Resolved> {
        list.records()
            .iter()
            .map(|record| self.resolve_record(objs, record))
            .collect()
    }

    fn resolve_record(&self, objs: &dyn Objects, record: &ObjectRecord) -> Resolved {
        self.resolve_one(objs, &record.object_name, &record.object_q_mgr_name)
    }

    /// Resolves one destination, queue `q` at queue manager `q_mgr` (empty =
    /// this one), exactly as a list of that one record: the same checks and
    /// errors as [`Router::resolve`], without building the list (the path of
    /// every ordinary put).
    pub fn resolve_one(&self, objs: &dyn Objects, q: &str, q_mgr: &str) -> Resolved {
        check_q_name(q)?;
        check_q_mgr_name(q_mgr)?;
        self.resolve_put(objs, q, q_mgr)
    }
}
