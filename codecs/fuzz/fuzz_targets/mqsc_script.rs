//! Fuzz the MQSC script reader: no panic on any input, every error and every
//! command and parameter line lies inside the input, and a value written with
//! `quote` reads back as it was.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::mqsc::{parse_script, quote};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.split('\n').count();
    match parse_script(text) {
        Err(e) => {
            assert!(e.line >= 1 && e.line <= lines, "{e}");
            assert!(e.column >= 1);
        }
        Ok(commands) => {
            for c in &commands {
                assert!(c.line >= 1 && c.line <= lines);
                for p in c.object.iter().chain(&c.params) {
                    assert!(p.line >= c.line && p.line <= lines);
                }
            }
        }
    }
    // Any one-line value survives quoting (MQSC doubles a quote inside quotes).
    let value: String = text.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    let value = value.trim_end_matches(['+', '-', ' ', '\t', ';']).to_string();
    if value.trim().is_empty() {
        return;
    }
    let script = format!("DEFINE QLOCAL(Q) DESCR({})\n", quote(&value));
    let c = parse_script(&script).expect("a quoted value reads");
    assert_eq!(c[0].param("DESCR").and_then(|p| p.single()), Some(value.as_str()));
});
