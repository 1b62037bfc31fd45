//! Fuzz the MessageQ SBS codecs: no panic on any body, an error names an
//! offset inside the body (0 for an empty one), and every body a decoder
//! accepts encodes back to the same bytes. The first two input bytes pick the
//! message type (one of the SBS types, or the raw value) and the byte order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::pams::sbs::{SbsMessage, SbsType, detect_endian};
use mqgate_codecs::pams::{Endian, ShowBuffer, WireErrorKind};

fuzz_target!(|data: &[u8]| {
    let [sel, order, body @ ..] = data else {
        return;
    };
    let types = SbsType::ALL;
    let msg_type = match types.get(usize::from(*sel)) {
        Some(t) => t.code(),
        None => i16::from_be_bytes([*sel, *order]),
    };
    let endian = if order & 1 == 0 { Endian::Little } else { Endian::Big };
    let _ = detect_endian(msg_type, body);
    match SbsMessage::decode(msg_type, body, endian) {
        Err(e) => {
            assert!(
                e.offset < body.len() || e.offset == 0,
                "{e}: offset outside the {}-byte body",
                body.len()
            );
            let _ = e.to_string();
            let _ = (e.sbs_status(), e.pams_status());
        }
        Ok(m) => match m.encode(endian) {
            Ok(bytes) => assert_eq!(bytes, body),
            Err(e) => assert!(matches!(
                e.kind,
                WireErrorKind::RuleCountOutOfRange { rule_count: 256, .. }
            )),
        },
    }
    match ShowBuffer::decode_prefix(body, endian) {
        Ok(sb) => assert_eq!(sb.encode_prefix(endian, body.len()).unwrap(), body),
        Err(e) => assert!(
            e.offset < body.len() || e.offset == 0,
            "show buffer: {e}: offset outside the {}-byte body",
            body.len()
        ),
    }
});
