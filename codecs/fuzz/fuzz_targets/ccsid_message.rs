//! Fuzz MQ message data conversion, the whole message (`convert_message`) and
//! the data an MQMD describes (`convert_for_get`, MQGET with MQGMO_CONVERT):
//! no input panics, and a refused message comes back byte for byte (every
//! reason but 2110, which may come with converted headers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::ccsid::{Options, convert_for_get, convert_message};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::{CharField, Charset};

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
    if r.reason.is_some_and(|m| m.0 != 2110) {
        assert!(r.data == msg, "a refused message changed");
    }
    let described = Descriptor {
        encoding: opts.encoding.unwrap_or(546),
        coded_char_set_id: opts.ccsid.unwrap_or(819),
        format: opts.format.unwrap_or(CharField(*b"MQHRF2  ")),
        charset: Charset::Ascii,
    };
    let g = convert_for_get(msg, &described, ccsid, encoding, &Options::default());
    if g.reason.is_some_and(|m| m.0 != 2110) {
        assert!(g.data.as_ref() == msg, "a refused message changed");
        assert_eq!(
            (g.encoding, g.coded_char_set_id),
            (described.encoding, described.coded_char_set_id)
        );
    }
});
