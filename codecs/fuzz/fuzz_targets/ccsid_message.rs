//! Fuzz MQ message data conversion: no input panics, and a refused message
//! comes back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::ccsid::{Options, convert_message};

mod common;

const TARGETS: [(i32, i32); 6] = [
    (819, 546),
    (37, 273),
    (500, 273),
    (1208, 546),
    (1200, 546),
    (1140, 785),
];

fuzz_target!(|data: &[u8]| {
    let Some((&t, rest)) = data.split_first() else {
        return;
    };
    let (opts, msg) = common::options(rest);
    let (ccsid, encoding) = TARGETS[usize::from(t) % TARGETS.len()];
    let r = convert_message(msg, &opts, ccsid, encoding, &Options::default());
    if r.reason.is_some_and(|m| m.0 == 2119) {
        assert!(r.data == msg, "a refused message changed");
    }
});
