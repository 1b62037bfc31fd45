//! `GET /metrics`: the gateway's metrics in the Prometheus text format
//! (version 0.0.4), encoded by the `prometheus-client` crate. Every metric,
//! its labels and units: docs/operations.md "Metrics".
//!
//! Nothing here is on a message's path: puts and gets bump their queue's
//! atomics (src/qmgr/stats.rs), channels their status board entry,
//! connections and exits process-wide atomics ([`listeners`],
//! `mqgate_exits::stats`), store commits a histogram ([`store`]). The
//! [`Collector`] reads all of them, and the queue depths and oldest
//! messages, when the metrics are fetched.

mod channels;
pub mod listeners;
pub mod process;
mod queues;
pub mod ready;
pub mod store;

pub use listeners::{Connection, Listener, accepted};
pub use ready::Readiness;

use crate::channel::StatusBoard;
use crate::qmgr::QueueManager;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeCounterValue, EncodeGaugeValue, EncodeLabelSet, EncodeMetric,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The `Content-Type` of a `GET /metrics` answer.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// What the metrics are read from at each fetch.
struct GatewayCollector {
    qm: Arc<QueueManager>,
    board: Arc<StatusBoard>,
    readiness: Arc<Readiness>,
}

/// The registry of one gateway: the store commit histogram `commits`
/// (the one its [`store::TimedStore`] observes into) and a collector over
/// the queue manager `qm`, the channel status `board` and the listeners of
/// `readiness`.
pub fn registry(
    qm: Arc<QueueManager>,
    board: Arc<StatusBoard>,
    readiness: Arc<Readiness>,
    commits: Histogram,
) -> Registry {
    let mut r = Registry::default();
    r.register(
        "mqgate_store_commit_seconds",
        "Time of each store transaction (a commit of persistent messages), in seconds",
        commits,
    );
    r.register_collector(Box::new(GatewayCollector {
        qm,
        board,
        readiness,
    }));
    r
}

/// The metrics of `registry` in the Prometheus text format.
pub fn encode(registry: &Registry) -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    prometheus_client::encoding::prometheus_text::encode(&mut out, registry)?;
    Ok(out)
}

impl std::fmt::Debug for GatewayCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayCollector").finish_non_exhaustive()
    }
}

impl Collector for GatewayCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        queues::encode(&mut enc, &self.qm.queue_samples())?;
        channels::encode(&mut enc, &self.board.all())?;
        self.listeners(&mut enc)?;
        exits(&mut enc)?;
        process(&mut enc)
    }
}

impl GatewayCollector {
    /// The connections of each listener this gateway bound.
    fn listeners(&self, enc: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let bound: Vec<Listener> = self.readiness.listeners().collect();
        let rows: Vec<_> = listeners::snapshot()
            .into_iter()
            .filter(|(l, _, _)| bound.contains(l))
            .collect();
        gauges(
            enc,
            "mqgate_listener_connections",
            "Connections open now, per listener",
            rows.iter()
                .map(|(l, open, _)| ([("listener", l.label())], *open)),
        )?;
        counters(
            enc,
            "mqgate_listener_connections_accepted",
            "Connections accepted since the process started, per listener",
            rows.iter().map(|(l, _, n)| ([("listener", l.label())], *n)),
        )?;
        counters(
            enc,
            "mqgate_connections_refused",
            "Connections and requests refused by a channel authentication rule or a limit since the process started, per reason",
            listeners::refusals()
                .into_iter()
                .map(|(r, n)| ([("reason", r.label())], n)),
        )
    }
}

/// Exit calls and failures per exit point.
fn exits(enc: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let rows = mqgate_exits::stats::snapshot();
    let labels = |p: mqgate_exits::ExitPoint| [("point", p.key())];
    counters(
        enc,
        "mqgate_exit_calls",
        "Data calls of user exits (MQXR_MSG, MQXR_XMIT) since the process started, per exit point",
        rows.iter().map(|(p, calls, _)| (labels(*p), *calls)),
    )?;
    counters(
        enc,
        "mqgate_exit_failures",
        "Exit calls that failed (MQXCC_FAILED, a panic, a time budget overrun, a disabled exit), per exit point",
        rows.iter().map(|(p, _, failed)| (labels(*p), *failed)),
    )
}

/// Process and build information.
fn process(enc: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let p = process::sample();
    let none: [(&str, &str); 0] = [];
    gauges(
        enc,
        "process_start_time_seconds",
        "Start time of the process since the Unix epoch, in seconds",
        p.start_time_s.map(|v| (none, v)),
    )?;
    for (name, help, v) in [
        (
            "process_resident_memory_bytes",
            "Resident memory size (VmRSS), in bytes",
            p.resident_bytes,
        ),
        ("process_open_fds", "Open file descriptors", p.open_fds),
        (
            "process_max_fds",
            "Most open file descriptors allowed (RLIMIT_NOFILE soft limit)",
            p.max_fds,
        ),
    ] {
        gauges(enc, name, help, v.map(|v| (none, v)))?;
    }
    let info = Info::new(process::build_labels());
    info.encode(enc.encode_descriptor(
        "mqgate_build",
        "The mqgate build: crate version and git commit",
        None,
        MetricType::Info,
    )?)
}

/// A gauge family `name` with one sample per row (label set, value);
/// nothing when there is no row.
fn gauges<L: EncodeLabelSet, V: EncodeGaugeValue>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (L, V)>,
) -> Result<(), std::fmt::Error> {
    family(enc, name, help, MetricType::Gauge, rows, |v, m| {
        ConstGauge::new(v).encode(m)
    })
}

/// A counter family `name` (`name_total` on the wire) with one sample per
/// row; nothing when there is no row.
fn counters<L: EncodeLabelSet, V: EncodeCounterValue>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (L, V)>,
) -> Result<(), std::fmt::Error> {
    family(enc, name, help, MetricType::Counter, rows, |v, m| {
        ConstCounter::new(v).encode(m)
    })
}

fn family<L: EncodeLabelSet, V>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    rows: impl IntoIterator<Item = (L, V)>,
    write: impl Fn(V, prometheus_client::encoding::MetricEncoder<'_>) -> Result<(), std::fmt::Error>,
) -> Result<(), std::fmt::Error> {
    let mut rows = rows.into_iter().peekable();
    if rows.peek().is_none() {
        return Ok(());
    }
    let mut m = enc.encode_descriptor(name, help, None, kind)?;
    for (labels, value) in rows {
        write(value, m.encode_family(&labels)?)?;
    }
    Ok(())
}
