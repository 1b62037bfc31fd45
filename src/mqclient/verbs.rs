//! The MQI verbs of a connected client conversation: each sends its
//! request (API header + parameters, split to the agreed segment size) and
//! waits for the reply of the same verb (IBM MQ "MQOPEN", "MQGET", "MQCMIT",
//! "MQBACK", "MQCLOSE", "MQDISC"; layouts in docs/mq-client-protocol.md).

use super::ClientError;
use super::handshake::{ORDER, padded};
use super::wire::{Wire, tshm};
use bytes::Bytes;
use mqgate_codecs::fap::gmo::Mqgmo;
use mqgate_codecs::fap::message::{GetData, parse_get, write_get};
use mqgate_codecs::fap::object::{OpenData, write_open};
use mqgate_codecs::fap::od::{Mqod, ot};
use mqgate_codecs::fap::{
    API_LEN, ApiHeader, FapError, FapErrorKind, FapStructure, Reassembled, SegmentType, parse_api,
    write_api, write_segment,
};
use mqgate_codecs::mq::constants::gmo;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use std::time::Duration;

/// MQCC_FAILED.
const FAILED: i32 = 2;

/// One client conversation after MQCONN.
pub struct Session {
    wire: Wire,
    conv: u32,
    timeout: Duration,
}

/// A message MQGET returned.
#[derive(Clone, Debug)]
pub struct GetReply {
    /// The message descriptor the queue manager returned (version 1).
    pub md: Mqmd,
    /// The message data (for a transmission queue: MQXQH, then the message).
    pub data: Bytes,
    /// The whole MQGET reply as one segment (TSHM, API header, MQMD, MQGMO,
    /// data length, data): the buffer IBM MQ's client exits see.
    pub segment: Vec<u8>,
    /// Where `data` starts in `segment`, bytes (492 for MQMD v1 + MQGMO v4).
    pub data_offset: usize,
}

impl Session {
    pub(super) fn new(wire: Wire, conv: u32, timeout: Duration) -> Session {
        Session {
            wire,
            conv,
            timeout,
        }
    }

    /// Sends verb `t` on handle `hobj` with `params`, waits up to the
    /// session's timeout plus `extra` (a get's wait interval) for its reply.
    /// Returns the reply's API header and the whole reply message.
    /// Errors: CompCode MQCC_FAILED ([`ClientError::Verb`]); the socket; a
    /// reply of another type.
    pub async fn call(
        &mut self,
        verb: &'static str,
        t: SegmentType,
        hobj: i32,
        params: &[u8],
        extra: Duration,
    ) -> Result<(ApiHeader, Reassembled), ClientError> {
        let api = ApiHeader {
            reply_length: u32::try_from(API_LEN + params.len() + (4 << 20)).unwrap_or(u32::MAX),
            comp_code: 0,
            reason: 0,
            hobj,
        };
        let mut body = Vec::with_capacity(API_LEN + params.len());
        write_api(&api, ORDER, &mut body);
        body.extend_from_slice(params);
        self.wire.send_message(&tshm(self.conv, t), &body).await?;
        let m = self.wire.message(verb, self.timeout + extra).await?;
        if m.tsh.segment_type != t.reply() {
            return Err(ClientError::Unexpected {
                expected: t.reply(),
                got: m.tsh.segment_type,
            });
        }
        let (h, _) = parse_api(&m.body, m.tsh.header_len(), m.tsh.byte_order)?;
        if h.comp_code == FAILED {
            return Err(ClientError::Verb {
                verb,
                comp_code: h.comp_code,
                reason: Mqrc(h.reason),
            });
        }
        Ok((h, m))
    }

    /// MQOPEN of local or remote queue `name` with `options` (MQOO_*);
    /// returns the object handle.
    pub async fn open(&mut self, name: &str, options: i32) -> Result<i32, ClientError> {
        let o = OpenData {
            od: Mqod {
                version: 1,
                object_type: ot::Q,
                object_name: padded(name),
                ..Mqod::default()
            },
            options,
            fopa: None,
            fcmi: None,
            rest: &[],
        };
        let mut p = Vec::new();
        write_open(&o, ORDER, &mut p);
        let (h, _) = self
            .call("MQOPEN", SegmentType::MQOPEN, 0, &p, Duration::ZERO)
            .await?;
        Ok(h.hobj)
    }

