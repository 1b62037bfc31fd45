//! Fuzz the FML32 buffer decoder (docs/tuxedo.md "FML32"; the tpenqueue
//! buffers of the TOP END Domain Gateway come from clients). A finding is a
//! panic or a broken invariant:
//!
//! - an error names an offset inside the input (for an empty input, 0) and
//!   maps to a Ferror32 code with a name;
//! - a buffer that decodes encodes back to exactly the bytes it was read
//!   from (the header's len), and `index_stripped_size` is that length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::tux::fml32::{Fml32Buffer, index_stripped_size};

fuzz_target!(|data: &[u8]| {
    match Fml32Buffer::decode(data) {
        Err(e) => {
            assert!(
                e.offset < data.len() || (data.is_empty() && e.offset == 0),
                "{e}: offset outside the {}-byte input",
                data.len()
            );
            assert!(e.ferror().name().is_some(), "{e}: Ferror32 without a name");
            let _ = e.to_string();
            assert_eq!(index_stripped_size(data), Err(e));
        }
        Ok((buf, used)) => {
            assert!(used <= data.len());
            assert_eq!(
                buf.encoded_len(),
                used,
                "encoded_len differs from the bytes read"
            );
            let mut out = Vec::new();
            buf.encode(&mut out).expect("a decoded buffer encodes");
            assert!(out == data[..used], "encode(decode(b)) changed the bytes");
            assert_eq!(index_stripped_size(data), Ok(used));
        }
    }
});
