//! What `GET /metrics` shows of the queues (docs/operations.md "Queues"):
//! CURDEPTH, puts, gets and the age of the oldest message (IBM MQ "DISPLAY
//! QSTATUS": CURDEPTH, MSGAGE; "Queue statistics message data": PUTS,
//! GETS).
//!
//! A queue defined in the configuration (or one mqgate defines itself: the
//! dead-letter queue, the default transmission queue) has counters of its
//! own. Queues created at run time (device queues, of which there may be a
//! million, dynamic queues from a model, temporary dynamic queues, and
//! queues recreated from stored messages) share one set of counters per
//! [`QueueGroup`], so the number of series does not grow with them.
//!
//! The counters are atomics bumped once per successful put and get; the
//! gauges are read only when the metrics are fetched.

use super::QueueManager;
use super::clock::now_ms;
use super::object::Object;
use super::queue::LocalQueue;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Successful MQPUT and destructive MQGET calls on a queue (or on a group of
/// queues), counted when the call succeeds, whether or not its unit of
/// work commits later.
#[derive(Debug, Default)]
pub struct QueueStats {
    puts: AtomicU64,
    gets: AtomicU64,
}

impl QueueStats {
    /// Counts one put.
    pub fn put(&self) {
        self.puts.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one destructive get.
    pub fn got(&self) {
        self.gets.fetch_add(1, Ordering::Relaxed);
    }

    /// Puts so far.
    pub fn puts(&self) -> u64 {
        self.puts.load(Ordering::Relaxed)
    }

    /// Destructive gets so far.
    pub fn gets(&self) -> u64 {
        self.gets.load(Ordering::Relaxed)
    }
}

/// A group of queues created at run time, whose metrics are summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueGroup {
    /// Device queues (docs/devices.md), created on a device's first message.
    Device,
    /// Dynamic queues from a model, temporary dynamic queues, and queues no
    /// longer defined that were recreated for their stored messages.
    Dynamic,
}

impl QueueGroup {
    /// The `group` label value.
    pub fn label(self) -> &'static str {
        match self {
            QueueGroup::Device => "device",
            QueueGroup::Dynamic => "dynamic",
        }
    }
}

/// The shared counters of each [`QueueGroup`], held by the queue manager.
#[derive(Debug, Default)]
pub struct GroupStats {
    device: Arc<QueueStats>,
    dynamic: Arc<QueueStats>,
}

impl GroupStats {
    /// The counters queues of `group` share.
    pub fn of(&self, group: QueueGroup) -> Arc<QueueStats> {
        match group {
            QueueGroup::Device => Arc::clone(&self.device),
            QueueGroup::Dynamic => Arc::clone(&self.dynamic),
        }
    }

    /// The group whose counters `stats` are; `None` for a queue's own.
    fn group_of(&self, stats: &Arc<QueueStats>) -> Option<QueueGroup> {
        if Arc::ptr_eq(stats, &self.device) {
            Some(QueueGroup::Device)
        } else if Arc::ptr_eq(stats, &self.dynamic) {
            Some(QueueGroup::Dynamic)
        } else {
            None
        }
    }
}

/// One queue with counters of its own, as `GET /metrics` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSample {
    pub name: String,
    /// `local` or `xmitq`.
    pub kind: &'static str,
    /// CURDEPTH (committed and uncommitted messages).
    pub depth: u64,
    pub puts: u64,
    pub gets: u64,
    /// Seconds since the PutDate/PutTime of the oldest message on the
    /// queue (0 when the clock is behind it); `None` when the queue is
    /// empty or its oldest message has no valid PutDate/PutTime.
    pub oldest_age_s: Option<f64>,
}

/// The sums over the queues of one [`QueueGroup`].
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSample {
    pub group: QueueGroup,
    /// How many queues of the group exist.
    pub queues: u64,
    /// CURDEPTH summed over the group's queues.
    pub depth: u64,
    pub puts: u64,
    pub gets: u64,
    /// The oldest message age over the group's queues.
    pub oldest_age_s: Option<f64>,
}

/// What [`QueueManager::queue_samples`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSamples {
    /// Queues with counters of their own, by name.
    pub queues: Vec<QueueSample>,
    /// Device queues, then dynamic queues.
    pub groups: [GroupSample; 2],
}

