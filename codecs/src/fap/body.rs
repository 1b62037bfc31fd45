//! A whole segment's (or reassembled message's) body, decoded by segment
//! type into the typed structures of this codec, and written back byte for
//! byte ([`decode_body`], [`encode_body`]).

use crate::mq::ByteOrder;

use super::api::{API_LEN, ApiHeader, parse_api, write_api};
use super::caut::{ConAuthInfo, parse_caut, write_caut};
use super::conn::{ConnData, parse_conn, write_conn};
use super::error::FapError;
use super::id::{InitialData, parse_id, write_id};
use super::inq::{InqData, parse_inq, write_inq};
use super::message::{GetData, PutData, parse_get, parse_put, write_get, write_put};
use super::object::{OpenData, parse_close, parse_open, write_open};
use super::read::Writer;
use super::socket::{SocketAction, parse_socket_action, write_socket_action};
use super::spi::{SpiData, parse_spi, write_spi};
use super::status::{StatusData, parse_status, write_status};
use super::tsh::{SegmentType, Tsh};
use super::uid::{UserIdData, parse_uid, write_uid};

/// The parameters of an MQI verb or reply, after the API header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verb<'a> {
    /// No parameters (MQDISC, MQCMIT, MQBACK, MQCLOSE replies, and replies
    /// that failed without echoing the request).
    Empty,
    /// MQCONN or its reply.
    Conn(Box<ConnData<'a>>),
    /// MQOPEN or its reply.
    Open(Box<OpenData<'a>>),
    /// MQCLOSE: its Options.
    Close(i32),
    /// MQPUT, MQPUT1 or their replies.
    Put(Box<PutData<'a>>),
    /// MQGET or its reply.
    Get(Box<GetData<'a>>),
    /// MQINQ or its reply.
    Inq(InqData<'a>),
    /// SPI or its reply.
    Spi(SpiData<'a>),
    /// A verb this codec does not decode (MQSET, MQSTAT, MQSUB, XA, ...):
    /// its parameters as bytes.
    Other(&'a [u8]),
}

/// A decoded body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    InitialData(Box<InitialData>),
    UserIdData(UserIdData),
    ConAuthInfo(ConAuthInfo<'a>),
    StatusData(StatusData),
    SocketAction(SocketAction),
    /// An MQI verb or reply: API header and parameters.
    Api(ApiHeader, Verb<'a>),
    /// HEARTBEAT and segment types without a decoder here: the bytes.
    Raw(&'a [u8]),
}

/// Decodes the body of a complete message of header `tsh` (`body` =
/// everything after the header; offsets in errors count from the start of
/// the segment). Errors: those of each structure's parser.
pub fn decode_body<'a>(tsh: &Tsh, body: &'a [u8]) -> Result<Body<'a>, FapError> {
    let order = tsh.byte_order;
    let base = tsh.header_len();
    let t = tsh.segment_type;
    Ok(match t {
        SegmentType::INITIAL_DATA => Body::InitialData(Box::new(parse_id(body, base, order)?)),
        SegmentType::USERID_DATA => Body::UserIdData(parse_uid(body, base)?),
        SegmentType::CONAUTH_INFO => Body::ConAuthInfo(parse_caut(body, base, order)?),
        SegmentType::STATUS_DATA => Body::StatusData(parse_status(body, base, order)?),
        SegmentType::SOCKET_ACTION => Body::SocketAction(parse_socket_action(body, base, order)?),
        t if t.is_api() => {
            let (h, params) = parse_api(body, base, order)?;
            Body::Api(h, decode_verb(t, params, base + API_LEN, order)?)
        }
        _ => Body::Raw(body),
    })
}

fn decode_verb<'a>(
    t: SegmentType,
    p: &'a [u8],
    base: usize,
    order: ByteOrder,
) -> Result<Verb<'a>, FapError> {
    if p.is_empty() {
        return Ok(Verb::Empty);
    }
    Ok(match t {
        SegmentType::MQCONN | SegmentType::MQCONN_REPLY => {
            Verb::Conn(Box::new(parse_conn(p, base, order)?))
        }
        SegmentType::MQOPEN | SegmentType::MQOPEN_REPLY => {
            Verb::Open(Box::new(parse_open(p, base, order)?))
        }
        SegmentType::MQCLOSE => Verb::Close(parse_close(p, base, order)?),
        SegmentType::MQPUT | SegmentType::MQPUT_REPLY => {
            Verb::Put(Box::new(parse_put(p, base, order, false)?))
        }
        SegmentType::MQPUT1 | SegmentType::MQPUT1_REPLY => {
            Verb::Put(Box::new(parse_put(p, base, order, true)?))
        }
        SegmentType::MQGET | SegmentType::MQGET_REPLY => {
            Verb::Get(Box::new(parse_get(p, base, order)?))
        }
        SegmentType::MQINQ => Verb::Inq(parse_inq(p, base, order, false)?),
        SegmentType::MQINQ_REPLY => Verb::Inq(parse_inq(p, base, order, true)?),
        SegmentType::SPI | SegmentType::SPI_REPLY => Verb::Spi(parse_spi(p, base, order)?),
        _ => Verb::Other(p),
    })
}

/// Appends `body` to `out`, integers in `order` (a segment's ByteOrder).
pub fn encode_body(body: &Body<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    match body {
        Body::InitialData(id) => write_id(id, order, out),
        Body::UserIdData(u) => write_uid(u, out),
        Body::ConAuthInfo(c) => write_caut(c, order, out),
        Body::StatusData(s) => write_status(s, order, out),
        Body::SocketAction(s) => write_socket_action(s, order, out),
        Body::Raw(b) => out.extend_from_slice(b),
        Body::Api(h, v) => {
            write_api(h, order, out);
            match v {
                Verb::Empty => {}
                Verb::Conn(c) => write_conn(c, order, out),
                Verb::Open(o) => write_open(o, order, out),
                Verb::Close(opts) => Writer { out, order }.i32(*opts),
                Verb::Put(p) => write_put(p, order, out),
                Verb::Get(g) => write_get(g, order, out),
                Verb::Inq(q) => write_inq(q, order, out),
                Verb::Spi(s) => write_spi(s, order, out),
                Verb::Other(b) => out.extend_from_slice(b),
            }
        }
    }
}
