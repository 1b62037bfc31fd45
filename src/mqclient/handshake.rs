//! Starting a client connection as IBM's Java client does
//! (docs/mq-client-protocol.md "Handshake and negotiation"): INITIAL_DATA
//! on a TSH, each value the queue manager lowers (ControlFlags1 ERROR) taken
//! and sent again on a TSHM, then USERID_DATA, CONAUTH_INFO when a password
//! is set, and MQCONN.

use super::ClientError;
use super::verbs::Session;
use super::wire::{Wire, tshm};
use mqgate_codecs::fap::caut::{ConAuthInfo, write_caut};
use mqgate_codecs::fap::conn::{ConnData, Fcno, write_conn};
use mqgate_codecs::fap::id::{InitialData, parse_id, write_id};
use mqgate_codecs::fap::status::parse_status;
use mqgate_codecs::fap::{SegmentType, Tsh, TshKind, tcf, write_segment};
use mqgate_codecs::mq::ByteOrder;
use std::time::Duration;

/// The byte order mqgate's client writes (Encoding 273 integers, as IBM's
/// Java client on Linux x86).
pub const ORDER: ByteOrder = ByteOrder::Little;

/// What to connect to and as whom.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// The queue manager's host name or address.
    pub host: String,
    /// Its listener port.
    pub port: u16,
    /// The server-connection channel name (20 characters at most).
    pub channel: String,
    /// The queue manager name for MQCONN; empty = whichever answers.
    pub q_mgr_name: String,
    /// User id for USERID_DATA (and CONAUTH_INFO with a password).
    pub user: String,
    /// Sent in CONAUTH_INFO when set.
    pub password: Option<String>,
    /// Heartbeat interval offered, in seconds (0 = none).
    pub heartbeat_s: i32,
    /// Longest message offered (MAXMSGL), in bytes.
    pub max_msg_size: i32,
    /// Longest wait for each handshake reply, and for a verb's reply beyond its
    /// own wait interval.
    pub timeout: Duration,
    /// ApplName in MQCONN (28 characters at most).
    pub appl_name: String,
    /// TLS to the listener, with the SSLPEER its certificate must pass;
    /// `None`: plain TCP.
    pub tls: Option<crate::security::tls::ClientTls>,
}

/// `text` blank padded (or cut) to `N` bytes.
pub fn padded<const N: usize>(text: &str) -> [u8; N] {
    let mut out = [b' '; N];
    let n = text.len().min(N);
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out
}

/// An INITIAL_DATA as IBM's JMS client at FAP level 17 sends it (the values
/// of a real client's capture, docs/mq-client-protocol.md): capability
/// flags 0x26/0x51/0x20, 32748-byte segments, ten conversations per socket,
/// CCSID 819, product id `MQJM09030500`; for `channel` and queue manager
/// `q_mgr` (`*` = any).
pub fn initial_data(
    channel: &str,
    q_mgr: &str,
    max_msg_size: i32,
    heartbeat_s: i32,
) -> InitialData {
    InitialData {
        fap_level: 17,
        capability_flags1: 0x26,
        capability_flags2: 0x51,
        capability_flags3: 0x20,
        max_transmission_size: 32748,
        max_msg_size,
        heartbeat_interval: heartbeat_s,
        conv_per_socket: 10,
        channel_name: padded(channel),
        ccsid: 819,
        q_mgr_name: padded(q_mgr),
        product_id: *b"MQJM09030500",
        ..InitialData::default()
    }
}

/// Sends INITIAL_DATA `id` under a header of `kind`; the reply's header and body.
async fn exchange_id(
    w: &mut Wire,
    id: &InitialData,
    kind: TshKind,
    timeout: Duration,
) -> Result<(Tsh, Vec<u8>), ClientError> {
    let mut h = Tsh::new(kind, SegmentType::INITIAL_DATA);
    h.conversation_id = u32::from(kind == TshKind::Tshm);
    h.control_flags1 = tcf::CONFIRM_REQUEST | tcf::FIRST | tcf::LAST;
    let mut body = Vec::new();
    write_id(id, ORDER, &mut body);
    let mut seg = Vec::new();
    write_segment(&h, &body, &mut seg);
    w.send(&seg).await?;
    let m = w.message("INITIAL_DATA", timeout).await?;
    Ok((m.tsh, m.body))
}

