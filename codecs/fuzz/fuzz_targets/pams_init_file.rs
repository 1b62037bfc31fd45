//! Fuzz the MessageQ group initialization file reader: no panic on any text,
//! and every error points at a place in the input (1-based line, column in
//! characters, or just after a line's last character). Invalid UTF-8 is read
//! lossily, as text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::pams::init_file::InitFile;

mod text_pos;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = InitFile::parse(&text) {
        assert!(
            text_pos::Lines::new(&text)
                .at(e.pos.line, e.pos.column)
                .is_some(),
            "{e}: {} is not in the text",
            e.pos
        );
        let _ = e.to_string();
    }
});
