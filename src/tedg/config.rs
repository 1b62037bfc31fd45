//! The `tedg:` section of the YAML configuration (docs/config.md).

use serde::Deserialize;
use std::path::PathBuf;

/// Settings of the Tuxedo gateway. The DMCONFIG file itself is the top-level
/// `dmconfig:` key (or `mqgate run --dmconfig`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TedgConfig {
    /// FML32 field tables (Tuxedo text format) used to read `"fml32"` JSON
    /// buffers and to show FML32 requests as JSON. Empty = none.
    pub field_tables: Vec<PathBuf>,
    /// Attributes of individual RTQ queues; queues not listed get the defaults.
    pub queues: Vec<RtqQueueConfig>,
}

/// One RTQ queue's attributes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtqQueueConfig {
    /// TE_RTQGROUP.
    pub group: String,
    /// TE_RTQNAME.
    pub name: String,
    /// Capacity: most requests on the queue, due or not (default 5000). A put
    /// beyond it gets TP_RTQ_NO_SPACE → TPEDIAGNOSTIC/QMENOSPACE.
    #[serde(default = "default_capacity")]
    pub capacity: usize,
    /// Largest request the queue file takes, in bytes after the mqgate
    /// request header (default 65536). A larger one gets TP_RTQ_EOF →
    /// TPEDIAGNOSTIC/QMENOSPACE.
    #[serde(default = "default_max_request")]
    pub max_request_bytes: usize,
    /// The state at start-up.
    #[serde(default)]
    pub state: RtqState,
}

/// Default `capacity` of an RTQ queue (requests).
pub const DEFAULT_CAPACITY: usize = 5000;
/// Default `max_request_bytes` of an RTQ queue.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 65_536;

fn default_capacity() -> usize {
    DEFAULT_CAPACITY
}

fn default_max_request() -> usize {
    DEFAULT_MAX_REQUEST_BYTES
}

/// The administrative state of an RTQ queue (mqgate's, docs/tuxedo.md).
#[derive(Clone, Copy, Debug, Default, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RtqState {
    /// Puts and gets work.
    #[default]
    Enabled,
    /// Puts fail with TP_RTQ_QDISABLED → TPEDIAGNOSTIC/QMESYSTEM.
    Disabled,
    /// The RTQ service is stopped: puts fail with TP_SERVICE → TPENOENT.
    Stopped,
}

impl RtqState {
    /// The state for its name (`enabled`, `disabled`, `stopped`).
    pub fn from_name(s: &str) -> Option<RtqState> {
        match s {
            "enabled" => Some(RtqState::Enabled),
            "disabled" => Some(RtqState::Disabled),
            "stopped" => Some(RtqState::Stopped),
            _ => None,
        }
    }

    /// The state's name.
    pub fn name(self) -> &'static str {
        match self {
            RtqState::Enabled => "enabled",
            RtqState::Disabled => "disabled",
            RtqState::Stopped => "stopped",
        }
    }
}
