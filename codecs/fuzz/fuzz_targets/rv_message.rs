//! Fuzz mqgate's binary form of a Rendezvous message (docs/rendezvous.md
//! "Messages"; envelopes come from queues, ledgers and other gateways). The
//! first input byte picks the limits (default, or small ones so that the
//! nesting, field-count and size checks are met); the rest is the envelope.
//! A finding is a panic or a broken invariant:
//!
//! - an error names an offset inside the envelope bytes (0 for an empty
//!   input) and a `tibrv_status` with a name;
//! - an envelope that reads writes back to exactly the bytes it was read
//!   from, and `encoded_len` is their length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::rv::msg::{Envelope, Limits};

fuzz_target!(|data: &[u8]| {
    let (limits, input) = match data.split_first() {
        Some((sel, rest)) if sel & 1 == 1 => (
            Limits {
                max_bytes: usize::from(sel >> 1) * 64,
                max_depth: usize::from(sel >> 5) + 1,
                max_fields: usize::from(sel >> 2),
            },
            rest,
        ),
        Some((_, rest)) => (Limits::default(), rest),
        None => (Limits::default(), data),
    };
    match Envelope::decode(input, &limits) {
        Err(e) => {
            assert!(
                e.offset < input.len() || (input.is_empty() && e.offset == 0),
                "{e}: offset outside the {}-byte input",
                input.len()
            );
            assert!(e.status().name().is_some(), "{e}: status without a name");
            let _ = e.to_string();
        }
        Ok(env) => {
            assert_eq!(env.encoded_len(), input.len(), "encoded_len differs");
            let out = env.encode(&limits).expect("a decoded envelope encodes");
            assert!(out == input, "encode(decode(b)) changed the bytes");
        }
    }
});
