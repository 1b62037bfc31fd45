//! Message channels (docs/channel-protocol.md): framing, handshake, batches,
//! resynchronisation, the receiver side (`mqgate run`'s listener), the sender
//! side (`mqgate send`, configured sender channels) and channel status.
//!
//! Receiver: [`receiver`] (listener, handshake I/O) → [`handshake`] (the
//! checks, pure) → `reader` (frames in) → [`batch`] (the batch state
//! machine, synchronous) → `session` (the committer) → [`apply`] (exits,
//! resolution, puts). Sender: [`sender`] (one connection), [`sender_channel`]
//! (a configured sender channel) → [`transmit`] (its message and send exits).

pub mod apply;
pub mod batch;
pub mod control;
pub mod frame;
pub mod handshake;
mod in_doubt;
mod instance;
pub mod mq_client;
mod reader;
pub mod receiver;
pub mod sender;
pub mod sender_channel;
mod session;
pub mod status;
pub mod transmit;
pub mod xmit;

pub use control::ChannelControl;
pub use frame::{Frame, FrameCodec, FrameError, Hello, HelloAck, PROTOCOL_VERSION};
pub use status::{ChannelState, StatusBoard};

use mqgate_exits::{ExitChain, ExitDef, ExitPoint, ExitRegistry};

/// Name of the store state record holding a receiver channel's last
/// committed batch sequence number (8 bytes, big-endian).
pub fn seq_key(channel: &str) -> String {
    format!("channel/{channel}/last_committed_seq")
}

/// Resolves once `stop` is true (the gateway is stopping).
pub async fn stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Builds and starts (MQXR_INIT) the chain of `defs` at `point` for channel
/// `channel`; `None` when `defs` is empty. Errors name the point and channel.
pub(crate) fn start_chain(
    point: ExitPoint,
    channel: &str,
    q_mgr_name: &str,
    defs: Vec<&ExitDef>,
) -> Result<Option<ExitChain>, String> {
    if defs.is_empty() {
        return Ok(None);
    }
    let registry = ExitRegistry::with_builtins();
    let entries = defs
        .into_iter()
        .map(|d| registry.entry(point, d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{point} exit of channel {channel}: {e}"))?;
    ExitChain::start(point, channel, q_mgr_name, entries)
        .map(Some)
        .map_err(|e| format!("{point} exits of channel {channel}: {e}"))
}
