//! SOCKET_ACTION (segment type 0x0C), 20 bytes after the header (the
//! Wireshark MQ dissector's "Socket Action"): ConversationId, RequestId,
//! Type, Parm1, Parm2, integers in ByteOrder. A client sends it under a
//! TSHC to start (Type 1) or end (Type 2) a shared conversation on its
//! socket; the queue manager answers a start under a TSHM of the new
//! conversation with Type 8. The meaning of Parm1 and Parm2 is not
//! published; docs/mq-client-protocol.md lists the values seen.

use crate::mq::ByteOrder;

use super::error::{FapError, FapStructure};
use super::read::{Reader, Writer};

/// Length of the SOCKET_ACTION body, bytes.
pub const SOCKET_ACTION_LEN: usize = 20;

/// Type 1: the client starts a new conversation (ConversationId = its id).
pub const START_CONVERSATION: i32 = 1;
/// Type 2: the client ends a conversation.
pub const END_CONVERSATION: i32 = 2;
/// Type 8: the queue manager accepts a new conversation.
pub const CONVERSATION_ACCEPTED: i32 = 8;

/// A SOCKET_ACTION body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketAction {
    pub conversation_id: i32,
    pub request_id: i32,
    pub action_type: i32,
    pub parm1: i32,
    pub parm2: i32,
}

/// Parses a SOCKET_ACTION body (`base` = its offset in the segment).
/// Errors: truncated, or bytes after the 20.
pub fn parse_socket_action(
    body: &[u8],
    base: usize,
    order: ByteOrder,
) -> Result<SocketAction, FapError> {
    let mut r = Reader::new(body, base, FapStructure::SocketAction, order);
    let s = SocketAction {
        conversation_id: r.i32("ConversationId")?,
        request_id: r.i32("RequestId")?,
        action_type: r.i32("Type")?,
        parm1: r.i32("Parm1")?,
        parm2: r.i32("Parm2")?,
    };
    r.end()?;
    Ok(s)
}

/// Appends `s` to `out`, integers in `order`.
pub fn write_socket_action(s: &SocketAction, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    for v in [
        s.conversation_id,
        s.request_id,
        s.action_type,
        s.parm1,
        s.parm2,
    ] {
        w.i32(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_conversation_start() {
        // A JMS client starting conversation 3 on its socket (tshark:
        // "Type=1, P1=1, P2=2"), little-endian.
        let b = hex::decode("0300000000000000010000000100000002000000").unwrap();
        let s = parse_socket_action(&b, 28, ByteOrder::Little).unwrap();
        assert_eq!(
            s,
            SocketAction {
                conversation_id: 3,
                request_id: 0,
                action_type: START_CONVERSATION,
                parm1: 1,
                parm2: 2
            }
        );
        let mut out = Vec::new();
        write_socket_action(&s, ByteOrder::Little, &mut out);
        assert_eq!(out, b);
        assert!(parse_socket_action(&b[..19], 28, ByteOrder::Little).is_err());
    }
}
