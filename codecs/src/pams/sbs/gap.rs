//! SBS_SEQUENCE_GAP (BEA MessageQ `p_msg.h` V4.0-08): the notice a registered
//! queue gets when the SBS server detects lost broadcasts on a stream, if it
//! asked for it (`seq_gap_notify`). Broadcasts are not recoverable.

use crate::pams::error::Structure;
use crate::pams::wire::wire_struct;

wire_struct! {
    /// SBS_SEQUENCE_GAP: 16 bytes, four `int32`.
    pub struct SequenceGap: Structure::SequenceGap, size 16 {
        /// `num_msgs_missing`: how many messages were lost.
        num_msgs_missing: i32 = 0,
        /// `sender_group`: the group whose stream has the gap.
        sender_group: i32 = 4,
        /// `mot`: the MOT.
        mot: i32 = 8,
        /// `channel`: where the MOT came from (the SBS server or an Ethernet channel).
        channel: i32 = 12,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn layout() {
        crate::pams::wire::assert_contiguous(super::SequenceGap::LAYOUT, 16);
    }
}
