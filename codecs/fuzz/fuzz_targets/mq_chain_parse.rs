//! Fuzz the MQ header chain parser and every typed decoder it leads to:
//! no panic on any input, and the index it returns stays inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::mq::{Header, parse_chain};

mod common;

fuzz_target!(|data: &[u8]| {
    let (opts, msg) = common::options(data);
    let chain = match parse_chain(msg, &opts) {
        Ok(c) => c,
        Err(e) => {
            assert!(e.error.offset <= msg.len() + 8);
            assert!(e.partial.body_offset <= msg.len());
            let _ = e.to_string();
            let _ = e.error.mqrc();
            *Box::new(e.partial)
        }
    };
    let mut pos = 0;
    for l in &chain.links {
        assert_eq!(l.offset, pos);
        pos += l.length;
        assert!(pos <= msg.len());
        match l.decode(msg).expect("a link parse_chain accepted decodes") {
            Header::Rfh(r) => {
                let _ = r
                    .pairs(l.charset)
                    .expect("a scanned NameValueString tokenizes");
            }
            Header::Rfh2(r) => {
                for f in &r.folders {
                    let _ = f.text(r.name_value_ccsid, l.order());
                }
            }
            _ => {}
        }
    }
    assert_eq!(chain.body_offset, pos);
    let _ = chain.body_descriptor.format_name();
});
