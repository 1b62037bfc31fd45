//! A small MQTT client for devices (docs/mqtt.md): connect, subscribe,
//! receive QoS 1 messages and acknowledge them, publish. `mqgate bench
//! mqtt` runs thousands of them; the tests drive the listener with it
//! where a packet must be chosen byte by byte. Packets are the codec's
//! (`mqgate_codecs::mqtt`).

use super::frame::{FrameError, Frames};
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::mqtt::{
    Ack, Connack, Connect, Level, Packet, Properties, Property, Publish, QoS, ReasonCode, Suback,
    Subscribe, SubscriptionOptions, Will, decode, encode,
};
use std::io;
use std::net::SocketAddr;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio_util::codec::FramedRead;

/// One connection to an MQTT server.
pub struct Client {
    reader: FramedRead<OwnedReadHalf, Frames>,
    writer: OwnedWriteHalf,
    level: Level,
    buf: Vec<u8>,
    /// Packets that came while [`Client::subscribe`] waited for its SUBACK.
    pending: std::collections::VecDeque<Packet>,
}

/// How to connect.
#[derive(Clone, Debug)]
pub struct Options {
    /// Client Identifier (a device queue manager name for mqgate).
    pub client_id: String,
    /// MQTT 3.1.1 or 5.0.
    pub level: Level,
    /// Clean Start (5.0) / Clean Session (3.1.1).
    pub clean_start: bool,
    /// Keep Alive, seconds (0: none).
    pub keep_alive: u16,
    /// MQTT 5.0 Session Expiry Interval, seconds (3.1.1: ignored).
    pub session_expiry: u32,
    /// User Name.
    pub user_name: Option<String>,
    /// Password.
    pub password: Option<Vec<u8>>,
    /// Will Message.
    pub will: Option<Will>,
}

impl Options {
    /// A persistent session (Clean Start 0, 5.0 Session Expiry one hour)
    /// for `client_id` at `level`, Keep Alive 60 s.
    pub fn persistent(client_id: &str, level: Level) -> Options {
        Options {
            client_id: client_id.to_string(),
            level,
            clean_start: false,
            keep_alive: 60,
            session_expiry: 3600,
            user_name: None,
            password: None,
            will: None,
        }
    }
}

fn invalid(text: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, text)
}

impl Client {
    /// Connects to `addr` and sends CONNECT; returns the client and the
    /// server's CONNACK (refused or not). Errors: the connection failed or
    /// the answer is no CONNACK.
    pub async fn connect(addr: SocketAddr, o: &Options) -> io::Result<(Client, Connack)> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (r, w) = stream.into_split();
        let mut c = Client {
            reader: FramedRead::new(r, Frames::new(super::config::MAX_PACKET_SIZE as usize)),
            writer: w,
            level: o.level,
            buf: Vec::new(),
            pending: Default::default(),
        };
        let mut properties = Properties::new();
        if o.level == Level::V5 && o.session_expiry > 0 {
            properties.push(Property::SessionExpiryInterval(o.session_expiry));
        }
        c.send(&Packet::Connect(Connect {
            level: o.level,
            clean_start: o.clean_start,
            keep_alive: o.keep_alive,
            properties,
            client_id: o.client_id.clone(),
            will: o.will.clone(),
            user_name: o.user_name.clone(),
            password: o.password.clone().map(Bytes::from),
        }))
        .await?;
        match c.recv().await? {
            Some(Packet::Connack(a)) => Ok((c, a)),
            other => Err(invalid(format!("expected CONNACK, got {other:?}"))),
        }
    }

    /// Sends one packet.
    pub async fn send(&mut self, p: &Packet) -> io::Result<()> {
        self.buf.clear();
        encode(p, self.level, &mut self.buf);
        self.writer.write_all(&self.buf).await
    }

    /// Sends raw bytes (for tests of bad input).
    pub async fn send_raw(&mut self, b: &[u8]) -> io::Result<()> {
        self.writer.write_all(b).await
    }

    /// The next packet; `None` when the server closed the connection.
    pub async fn recv(&mut self) -> io::Result<Option<Packet>> {
        if let Some(p) = self.pending.pop_front() {
            return Ok(Some(p));
        }
        self.read().await
    }

    async fn read(&mut self) -> io::Result<Option<Packet>> {
        match self.reader.next().await {
            None => Ok(None),
            Some(Err(FrameError::Io(e))) => Err(e),
            Some(Err(FrameError::Packet(e))) => Err(invalid(e.to_string())),
            Some(Ok(f)) => {
                // The CONNACK comes before the level is in force on both
                // sides: read it at the client's level.
                decode(f, Some(self.level))
                    .map(Some)
                    .map_err(|e| invalid(e.to_string()))
            }
        }
    }

    /// Subscribes to `filter` at `qos` with Packet Identifier `id`; returns
    /// the SUBACK. Packets that come before it (a persistent session's
    /// messages) are kept for [`Client::recv`].
    pub async fn subscribe(&mut self, id: u16, filter: &str, qos: QoS) -> io::Result<Suback> {
        self.send(&Packet::Subscribe(Subscribe {
            packet_id: id,
            properties: Properties::new(),
            filters: vec![(filter.to_string(), SubscriptionOptions::qos(qos))],
        }))
        .await?;
        loop {
            match self.read().await? {
                Some(Packet::Suback(s)) => return Ok(s),
                Some(p) => self.pending.push_back(p),
                None => return Err(invalid("connection closed before SUBACK".into())),
            }
        }
    }

    /// Acknowledges a QoS 1 PUBLISH.
    pub async fn puback(&mut self, id: u16) -> io::Result<()> {
        self.send(&Packet::Puback(Ack::new(
            id,
            ReasonCode::SUCCESS,
            Properties::new(),
        )))
        .await
    }

    /// Publishes `payload` to `topic` at `qos` (Packet Identifier `id` when
    /// QoS > 0).
    pub async fn publish(
        &mut self,
        topic: &str,
        qos: QoS,
        id: u16,
        payload: &[u8],
    ) -> io::Result<()> {
        self.send(&Packet::Publish(Publish {
            dup: false,
            qos,
            retain: false,
            topic: topic.to_string(),
            packet_id: (qos != QoS::AtMostOnce).then_some(id),
            properties: Properties::new(),
            payload: Bytes::copy_from_slice(payload),
        }))
        .await
    }

    /// Closes the connection without DISCONNECT (as a device that loses
    /// its network).
    pub fn drop_connection(self) {}
}
