//! The sending side of one channel connection (docs/channel-protocol.md
//! "Sender"): handshake, batches and their confirmation, the fast path and
//! orderly close. Used by `mqgate send`, configured sender channels and the
//! channel benchmark.

use super::frame::FLAG_FAST;
use super::{Frame, FrameCodec, FrameError, Hello, HelloAck};
use crate::config::ChannelLimits;
use crate::security::tls::{SslPeer, Stream, TlsClient};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use mqgate_codecs::mq::Mqrc;
use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

/// Why a sender connection failed.
#[derive(Debug)]
pub enum SendError {
    /// The receiver closed the channel with an MQRC reason and text.
    Refused { reason: i32, text: String },
    /// The connection failed or broke (2009; resend after reconnecting).
    Connection(String),
    /// The receiver broke the protocol.
    Protocol(String),
    /// A message is longer than the agreed maximum (2218).
    TooBig { length: usize, max: u32 },
    /// This side closed the channel with an MQRC reason (an exit asked for
    /// it, or a message could not be dead-lettered).
    Closed { reason: Mqrc, text: String },
}

impl SendError {
    /// True when reconnecting and resending may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, SendError::Connection(_))
    }

    /// The MQRC reason shown in the channel status: the receiver's or this
    /// side's close reason, 2218 for a message too long, else 2009
    /// MQRC_CONNECTION_BROKEN.
    pub fn mqrc(&self) -> Mqrc {
        match self {
            SendError::Refused { reason, .. } => Mqrc(*reason),
            SendError::TooBig { .. } => Mqrc::MSG_TOO_BIG_FOR_CHANNEL,
            SendError::Closed { reason, .. } => *reason,
            SendError::Connection(_) | SendError::Protocol(_) => Mqrc::CONNECTION_BROKEN,
        }
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Refused { reason, text } => {
                let name = mqgate_codecs::mq::Mqrc(*reason).name();
                write!(
                    f,
                    "the receiver closed the channel: {reason} {name}: {text}"
                )
            }
            SendError::Connection(t) => write!(f, "connection failed: {t}"),
            SendError::Protocol(t) => write!(f, "protocol error: {t}"),
            SendError::TooBig { length, max } => write!(
                f,
                "message of {length} bytes exceeds the channel's agreed maximum of {max} bytes (2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL)"
            ),
            SendError::Closed { reason, text } => write!(
                f,
                "the channel was closed by this side: {} {}: {text}",
                reason.0,
                reason.name()
            ),
        }
    }
}

impl std::error::Error for SendError {}

fn from_frame_error(e: FrameError) -> SendError {
    match e {
        FrameError::Io(e) => SendError::Connection(e.to_string()),
        other => SendError::Protocol(other.to_string()),
    }
}

/// An open sender connection after a successful handshake.
pub struct SenderConn {
    conn: Framed<Stream, FrameCodec>,
    /// The agreed values and the receiver's last committed batch.
    pub agreed: HelloAck,
    next_seq: u64,
    /// Sequence numbers of batches sent and not yet confirmed, oldest first.
    unconfirmed: VecDeque<u64>,
}

/// How many batches a sender keeps in flight before it waits for a CONFIRM
/// (docs/channel-protocol.md "Pipelining and group commit"); like MQ's
/// PipeLineLength, it overlaps sending with the receiver's commits.
pub const PIPELINE_BATCHES: usize = 32;

/// Bytes of frames a sender buffers before it writes them to the socket.
const WRITE_BUFFER: usize = 256 * 1024;

/// What the sender offers in its HELLO (docs/channel-protocol.md "Handshake").
#[derive(Clone, Debug)]
pub struct Offer {
    /// The channel name (20 characters at most).
    pub channel: String,
    /// This side's queue manager name (may be empty).
    pub sending_q_mgr: String,
    /// The queue manager expected at the other end; empty = any.
    pub receiving_q_mgr: String,
    /// The batch size, message length and heartbeat offered.
    pub limits: ChannelLimits,
    /// The last batch sequence number seen confirmed on this channel (0 = none).
    pub last_confirmed_seq: u64,
}

/// TLS for a sender connection: the client, and the SSLPEER filter the
/// receiver's certificate must pass.
#[derive(Clone, Copy, Debug)]
pub struct Secure<'a> {
    /// The channel's TLS client (its `tls:` setting).
    pub client: &'a TlsClient,
    /// The channel's `sslpeer`, if any.
    pub sslpeer: Option<&'a SslPeer>,
}

impl SenderConn {
    /// Connects to `addr` and performs the handshake (timeout 10 s).
    pub async fn connect(addr: SocketAddr, offer: &Offer) -> Result<SenderConn, SendError> {
        SenderConn::connect_secure(addr, offer, None).await
    }

