//! SBS_STATUS_REQ, SBS_STATUS_RESP and the records inside the response's data
//! (BEA MessageQ `p_msg.h` V4.0-08; the BEA sample `x_sbstat.c` reads them).
//!
//! SBS_STATUS_RESP is a 20-byte head (`version, user_tag, status, num_rec,
//! last_block`) and up to 31988 bytes of `data` holding `num_rec` per-MOT
//! records ([`StatusRespMot`], 152 bytes each) followed by registered-queue and
//! per-group records ([`StatusRespGroup`]). How those records interleave is
//! not documented, so mqgate keeps `data` as bytes and decodes single records
//! at offsets the caller chooses.

use crate::pams::endian::Endian;
use crate::pams::error::{Field, Structure, WireError, WireErrorKind};
use crate::pams::status::SbsStatus;
use crate::pams::wire::{WireField, at_least, wire_struct};

wire_struct! {
    /// SBS_STATUS_REQ: 20 bytes, five `int32`.
    pub struct StatusReq: Structure::StatusReq, size 20 {
        /// `version` (the samples send 40).
        version: i32 = 0,
        /// `user_tag`, echoed in SBS_STATUS_RESP.
        user_tag: i32 = 4,
        /// `start_mot`: first MOT to report.
        start_mot: i32 = 8,
        /// `end_mot`: last MOT to report.
        end_mot: i32 = 12,
        /// `reset`: nonzero resets the counters after reporting.
        reset: i32 = 16,
    }
}

/// Size of the SBS_STATUS_RESP head: 20 bytes.
pub const STATUS_RESP_HEAD_SIZE: usize = 20;
/// Size of SBS_STATUS_RESP `data`: 31988 bytes.
pub const STATUS_RESP_DATA_SIZE: usize = 31988;
/// Largest SBS_STATUS_RESP: 32008 bytes.
pub const STATUS_RESP_MAX_SIZE: usize = STATUS_RESP_HEAD_SIZE + STATUS_RESP_DATA_SIZE;

/// A decoded SBS_STATUS_RESP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusResp {
    /// `version`.
    pub version: i32,
    /// `user_tag` of the request.
    pub user_tag: i32,
    /// `status`.
    pub status: SbsStatus,
    /// `num_rec`: number of MOT records in `data`.
    pub num_rec: i32,
    /// `last_block`: nonzero in the last response of a series.
    pub last_block: i32,
    /// `data`, as many bytes as the body has after the head (at most 31988).
    pub data: Vec<u8>,
}

impl StatusResp {
    /// Decodes a body in `endian`.
    ///
    /// Errors: `Truncated` below 20 bytes, `TooLong` above 32008,
    /// `NumRecOutOfRange` when `num_rec` is negative or more 152-byte MOT
    /// records than `data` holds.
    pub fn decode(body: &[u8], endian: Endian) -> Result<Self, WireError> {
        let s = Structure::StatusResp;
        at_least(s, body, STATUS_RESP_HEAD_SIZE, endian)?;
        let tag = |e: WireError| e.with_user_tag_from(body, endian);
        if body.len() > STATUS_RESP_MAX_SIZE {
            return Err(tag(WireError::new(
                s,
                Field::Whole,
                STATUS_RESP_MAX_SIZE,
                WireErrorKind::TooLong {
                    max: STATUS_RESP_MAX_SIZE,
                    available: body.len(),
                },
            )));
        }
        let int = |off: usize| endian.read_i32(body, off).unwrap_or(0);
        let data = body.get(STATUS_RESP_HEAD_SIZE..).unwrap_or_default();
        let num_rec = int(12);
        let max = data.len() / StatusRespMot::SIZE;
        if usize::try_from(num_rec).map_or(true, |n| n > max) {
            return Err(tag(WireError::new(
                s,
                Field::Named("num_rec"),
                12,
                WireErrorKind::NumRecOutOfRange { num_rec, max },
            )));
        }
        Ok(StatusResp {
            version: int(0),
            user_tag: int(4),
            status: SbsStatus(int(8)),
            num_rec,
            last_block: int(16),
            data: data.to_vec(),
        })
    }

    /// Encodes the head and `data`.
    ///
    /// Errors: `TooLong` when `data` exceeds 31988 bytes.
    pub fn encode(&self, endian: Endian) -> Result<Vec<u8>, WireError> {
        if self.data.len() > STATUS_RESP_DATA_SIZE {
            return Err(WireError::new(
                Structure::StatusResp,
                Field::Named("data"),
                STATUS_RESP_HEAD_SIZE,
                WireErrorKind::TooLong {
                    max: STATUS_RESP_MAX_SIZE,
                    available: STATUS_RESP_HEAD_SIZE + self.data.len(),
                },
            ));
        }
        let mut out = Vec::with_capacity(STATUS_RESP_HEAD_SIZE + self.data.len());
        for v in [
            self.version,
            self.user_tag,
            self.status.0,
            self.num_rec,
            self.last_block,
        ] {
            out.extend_from_slice(&endian.i32_to(v));
        }
        out.extend_from_slice(&self.data);
        Ok(out)
    }

