//! A small IBM MQ client for tests, built on mqgate's own client-protocol
//! codec (`mqgate_codecs::fap`): the handshake a JMS client makes (values
//! from a real IBM MQ JMS client's INITIAL_DATA), then MQI verbs one at a
//! time, each waiting for its reply.
#![allow(dead_code)]

use mqgate_codecs::fap::conn::{parse_conn, write_conn};
use mqgate_codecs::fap::gmo::Mqgmo;
use mqgate_codecs::fap::id::{InitialData, parse_id, write_id};
use mqgate_codecs::fap::inq::{InqData, parse_inq, write_inq};
use mqgate_codecs::fap::message::{GetData, PutData, parse_get, parse_put, write_get, write_put};
use mqgate_codecs::fap::object::{OpenData, write_open};
use mqgate_codecs::fap::od::{Mqod, ot};
use mqgate_codecs::fap::pmo::Mqpmo;
use mqgate_codecs::fap::socket::{SocketAction, write_socket_action};
use mqgate_codecs::fap::status::parse_status;
use mqgate_codecs::fap::{
    ApiHeader, Reassembled, Reassembler, SegmentType, StatusData, Tsh, TshKind, parse_api,
    parse_segment, segment_len, tcf, write_api, write_segment,
};
use mqgate_codecs::mq::{ByteOrder, Charset, Mqmd};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const ORDER: ByteOrder = ByteOrder::Little;

/// A connected socket and its reader state.
pub struct Wire {
    pub stream: TcpStream,
    buf: Vec<u8>,
    reasm: Reassembler,
    pub max: usize,
}

