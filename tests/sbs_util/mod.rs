//! A gateway in this process acting as one MessageQ group, and what the SBS
//! tests do with it over the HTTP API: put PAMS messages (MQMD Format
//! `MQGPAMS` and the PAMS message header, docs/messageq.md "PAMS messages on
//! mqgate queues") and get them back.
//!
//! The SBS server handles the messages of its queue one after the other, so
//! [`Group::sync`] — an SBS_STATUS_REQ whose SBS_STATUS_RESP has come back —
//! proves every message put before it has been served.
#![allow(dead_code)] // each test file uses a different part of this helper

use base64::Engine;
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate_codecs::pams::{Endian, PamsHeader, QAddress};
use serde_json::{Value, json};
use std::time::Duration;

/// SBS message class MSG_CLAS_PAMS (BEA MessageQ `p_typecl.h` V5.0-01).
pub const CLASS_PAMS: i16 = 29;
/// SBS message types (`p_typecl.h` V5.0-01).
pub mod types {
    pub const REGISTER_REQ: i16 = -1196;
    pub const REGISTER_RESP: i16 = -1197;
    pub const DEREGISTER_REQ: i16 = -1170;
    pub const DEREGISTER_RESP: i16 = -1172;
    pub const STATUS_REQ: i16 = -1177;
    pub const STATUS_RESP: i16 = -1178;
    pub const SEQUENCE_GAP: i16 = -1199;
    pub const REG: i16 = -1150;
    pub const REG_REPLY: i16 = -1152;
    pub const REG_EZ: i16 = -1173;
    pub const REG_EZ_REPLY: i16 = -1153;
    pub const DEREG: i16 = -1174;
    pub const DEREG_ACK: i16 = -1155;
    pub const DEREG_BY_ID: i16 = -1154;
    pub const BS_SEQGAP: i16 = -1166;
}

/// The queue number of the control queue every test group has (CTL, the
/// queue [`Group::sync`] and the request helpers answer to).
pub const CTL: u16 = 2;

/// A gateway acting as group `group`.
pub struct Group {
    rt: tokio::runtime::Runtime,
    handle: Option<Handle>,
    pub base: String,
    pub group: u16,
    dir: tempfile::TempDir,
    tag: std::cell::Cell<i32>,
    config: Config,
}

/// One `%QCT` line: `name number byte_quota msg_quota` (`.` for none).
pub fn qct_line(name: &str, number: u16, byte_quota: &str, msg_quota: &str) -> String {
    format!("{name} {number} {byte_quota} {msg_quota} . . . . . Y L N\n")
}

/// A group initialization file whose %QCT has CTL (queue 2) and `lines`.
pub fn init_file(lines: &str) -> String {
    format!(
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\n{}{lines}%EOS\n",
        qct_line("CTL", CTL, ".", ".")
    )
}

impl Group {
    /// Starts group `group` with the group initialization file `init`.
    pub fn start(group: u16, init: &str) -> Group {
        Group::start_with(group, init, "")
    }

    /// [`Group::start`] with more top-level YAML sections (`queues:`, ...).
    pub fn start_with(group: u16, init: &str, extra_yaml: &str) -> Group {
        let dir = tempfile::tempdir().unwrap();
        let init_path = dir.path().join("group.init");
        std::fs::write(&init_path, init).unwrap();
        let yaml = format!(
            "http:\n  listen: 127.0.0.1:0\n  max_wait_ms: 10000\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\nmessageq:\n  group: {group}\n  init_file: {}\n{extra_yaml}",
            init_path.display()
        );
        let mut config = Config::from_yaml(&yaml, "test.yaml").unwrap();
        config.storage.data_dir = dir.path().join("data");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let handle = rt.block_on(Gateway::start(config.clone())).unwrap();
        let base = format!("http://{}", handle.http_addr());
        Group {
            rt,
            handle: Some(handle),
            base,
            group,
            dir,
            tag: std::cell::Cell::new(1000),
            config,
        }
    }

    /// Stops the gateway and starts it again on the same configuration
    /// and data directory (the HTTP port may change).
    pub fn restart(&mut self) {
        if let Some(h) = self.handle.take() {
            self.rt.block_on(h.stop(Duration::from_secs(5)));
        }
        let handle = self
            .rt
            .block_on(Gateway::start(self.config.clone()))
            .unwrap();
        self.base = format!("http://{}", handle.http_addr());
        self.handle = Some(handle);
    }

    /// An address of this group.
    pub fn addr(&self, queue: u16) -> QAddress {
        QAddress::new(self.group, queue)
    }