    /// The record of type `T` at byte `offset` of `data`.
    ///
    /// Errors: `Truncated` (offsets counted from the start of the body) when
    /// `data` ends before the record does.
    pub fn record_at<T: WireField>(
        &self,
        offset: usize,
        structure: Structure,
        endian: Endian,
    ) -> Result<T, WireError> {
        let end = offset.saturating_add(T::SIZE);
        match self.data.get(offset..end) {
            Some(b) => Ok(T::read(b, endian)),
            None => Err(WireError::new(
                structure,
                Field::Whole,
                STATUS_RESP_HEAD_SIZE.saturating_add(offset),
                WireErrorKind::Truncated {
                    needed: T::SIZE,
                    available: self.data.len().saturating_sub(offset),
                },
            )),
        }
    }

    /// The `index`-th MOT record, counting 152-byte records from the start of
    /// `data` (as `x_sbstat.c` reads the first one).
    ///
    /// Errors: `Truncated` when `data` ends first.
    pub fn mot_record(&self, index: usize, endian: Endian) -> Result<StatusRespMot, WireError> {
        self.record_at(
            index.saturating_mul(StatusRespMot::SIZE),
            Structure::StatusRespMot,
            endian,
        )
    }
}

wire_struct! {
    /// One Ethernet rail's counters inside [`StatusRespMot`]: 44 bytes.
    pub struct RailStats: Structure::StatusRespMot, size 44 {
        /// `device_name`: the Ethernet device, 16 characters.
        device_name: [u8; 16] = 0,
        /// `fail_tod.tv_sec`: time of the last failure, seconds.
        fail_tod_sec: u32 = 16,
        /// `fail_tod.tv_usec`: microseconds of the same time.
        fail_tod_usec: u32 = 20,
        /// `msgs_sent`.
        msgs_sent: i32 = 24,
        /// `bytes_sent`.
        bytes_sent: i32 = 28,
        /// `pkts_sent`.
        pkts_sent: i32 = 32,
        /// `pkts_rcvd`.
        pkts_rcvd: i32 = 36,
        /// `dupl_pkts_disc`: duplicate packets discarded.
        dupl_pkts_disc: i32 = 40,
    }
}

wire_struct! {
    /// SBS_STATUS_RESP_MOT: one MOT's status, 152 bytes.
    pub struct StatusRespMot: Structure::StatusRespMot, size 152 {
        /// `mot`.
        mot: i32 = 0,
        /// `transport`: a 20-byte union — UDP (`inet_addr` 4 bytes, `inet_port`
        /// 2 bytes), Ethernet (`mca_addr[12]`, `protocol[4]`) or unused (DMQ).
        transport: [u8; 20] = 4,
        /// `heartbeat_timer`.
        heartbeat_timer: i32 = 24,
        /// `xmit_silo`.
        xmit_silo: i32 = 28,
        /// `rcv_silo`.
        rcv_silo: i32 = 32,
        /// `rcv_silo_max`.
        rcv_silo_max: i32 = 36,
        /// `num_reg`: registrations for the MOT.
        num_reg: i32 = 40,
        /// `complete_rcvd`.
        complete_rcvd: i32 = 44,
        /// `complete_bytes`.
        complete_bytes: i32 = 48,
        /// `seq_gaps`.
        seq_gaps: i32 = 52,
        /// `whole_msg_gaps`.
        whole_msg_gaps: i32 = 56,
        /// `whole_silo_gap`.
        whole_silo_gap: i32 = 60,
        /// `rail[0]` (PSYM_SBS_RAIL_A).
        rail_a: RailStats = 64,
        /// `rail[1]` (PSYM_SBS_RAIL_B).
        rail_b: RailStats = 108,
    }
}

impl StatusRespMot {
    /// The UDP view of `transport`: the IPv4 address bytes and the port read
    /// in `endian`.
    pub fn udp(&self, endian: Endian) -> ([u8; 4], u16) {
        let t = &self.transport;
        ([t[0], t[1], t[2], t[3]], endian.u16_from([t[4], t[5]]))
    }

    /// The Ethernet view of `transport`: the multicast address text (12
    /// bytes) and the protocol (4 bytes), as stored.
    pub fn ethernet(&self) -> ([u8; 12], [u8; 4]) {
        let mut mca = [0u8; 12];
        let mut protocol = [0u8; 4];
        mca.copy_from_slice(&self.transport[..12]);
        protocol.copy_from_slice(&self.transport[12..16]);
        (mca, protocol)
    }
}

wire_struct! {
    /// SBS_STATUS_RESP_GROUP: one remote group's retransmission counters, 24 bytes.
    pub struct StatusRespGroup: Structure::StatusRespGroup, size 24 {
        /// `group`.
        group: i32 = 0,
        /// `rexmit_reqs_to_remote`.
        rexmit_reqs_to_remote: i32 = 4,
        /// `rexmit_sat_by_remote`.
        rexmit_sat_by_remote: i32 = 8,
        /// `late_rexmit`.
        late_rexmit: i32 = 12,
        /// `rexmit_reqs_from_remote`.
        rexmit_reqs_from_remote: i32 = 16,
        /// `rexmit_sat_by_local`.
        rexmit_sat_by_local: i32 = 20,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn layouts() {
        assert_contiguous(StatusReq::LAYOUT, 20);
        assert_contiguous(RailStats::LAYOUT, 44);
        assert_contiguous(StatusRespMot::LAYOUT, 152);
        assert_contiguous(StatusRespGroup::LAYOUT, 24);
        assert_eq!(STATUS_RESP_MAX_SIZE, 32008);
    }
}
