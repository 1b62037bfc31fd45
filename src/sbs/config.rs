//! The `messageq:` section of the YAML configuration (docs/config.md,
//! docs/messageq.md "Configuration").

use serde::Deserialize;
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
}

/// Lowest MessageQ group number.
pub const MIN_GROUP: u32 = 1;
/// Highest MessageQ group number.
pub const MAX_GROUP: u32 = 32000;