    /// Connects to `addr`, over TLS when `secure` is given, and performs
    /// the handshake (timeout 10 s each). Over TLS the receiver's
    /// certificate must be trusted, valid and carry the address's IP (or
    /// the setting's `server_name`); a failed TLS handshake is a
    /// [`SendError::Connection`]. A certificate whose subject DN does not
    /// pass `sslpeer` closes the connection before the HELLO:
    /// [`SendError::Closed`] with 2035 MQRC_NOT_AUTHORIZED.
    pub async fn connect_secure(
        addr: SocketAddr,
        offer: &Offer,
        secure: Option<Secure<'_>>,
    ) -> Result<SenderConn, SendError> {
        let tcp = tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(addr))
            .await
            .map_err(|_| SendError::Connection(format!("connecting to {addr} timed out")))?
            .map_err(|e| SendError::Connection(format!("{addr}: {e}")))?;
        let _ = tcp.set_nodelay(true);
        let stream = match secure {
            None => Stream::Plain(tcp),
            Some(s) => {
                let (stream, peer) = s
                    .client
                    .connect(tcp, &addr.ip().to_string(), addr)
                    .await
                    .map_err(|e| {
                        SendError::Connection(format!("TLS handshake with {addr} failed: {e}"))
                    })?;
                if let Some(filter) = s.sslpeer
                    && !peer.dn.as_deref().is_some_and(|dn| filter.matches(dn))
                {
                    return Err(SendError::Closed {
                        reason: Mqrc::NOT_AUTHORIZED,
                        text: format!(
                            "the receiver's certificate subject DN {:?} does not match SSLPEER {:?}",
                            peer.dn.as_deref().unwrap_or(""),
                            filter.as_str()
                        ),
                    });
                }
                stream
            }
        };
        let mut conn = Framed::new(stream, FrameCodec::default());
        // A batch goes out in few large writes rather than one per 8 KiB
        // (tokio-util's default), which wakes the receiver far less often.
        conn.set_backpressure_boundary(WRITE_BUFFER);
        conn.send(Frame::Hello(Hello {
            version: super::PROTOCOL_VERSION,
            channel: offer.channel.clone(),
            sending_q_mgr: offer.sending_q_mgr.clone(),
            receiving_q_mgr: offer.receiving_q_mgr.clone(),
            limits: offer.limits,
            last_confirmed_seq: offer.last_confirmed_seq,
        }))
        .await
        .map_err(from_frame_error)?;
        let answer = tokio::time::timeout(Duration::from_secs(10), conn.next())
            .await
            .map_err(|_| SendError::Connection("no handshake answer within 10 s".into()))?;
        let agreed = match answer {
            Some(Ok(Frame::HelloAck(a))) => a,
            Some(Ok(Frame::Close { reason, text })) => {
                return Err(SendError::Refused { reason, text });
            }
            Some(Ok(other)) => {
                return Err(SendError::Protocol(format!(
                    "expected HELLO_ACK, got {}",
                    other.name()
                )));
            }
            Some(Err(e)) => return Err(from_frame_error(e)),
            None => {
                return Err(SendError::Connection(
                    "the receiver closed the connection".into(),
                ));
            }
        };
        Ok(SenderConn {
            conn,
            next_seq: agreed.last_committed_seq + 1,
            agreed,
            unconfirmed: VecDeque::new(),
        })
    }

    /// The sequence number the next batch will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    fn check_len(&self, m: &Bytes) -> Result<(), SendError> {
        if m.len() > self.agreed.limits.max_msg_length as usize {
            return Err(SendError::TooBig {
                length: m.len(),
                max: self.agreed.limits.max_msg_length,
            });
        }
        Ok(())
    }

    /// Batches sent and not yet confirmed.
    pub fn unconfirmed(&self) -> usize {
        self.unconfirmed.len()
    }

    /// Sends `msgs` (at most the agreed batch size) as one batch and waits for
    /// its CONFIRM; returns the batch's sequence number. After an error the
    /// batch may or may not be committed: reconnect and compare the new
    /// `last_committed_seq` with the number [`SenderConn::next_seq`] gave.
    pub async fn send_batch(&mut self, msgs: &[Bytes]) -> Result<u64, SendError> {
        let seq = self.start_batch(msgs).await?;
        while self.wait_confirm().await? < seq {}
        Ok(seq)
    }

    /// Sends `msgs` (at most the agreed batch size) as one batch without
    /// waiting for its CONFIRM (pipelining); returns its sequence number.
    /// Errors: more messages than the batch size or a message longer than the
    /// agreed maximum (nothing is sent), or the connection failed.
    pub async fn start_batch(&mut self, msgs: &[Bytes]) -> Result<u64, SendError> {
        if msgs.len() > self.agreed.limits.batch_size as usize {
            return Err(SendError::Protocol(format!(
                "{} messages exceed the agreed batch size {}",
                msgs.len(),
                self.agreed.limits.batch_size
            )));
        }
        for m in msgs {
            self.check_len(m)?;
        }
        for m in msgs {
            self.conn
                .feed(Frame::Message {
                    flags: 0,
                    data: m.clone(),
                })
                .await
                .map_err(from_frame_error)?;
        }
        let seq = self.next_seq;
        self.conn
            .send(Frame::EndBatch {
                seq,
                count: msgs.len() as u32,
            })
            .await
            .map_err(from_frame_error)?;
        self.next_seq = seq + 1;
        self.unconfirmed.push_back(seq);
        Ok(seq)
    }

    /// Waits for the next CONFIRM and returns its sequence number: every
    /// batch up to it is committed (a CONFIRM is cumulative). Errors: nothing
    /// is unconfirmed, the receiver closed the channel, confirmed a batch that
    /// was not sent, or the connection failed.
    pub async fn wait_confirm(&mut self) -> Result<u64, SendError> {
        let (Some(&oldest), Some(&newest)) = (self.unconfirmed.front(), self.unconfirmed.back())
        else {
            return Err(SendError::Protocol("no batch waits for a CONFIRM".into()));
        };
        loop {
            match self.conn.next().await {
                Some(Ok(Frame::Confirm { seq })) if (oldest..=newest).contains(&seq) => {
                    self.unconfirmed.retain(|&s| s > seq);
                    return Ok(seq);
                }
                Some(Ok(Frame::Heartbeat)) => {}
                Some(Ok(Frame::Close { reason, text })) => {
                    return Err(SendError::Refused { reason, text });
                }
                Some(Ok(other)) => {
                    return Err(SendError::Protocol(format!(
                        "expected CONFIRM of a batch {oldest}..={newest}, got {other:?}"
                    )));
                }
                Some(Err(e)) => return Err(from_frame_error(e)),
                None => {
                    return Err(SendError::Connection(format!(
                        "the receiver closed the connection before confirming batch {oldest}"
                    )));
                }
            }
        }
    }

    /// [`SenderConn::wait_confirm`] for at most `limit`: `Ok(None)` when no
    /// CONFIRM came by then (nothing is lost: a CONFIRM still on its way is
    /// read by the next wait, or by [`SenderConn::give_up`]).
    pub async fn wait_confirm_within(&mut self, limit: Duration) -> Result<Option<u64>, SendError> {
        match tokio::time::timeout(limit, self.wait_confirm()).await {
            Ok(r) => r.map(Some),
            Err(_) => Ok(None),
        }
    }

    /// The oldest batch sent and not yet confirmed.
    pub fn oldest_unconfirmed(&self) -> Option<u64> {
        self.unconfirmed.front().copied()
    }

    /// Stops waiting for the batches not confirmed: sends CLOSE(0, `text`)
    /// and reads the receiver's answer for at most `wait`. A receiver still
    /// applying the undelivered rule `retry` to one of them answers with the
    /// reason of the message it cannot place (e.g. 2085) and does not commit
    /// that batch (docs/channel-protocol.md "Close"). Returns the sequence
    /// numbers of the CONFIRMs that were still on their way (each confirms
    /// every batch up to it) and why the channel ended: the receiver's
    /// CLOSE with its reason ([`SendError::Refused`]), or, when it answered
    /// none within `wait`, a lost connection ([`SendError::Connection`]:
    /// sent again after a reconnect, never applied twice).
    pub async fn give_up(&mut self, text: &str, wait: Duration) -> (Vec<u64>, SendError) {
        let mut confirmed = Vec::new();
        if let Err(e) = self
            .conn
            .send(Frame::Close {
                reason: 0,
                text: text.to_string(),
            })
            .await
        {
            return (confirmed, from_frame_error(e));
        }
        let until = tokio::time::Instant::now() + wait;
        loop {
            let next = tokio::time::timeout_at(until, self.conn.next()).await;
            let end = match next {
                Ok(Some(Ok(Frame::Confirm { seq }))) => {
                    if self.unconfirmed.front().is_some_and(|&o| o <= seq) {
                        self.unconfirmed.retain(|&s| s > seq);
                        confirmed.push(seq);
                    }
                    continue;
                }
                Ok(Some(Ok(Frame::Heartbeat))) => continue,
                Ok(Some(Ok(Frame::Close { reason: 0, text }))) => {
                    SendError::Connection(match self.unconfirmed.is_empty() {
                        true => format!(
                            "the receiver answered the CLOSE without a reason ({text}); every batch sent was confirmed meanwhile"
                        ),
                        false => format!(
                            "the receiver answered the CLOSE without a reason ({text}) and did not confirm {}",
                            self.unconfirmed_text()
                        ),
                    })
                }
                Ok(Some(Ok(Frame::Close { reason, text }))) => SendError::Refused { reason, text },
                Ok(Some(Ok(other))) => {
                    SendError::Protocol(format!("expected CLOSE or CONFIRM, got {}", other.name()))
                }
                Ok(Some(Err(e))) => from_frame_error(e),
                Ok(None) => SendError::Connection(format!(
                    "the receiver closed the connection without answering the CLOSE (unconfirmed: {})",
                    self.unconfirmed_text()
                )),
                Err(_) => SendError::Connection(format!(
                    "the receiver did not answer the CLOSE within {} ms (unconfirmed: {})",
                    wait.as_millis(),
                    self.unconfirmed_text()
                )),
            };
            return (confirmed, end);
        }
    }

    /// The batches not confirmed, for a message: `batch 3`, `batches 3-7` or
    /// `none`.
    fn unconfirmed_text(&self) -> String {
        match (self.unconfirmed.front(), self.unconfirmed.back()) {
            (Some(a), Some(b)) if a == b => format!("batch {a}"),
            (Some(a), Some(b)) => format!("batches {a}-{b}"),
            _ => "none".to_string(),
        }
    }

    /// Sends one message outside any batch (non-persistent fast path); no
    /// confirmation. Close the channel with [`SenderConn::close`] to know it
    /// was processed.
    pub async fn send_fast(&mut self, msg: Bytes) -> Result<(), SendError> {
        self.check_len(&msg)?;
        self.conn
            .feed(Frame::Message {
                flags: FLAG_FAST,
                data: msg,
            })
            .await
            .map_err(from_frame_error)
    }

    /// Sends a HEARTBEAT and waits for the answer. Only between batches:
    /// with batches unconfirmed it is a protocol error (their CONFIRMs come first).
    pub async fn heartbeat(&mut self) -> Result<(), SendError> {
        if !self.unconfirmed.is_empty() {
            return Err(SendError::Protocol(format!(
                "heartbeat with {} batches unconfirmed",
                self.unconfirmed.len()
            )));
        }
        self.conn
            .send(Frame::Heartbeat)
            .await
            .map_err(from_frame_error)?;
        match self.conn.next().await {
            Some(Ok(Frame::Heartbeat)) => Ok(()),
            Some(Ok(Frame::Close { reason, text })) => Err(SendError::Refused { reason, text }),
            Some(Ok(other)) => Err(SendError::Protocol(format!(
                "expected HEARTBEAT, got {}",
                other.name()
            ))),
            Some(Err(e)) => Err(from_frame_error(e)),
            None => Err(SendError::Connection(
                "the receiver closed the connection".into(),
            )),
        }
    }

    /// Closes the channel with `reason` and `text` (a CLOSE frame) without
    /// waiting for an answer: batches not confirmed are then not committed
    /// as far as this side knows (resynchronise after reconnecting).
    pub async fn abort(mut self, reason: Mqrc, text: &str) {
        let _ = self
            .conn
            .send(Frame::Close {
                reason: reason.0,
                text: text.to_string(),
            })
            .await;
        let _ = self.conn.close().await;
    }

    /// Orderly close: sends CLOSE (reason 0) and waits for the receiver's
    /// CLOSE, which also means every fast-path message before it was
    /// processed. Wait for every CONFIRM first ([`SenderConn::wait_confirm`]):
    /// the receiver still commits batches sent before the CLOSE, but their
    /// CONFIRMs are skipped here.
    pub async fn close(mut self, text: &str) -> Result<(), SendError> {
        self.conn
            .send(Frame::Close {
                reason: 0,
                text: text.to_string(),
            })
            .await
            .map_err(from_frame_error)?;
        let mut answer = tokio::time::timeout(Duration::from_secs(60), self.conn.next()).await;
        while let Ok(Some(Ok(Frame::Confirm { .. }))) = answer {
            answer = tokio::time::timeout(Duration::from_secs(60), self.conn.next()).await;
        }
        match answer {
            Ok(Some(Ok(Frame::Close { reason: 0, .. }))) => Ok(()),
            Ok(Some(Ok(Frame::Close { reason, text }))) => Err(SendError::Refused { reason, text }),
            Ok(Some(Ok(other))) => Err(SendError::Protocol(format!(
                "expected CLOSE, got {}",
                other.name()
            ))),
            Ok(Some(Err(e))) => Err(from_frame_error(e)),
            Ok(None) => Err(SendError::Connection(
                "the receiver closed without answering CLOSE".into(),
            )),
            Err(_) => Err(SendError::Connection("no CLOSE answer within 60 s".into())),
        }
    }
}