    /// An HTTP call: (status, JSON answer or Null).
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let req = ureq::request(method, &format!("{}{path}", self.base));
        let res = match body {
            Some(b) => req.send_json(b),
            None => req.call(),
        };
        let r = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = r.status();
        (status, r.into_json().unwrap_or(Value::Null))
    }

    /// Puts raw `data` with MQMD Format `format` to mqgate queue `queue`.
    pub fn put_raw(&self, queue: &str, format: &str, data: &[u8]) {
        let body = json!({
            "md": {"Format": format, "Encoding": 273},
            "data_base64": base64::engine::general_purpose::STANDARD.encode(data),
        });
        let (st, v) = self.call("POST", &format!("/v1/queues/{queue}/messages"), Some(body));
        assert_eq!(st, 201, "put to {queue}: {v}");
    }

    /// Puts a PAMS message (`header` + `area`) to mqgate queue `queue`.
    pub fn put(&self, queue: &str, header: &PamsHeader, area: &[u8]) {
        self.put_raw(queue, "MQGPAMS", &header.with_area(area));
    }

    /// The SBS server's queue: `PAMS.<group>.99`.
    pub fn sbs_queue(&self) -> String {
        format!("PAMS.{}.99", self.group)
    }

    /// Sends an SBS request of `msg_type` with `area` in `order` from the
    /// control queue to the SBS server.
    pub fn send_request(&self, msg_type: i16, area: &[u8], order: Endian) {
        let h = PamsHeader::new(CLASS_PAMS, msg_type, self.addr(CTL), self.addr(99), order);
        self.put(&self.sbs_queue(), &h, area);
    }

    /// Publishes `area` to MOT `mot` from `source` with `class` and `msg_type`.
    pub fn publish(
        &self,
        mot: u16,
        source: QAddress,
        class: i16,
        msg_type: i16,
        area: &[u8],
        order: Endian,
    ) {
        let h = PamsHeader::new(class, msg_type, source, QAddress::new(0, mot), order);
        self.put(&self.sbs_queue(), &h, area);
    }

    /// The next PAMS message of mqgate queue `queue`, waiting up to
    /// `wait_ms`; removed from the queue. `None` when none came.
    pub fn get(&self, queue: &str, wait_ms: u64) -> Option<(PamsHeader, Vec<u8>)> {
        let (st, v) = self.call(
            "GET",
            &format!("/v1/queues/{queue}/messages/next?wait_ms={wait_ms}"),
            None,
        );
        if st == 404 && v["mqrc"] == 2033 {
            return None;
        }
        assert_eq!(st, 200, "get from {queue}: {v}");
        let lease = v["lease"].as_str().unwrap().to_string();
        let (st, a) = self.call(
            "POST",
            &format!("/v1/queues/{queue}/messages/ack/{lease}"),
            None,
        );
        assert_eq!(st, 200, "ack on {queue}: {a}");
        assert_eq!(v["md"]["Format"], "MQGPAMS", "{v}");
        let data = base64::engine::general_purpose::STANDARD
            .decode(v["data_base64"].as_str().unwrap())
            .unwrap();
        let (h, area) = PamsHeader::split(&data).unwrap();
        Some((h, area.to_vec()))
    }

    /// Every message on `queue` now (no wait), in order.
    pub fn drain(&self, queue: &str) -> Vec<(PamsHeader, Vec<u8>)> {
        std::iter::from_fn(|| self.get(queue, 0)).collect()
    }

    /// CURDEPTH of mqgate queue `queue`.
    pub fn depth(&self, queue: &str) -> u64 {
        let (st, v) = self.call("GET", "/v1/queues", None);
        assert_eq!(st, 200, "{v}");
        v.as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == queue)
            .and_then(|q| q["depth"].as_u64())
            .unwrap_or_else(|| panic!("queue {queue} not listed: {v}"))
    }

    /// Waits until the SBS server has served every message put before:
    /// sends an SBS_STATUS_REQ for no MOT (start 1, end 0) with a fresh
    /// user_tag and takes its SBS_STATUS_RESP from the control queue.
    pub fn sync(&self) {
        let tag = self.tag.get() + 1;
        self.tag.set(tag);
        let mut area = Vec::new();
        for v in [40, tag, 1, 0, 0] {
            area.extend_from_slice(&v.to_be_bytes());
        }
        self.send_request(types::STATUS_REQ, &area, Endian::Big);
        let (h, body) = self
            .get("CTL", 10_000)
            .expect("the SBS server answers SBS_STATUS_REQ");
        assert_eq!(h.msg_type, types::STATUS_RESP, "sync answer");
        assert_eq!(&body[4..8], &tag.to_be_bytes(), "sync answer's user_tag");
    }

    /// Sends `area` as `msg_type` and returns the one reply on CTL.
    pub fn ask(&self, msg_type: i16, area: &[u8], order: Endian) -> (PamsHeader, Vec<u8>) {
        self.send_request(msg_type, area, order);
        self.get("CTL", 10_000)
            .unwrap_or_else(|| panic!("no reply to type {msg_type}"))
    }

    /// Stops the gateway.
    pub fn stop(mut self) {
        if let Some(h) = self.handle.take() {
            self.rt.block_on(h.stop(Duration::from_secs(5)));
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.rt.block_on(h.stop(Duration::from_secs(5)));
        }
    }
}

