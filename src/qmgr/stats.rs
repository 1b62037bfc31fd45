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
use mqgate_codecs::mq::PutTimestamp;
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
                    name: name.clone(),
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
fn depth_and_age(q: &LocalQueue, now: i64) -> (u64, Option<f64>) {
    let contents = q.lock();
    let put_ms = contents.oldest().and_then(|e| {
        PutTimestamp::from_fields(&e.msg.md.put_date, &e.msg.md.put_time, e.msg.charset)
            .map(|t| t.unix_millis())
    });
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
