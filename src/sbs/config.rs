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
}

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

/// Lowest MessageQ group number.
pub const MIN_GROUP: u32 = 1;
/// Highest MessageQ group number.
pub const MAX_GROUP: u32 = 32000;