/// `v` as 4 bytes in `order`.
pub fn i32_bytes(v: i32, order: Endian) -> [u8; 4] {
    match order {
        Endian::Big => v.to_be_bytes(),
        Endian::Little => v.to_le_bytes(),
    }
}

/// `v` as 2 bytes in `order`.
pub fn i16_bytes(v: i16, order: Endian) -> [u8; 2] {
    match order {
        Endian::Big => v.to_be_bytes(),
        Endian::Little => v.to_le_bytes(),
    }
}

/// A `q_address` on the wire: queue then group, 16 bits each in `order`
/// (`p_entry.h` 5.0: `struct { int16 queue; int16 group; }`).
pub fn addr_bytes(a: QAddress, order: Endian) -> [u8; 4] {
    let q = i16_bytes(a.queue as i16, order);
    let g = i16_bytes(a.group as i16, order);
    [q[0], q[1], g[0], g[1]]
}

/// The `int32 all` member of a `q_address` as a program of `order` sees it.
pub fn addr_all(a: QAddress, order: Endian) -> i32 {
    let b = addr_bytes(a, order);
    match order {
        Endian::Big => i32::from_be_bytes(b),
        Endian::Little => i32::from_le_bytes(b),
    }
}

/// One selection rule (SBS_REGISTER_RULE, `p_msg.h` V4.0-08): offset,
/// data_operator, length, operand.
#[derive(Clone, Copy, Debug)]
pub struct Rule(pub i32, pub i32, pub i32, pub i32);

/// An SBS_REGISTER_REQ (`p_msg.h` V4.0-08, 36-byte head + 256 16-byte rule
/// slots = 4132 bytes, as the BEA samples send it): version 40.
// One argument per field of the structure, in its order.
#[allow(clippy::too_many_arguments)]
pub fn register_req(
    user_tag: i32,
    mot: i32,
    queue: QAddress,
    req_ack: bool,
    seq_gap_notify: bool,
    conjunct: i32,
    rules: &[Rule],
    order: Endian,
) -> Vec<u8> {
    let mut b = Vec::with_capacity(4132);
    for v in [40, user_tag, mot] {
        b.extend_from_slice(&i32_bytes(v, order));
    }
    b.extend_from_slice(&addr_bytes(queue, order));
    for v in [
        i32::from(req_ack),
        i32::from(seq_gap_notify),
        0,
        rules.len() as i32,
        conjunct,
    ] {
        b.extend_from_slice(&i32_bytes(v, order));
    }
    for r in rules {
        for v in [r.0, r.1, r.2, r.3] {
            b.extend_from_slice(&i32_bytes(v, order));
        }
    }
    b.resize(4132, 0);
    b
}

/// PSEL_ALL_RULES 1 / PSEL_ANY_RULE 2 (`p_symbol.h` 5.0).
pub const ALL: i32 = 1;
pub const ANY: i32 = 2;
/// Offset selectors PSEL_SOURCE -1, PSEL_CLASS -2, PSEL_TYPE -3 (Programmer's
/// Guide Table 3-2; values `p_symbol.h` 5.0).
pub const PSEL_SOURCE: i32 = -1;
pub const PSEL_CLASS: i32 = -2;
pub const PSEL_TYPE: i32 = -3;

/// The eight operators with their BEA MessageQ 5.0 values (`p_symbol.h`
/// 5.0; Programmer's Guide Table 3-3).
pub const OPERATORS: [(&str, i32); 8] = [
    ("ANY", 0),
    ("EQ", -1),
    ("NEQ", -2),
    ("GTR", -3),
    ("LT", -4),
    ("GTRE", -5),
    ("LTE", -6),
    ("AND", 7),
];

/// What an operator means (Programmer's Guide Table 3-3: "Always match",
/// "Equal", …, "Operand field AND data not equal to zero"), on signed values
/// (docs/messageq.md "Comparisons").
pub fn holds(op: &str, data: i64, operand: i64) -> bool {
    match op {
        "ANY" => true,
        "EQ" => data == operand,
        "NEQ" => data != operand,
        "GTR" => data > operand,
        "LT" => data < operand,
        "GTRE" => data >= operand,
        "LTE" => data <= operand,
        "AND" => data & operand != 0,
        _ => unreachable!(),
    }
}

/// Registers `queue` for `mot` with `rules` (acknowledged) and returns the
/// reg_id from the SBS_REGISTER_RESP (asserting PSYM_SBS_SUCCESS 1).
pub fn register(g: &Group, mot: i32, queue: u16, conjunct: i32, rules: &[Rule], gap: bool) -> i32 {
    let order = Endian::Big;
    let req = register_req(7, mot, g.addr(queue), true, gap, conjunct, rules, order);
    let (h, body) = g.ask(types::REGISTER_REQ, &req, order);
    assert_eq!(h.msg_type, types::REGISTER_RESP);
    assert_eq!(
        i32::from_be_bytes(body[8..12].try_into().unwrap()),
        1,
        "status PSYM_SBS_SUCCESS"
    );
    i32::from_be_bytes(body[12..16].try_into().unwrap())
}
