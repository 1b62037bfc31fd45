//! Fuzz the RPC bridge's text payload reader (`TextLayout::unmarshal`;
//! docs/rpc.md "Text payload") with the programs of the project's IDL
//! fixtures, and the reading of a received message's dynamic values
//! (`DynamicParams::outputs`, `correl_id_from_hex`). A reply payload comes
//! from whatever answered on the queue. The first byte picks the program
//! and the direction. A finding is a panic or a broken invariant:
//!
//! - an error names a character offset inside the payload (or its end, for
//!   a payload that ends inside a field);
//! - values read from a payload marshal back to text that reads back to the
//!   same values, and that text is as long as the payload read;
//! - a CorrelId read from hex is written back as the same hex digits (upper
//!   case), padded with zeros to 48.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::idl::{
    BridgeProgram, CORREL_ID_LENGTH, ReceivedMessage, correl_id_from_hex, correl_id_to_hex, parse,
};
use std::sync::OnceLock;

const FILES: [&str; 2] = [
    include_str!("../../../fixtures/rpc/demo.idl"),
    include_str!("../../../fixtures/idl/valid/bridge-text.idl"),
];

fn programs() -> &'static [BridgeProgram] {
    static P: OnceLock<Vec<BridgeProgram>> = OnceLock::new();
    P.get_or_init(|| {
        FILES
            .iter()
            .flat_map(|f| BridgeProgram::bind_all(&parse(f).expect("fixture parses")).0)
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let all = programs();
    let b = &all[usize::from(sel >> 1) % all.len()];
    let layout = if sel & 1 == 0 { &b.reply } else { &b.request };
    let text = String::from_utf8_lossy(rest);
    let chars = text.chars().count();
    match layout.unmarshal(&text) {
        Err(e) => {
            assert!(e.offset <= chars, "{e}: offset outside {chars} characters");
            let _ = e.to_string();
        }
        Ok(values) => {
            let out = layout
                .marshal(&values)
                .unwrap_or_else(|e| panic!("{}: values read do not marshal: {e}", b.program));
            assert_eq!(out.chars().count(), chars, "{}: {out:?}", b.program);
            let back = layout.unmarshal(&out).expect("marshalled text reads back");
            assert_eq!(back, values, "{}: {out:?}", b.program);
            let _ = b.dynamic.inputs(&values);
        }
    }
    match correl_id_from_hex(&text) {
        Ok(Some(id)) => {
            let digits = text.trim_end_matches(' ');
            let hex = correl_id_to_hex(&id);
            assert!(
                hex[..digits.len()].eq_ignore_ascii_case(digits),
                "{hex} for {digits:?}"
            );
            assert!(
                hex[digits.len()..].bytes().all(|b| b == b'0'),
                "{hex} for {digits:?}"
            );
        }
        Ok(None) => {}
        Err(e) => {
            let _ = e.to_string();
        }
    }
    let mut correl_id = [0; CORREL_ID_LENGTH];
    let n = rest.len().min(CORREL_ID_LENGTH);
    correl_id[..n].copy_from_slice(&rest[..n]);
    let mut words = text.split(' ');
    let received = ReceivedMessage {
        correl_id,
        reply_to_q: words.next().unwrap_or("").to_owned(),
        rfh_pairs: words
            .collect::<Vec<_>>()
            .chunks(2)
            .map(|p| (p[0].to_owned(), p.get(1).copied().unwrap_or("").to_owned()))
            .collect(),
    };
    let _ = b.dynamic.outputs(&received);
});
