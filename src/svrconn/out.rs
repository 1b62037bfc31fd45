//! Writing replies: a message longer than the maximum transmission size is
//! split over several segments (FIRST, middle ones, LAST), each with the
//! header of the request it answers (docs/mq-client-protocol.md
//! "Segments").

use bytes::Bytes;
use mqgate_codecs::fap::{SegmentType, Tsh, TshKind, tcf, write_segment};
use mqgate_codecs::mq::ByteOrder;
use tokio::sync::mpsc;

/// Where a connection's segments go: the writer task of its socket.
#[derive(Clone)]
pub struct Out {
    tx: mpsc::Sender<Bytes>,
}

impl Out {
    pub fn new(tx: mpsc::Sender<Bytes>) -> Out {
        Out { tx }
    }

    /// Queues `bytes` (whole segments) for the socket; false once the
    /// socket is gone.
    pub async fn send(&self, bytes: Vec<u8>) -> bool {
        self.tx.send(Bytes::from(bytes)).await.is_ok()
    }
}

/// The header of a reply of type `t` to a request with header `req`:
/// the same kind, ids, byte order, Encoding and CCSID; ControlFlags1
/// FIRST|LAST.
pub fn reply_header(req: &Tsh, t: SegmentType) -> Tsh {
    Tsh {
        segment_type: t,
        control_flags1: tcf::FIRST | tcf::LAST,
        control_flags2: 0,
        luwid: [0; 8],
        reserved: [0; 2],
        ..req.clone()
    }
}

/// A header of `kind` for conversation `conv` in `order`: Encoding 546 and
/// CCSID 819, as a queue manager sends its own segments.
pub fn own_header(kind: TshKind, conv: u32, order: ByteOrder, t: SegmentType, flags: u8) -> Tsh {
    let mut h = Tsh::new(kind, t);
    h.conversation_id = conv;
    h.byte_order = order;
    h.control_flags1 = flags;
    h
}

/// The segments of a message of header `tsh` and body `body`, split so no
/// segment exceeds `max` bytes: FIRST on the first, LAST on the last (both
/// on one), the other flags of `tsh` on each.
pub fn segments(tsh: &Tsh, body: &[u8], max: usize) -> Vec<u8> {
    let room = max.saturating_sub(tsh.header_len()).max(1);
    let mut out = Vec::with_capacity(body.len() + tsh.header_len());
    let chunks: Vec<&[u8]> = if body.is_empty() {
        vec![body]
    } else {
        body.chunks(room).collect()
    };
    let n = chunks.len();
    let split = tsh.segment_type.is_api();
    for (i, c) in chunks.into_iter().enumerate() {
        let mut h = tsh.clone();
        if split {
            h.control_flags1 &= !(tcf::FIRST | tcf::LAST);
            if i == 0 {
                h.control_flags1 |= tcf::FIRST;
            }
            if i + 1 == n {
                h.control_flags1 |= tcf::LAST;
            }
        }
        write_segment(&h, c, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::fap::{Reassembler, parse_segment};

    #[test]
    fn a_long_reply_is_split_and_reassembles() {
        let h = Tsh::new(TshKind::Tshm, SegmentType::MQGET_REPLY);
        let body: Vec<u8> = (0..250u8).collect();
        let b = segments(&h, &body, 136);
        // 100 bytes of body per segment: 3 segments of 136, 136 and 86.
        assert_eq!(b.len(), 250 + 3 * 36);
        let mut r = Reassembler::new(1000);
        let mut at = 0;
        let mut flags = Vec::new();
        let mut whole = None;
        while at < b.len() {
            let s = parse_segment(&b[at..]).unwrap();
            at += s.tsh.segment_length as usize;
            flags.push(s.tsh.control_flags1);
            whole = r.push(&s).unwrap();
        }
        assert_eq!(flags, [tcf::FIRST, 0, tcf::LAST]);
        assert_eq!(whole.unwrap().body, body);
    }
}