/// Negotiates INITIAL_DATA: the queue manager's lowered values are taken
/// (at most three rounds, as a queue manager answers within two).
async fn negotiate(w: &mut Wire, o: &ConnectOptions) -> Result<(), ClientError> {
    let q = if o.q_mgr_name.is_empty() {
        "*"
    } else {
        &o.q_mgr_name
    };
    let mut id = initial_data(&o.channel, q, o.max_msg_size, o.heartbeat_s);
    let mut kind = TshKind::Tsh;
    for _ in 0..3 {
        let (t, body) = exchange_id(w, &id, kind, o.timeout).await?;
        if t.segment_type == SegmentType::STATUS_DATA {
            let status = parse_status(&body, t.header_len(), t.byte_order)?;
            return Err(ClientError::Refused {
                during: "INITIAL_DATA",
                status,
            });
        }
        if t.segment_type != SegmentType::INITIAL_DATA {
            return Err(ClientError::Unexpected {
                expected: SegmentType::INITIAL_DATA,
                got: t.segment_type,
            });
        }
        let r = parse_id(&body, t.header_len(), t.byte_order)?;
        kind = TshKind::Tshm;
        if !t.has(tcf::ERROR) {
            w.max_segment = usize::try_from(r.max_transmission_size)
                .unwrap_or(super::wire::HANDSHAKE_MAX)
                .clamp(TshKind::Tshm.header_len() + 1, super::wire::HANDSHAKE_MAX);
            return Ok(());
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
    Err(ClientError::Refused {
        during: "INITIAL_DATA",
        status: mqgate_codecs::fap::StatusData::Status {
            code: mqgate_codecs::fap::StatusCode::NEGOTIATION_FAILED,
            value: None,
        },
    })
}

/// The USERID_DATA body for `user`: `UID `, the short user id (12), a blank
/// password (12), the long user id (64) and a zero SID (40), the layout of
/// the Wireshark MQ dissector.
pub fn userid_body(user: &str) -> Vec<u8> {
    let mut body = b"UID ".to_vec();
    body.extend_from_slice(&padded::<12>(user));
    body.extend_from_slice(&[b' '; 12]);
    body.extend_from_slice(&padded::<64>(user));
    body.extend_from_slice(&[0; 40]);
    body
}

/// The MQCONN parameters IBM's Java client sends: queue manager `q_mgr`,
/// ApplName `appl`, ApplType 28 (MQAT_JAVA), Options 7, an FCNO v4 with
/// options 4 and zero connection tags; `tags` is its 84-byte tail.
pub fn conn_data<'a>(q_mgr: &str, appl: &str, tags: &'a [u8; 84]) -> ConnData<'a> {
    ConnData {
        q_mgr_name: padded(q_mgr),
        appl_name: padded(appl),
        appl_type: 28,
        accounting_token: [0; 32],
        options: 7,
        x_options: 0,
        fcno: Some(Fcno {
            ebcdic: false,
            version: 4,
            options: 4,
            conn_tag: Some([0; 128]),
            conn_tag2: Some([0; 128]),
            rest: tags,
        }),
        rest: &[],
    }
}

/// Connects, negotiates, identifies (USERID_DATA, CONAUTH_INFO) and MQCONNs.
///
/// Errors: the socket ([`ClientError::Io`], 2059 when connecting), a
/// STATUS_DATA refusal ([`ClientError::Refused`]: 2035 for a security
/// failure), CONAUTH_INFO or MQCONN refused ([`ClientError::Verb`] with the
/// queue manager's reason, e.g. 2035 MQRC_NOT_AUTHORIZED, 2058
/// MQRC_Q_MGR_NAME_ERROR), bad segments ([`ClientError::Protocol`]).
pub async fn connect(o: &ConnectOptions) -> Result<Session, ClientError> {
    let mut w = Wire::connect(&o.host, o.port, o.timeout, o.tls.as_ref()).await?;
    negotiate(&mut w, o).await?;
    let conv = 1;
    let mut seg = Vec::new();
    write_segment(
        &tshm(conv, SegmentType::USERID_DATA),
        &userid_body(&o.user),
        &mut seg,
    );
    w.send(&seg).await?;
    if let Some(password) = &o.password {
        let c = ConAuthInfo {
            ebcdic: false,
            authentication_type: 1,
            user_id_max_length: o.user.len() as i32,
            password_max_length: password.len() as i32,
            reserved: [0; 8],
            user_id: o.user.as_bytes(),
            password: password.as_bytes(),
            padding: &[],
        };
        let mut body = Vec::new();
        write_caut(&c, ORDER, &mut body);
        let mut seg = Vec::new();
        write_segment(&tshm(conv, SegmentType::CONAUTH_INFO), &body, &mut seg);
        w.send(&seg).await?;
        let m = w.message("CONAUTH_INFO", o.timeout).await?;
        if m.tsh.segment_type != SegmentType::STATUS_DATA || !m.tsh.has(tcf::REQUEST_ACCEPTED) {
            let status = parse_status(&m.body, m.tsh.header_len(), m.tsh.byte_order)
                .unwrap_or(mqgate_codecs::fap::StatusData::Empty);
            return Err(ClientError::Refused {
                during: "CONAUTH_INFO",
                status,
            });
        }
    }
    let mut session = Session::new(w, conv, o.timeout);
    let q = if o.q_mgr_name.is_empty() {
        "*"
    } else {
        &o.q_mgr_name
    };
    let tags = [0u8; 84];
    let mut p = Vec::new();
    write_conn(&conn_data(q, &o.appl_name, &tags), ORDER, &mut p);
    session
        .call("MQCONN", SegmentType::MQCONN, 0, &p, Duration::ZERO)
        .await?;
    Ok(session)
}
