//! Message channel frames built by hand (docs/channel-protocol.md
//! "Frames"): a u32 big-endian length of what follows, a type byte, the
//! payload.

/// A frame of type `kind` around `payload`.
pub fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = ((payload.len() + 1) as u32).to_be_bytes().to_vec();
    f.push(kind);
    f.extend_from_slice(payload);
    f
}

/// A HELLO (type 0x01) of protocol version 1 for `channel` from sending
/// queue manager `sending_q_mgr` (empty: none): batch size 50, 100000
/// bytes per message, no heartbeats, nothing confirmed yet, no receiving
/// queue manager.
pub fn hello(channel: &str, sending_q_mgr: &str) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&1u16.to_be_bytes());
    p.extend_from_slice(&50u32.to_be_bytes());
    p.extend_from_slice(&100_000u32.to_be_bytes());
    p.extend_from_slice(&0u32.to_be_bytes());
    p.extend_from_slice(&0u64.to_be_bytes());
    for s in [channel, sending_q_mgr, ""] {
        p.extend_from_slice(&(s.len() as u16).to_be_bytes());
        p.extend_from_slice(s.as_bytes());
    }
    frame(0x01, &p)
}
