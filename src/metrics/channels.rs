//! The channel metrics (docs/operations.md "Channels"), from the channel
//! status board.

use super::{counters, gauges};
use crate::channel::ChannelState;
use crate::channel::status::ChannelStatus;
use prometheus_client::encoding::DescriptorEncoder;
use std::time::UNIX_EPOCH;

/// Every state a channel can be in, with its `state` label value.
const STATES: [(ChannelState, &str); 4] = [
    (ChannelState::Inactive, "inactive"),
    (ChannelState::Running, "running"),
    (ChannelState::Retrying, "retrying"),
    (ChannelState::Stopped, "stopped"),
];

pub(super) fn encode(
    enc: &mut DescriptorEncoder,
    all: &[ChannelStatus],
) -> Result<(), std::fmt::Error> {
    let labels = |c: &ChannelStatus| [("channel", c.name.clone()), ("type", c.kind.to_string())];
    gauges(
        enc,
        "mqgate_channel_state",
        "1 for the channel's current state (inactive, running, retrying, stopped), 0 for the others",
        all.iter().flat_map(|c| {
            STATES.iter().map(move |(s, label)| {
                let [ch, ty] = labels(c);
                (
                    [ch, ty, ("state", label.to_string())],
                    i64::from(c.state == *s),
                )
            })
        }),
    )?;
    counters(
        enc,
        "mqgate_channel_messages",
        "Messages the channel moved since the gateway started",
        all.iter().map(|c| (labels(c), c.messages)),
    )?;
    counters(
        enc,
        "mqgate_channel_batches",
        "Batches the channel committed (receiver) or had confirmed (sender) since the gateway started",
        all.iter().map(|c| (labels(c), c.batches)),
    )?;
    counters(
        enc,
        "mqgate_channel_bytes",
        "Bytes of the transmission messages in those batches",
        all.iter().map(|c| (labels(c), c.bytes)),
    )?;
    gauges(
        enc,
        "mqgate_channel_last_error_reason",
        "MQRC reason of the channel's last failure (0: none)",
        all.iter().map(|c| (labels(c), i64::from(c.reason))),
    )?;
    gauges(
        enc,
        "mqgate_channel_last_error_timestamp_seconds",
        "When the channel last met a failure, in seconds since the Unix epoch; absent when it never did",
        all.iter().filter_map(|c| {
            let at = c.last_error_at?.duration_since(UNIX_EPOCH).ok()?;
            Some((labels(c), at.as_secs_f64()))
        }),
    )
}
