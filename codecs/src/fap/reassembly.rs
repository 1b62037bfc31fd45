//! Messages split over several segments: the first carries ControlFlags1
//! FIRST, the last LAST, those between neither; a message in one segment has
//! both. Only MQI verbs and replies (types 0x80 and up) are ever split: the
//! handshake segments (types below 0x80) are whole and their ControlFlags1
//! carries other flags (a queue manager's INITIAL_DATA reply has neither
//! FIRST nor LAST). The Wireshark MQ dissector reassembles the same way
//! (packet-mq.c).
//! Each conversation of a socket reassembles on its own; the total is
//! checked against a maximum before anything is appended.

use std::collections::HashMap;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::segment::Segment;
use super::tsh::{Tsh, tcf};

/// A message whose segments are all in: the header of its first segment
/// (SegmentLength as received) and the bodies joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reassembled {
    pub tsh: Tsh,
    pub body: Vec<u8>,
}

/// Joins the segments of each conversation (TSHM ConversationId) into
/// messages of at most `max` body bytes.
#[derive(Debug)]
pub struct Reassembler {
    max: usize,
    partial: HashMap<u32, Reassembled>,
}

impl Reassembler {
    /// A reassembler for messages of at most `max` bytes after the first
    /// segment's header.
    pub fn new(max: usize) -> Reassembler {
        Reassembler {
            max,
            partial: HashMap::new(),
        }
    }

    /// Takes one segment: `Ok(Some(message))` when it completes a message
    /// (a handshake segment, a single FIRST|LAST segment, or the LAST of
    /// several), `Ok(None)` while more are expected.
    ///
    /// Errors ([`FapStructure::Segment`]): a segment without FIRST while
    /// nothing is being reassembled, or with FIRST while a message is
    /// ([`FapErrorKind::OutOfSequence`]); a total over the maximum
    /// ([`FapErrorKind::MessageTooLong`]). The conversation's partial
    /// message is dropped on error.
    pub fn push(&mut self, seg: &Segment<'_>) -> Result<Option<Reassembled>, FapError> {
        let conv = seg.tsh.conversation_id;
        if seg.tsh.segment_type.0 < 0x80 {
            if seg.body.len() > self.max {
                return Err(FapError::new(
                    FapStructure::Segment,
                    4,
                    "SegmentLength",
                    FapErrorKind::MessageTooLong {
                        length: seg.body.len(),
                        max: self.max,
                    },
                ));
            }
            return Ok(Some(Reassembled {
                tsh: seg.tsh.clone(),
                body: seg.body.to_vec(),
            }));
        }
        let first = seg.tsh.has(tcf::FIRST);
        let last = seg.tsh.has(tcf::LAST);
        let out_of_sequence = || {
            FapError::new(
                FapStructure::Segment,
                seg.tsh.header_len() - 18,
                "ControlFlags1",
                FapErrorKind::OutOfSequence {
                    control_flags1: seg.tsh.control_flags1,
                },
            )
        };
        let too_long = |length: usize, max: usize| {
            FapError::new(
                FapStructure::Segment,
                4,
                "SegmentLength",
                FapErrorKind::MessageTooLong { length, max },
            )
        };
        match (first, self.partial.contains_key(&conv)) {
            (true, true) => {
                self.partial.remove(&conv);
                Err(out_of_sequence())
            }
            (false, false) => Err(out_of_sequence()),
            (true, false) => {
                if seg.body.len() > self.max {
                    return Err(too_long(seg.body.len(), self.max));
                }
                let m = Reassembled {
                    tsh: seg.tsh.clone(),
                    body: seg.body.to_vec(),
                };
                if last {
                    Ok(Some(m))
                } else {
                    self.partial.insert(conv, m);
                    Ok(None)
                }
            }
            (false, true) => {
                let Some(m) = self.partial.get_mut(&conv) else {
                    return Err(out_of_sequence());
                };
                let total = m.body.len().saturating_add(seg.body.len());
                if total > self.max {
                    self.partial.remove(&conv);
                    return Err(too_long(total, self.max));
                }
                m.body.extend_from_slice(seg.body);
                if last {
                    Ok(self.partial.remove(&conv))
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Drops what conversation `conv` has half received (the conversation
    /// ended).
    pub fn discard(&mut self, conv: u32) {
        self.partial.remove(&conv);
    }

    /// Whether a message of conversation `conv` is half received.
    pub fn in_progress(&self, conv: u32) -> bool {
        self.partial.contains_key(&conv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fap::tsh::{SegmentType, TshKind};

    fn seg(flags: u8, body: &[u8]) -> Segment<'_> {
        let mut tsh = Tsh::new(TshKind::Tshm, SegmentType::MQPUT);
        tsh.conversation_id = 1;
        tsh.control_flags1 = flags;
        Segment { tsh, body }
    }

    #[test]
    fn first_middle_last_join_and_order_is_enforced() {
        let mut r = Reassembler::new(10);
        assert_eq!(r.push(&seg(tcf::FIRST, b"abc")).unwrap(), None);
        assert!(r.in_progress(1));
        assert_eq!(r.push(&seg(0, b"de")).unwrap(), None);
        let m = r.push(&seg(tcf::LAST, b"f")).unwrap().unwrap();
        assert_eq!(m.body, b"abcdef");
        assert!(!r.in_progress(1));
        let e = r.push(&seg(tcf::LAST, b"x")).unwrap_err();
        assert_eq!(
            e.kind,
            FapErrorKind::OutOfSequence {
                control_flags1: 0x20
            }
        );
        // ControlFlags1 is at offset 18 of a TSHM.
        assert_eq!(e.offset, 18);
        assert!(r.push(&seg(tcf::FIRST, b"a")).unwrap().is_none());
        assert!(r.push(&seg(tcf::FIRST, b"a")).is_err());
        assert!(!r.in_progress(1));
        // A conversation that ends leaves nothing behind.
        assert!(r.push(&seg(tcf::FIRST, b"abc")).unwrap().is_none());
        r.discard(1);
        assert!(!r.in_progress(1));
        assert!(r.push(&seg(tcf::LAST, b"x")).is_err());
    }

    #[test]
    fn maximum_is_checked_before_appending() {
        let mut r = Reassembler::new(4);
        assert!(r.push(&seg(tcf::FIRST, b"abc")).unwrap().is_none());
        let e = r.push(&seg(tcf::LAST, b"de")).unwrap_err();
        assert_eq!(e.kind, FapErrorKind::MessageTooLong { length: 5, max: 4 });
        assert_eq!(e.mqrc().0, 2031);
        let one = r
            .push(&seg(tcf::FIRST | tcf::LAST, b"abcd"))
            .unwrap()
            .unwrap();
        assert_eq!(one.body, b"abcd");
        // A queue manager's INITIAL_DATA reply has ControlFlags1 ERROR only.
        let mut id = seg(tcf::ERROR, b"ID  ");
        id.tsh.segment_type = SegmentType::INITIAL_DATA;
        assert!(r.push(&id).unwrap().is_some());
    }
}
