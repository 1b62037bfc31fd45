//! Fuzz the Software AG IDL reader (`idl::parse_with`; docs/rpc.md
//! "Reading an IDL file") and what the RPC bridge builds on a file it
//! accepts. Invalid UTF-8 is read lossily, as text. The first byte picks
//! the parse options. A finding is a panic or a broken invariant:
//!
//! - every fault has a line and column in the text (after a UTF-8 byte
//!   order mark), and the faults come in text order;
//! - every library, program, struct and parameter position is in the text;
//! - for each program the bridge binds, the empty call (`marshal` of no
//!   values) reads back with `unmarshal` and writes the same text again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::idl::{BridgeProgram, Parameter, ParseOptions, Position, Record, parse_with};

mod text_pos;

use text_pos::Lines;

fn inside(text: &Lines<'_>, p: Position, what: &str) {
    assert!(
        text.at(p.line as usize, p.column as usize).is_some(),
        "{what} at {p} is not in the text"
    );
}

fn params(text: &Lines<'_>, ps: &[Parameter]) {
    for p in ps {
        inside(text, p.position, &p.name);
        params(text, &p.members);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let options = ParseOptions {
        extended_formats: sel & 1 != 0,
        dynamic_parameters: sel & 2 == 0,
    };
    let src = String::from_utf8_lossy(rest);
    let text = &Lines::new(src.strip_prefix('\u{feff}').unwrap_or(&src));
    let file = match parse_with(&src, &options) {
        Err(errors) => {
            assert!(!errors.0.is_empty(), "an error list with no fault");
            let mut last = None;
            for e in &errors.0 {
                inside(text, e.position, &e.kind.to_string());
                let here = (e.position.line, e.position.column);
                assert!(
                    last <= Some(here),
                    "faults out of text order at {}",
                    e.position
                );
                last = Some(here);
            }
            let _ = errors.to_string();
            return;
        }
        Ok(file) => file,
    };
    for lib in &file.libraries {
        inside(text, lib.position, &lib.name);
        for s in &lib.structs {
            inside(text, s.position, &s.name);
            params(text, &s.params);
        }
        for p in &lib.programs {
            inside(text, p.position, &p.name);
            params(text, &p.params);
        }
    }
    let (bound, failed) = BridgeProgram::bind_all(&file);
    for e in &failed {
        let _ = e.to_string();
    }
    for b in &bound {
        for layout in [&b.request, &b.reply] {
            if layout.fixed_length > 1 << 16 {
                continue;
            }
            let empty = layout
                .marshal(&Record::new())
                .unwrap_or_else(|e| panic!("{}: the empty call does not marshal: {e}", b.program));
            let back = layout
                .unmarshal(&empty)
                .unwrap_or_else(|e| panic!("{}: {empty:?} does not read back: {e}", b.program));
            let again = layout.marshal(&back).expect("values read back marshal");
            assert_eq!(again, empty, "{}: marshal(unmarshal(t)) != t", b.program);
        }
        let _ = b.dynamic.inputs(&Record::new());
    }
});
