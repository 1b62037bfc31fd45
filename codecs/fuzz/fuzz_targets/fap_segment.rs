//! Fuzz the IBM MQ client-protocol codec (`fap::segment_len`,
//! `fap::parse_segment`, `fap::Reassembler`, `fap::decode_body`,
//! `fap::encode_body`; docs/mq-client-protocol.md). The first byte picks a
//! maximum segment length; the rest is a byte stream cut into segments as
//! the SVRCONN listener cuts it, reassembled and decoded.
//!
//! No panic; `segment_len` never accepts a segment over the maximum; an
//! error's offset is inside its segment; a decoded body writes back byte for
//! byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::fap::{Reassembler, decode_body, encode_body, parse_segment, segment_len};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, mut rest)) = data.split_first() else {
        return;
    };
    let max = 36usize << (sel & 0x0F);
    let mut reasm = Reassembler::new(max * 4);
    loop {
        let n = match segment_len(rest, max) {
            Ok(Some(n)) if n <= rest.len() => n,
            Ok(_) => return,
            Err(e) => {
                assert!(e.offset <= 8);
                return;
            }
        };
        assert!(n <= max);
        let seg = match parse_segment(&rest[..n]) {
            Ok(s) => s,
            Err(e) => {
                assert!(e.offset <= n);
                return;
            }
        };
        if let Ok(Some(m)) = reasm.push(&seg) {
            match decode_body(&m.tsh, &m.body) {
                Ok(b) => {
                    let mut out = Vec::new();
                    encode_body(&b, m.tsh.byte_order, &mut out);
                    assert_eq!(out, m.body, "written back byte for byte");
                }
                Err(e) => assert!(e.offset <= m.tsh.header_len() + m.body.len()),
            }
        }
        rest = &rest[n..];
    }
});
