//! The `messageq:` section of the YAML configuration (docs/config.md,
//! docs/messageq.md "Configuration").

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The gateway as one BEA MessageQ message queuing group.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageqConfig {
    /// The group number, 1 to 32000 (BEA MessageQ group numbers; checked by
    /// `mqgate check-config`).
    pub group: u32,
    /// The group initialization file (`%PROFILE`, `%QCT`, `%GNT`, `%XGROUP`,
    /// `%SBS`); relative paths are taken from the current directory of the
    /// process. None = no %QCT queues, `ENABLE_SBS` YES.
    #[serde(default)]
    pub init_file: Option<PathBuf>,
    /// The other groups of the bus by group number: the gateway serving each
    /// and the transmission queue towards it (docs/messageq.md "Between
    /// groups"). A group of `%XGROUP` needs no entry when its gateway's queue
    /// manager is named like its `%XGROUP` name; a group listed only here is
    /// on the bus too. Default: none.
    #[serde(default)]
    pub groups: BTreeMap<u32, GroupLink>,
    /// The queue numbers given to temporary queues (`POST
    /// /v1/pams/attachments` with `"temporary"`), lowest free first; numbers
    /// %QCT names are skipped. The range may not reach below 101 (MessageQ's
    /// own servers' queues), into the MOTs (4000-6000) or above 32767.
    /// Default 1000-3999 (mqgate's choice: docs/messageq.md "Attachments").
    #[serde(default)]
    pub temporary_queues: TemporaryQueues,
    /// Keep-alive timeout of an attachment whose client asks for none, in
    /// ms (1000 or more). Default 30000.
    #[serde(default = "default_attachment_timeout_ms")]
    pub attachment_timeout_ms: u64,
    /// Keep SBS registrations in the store, so they survive a restart of
    /// the gateway (MessageQ keeps them in memory only: "volatile").
    /// Registrations owned by an attachment (auto_dereg, temporary queues)
    /// are never kept: their owner ends with the gateway. Default false.
    #[serde(default)]
    pub durable_registrations: bool,
}

/// The range of temporary queue numbers (`messageq.temporary_queues`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TemporaryQueues {
    /// The lowest number.
    pub first: u32,
    /// The highest number.
    pub last: u32,
}

impl Default for TemporaryQueues {
    fn default() -> Self {
        TemporaryQueues {
            first: 1000,
            last: 3999,
        }
    }
}

fn default_attachment_timeout_ms() -> u64 {
    30_000
}

/// The longest keep-alive timeout of an attachment, in ms: an hour.
pub const MAX_ATTACHMENT_TIMEOUT_MS: u64 = 3_600_000;

/// How this gateway reaches another group (a `messageq.groups` entry).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupLink {
    /// The queue manager name of the gateway that is that group. Default: the
    /// group's `%XGROUP` name (required for a group `%XGROUP` does not list).
    #[serde(default)]
    pub queue_manager: Option<String>,
    /// The transmission queue its messages go to (a local queue with `usage:
    /// xmitq` that a sender channel serves). Default: MQ's name resolution —
    /// the transmission queue named like the queue manager, else
    /// `queue_manager.default_xmit_queue`.
    #[serde(default)]
    pub xmit_queue: Option<String>,
}

impl MessageqConfig {
    /// Group `group` with `init_file` and every other setting at its default.
    pub fn new(group: u32, init_file: Option<PathBuf>) -> Self {
        MessageqConfig {
            group,
            init_file,
            groups: BTreeMap::new(),
            temporary_queues: TemporaryQueues::default(),
            attachment_timeout_ms: default_attachment_timeout_ms(),
            durable_registrations: false,
        }
    }
}

impl TemporaryQueues {
    /// The range as queue numbers.
    ///
    /// Errors: the problem, naming `messageq.temporary_queues`.
    pub fn check(&self) -> Result<std::ops::RangeInclusive<u16>, String> {
        let (first, last) = (self.first, self.last);
        let bad = |why: &str| Err(format!("messageq.temporary_queues: {first}-{last} {why}"));
        if first > last {
            return bad("is empty: first is above last");
        }
        if first < 101 {
            return bad(
                "reaches below 101: queues 1-100 are applications' and MessageQ's own servers' (92-100)",
            );
        }
        if last > 32767 {
            return bad("reaches above 32767, the highest queue number of a q_address");
        }
        if first <= 6000 && last >= 4000 {
            return bad("overlaps 4000-6000, the MOTs");
        }
        Ok(first as u16..=last as u16)
    }
}

/// Lowest MessageQ group number.
pub const MIN_GROUP: u32 = 1;
/// Highest MessageQ group number.
pub const MAX_GROUP: u32 = 32000;
