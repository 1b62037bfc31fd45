//! Fuzz the FML32 field table reader (Oracle Tuxedo "field_tables(5)";
//! `tux::fieldtbl`). Invalid UTF-8 is read lossily, as text. A finding is a
//! panic or a broken invariant:
//!
//! - an error names a line of the text (1-based), and a duplicate names an
//!   earlier line;
//! - every definition is found by its name and by its id, on the line it
//!   names, with an id whose type and number are the definition's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::tux::fieldtbl::{FieldTable, FieldTableErrorKind};
use mqgate_codecs::tux::fml32::FieldId;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count();
    match FieldTable::parse(&text) {
        Err(e) => {
            assert!((1..=lines).contains(&e.line), "{e}: not a line of {lines}");
            match e.kind {
                FieldTableErrorKind::DuplicateName { first_line, .. }
                | FieldTableErrorKind::DuplicateId { first_line, .. } => {
                    assert!(first_line < e.line, "{e}")
                }
                _ => {}
            }
            assert_eq!(e.ferror().0, 12);
            let _ = e.to_string();
        }
        Ok(table) => {
            for f in table.fields() {
                assert!((1..=lines).contains(&f.line));
                assert_eq!(table.by_name(&f.name).map(|d| d.line), Some(f.line));
                assert_eq!(table.by_id(f.id).map(|d| d.line), Some(f.line));
                assert_eq!(FieldId::new(f.field_type, f.number), Some(f.id));
            }
        }
    }
});
