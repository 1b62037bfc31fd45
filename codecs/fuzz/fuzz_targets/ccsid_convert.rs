//! Fuzz every CCSID pair: no input panics; substitution never fails; an
//! error names an offset inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, convert, supported,
};

fuzz_target!(|data: &[u8]| {
    let [a, b, sel, rest @ ..] = data else { return };
    let list = supported();
    let pick = |x: u8| i32::from(list[usize::from(x) % list.len()]);
    let encoding = if sel & 1 == 0 { 273 } else { 546 };
    let (Ok(from), Ok(to)) = (
        Ccsid::with_encoding(pick(*a), encoding),
        Ccsid::with_encoding(pick(*b), encoding),
    ) else {
        panic!("a supported CCSID was refused");
    };
    let newline = match (sel >> 1) % 3 {
        0 => NewlinePolicy::NlToLf,
        1 => NewlinePolicy::Table,
        _ => NewlinePolicy::Iso,
    };
    let substitute = sel & 0x10 != 0;
    let on_unmappable = if substitute {
        OnUnmappable::Substitute
    } else {
        OnUnmappable::Fail
    };
    match convert(
        rest,
        from,
        to,
        &Options {
            newline,
            on_unmappable,
        },
    ) {
        Ok(_) => {}
        Err(ConvertError::Invalid { offset, .. } | ConvertError::Unmappable { offset, .. }) => {
            assert!(!substitute, "substitution failed");
            assert!(offset < rest.len(), "offset {offset} outside the input");
        }
        Err(e) => panic!("unexpected error {e}"),
    }
});