impl QueueManager {
    /// The metrics of every local queue (module documentation): one walk
    /// over the object table under its read lock, taking each queue's lock
    /// only to read its depth and its oldest message.
    pub fn queue_samples(&self) -> QueueSamples {
        let now = now_ms() as i64;
        let empty = |group| GroupSample {
            group,
            queues: 0,
            depth: 0,
            puts: 0,
            gets: 0,
            oldest_age_s: None,
        };
        let mut groups = [empty(QueueGroup::Device), empty(QueueGroup::Dynamic)];
        let mut queues = Vec::new();
        let table = self.table();
        for (name, obj) in &table.objects {
            let Object::Local(q) = obj else { continue };
            let (depth, oldest_age_s) = depth_and_age(q, now);
            match self.group_stats.group_of(&q.stats) {
                Some(group) => {
                    let g = &mut groups[group as usize];
                    g.queues += 1;
                    g.depth += depth;
                    g.oldest_age_s = older(g.oldest_age_s, oldest_age_s);
                }
                None => queues.push(QueueSample {
                    name: name.to_string(),
                    kind: obj.kind(),
                    depth,
                    puts: q.stats.puts(),
                    gets: q.stats.gets(),
                    oldest_age_s,
                }),
            }
        }
        drop(table);
        for g in &mut groups {
            let stats = self.group_stats.of(g.group);
            g.puts = stats.puts();
            g.gets = stats.gets();
        }
        queues.sort_by(|a, b| a.name.cmp(&b.name));
        QueueSamples { queues, groups }
    }
}

/// CURDEPTH of `q` and the age in seconds of its oldest message at `now`
/// (ms since the epoch).
fn depth_and_age(q: &Arc<LocalQueue>, now: i64) -> (u64, Option<f64>) {
    let contents = q.lock();
    let put_ms = contents.oldest().map(|e| i64::from(e.index.put_s) * 1000);
    let age = put_ms.map(|ms| (now.saturating_sub(ms)).max(0) as f64 / 1000.0);
    (contents.depth() as u64, age)
}

/// The larger of two ages.
fn older(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::qmgr::{GetMode, PutOptions, Selector};
    use crate::store::redb::RedbStore;
    use bytes::Bytes;
    use mqgate_codecs::mq::{CharField, Charset, Mqmd};

    const CONFIG: &str = "
queue_manager:
  name: QM1
queues:
  - type: local
    name: Q
    max_depth: 2
  - type: model
    name: DEVICE.MODEL
    dynamic_q_name: DEVICE.*
";

    /// Puts `md`: a PutDate set in it is kept (MQPMO_PASS_ALL_CONTEXT),
    /// a blank one gets the queue manager's (MQPMO_DEFAULT_CONTEXT).
    fn put(qm: &QueueManager, q: &str, md: Mqmd) -> Result<(), crate::qmgr::QmError> {
        let opts = PutOptions {
            pass_all_context: !md.put_date.is_blank(Charset::Ascii),
            ..PutOptions::default()
        };
        qm.put(q, md, Charset::Ascii, Bytes::from_static(b"x"), &opts)
            .map(|_| ())
    }

    #[test]
    fn defined_queues_count_alone_and_created_ones_in_their_group() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_yaml(CONFIG, "test").unwrap();
        let store = Arc::new(RedbStore::open(dir.path()).unwrap());
        let qm = QueueManager::open(&config, store).unwrap();
        // A message relayed with its context (pass all context): PutDate
        // 2020-12-31, PutTime 01:02:03.44 (IBM MQ "PutTime (MQCHAR8)").
        let old = Mqmd {
            put_date: CharField(*b"20201231"),
            put_time: CharField(*b"01020344"),
            ..Mqmd::default()
        };
        put(&qm, "Q", old.clone()).unwrap();
        put(&qm, "Q", Mqmd::default()).unwrap();
        // MAXDEPTH 2: a refused put (2053) is not counted.
        assert!(put(&qm, "Q", Mqmd::default()).is_err());
        let got = qm.get(
            "Q",
            &Selector::default(),
            GetMode::Destructive { uow: None },
        );
        assert!(got.is_ok());
        // Two dynamic queues from the model, one message each; a browse is
        // no get.
        put(&qm, "DEVICE.A", Mqmd::default()).unwrap();
        put(&qm, "DEVICE.B", old).unwrap();
        let browse = GetMode::Browse { after: None };
        assert!(qm.get("DEVICE.A", &Selector::default(), browse).is_ok());

        let s = qm.queue_samples();
        let q = s.queues.iter().find(|q| q.name == "Q").unwrap();
        assert_eq!((q.kind, q.depth, q.puts, q.gets), ("local", 1, 2, 1));
        // The message left was put moments ago.
        assert!(q.oldest_age_s.is_some_and(|a| a < 60.0), "{q:?}");
        assert!(!s.queues.iter().any(|q| q.name.starts_with("DEVICE.")));
        let dynamic = &s.groups[1];
        assert_eq!(dynamic.group, QueueGroup::Dynamic);
        assert_eq!(
            (dynamic.queues, dynamic.depth, dynamic.puts, dynamic.gets),
            (2, 2, 2, 0)
        );
        // Aged from its put on this queue (MSGAGE), not from the PutDate
        // 2020-12-31 its first application gave it.
        let age = dynamic.oldest_age_s.unwrap();
        assert!((0.0..60.0).contains(&age), "{age}");
        let device = &s.groups[0];
        assert_eq!((device.queues, device.depth, device.puts), (0, 0, 0));
        assert_eq!(device.oldest_age_s, None);
    }
}
