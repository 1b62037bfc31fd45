//! Fuzz the MQTT packet codec (`mqtt::frame_len`, `mqtt::decode`,
//! `mqtt::encode`; docs/mqtt.md "The codec"). The first byte chooses the
//! connection's state (before CONNECT, MQTT 3.1.1, MQTT 5.0) and a maximum
//! packet size; the rest is a byte stream cut into packets as the listener
//! cuts it.
//!
//! No panic; `frame_len` never asks for more than the bytes a packet
//! announces and refuses one over the maximum; an error's offset is inside
//! its packet; an accepted packet writes back byte for byte, and
//! `encoded_len` is that length.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use mqgate_codecs::mqtt::{ErrorKind, Level, Packet, decode, encode, encoded_len, frame_len};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, mut rest)) = data.split_first() else {
        return;
    };
    let level = match sel % 3 {
        0 => None,
        1 => Some(Level::V311),
        _ => Some(Level::V5),
    };
    let max = 16usize << (sel >> 4);
    loop {
        let n = match frame_len(rest, max) {
            Ok(Some(n)) => n,
            Ok(None) => return,
            Err(e) => {
                assert!(e.offset <= rest.len());
                if let ErrorKind::TooLarge { size, max: m } = e.kind {
                    assert!(size > m && m == max);
                }
                return;
            }
        };
        assert!(n <= rest.len() && n <= max);
        let frame = Bytes::copy_from_slice(&rest[..n]);
        match decode(frame.clone(), level) {
            Ok(p) => {
                let at = match &p {
                    Packet::Connect(c) => c.level,
                    _ => level.unwrap_or(Level::V311),
                };
                let mut out = Vec::new();
                encode(&p, at, &mut out);
                assert_eq!(out, &frame[..], "written back byte for byte");
                assert_eq!(encoded_len(&p, at), out.len());
            }
            Err(e) => assert!(e.offset <= n, "offset {} in a packet of {n}", e.offset),
        }
        rest = &rest[n..];
    }
});
