//! Fuzz the MessageQ group initialization file reader: no panic on any text,
//! and every error points at a line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::pams::init_file::InitFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = InitFile::parse(text) {
        let lines = text.split('\n').count();
        assert!(e.pos.line >= 1 && e.pos.line <= lines);
        assert!(e.pos.column >= 1);
        let _ = e.to_string();
    }
});
