//! The frame reader of one receiver connection: reads frames, feeds them to
//! the batch state machine ([`super::batch`]) and hands what comes out to
//! the committer in arrival order. Its own decisions are about the
//! connection only: the heartbeat timeout, the gateway stopping or the
//! instance being adopted, the read-ahead budget (docs/channel-protocol.md "Pipelining and group commit").

use super::batch::{BatchAssembler, Event};
use super::instance::{Halt, halted};
use super::{FrameCodec, FrameError};
use crate::config::ChannelLimits;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::SplitStream;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio_util::codec::Framed;

/// One receiver connection after the handshake.
pub(super) type Conn = Framed<crate::security::tls::Stream, FrameCodec>;

/// Bytes of received, not yet committed batches a connection may hold while
/// it reads ahead of the commits (pipelining); one whole batch always fits.
pub(super) const READ_AHEAD_BYTES: usize = 32 * 1024 * 1024;
/// Read-ahead budget unit: permits count KiB so a u32 covers any batch.
const BUDGET_UNIT: usize = 1024;

/// What the frame reader hands to the committer, in arrival order.
pub(super) enum Work {
    /// A complete batch (END_BATCH seen, count checked), holding its share
    /// of the read-ahead budget until it is committed.
    Batch {
        seq: u64,
        msgs: Vec<Bytes>,
        budget: OwnedSemaphorePermit,
    },
    /// A batch committed before this connection (its CONFIRM was lost):
    /// confirm it again, apply nothing.
    Reconfirm(u64),
    /// A non-persistent message sent outside any batch, holding its share of
    /// the read-ahead budget until it is applied.
    Fast(Bytes, OwnedSemaphorePermit),
    /// Answer a HEARTBEAT.
    Heartbeat,
    /// The reader stopped; everything queued before this is done first.
    End(End),
}

/// How a session ended.
pub(super) enum End {
    /// The channel closes with `reason` (0 = orderly) and `text`, sent in CLOSE.
    Closed { reason: Mqrc, text: String },
    /// The connection is gone; nothing can be sent.
    Lost(String),
}

/// Reads the frames of one connection.
pub(super) struct FrameReader {
    channel: String,
    heartbeat_ms: u32,
    batches: BatchAssembler,
    /// Read-ahead budget in [`BUDGET_UNIT`]s ([`READ_AHEAD_BYTES`] in all).
    budget: Arc<Semaphore>,
}

impl FrameReader {
    /// A reader for `channel` with the agreed `limits`, the channel's last
    /// committed batch being `last_committed`.
    pub fn new(channel: &str, limits: &ChannelLimits, last_committed: u64) -> Self {
        FrameReader {
            channel: channel.to_string(),
            heartbeat_ms: limits.heartbeat_ms,
            batches: BatchAssembler::new(limits.batch_size, last_committed),
            budget: Arc::new(Semaphore::new(READ_AHEAD_BYTES / BUDGET_UNIT)),
        }
    }

    /// Waits for `bytes` of read-ahead budget (one whole batch always fits);
    /// `None` if the budget was closed.
    async fn budget(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let units = bytes
            .div_ceil(BUDGET_UNIT)
            .clamp(1, READ_AHEAD_BYTES / BUDGET_UNIT);
        Arc::clone(&self.budget)
            .acquire_many_owned(units as u32)
            .await
            .ok()
    }

    fn uncommitted(&self) -> String {
        format!(
            "{} uncommitted messages of the open batch discarded (the sender resends them)",
            self.batches.open_messages()
        )
    }

    /// Reads until the connection ends, the sender breaks the protocol or
    /// `stop` turns true; returns how.
    pub async fn read(
        mut self,
        stream: &mut SplitStream<Conn>,
        tx: &mpsc::Sender<Work>,
        halt: &mut watch::Receiver<Halt>,
    ) -> End {
        let idle = match self.heartbeat_ms {
            0 => None,
            hb => Some(Duration::from_millis(hb as u64 * 3)),
        };
        loop {
            let next = async {
                match idle {
                    Some(d) => tokio::time::timeout(d, stream.next()).await.ok(),
                    None => Some(stream.next().await),
                }
            };
            let frame = tokio::select! {
                f = next => f,
                h = halted(halt) => {
                    return match h {
                        // docs/channel-protocol.md "Adopting a channel instance".
                        Halt::Adopted(text) => End::Closed {
                            reason: Mqrc::CONNECTION_BROKEN,
                            text: format!("{text}; {}", self.uncommitted()),
                        },
                        _ => End::Closed {
                            reason: Mqrc::CONNECTION_QUIESCING,
                            text: "the gateway is stopping".into(),
                        },
                    };
                }
            };
            let frame = match frame {
                None => {
                    return End::Closed {
                        reason: Mqrc::CONNECTION_BROKEN,
                        text: format!(
                            "no frame for {} ms (3 heartbeat intervals)",
                            self.heartbeat_ms * 3
                        ),
                    };
                }
                Some(None) => {
                    return End::Lost(format!("the sender went away; {}", self.uncommitted()));
                }
                Some(Some(Err(FrameError::Io(e)))) => {
                    return End::Lost(format!("{e}; {}", self.uncommitted()));
                }
                Some(Some(Err(e))) => {
                    return End::Closed {
                        reason: e.mqrc(),
                        text: format!(
                            "{e}; the open batch of {} messages is not committed",
                            self.batches.open_messages()
                        ),
                    };
                }
                Some(Some(Ok(f))) => f,
            };
            let event = match self.batches.frame(frame) {
                Ok(e) => e,
                Err(b) => {
                    return End::Closed {
                        reason: b.reason,
                        text: b.text,
                    };
                }
            };
            let work = match event {
                Event::Open => continue,
                Event::Batch { seq, msgs, bytes } => {
                    let Some(budget) = self.budget(bytes).await else {
                        return End::Lost("internal: read-ahead budget closed".into());
                    };
                    Work::Batch { seq, msgs, budget }
                }
                Event::Reconfirm(seq) => Work::Reconfirm(seq),
                Event::Fast(data) => {
                    let Some(budget) = self.budget(data.len()).await else {
                        return End::Lost("internal: read-ahead budget closed".into());
                    };
                    Work::Fast(data, budget)
                }
                Event::Heartbeat => Work::Heartbeat,
                Event::SenderClosed {
                    reason,
                    text,
                    discarded,
                } => {
                    if discarded > 0 {
                        tracing::warn!(channel = %self.channel, messages = discarded,
                            "closed inside a batch; the batch is not committed");
                    }
                    return End::Closed {
                        reason: if reason == 0 {
                            Mqrc::NONE
                        } else {
                            Mqrc::CONNECTION_BROKEN
                        },
                        text: format!("sender closed with reason {reason}: {text}"),
                    };
                }
            };
            if tx.send(work).await.is_err() {
                return End::Lost("internal: the committer ended".into());
            }
        }
    }
}
