//! Fuzz every CCSID pair and policy. Every documented error is an expected
//! result (docs/ccsid.md: `Invalid`, `Truncated`, `UnpairedSurrogate`,
//! `Unmappable`); a finding is a panic or a broken invariant:
//!
//! - a supported CCSID is accepted, and substitution never fails;
//! - an error names an offset inside the input, where the offending
//!   character starts: the input before it converts, `Invalid` names the
//!   byte found there, `Truncated` is the lone last byte of an odd-length
//!   input, `UnpairedSurrogate` is at an even offset;
//! - the input fed in two blocks (cut where the fuzzer says) to a
//!   `StreamConverter` gives the same bytes, substitutions and error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, StreamConverter, convert, supported,
};

fuzz_target!(|data: &[u8]| {
    let [a, b, sel, cut, rest @ ..] = data else {
        return;
    };
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
    let options = Options {
        newline,
        on_unmappable: if substitute {
            OnUnmappable::Substitute
        } else {
            OnUnmappable::Fail
        },
    };
    let whole = convert(rest, from, to, &options).map(|e| (e.bytes, e.substitutions));
    if let Err(e) = &whole {
        assert!(!substitute, "substitution failed: {e}");
        let Some(at) = e.offset() else {
            panic!("an error without an offset for a supported pair: {e}");
        };
        assert!(
            at < rest.len(),
            "{e}: offset outside the {}-byte input",
            rest.len()
        );
        assert!(
            convert(&rest[..at], from, to, &options).is_ok(),
            "{e}: the input before the offset fails too"
        );
        let _ = e.to_string();
        assert_eq!(e.mqrc().0, 2119);
        match *e {
            ConvertError::Invalid { byte, .. } => assert_eq!(byte, rest[at], "{e}"),
            ConvertError::Truncated { .. } => {
                assert!(at + 1 == rest.len() && at % 2 == 0, "{e}")
            }
            ConvertError::UnpairedSurrogate { unit, .. } => {
                assert!(at % 2 == 0 && (0xD800..=0xDFFF).contains(&unit), "{e}")
            }
            ConvertError::Unmappable { .. } => {}
            ConvertError::UnknownCcsid { .. } => unreachable!("has no offset"),
        }
    }
    let cut = usize::from(*cut).min(rest.len());
    let mut stream = StreamConverter::new(from, to, &options);
    let mut out = Vec::new();
    let streamed = stream
        .feed(&rest[..cut], &mut out)
        .and_then(|()| stream.feed(&rest[cut..], &mut out))
        .and_then(|()| stream.finish(&mut out))
        .map(|subs| (out, subs));
    assert_eq!(streamed, whole, "the stream cut at {cut} differs");
});
