//! SBS_DEREGISTER_REQ and SBS_DEREGISTER_RESP (BEA MessageQ `p_msg.h`
//! V4.0-08; Programmer's Guide, "Deregistering from Receiving Broadcast
//! Messages").
//!
//! A deregistration names the MOT and the queue; with the `reg_id` of a
//! SBS_REGISTER_RESP it removes that registration only, otherwise every
//! registration of the queue for the MOT. Note the field orders: `reg_id`
//! comes before `req_ack` in the request, and the response has `status`
//! before `user_tag` (unlike SBS_REGISTER_RESP).

use super::mot_check::check_mot;
use crate::pams::address::{Mot, QAddress};
use crate::pams::error::{Structure, WireError};
use crate::pams::status::SbsStatus;
use crate::pams::wire::wire_struct;

wire_struct! {
    /// SBS_DEREGISTER_REQ: 24 bytes. Decoding checks that `mot` is 4000-6000
    /// (`NotAMot`, answered with PSYM_SBS_BADPARAM).
    pub struct DeregisterReq: Structure::DeregisterReq, size 24, check DeregisterReq::check {
        /// `version` (the samples send 40).
        version: i32 = 0,
        /// `user_tag`, echoed in SBS_DEREGISTER_RESP.
        user_tag: i32 = 4,
        /// `mot`: the MOT number.
        mot: i32 = 8,
        /// `distribution_q`: the registered queue.
        distribution_q: QAddress = 12,
        /// `reg_id`: the registration to remove (from SBS_REGISTER_RESP).
        reg_id: i32 = 16,
        /// `req_ack`: nonzero asks for SBS_DEREGISTER_RESP.
        req_ack: i32 = 20,
    }
}

impl DeregisterReq {
    fn check(&self) -> Result<(), WireError> {
        check_mot(
            Structure::DeregisterReq,
            "mot",
            8,
            i64::from(self.mot),
            Some(self.user_tag),
        )
    }

    /// The MOT, when `mot` is in 4000-6000 (always, for a decoded request).
    pub fn as_mot(&self) -> Option<Mot> {
        Mot::new(i64::from(self.mot)).ok()
    }

    /// True when `req_ack` is nonzero.
    pub fn wants_ack(&self) -> bool {
        self.req_ack != 0
    }
}

wire_struct! {
    /// SBS_DEREGISTER_RESP: 16 bytes.
    pub struct DeregisterResp: Structure::DeregisterResp, size 16 {
        /// `version`.
        version: i32 = 0,
        /// `status`: PSYM_SBS_SUCCESS 1, PSYM_SBS_NOMATCH 1012, …
        status: SbsStatus = 4,
        /// `user_tag` of the request.
        user_tag: i32 = 8,
        /// `number_reg`: registrations left for the MOT and queue.
        number_reg: i32 = 12,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn layouts() {
        assert_contiguous(DeregisterReq::LAYOUT, 24);
        assert_contiguous(DeregisterResp::LAYOUT, 16);
        assert_eq!(DeregisterReq::LAYOUT[4], ("reg_id", 16, 4));
        assert_eq!(DeregisterResp::LAYOUT[1], ("status", 4, 4));
    }
}
