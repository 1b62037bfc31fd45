//! Fuzz the dmpmqmsg/qload reader: no panic on any input, errors point inside
//! the input, and what it reads is written back and read again with the same data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::dump::{WriteOptions, parse_dump, write_dump};

fuzz_target!(|data: &[u8]| {
    match parse_dump(data) {
        Err(e) => {
            let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
            assert!(e.line >= 1 && e.line <= lines + 1);
            let _ = e.to_string();
            let _ = e.mqrc();
        }
        Ok(file) => {
            let text = write_dump(&file.header, &file.messages, &WriteOptions::default());
            let back = parse_dump(&text).expect("the writer's output reads back");
            assert_eq!(back.messages.len(), file.messages.len());
            for (a, b) in back.messages.iter().zip(&file.messages) {
                assert_eq!(a.data, b.data);
                assert_eq!(a.md.is_some(), b.md.is_some());
            }
        }
    }
});
