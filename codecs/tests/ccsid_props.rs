//! Property tests: the direct single-byte path agrees with going through
//! text, round trips hold, and no input makes a converter panic.

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, convert, convert_message, decode,
    decode_lossy, encode, supported,
};
use mqgate_codecs::mq::chain::ChainOptions;
use proptest::prelude::*;

fn sbcs() -> Vec<i32> {
    supported()
        .into_iter()
        .map(i32::from)
        .filter(|&n| Ccsid::new(n).unwrap().sbcs_table().is_some())
        .collect()
}

fn any_ccsid() -> impl Strategy<Value = i32> {
    proptest::sample::select(supported().into_iter().map(i32::from).collect::<Vec<_>>())
}

fn sbcs_ccsid() -> impl Strategy<Value = i32> {
    proptest::sample::select(sbcs())
}

fn policy() -> impl Strategy<Value = NewlinePolicy> {
    // ISO depends on the other side, which `decode`/`encode` alone do not
    // have, so the comparison with the text path uses the other two.
    prop_oneof![Just(NewlinePolicy::NlToLf), Just(NewlinePolicy::Table)]
}

proptest! {
    #[test]
    fn direct_sbcs_path_equals_the_text_path(
        input in proptest::collection::vec(any::<u8>(), 0..300),
        from in sbcs_ccsid(),
        to in sbcs_ccsid(),
        newline in policy(),
    ) {
        let (f, t) = (Ccsid::new(from).unwrap(), Ccsid::new(to).unwrap());
        for on_unmappable in [OnUnmappable::Fail, OnUnmappable::Substitute] {
            let o = Options { newline, on_unmappable };
            let direct = convert(&input, f, t, &o);
            let via = decode(&input, f, &o).and_then(|d| encode(&d.text, t, &o));
            // Same bytes, or both refuse (the direct path names the first bad
            // byte of either kind, the text path the first undefined one).
            match (direct, via) {
                (Ok(d), Ok(v)) => prop_assert_eq!(d.bytes, v.bytes),
                (Err(_), Err(_)) => {}
                (d, v) => prop_assert!(false, "direct {:?} vs text {:?}", d, v),
            }
        }
    }

    #[test]
    fn sbcs_utf8_byte_paths_equal_the_text_api(
        input in proptest::collection::vec(any::<u8>(), 0..300),
        ccsid in sbcs_ccsid(),
        newline in policy(),
        substitute in any::<bool>(),
    ) {
        let on_unmappable = if substitute { OnUnmappable::Substitute } else { OnUnmappable::Fail };
        let o = Options { newline, on_unmappable };
        let (c, utf8) = (Ccsid::new(ccsid).unwrap(), Ccsid::new(1208).unwrap());
        let bytes = convert(&input, c, utf8, &o).map(|e| e.bytes);
        prop_assert_eq!(bytes.clone(), decode(&input, c, &o).map(|d| d.text.into_bytes()));
        // And back, also from arbitrary (possibly invalid) UTF-8. The first
        // error in input order: a character before a malformed sequence
        // that the set lacks is reported first (which a stream converted
        // block by block can know; a later malformed byte it cannot).
        let back = convert(&input, utf8, c, &o).map(|e| e.bytes);
        let text = match decode(&input, utf8, &o) {
            Ok(d) => encode(&d.text, c, &o).map(|e| e.bytes),
            Err(bad @ ConvertError::Invalid { offset, .. }) => {
                let head = decode(&input[..offset], utf8, &o).unwrap();
                encode(&head.text, c, &o).and(Err(bad))
            }
            Err(e) => Err(e),
        };
        prop_assert_eq!(back, text);
    }

    #[test]
    fn sbcs_to_unicode_and_back_is_the_identity_for_defined_bytes(
        input in proptest::collection::vec(any::<u8>(), 0..300),
        from in sbcs_ccsid(),
        newline in policy(),
        utf in proptest::sample::select(vec![1208, 1200, 13488]),
        encoding in proptest::sample::select(vec![273, 546]),
    ) {
        let o = Options { newline, on_unmappable: OnUnmappable::Fail };
        let f = Ccsid::new(from).unwrap();
        let u = Ccsid::with_encoding(utf, encoding).unwrap();
        if let Ok(there) = convert(&input, f, u, &o) {
            prop_assert_eq!(convert(&there.bytes, u, f, &o).unwrap().bytes, input);
        }
    }

    #[test]
    fn no_input_panics_any_converter(
        input in proptest::collection::vec(any::<u8>(), 0..200),
        from in any_ccsid(),
        to in any_ccsid(),
        substitute in any::<bool>(),
        encoding in proptest::sample::select(vec![273, 546]),
    ) {
        let on_unmappable = if substitute { OnUnmappable::Substitute } else { OnUnmappable::Fail };
        for newline in [NewlinePolicy::NlToLf, NewlinePolicy::Table, NewlinePolicy::Iso] {
            let o = Options { newline, on_unmappable };
            let f = Ccsid::with_encoding(from, encoding).unwrap();
            let t = Ccsid::with_encoding(to, encoding).unwrap();
            let r = convert(&input, f, t, &o);
            if substitute {
                prop_assert!(r.is_ok());
            }
            if let Err(
                ConvertError::Invalid { offset, .. }
                | ConvertError::Unmappable { offset, .. }
                | ConvertError::Truncated { offset, .. }
                | ConvertError::UnpairedSurrogate { offset, .. },
            ) = r
            {
                prop_assert!(offset < input.len());
            }
        }
        prop_assert!(decode_lossy(&input, from, encoding).is_ok());
    }

    #[test]
    fn no_message_panics_convert_message(
        input in proptest::collection::vec(any::<u8>(), 0..700),
        target in any_ccsid(),
        encoding in proptest::sample::select(vec![273, 546]),
    ) {
        let r = convert_message(&input, &ChainOptions::default(), target, encoding, &Options::default());
        if r.reason.is_some_and(|m| m.0 == 2119) {
            prop_assert_eq!(r.data, input);
        }
    }
}
