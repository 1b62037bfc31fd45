//! Fuzz the MessageQ SBS codecs: no panic on any body, and every body a decoder
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
    if let Ok(sb) = ShowBuffer::decode_prefix(body, endian) {
        assert_eq!(sb.encode_prefix(endian, body.len()).unwrap(), body);
    }
});