impl Wire {
    pub async fn connect(addr: SocketAddr) -> Wire {
        Wire {
            stream: TcpStream::connect(addr).await.unwrap(),
            buf: Vec::new(),
            reasm: Reassembler::new(64 << 20),
            max: 32768,
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The next whole segment, as bytes; `None` when the socket closed.
    pub async fn segment(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(n) = segment_len(&self.buf, usize::MAX).unwrap()
                && self.buf.len() >= n
            {
                return Some(self.buf.drain(..n).collect());
            }
            let mut chunk = vec![0u8; 65536];
            let n = tokio::time::timeout(Duration::from_secs(20), self.stream.read(&mut chunk))
                .await
                .expect("a reply within 20 s")
                .ok()?;
            if n == 0 {
                return None;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// The next whole message (segments reassembled); `None` when closed.
    pub async fn message(&mut self) -> Option<Reassembled> {
        loop {
            let b = self.segment().await?;
            let s = parse_segment(&b).unwrap();
            if let Some(m) = self.reasm.push(&s).unwrap() {
                return Some(m);
            }
        }
    }
}

pub use mqgate::mqclient::wire::tshm;

/// A JMS client's INITIAL_DATA for `channel` (the values of a real IBM MQ
/// JMS client at FAP level 17: 4 MiB messages, heartbeat 300 s).
pub fn initial_data(channel: &str) -> InitialData {
    mqgate::mqclient::handshake::initial_data(channel, "*", 4_194_304, 300)
}

/// How a handshake ended.
#[derive(Debug)]
pub enum Refused {
    /// A STATUS_DATA before the socket closed.
    Status(StatusData),
    /// MQCONN's CompCode and Reason.
    Conn(i32, i32),
    /// The socket closed.
    Closed,
}

/// One conversation of a client socket.
pub struct Client {
    pub wire: Wire,
    pub conv: u32,
}

/// Sends INITIAL_DATA `id` on a TSH and returns the reply's header and body.
pub async fn exchange_id(w: &mut Wire, id: &InitialData, kind: TshKind) -> Option<(Tsh, Vec<u8>)> {
    let mut h = Tsh::new(kind, SegmentType::INITIAL_DATA);
    h.conversation_id = u32::from(kind == TshKind::Tshm);
    h.control_flags1 = tcf::CONFIRM_REQUEST | tcf::FIRST | tcf::LAST;
    let mut body = Vec::new();
    write_id(id, ORDER, &mut body);
    let mut seg = Vec::new();
    write_segment(&h, &body, &mut seg);
    w.send(&seg).await;
    let m = w.message().await?;
    Some((m.tsh, m.body))
}

impl Client {
    /// Connects to `addr`, negotiates channel `channel`, sends USERID_DATA
    /// for `uid` and, with `auth`, CONAUTH_INFO; then MQCONN.
    pub async fn connect(
        addr: SocketAddr,
        channel: &str,
        uid: &str,
        auth: Option<(&str, &str)>,
    ) -> Result<Client, Refused> {
        let mut w = Wire::connect(addr).await;
        let mut id = initial_data(channel);
        let mut kind = TshKind::Tsh;
        for _ in 0..3 {
            let Some((t, body)) = exchange_id(&mut w, &id, kind).await else {
                return Err(Refused::Closed);
            };
            if t.segment_type == SegmentType::STATUS_DATA {
                return Err(Refused::Status(
                    parse_status(&body, 36, t.byte_order).unwrap(),
                ));
            }
            let r = parse_id(&body, t.header_len(), t.byte_order).unwrap();
            kind = TshKind::Tshm;
            if t.control_flags1 & tcf::ERROR == 0 {
                w.max = r.max_transmission_size as usize;
                break;
            }
            id = InitialData {
                capability_flags1: r.capability_flags1,
                capability_flags2: r.capability_flags2,
                capability_flags3: r.capability_flags3,
                max_transmission_size: r.max_transmission_size,
                max_msg_size: r.max_msg_size,
                heartbeat_interval: r.heartbeat_interval,
                conv_per_socket: r.conv_per_socket,
                fap_level: r.fap_level,
                ..id
            };
        }
        let mut c = Client { wire: w, conv: 1 };
        c.uid(uid).await;
        c.conn(auth).await?;
        Ok(c)
    }

    async fn uid(&mut self, user: &str) {
        let body = mqgate::mqclient::handshake::userid_body(user);
        let mut seg = Vec::new();
        write_segment(&tshm(self.conv, SegmentType::USERID_DATA), &body, &mut seg);
        self.wire.send(&seg).await;
    }

    /// CONAUTH_INFO (user id and password in plain) then MQCONN.
    pub async fn conn(&mut self, auth: Option<(&str, &str)>) -> Result<(), Refused> {
        if let Some((u, p)) = auth {
            let c = mqgate_codecs::fap::caut::ConAuthInfo {
                ebcdic: false,
                authentication_type: 1,
                user_id_max_length: u.len() as i32,
                password_max_length: p.len() as i32,
                reserved: [0; 8],
                user_id: u.as_bytes(),
                password: p.as_bytes(),
                padding: &[],
            };
            let mut body = Vec::new();
            mqgate_codecs::fap::caut::write_caut(&c, ORDER, &mut body);
            let mut seg = Vec::new();
            write_segment(&tshm(self.conv, SegmentType::CONAUTH_INFO), &body, &mut seg);
            self.wire.send(&seg).await;
            let m = self.wire.message().await.ok_or(Refused::Closed)?;
            assert_eq!(m.tsh.segment_type, SegmentType::STATUS_DATA);
            assert_eq!(m.tsh.control_flags1, tcf::REQUEST_ACCEPTED);
        }
        let tags = [0u8; 84];
        let c = mqgate::mqclient::handshake::conn_data("*", "mqgate-test", &tags);
        let mut p = Vec::new();
        write_conn(&c, ORDER, &mut p);
        let (h, body) = self
            .call(SegmentType::MQCONN, 0, &p)
            .await
            .ok_or(Refused::Closed)?;
        parse_conn(&body, 52, ORDER).unwrap();
        if h.comp_code != 0 {
            return Err(Refused::Conn(h.comp_code, h.reason));
        }
        Ok(())
    }

    /// Sends verb `t` on handle `hobj` with parameters `params`; returns the
    /// reply's API header and parameters (`None` when the socket closed).
    pub async fn call(
        &mut self,
        t: SegmentType,
        hobj: i32,
        params: &[u8],
    ) -> Option<(ApiHeader, Vec<u8>)> {
        let api = ApiHeader {
            reply_length: 1 << 20,
            comp_code: 0,
            reason: 0,
            hobj,
        };
        let mut body = Vec::new();
        write_api(&api, ORDER, &mut body);
        body.extend_from_slice(params);
        let h = tshm(self.conv, t);
        let max = self.wire.max;
        let room = max - 36;
        let chunks: Vec<&[u8]> = body.chunks(room).collect();
        let n = chunks.len();
        let mut out = Vec::new();
        for (i, c) in chunks.into_iter().enumerate() {
            let mut hh = h.clone();
            hh.control_flags1 =
                if i == 0 { tcf::FIRST } else { 0 } | if i + 1 == n { tcf::LAST } else { 0 };
            write_segment(&hh, c, &mut out);
        }
        self.wire.send(&out).await;
        let m = self.wire.message().await?;
        assert_eq!(m.tsh.segment_type, t.reply(), "reply type");
        assert_eq!(m.tsh.conversation_id, self.conv);
        let (h, rest) = parse_api(&m.body, 36, ORDER).unwrap();
        Some((h, rest.to_vec()))
    }

    /// MQOPEN of queue `name` (MQOT_Q) or of the queue manager (`None`).
    pub async fn open(
        &mut self,
        name: Option<&str>,
        options: i32,
    ) -> (ApiHeader, OpenData<'static>) {
        let mut od = Mqod {
            version: 2,
            object_type: if name.is_some() { ot::Q } else { ot::Q_MGR },
            ..Mqod::default()
        };
        if let Some(n) = name {
            od.object_name = [b' '; 48];
            od.object_name[..n.len()].copy_from_slice(n.as_bytes());
        }
        let o = OpenData {
            od,
            options,
            fopa: None,
            fcmi: None,
            rest: &[],
        };
        let mut p = Vec::new();
        write_open(&o, ORDER, &mut p);
        let (h, body) = self.call(SegmentType::MQOPEN, 0, &p).await.unwrap();
        let parsed = mqgate_codecs::fap::object::parse_open(&body, 52, ORDER).unwrap();
        (
            h,
            OpenData {
                od: parsed.od,
                options: parsed.options,
                fopa: None,
                fcmi: None,
                rest: &[],
            },
        )
    }

    /// MQOPEN that must succeed; returns the handle.
    pub async fn open_ok(&mut self, name: &str, options: i32) -> i32 {
        let (h, _) = self.open(Some(name), options).await;
        assert_eq!((h.comp_code, h.reason), (0, 0), "MQOPEN {name}");
        h.hobj
    }

    pub async fn close(&mut self, hobj: i32) -> ApiHeader {
        self.call(SegmentType::MQCLOSE, hobj, &0i32.to_le_bytes())
            .await
            .unwrap()
            .0
    }

    /// MQPUT of `data` with `md` and put options `options`.
    pub async fn put(
        &mut self,
        hobj: i32,
        md: Mqmd,
        options: i32,
        data: &[u8],
    ) -> (ApiHeader, Mqmd, Mqpmo) {
        let p = PutData {
            od: None,
            md,
            md_charset: Charset::Ascii,
            pmo: Mqpmo {
                version: 2,
                options,
                ..Mqpmo::default()
            },
            data_length: data.len() as i32,
            data,
        };
        let mut b = Vec::new();
        write_put(&p, ORDER, &mut b);
        let (h, body) = self.call(SegmentType::MQPUT, hobj, &b).await.unwrap();
        let r = parse_put(&body, 52, ORDER, false).unwrap();
        (h, r.md, r.pmo)
    }

    /// MQPUT1 to queue `name`.
    pub async fn put1(
        &mut self,
        name: &str,
        md: Mqmd,
        options: i32,
        data: &[u8],
    ) -> (ApiHeader, Mqmd) {
        let mut od = Mqod {
            version: 1,
            ..Mqod::default()
        };
        od.object_name[..name.len()].copy_from_slice(name.as_bytes());
        let p = PutData {
            od: Some(od),
            md,
            md_charset: Charset::Ascii,
            pmo: Mqpmo {
                options,
                ..Mqpmo::default()
            },
            data_length: data.len() as i32,
            data,
        };
        let mut b = Vec::new();
        write_put(&p, ORDER, &mut b);
        let (h, body) = self.call(SegmentType::MQPUT1, 0, &b).await.unwrap();
        let r = parse_put(&body, 52, ORDER, true).unwrap();
        (h, r.md)
    }

    /// MQGET with `md` (ids to match), `gmo` and a buffer of `buffer`
    /// bytes: the reply's header, MQMD, MQGMO, DataLength and data.
    pub async fn get(
        &mut self,
        hobj: i32,
        md: Mqmd,
        gmo: Mqgmo,
        buffer: i32,
    ) -> (ApiHeader, Mqmd, Mqgmo, i32, Vec<u8>) {
        let g = GetData {
            md,
            md_charset: Charset::Ascii,
            gmo,
            length: buffer,
            data: &[],
        };
        let mut b = Vec::new();
        write_get(&g, ORDER, &mut b);
        let (h, body) = self.call(SegmentType::MQGET, hobj, &b).await.unwrap();
        let r = parse_get(&body, 52, ORDER).unwrap();
        (h, r.md, r.gmo, r.length, r.data.to_vec())
    }

    /// MQINQ of `selectors`.
    pub async fn inq(
        &mut self,
        hobj: i32,
        selectors: &[i32],
        ints: i32,
        chars: i32,
    ) -> (ApiHeader, Vec<i32>, Vec<u8>) {
        let q = InqData {
            selectors: selectors.to_vec(),
            int_attr_count: ints,
            char_attr_length: chars,
            int_attrs: Vec::new(),
            char_attrs: &[],
        };
        let mut b = Vec::new();
        write_inq(&q, ORDER, &mut b);
        let (h, body) = self.call(SegmentType::MQINQ, hobj, &b).await.unwrap();
        if h.comp_code == 2 {
            return (h, Vec::new(), Vec::new());
        }
        let r = parse_inq(&body, 52, ORDER, true).unwrap();
        (h, r.int_attrs, r.char_attrs.to_vec())
    }

    /// MQCMIT, MQBACK or MQDISC.
    pub async fn simple(&mut self, t: SegmentType) -> ApiHeader {
        self.call(t, 0, &[]).await.unwrap().0
    }

    /// Starts conversation `conv` on the same socket (SOCKET_ACTION).
    pub async fn start_conversation(&mut self, conv: u32) -> SocketAction {
        let mut h = Tsh::new(TshKind::Tshc, SegmentType::SOCKET_ACTION);
        h.encoding = 273;
        h.control_flags1 = tcf::FIRST | tcf::LAST;
        let a = SocketAction {
            conversation_id: conv as i32,
            request_id: 0,
            action_type: 1,
            parm1: 1,
            parm2: 2,
        };
        let mut body = Vec::new();
        write_socket_action(&a, ORDER, &mut body);
        let mut seg = Vec::new();
        write_segment(&h, &body, &mut seg);
        self.wire.send(&seg).await;
        let m = self.wire.message().await.unwrap();
        assert_eq!(m.tsh.segment_type, SegmentType::SOCKET_ACTION);
        mqgate_codecs::fap::socket::parse_socket_action(&m.body, 36, ORDER).unwrap()
    }
}

/// An MQMD v2 for a put: datagram, string format, non-persistent.
pub fn md() -> Mqmd {
    Mqmd {
        format: mqgate_codecs::mq::CharField(*b"MQSTR   "),
        persistence: 0,
        coded_char_set_id: 1208,
        ..Mqmd::default()
    }
}

/// An MQGMO v4 with `options` and `wait` ms.
pub fn gmo(options: i32, wait: i32) -> Mqgmo {
    Mqgmo {
        version: 4,
        options,
        wait_interval: wait,
        match_options: 0,
        ..Mqgmo::default()
    }
}

pub use mqgate_codecs::fap::object::oo as open_options;