    /// MQGET from `hobj` under syncpoint, waiting up to `wait_ms` (0 = no
    /// wait), into a buffer of `buffer` bytes, with an MQMD v1 and MQGMO v4
    /// (so the data starts at offset 492 of the reply). `Ok(None)`: 2033
    /// MQRC_NO_MSG_AVAILABLE. Errors: any other failure, and any warning:
    /// 2080 MQRC_TRUNCATED_MSG_FAILED (MQCC_WARNING) for a message longer
    /// than `buffer`, which stays on the queue; a reply whose DataLength is
    /// not the length of its data (2010 MQRC_DATA_LENGTH_ERROR).
    pub async fn get(
        &mut self,
        hobj: i32,
        wait_ms: u32,
        buffer: u32,
    ) -> Result<Option<GetReply>, ClientError> {
        let wait = i32::try_from(wait_ms).unwrap_or(i32::MAX);
        let g = GetData {
            md: Mqmd {
                version: 1,
                ..Mqmd::default()
            },
            md_charset: Charset::Ascii,
            gmo: Mqgmo {
                version: 4,
                options: gmo::SYNCPOINT
                    | gmo::FAIL_IF_QUIESCING
                    | if wait > 0 { gmo::WAIT } else { gmo::NO_WAIT },
                wait_interval: wait,
                // No MsgId/CorrelId matching: the next message in order.
                match_options: 0,
                ..Mqgmo::default()
            },
            length: i32::try_from(buffer).unwrap_or(i32::MAX),
            data: &[],
        };
        let mut p = Vec::new();
        write_get(&g, ORDER, &mut p);
        let extra = Duration::from_millis(u64::from(wait_ms));
        let m = match self
            .call("MQGET", SegmentType::MQGET, hobj, &p, extra)
            .await
        {
            // A warning is no message got: 2080 MQRC_TRUNCATED_MSG_FAILED
            // leaves the message on its queue and returns cut data (IBM MQ
            // "2080 (0820) (RC2080): MQRC_TRUNCATED_MSG_FAILED", MQCC_WARNING);
            // storing that would store a cut copy at every MQGET.
            Ok((h, _)) if h.comp_code != 0 => {
                return Err(ClientError::Verb {
                    verb: "MQGET",
                    comp_code: h.comp_code,
                    reason: Mqrc(h.reason),
                });
            }
            Ok((_, m)) => m,
            Err(ClientError::Verb { reason, .. }) if reason == Mqrc::NO_MSG_AVAILABLE => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let header = m.tsh.header_len();
        let params = m.body.get(API_LEN..).unwrap_or_default();
        let r = parse_get(params, header + API_LEN, m.tsh.byte_order)?;
        // Without MQGMO_ACCEPT_TRUNCATED_MSG a completed get returns the
        // whole message: DataLength is its length. Anything else is a cut
        // copy, which must not be stored and then committed away.
        if usize::try_from(r.length).ok() != Some(r.data.len()) {
            let at = header + API_LEN + params.len() - r.data.len() - 4;
            let n = r.data.len() as i64;
            return Err(ClientError::Protocol(FapError::new(
                FapStructure::MessageData,
                at,
                "DataLength",
                FapErrorKind::OutOfRange {
                    value: i64::from(r.length),
                    min: n,
                    max: n,
                },
            )));
        }
        let in_body = m.body.len() - r.data.len();
        let data = Bytes::copy_from_slice(r.data);
        let md = r.md;
        let mut segment = Vec::with_capacity(header + m.body.len());
        write_segment(&m.tsh, &m.body, &mut segment);
        Ok(Some(GetReply {
            md,
            data,
            segment,
            data_offset: header + in_body,
        }))
    }

    /// MQCMIT: the gets under syncpoint leave the queue manager.
    pub async fn commit(&mut self) -> Result<(), ClientError> {
        self.simple("MQCMIT", SegmentType::MQCMIT).await
    }

    /// MQBACK: the gets under syncpoint go back to the queue.
    pub async fn backout(&mut self) -> Result<(), ClientError> {
        self.simple("MQBACK", SegmentType::MQBACK).await
    }

    /// MQDISC (a queue manager commits what is not committed yet, IBM MQ
    /// "MQDISC"; a connection that ends without one is backed out).
    pub async fn disconnect(&mut self) -> Result<(), ClientError> {
        self.simple("MQDISC", SegmentType::MQDISC).await
    }

    async fn simple(&mut self, verb: &'static str, t: SegmentType) -> Result<(), ClientError> {
        self.call(verb, t, 0, &[], Duration::ZERO).await.map(|_| ())
    }
}
