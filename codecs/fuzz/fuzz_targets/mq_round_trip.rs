//! Fuzz the byte-exact round trip: whatever the chain parser accepts must
//! be written back by the typed writers exactly as it was read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::mq::{parse_chain, write_chain};

mod common;

fuzz_target!(|data: &[u8]| {
    let (opts, msg) = common::options(data);
    if let Ok(chain) = parse_chain(msg, &opts) {
        let decoded = chain.decode().expect("an accepted chain decodes");
        let mut out = Vec::with_capacity(msg.len());
        write_chain(&decoded, &mut out);
        assert!(out == msg, "round trip changed the bytes");
    }
});
