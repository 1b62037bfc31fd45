//! Whole segments in and out of one client socket: each SegmentLength is
//! checked against the negotiated maximum transmission size before the rest
//! is read ([`segment_len`]), FIRST/LAST segments are joined
//! ([`Reassembler`]), and a queue manager's HEARTBEAT request is answered
//! at once (docs/mq-client-protocol.md "Heartbeats").

use super::ClientError;
use crate::security::tls::{ClientTls, Stream};
use mqgate_codecs::fap::{
    Reassembled, Reassembler, SegmentType, Tsh, TshKind, parse_segment, segment_len, tcf,
    write_segment,
};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest segment accepted before INITIAL_DATA agreed a size: IBM MQ's
/// largest maximum transmission size, 32 KiB.
pub const HANDSHAKE_MAX: usize = 32_768;

/// A connected client socket and its reader state.
pub struct Wire {
    stream: Stream,
    buf: Vec<u8>,
    reasm: Reassembler,
    /// The agreed maximum transmission size (bytes per segment, header included).
    pub max_segment: usize,
}

impl Wire {
    /// Connects to `host:port` within `timeout`, over TLS when `tls` is
    /// given (the certificate must carry `host`, or the setting's
    /// `server_name`, and pass its SSLPEER). Errors: [`ClientError::Io`]
    /// (`during` = "connect"; 2059; "TLS handshake": 2009),
    /// [`ClientError::Timeout`] or [`ClientError::PeerRefused`] (2035).
    pub async fn connect(
        host: &str,
        port: u16,
        timeout: Duration,
        tls: Option<&ClientTls>,
    ) -> Result<Wire, ClientError> {
        let stream = tokio::time::timeout(timeout, TcpStream::connect((host, port)))
            .await
            .map_err(|_| ClientError::Timeout {
                during: "connect",
                ms: timeout.as_millis() as u64,
            })?
            .map_err(|error| ClientError::Io {
                during: "connect",
                error,
            })?;
        let _ = stream.set_nodelay(true);
        let stream = match tls {
            None => Stream::Plain(stream),
            Some(tls) => {
                let addr = stream.peer_addr().map_err(|error| ClientError::Io {
                    during: "connect",
                    error,
                })?;
                match tls.connect(stream, host, addr).await {
                    Ok((s, _)) => s,
                    Err(Ok(error)) => {
                        return Err(ClientError::Io {
                            during: "TLS handshake",
                            error,
                        });
                    }
                    Err(Err(text)) => return Err(ClientError::PeerRefused(text)),
                }
            }
        };
        Ok(Wire::new(stream, 64 << 20))
    }

    /// A wire over `stream` accepting messages (segments joined) of at most
    /// `max_message` bytes.
    pub fn new(stream: Stream, max_message: usize) -> Wire {
        Wire {
            stream,
            buf: Vec::new(),
            reasm: Reassembler::new(max_message),
            max_segment: HANDSHAKE_MAX,
        }
    }

    /// Writes `bytes` (whole segments). Errors: [`ClientError::Io`].
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|error| ClientError::Io {
                during: "write",
                error,
            })
    }

    /// Sends `body` under header `tsh`, split into FIRST/.../LAST segments
    /// of at most the agreed maximum transmission size.
    pub async fn send_message(&mut self, tsh: &Tsh, body: &[u8]) -> Result<(), ClientError> {
        let room = self.max_segment.saturating_sub(tsh.header_len()).max(1);
        let chunks: Vec<&[u8]> = if body.is_empty() {
            vec![body]
        } else {
            body.chunks(room).collect()
        };
        let n = chunks.len();
        let mut out = Vec::with_capacity(body.len() + n * tsh.header_len());
        for (i, c) in chunks.into_iter().enumerate() {
            let mut h = tsh.clone();
            h.control_flags1 = (tsh.control_flags1 & !(tcf::FIRST | tcf::LAST))
                | if i == 0 { tcf::FIRST } else { 0 }
                | if i + 1 == n { tcf::LAST } else { 0 };
            write_segment(&h, c, &mut out);
        }
        self.send(&out).await
    }

    /// The next whole segment's bytes, waiting at most `timeout`.
    async fn segment(
        &mut self,
        during: &'static str,
        timeout: Duration,
    ) -> Result<Vec<u8>, ClientError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(n) = segment_len(&self.buf, self.max_segment)?
                && self.buf.len() >= n
            {
                return Ok(self.buf.drain(..n).collect());
            }
            let mut chunk = [0u8; 16_384];
            let read = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk))
                .await
                .map_err(|_| ClientError::Timeout {
                    during,
                    ms: timeout.as_millis() as u64,
                })?
                .map_err(|error| ClientError::Io { during, error })?;
            if read == 0 {
                return Err(ClientError::Closed { during });
            }
            self.buf.extend_from_slice(&chunk[..read]);
        }
    }

    /// The next whole message (segments joined) within `timeout`; heartbeat
    /// requests met on the way are answered and skipped.
    pub async fn message(
        &mut self,
        during: &'static str,
        timeout: Duration,
    ) -> Result<Reassembled, ClientError> {
        loop {
            let bytes = self.segment(during, timeout).await?;
            let seg = parse_segment(&bytes)?;
            let Some(m) = self.reasm.push(&seg)? else {
                continue;
            };
            if m.tsh.segment_type == SegmentType::HEARTBEAT {
                if m.tsh.has(tcf::CONFIRM_REQUEST) {
                    let mut h = m.tsh.clone();
                    h.control_flags1 &= !tcf::CONFIRM_REQUEST;
                    let mut out = Vec::new();
                    write_segment(&h, &m.body, &mut out);
                    self.send(&out).await?;
                }
                continue;
            }
            return Ok(m);
        }
    }
}

/// A TSHM header for conversation `conv`, little-endian (Encoding 273 as
/// IBM's Java client sends), FIRST|LAST.
pub fn tshm(conv: u32, t: SegmentType) -> Tsh {
    let mut h = Tsh::new(TshKind::Tshm, t);
    h.conversation_id = conv;
    h.encoding = 273;
    h.control_flags1 = tcf::FIRST | tcf::LAST;
    h
}
