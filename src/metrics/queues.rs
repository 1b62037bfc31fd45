//! The queue metrics (docs/operations.md "Queues"): one series per queue
//! with counters of its own, sums per group for queues created at run time
//! (src/qmgr/stats.rs says which are which).

use super::{counters, gauges};
use crate::qmgr::stats::QueueSamples;
use prometheus_client::encoding::DescriptorEncoder;

pub(super) fn encode(enc: &mut DescriptorEncoder, s: &QueueSamples) -> Result<(), std::fmt::Error> {
    let labels = |i: usize| {
        [
            ("queue", s.queues[i].name.as_str()),
            ("type", s.queues[i].kind),
        ]
    };
    let each = 0..s.queues.len();
    gauges(
        enc,
        "mqgate_queue_depth",
        "Messages on the queue, committed or not (CURDEPTH)",
        each.clone().map(|i| (labels(i), s.queues[i].depth)),
    )?;
    counters(
        enc,
        "mqgate_queue_puts",
        "Successful puts to the queue since the gateway started (PUTS)",
        each.clone().map(|i| (labels(i), s.queues[i].puts)),
    )?;
    counters(
        enc,
        "mqgate_queue_gets",
        "Successful destructive gets from the queue since the gateway started (GETS)",
        each.clone().map(|i| (labels(i), s.queues[i].gets)),
    )?;
    gauges(
        enc,
        "mqgate_queue_oldest_message_age_seconds",
        "Age of the oldest message on the queue from its PutDate and PutTime (MSGAGE), in seconds; absent when the queue is empty",
        each.filter_map(|i| s.queues[i].oldest_age_s.map(|a| (labels(i), a))),
    )?;
    let group = |i: usize| [("group", s.groups[i].group.label())];
    let both = 0..s.groups.len();
    gauges(
        enc,
        "mqgate_queue_group_queues",
        "Queues of the group (queues created at run time: device, dynamic)",
        both.clone().map(|i| (group(i), s.groups[i].queues)),
    )?;
    gauges(
        enc,
        "mqgate_queue_group_depth",
        "Messages on the group's queues, committed or not (CURDEPTH summed)",
        both.clone().map(|i| (group(i), s.groups[i].depth)),
    )?;
    counters(
        enc,
        "mqgate_queue_group_puts",
        "Successful puts to the group's queues since the gateway started",
        both.clone().map(|i| (group(i), s.groups[i].puts)),
    )?;
    counters(
        enc,
        "mqgate_queue_group_gets",
        "Successful destructive gets from the group's queues since the gateway started",
        both.clone().map(|i| (group(i), s.groups[i].gets)),
    )?;
    gauges(
        enc,
        "mqgate_queue_group_oldest_message_age_seconds",
        "Age of the oldest message on any of the group's queues, in seconds; absent when they are all empty",
        both.filter_map(|i| s.groups[i].oldest_age_s.map(|a| (group(i), a))),
    )
}
