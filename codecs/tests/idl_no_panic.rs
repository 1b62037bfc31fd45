//! No input makes the IDL parser, the CorrelId reader or the text unmarshaller
//! panic (COMMON.md: "Bad input never panics"). Random text, and the project's
//! fixtures with random edits, go through every entry point.

use mqgate_codecs::idl::{
    DynamicParams, Format, IdlErrors, Length, NumericSpec, ParseOptions, PayloadDirection, Record,
    TextLayout, Value, correl_id_from_hex, parse, parse_with,
};
use proptest::prelude::*;

const BRIDGE: &str = include_str!("../../fixtures/idl/valid/bridge-text.idl");
const CORNERS: &str = include_str!("../../fixtures/idl/valid/grammar-corners.idl");

/// Parses and, if it parses, runs the whole pure pipeline on the result.
fn exercise(text: &str, payload: &str) {
    let Ok(file) = parse(text) else { return };
    for lib in &file.libraries {
        for program in &lib.programs {
            let _ = mqgate_codecs::idl::call_kind(program);
            if let Ok(d) = DynamicParams::of_program(program, lib) {
                let _ = d.inputs(&Record::new());
            }
            for dir in [PayloadDirection::Request, PayloadDirection::Reply] {
                if let Ok(layout) = TextLayout::for_program(program, lib, dir)
                    && layout.fixed_length < 1 << 16
                {
                    let _ = layout.marshal(&Record::new());
                    let _ = layout.unmarshal(payload);
                }
            }
        }
    }
}

fn tokens() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("Library".to_string()),
        Just("Program".to_string()),
        Just("Struct".to_string()),
        Just("Is".to_string()),
        Just("Define Data Parameter".to_string()),
        Just("End-Define".to_string()),
        Just("In".to_string()),
        Just("Out".to_string()),
        Just("Aligned".to_string()),
        Just("IMS".to_string()),
        Just("MQ_CORREL_ID".to_string()),
        Just("/*".to_string()),
        Just("\n".to_string()),
        Just("'S'".to_string()),
        "[0-9]{1,3}",
        "\\((A|AV|N|NU|P|I|F|D|T|L|B|K)[0-9]{0,3}(\\.[0-9])?(/[0-9V:,]{1,8})?\\)",
        "\\('[A-Z]{1,3}'(/[0-9V]{1,2})?\\)",
        "[A-Za-z_$#@+/-]{1,6}",
        "[():,/.'*]",
    ];
    prop::collection::vec(token, 0..60).prop_map(|t| t.join(" "))
}

proptest! {
    // Integration tests have no lib.rs next to them for proptest's regression files.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}", payload in "\\PC{0,80}") {
        exercise(&text, &payload);
        let _ = correl_id_from_hex(&text);
    }

    #[test]
    fn token_soup_never_panics(text in tokens(), payload in "[ +0-9A-Z-]{0,60}") {
        exercise(&text, &payload);
    }

    #[test]
    fn edited_fixtures_never_panic(
        which in 0usize..2,
        at in any::<prop::sample::Index>(),
        cut in 0usize..40,
        insert in "\\PC{0,12}",
        payload in "[ +0-9A-Z-]{0,60}",
    ) {
        let base = if which == 0 { BRIDGE } else { CORNERS };
        let mut pos = at.index(base.len());
        while !base.is_char_boundary(pos) {
            pos -= 1;
        }
        let mut end = (pos + cut).min(base.len());
        while !base.is_char_boundary(end) {
            end -= 1;
        }
        let text = format!("{}{}{}", &base[..pos], insert, &base[end..]);
        exercise(&text, &payload);
    }
}

/// Checks that every error of `text` stands inside the text: line 1 up to the
/// last line, column 1 up to one past that line's last character (the end of
/// the text or of a line is a place too). Lines and columns as docs/rpc.md
/// "Reading an IDL file" counts them: lines end at a line feed, columns count characters, a
/// byte order mark takes none.
fn assert_positions_inside(text: &str, errors: &IdlErrors) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    assert!(!errors.0.is_empty(), "an error list is never empty");
    for e in &errors.0 {
        let (line, column) = (e.position.line as usize, e.position.column as usize);
        assert!(
            (1..=lines.len()).contains(&line),
            "{e} is outside the {} lines",
            lines.len()
        );
        let width = lines[line - 1].chars().count();
        assert!(
            (1..=width + 1).contains(&column),
            "{e} is outside line {line} of {width} characters"
        );
        // The message names the place first.
        assert!(
            e.to_string()
                .starts_with(&format!("line {line}, column {column}: ")),
            "{e}"
        );
    }
    assert!(
        errors.0.windows(2).all(|w| w[0].position <= w[1].position),
        "errors are in text order: {errors}"
    );
}

/// Every option setting, on any text: Ok, or errors inside the text.
fn parse_every_way(text: &str) {
    for extended_formats in [false, true] {
        for dynamic_parameters in [false, true] {
            let options = ParseOptions {
                extended_formats,
                dynamic_parameters,
            };
            if let Err(errors) = parse_with(text, &options) {
                assert_positions_inside(text, &errors);
            }
        }
    }
}

/// Every format a value can be read as text for.
fn formats() -> Vec<Format> {
    let n = NumericSpec {
        digits: 7,
        decimals: 2,
        signed: true,
    };
    vec![
        Format::Alpha(Length::Fixed(8)),
        Format::Integer(4),
        Format::Unpacked(n),
        Format::Packed(NumericSpec { signed: false, ..n }),
        Format::Logical,
        Format::Date,
        Format::Time,
        Format::Binary(Length::Fixed(4)),
        Format::Float(8),
    ]
}

/// IDL pieces that need care in the lexer: comments of both kinds, CR, BOM,
/// non-ASCII letters, unclosed strings, type words.
fn lexer_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("Library 'L' Is ".to_string()),
        Just("Program 'P' Is Define Data Parameter ".to_string()),
        Just("End-Define".to_string()),
        Just("\n*".to_string()),
        Just("/*".to_string()),
        Just("*/".to_string()),
        Just("\r\n".to_string()),
        Just("\u{feff}".to_string()),
        Just("ß".to_string()),
        Just("'".to_string()),
        Just("'é'".to_string()),
        "[0-9]{1,3} [A-Za-zß_]{1,4}",
        "\\((A|N|I|V|v)?[0-9.]{0,4}[/:,]?[0-9Vv]{0,3}\\)?",
        "[ \t\n]{1,3}",
        "\\PC{1,3}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any bytes, as text the way a file reader would decode them.
    #[test]
    fn arbitrary_bytes_never_panic_and_errors_stand_inside(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        parse_every_way(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_strings_never_panic_and_errors_stand_inside(text in "\\PC{0,300}|(?s).{0,300}") {
        parse_every_way(&text);
    }

    #[test]
    fn lexer_soup_never_panics_and_errors_stand_inside(text in lexer_soup()) {
        parse_every_way(&text);
    }

    #[test]
    fn value_text_never_panics(text in "\\PC{0,40}|[0-9 :T.+-]{0,24}") {
        for format in formats() {
            let _ = Value::from_text(&format, &text);
        }
    }
}

/// `n` structs, each referencing the next; the last references the first when
/// `cyclic`, else holds an A1 field. A program references the first.
fn struct_chain(n: usize, cyclic: bool) -> String {
    let mut text = String::from("Library 'L' Is\n");
    for i in 0..n {
        let field = if i + 1 < n || cyclic {
            format!("('S{}')", (i + 1) % n)
        } else {
            "(A1)".to_string()
        };
        text.push_str(&format!(
            "Struct 'S{i}' Is Define Data Parameter 1 X {field} End-Define\n"
        ));
    }
    text.push_str("Program 'P' Is Define Data Parameter 1 R ('S0') In End-Define\n");
    text
}

#[test]
fn deep_and_long_inputs_do_not_exhaust_the_stack() {
    // The cycle check must not recurse per struct (20010003, EntireX "Message Class
    // 2001").
    let errors = parse(&struct_chain(5000, true)).unwrap_err();
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].kind.message_number(), Some(20010003));
    // Without the back edge it parses; the layout stops at its depth limit.
    let file = parse(&struct_chain(5000, false)).unwrap_or_else(|e| panic!("{e}"));
    let lib = &file.libraries[0];
    let err =
        TextLayout::for_program(&lib.programs[0], lib, PayloadDirection::Request).unwrap_err();
    assert!(
        err.reason.contains("structs nested deeper than 32"),
        "{err}"
    );
    // A short chain lays out: S0.S1.S2.X is one A1.
    let file = parse(&struct_chain(3, false)).unwrap();
    let lib = &file.libraries[0];
    let layout = TextLayout::for_program(&lib.programs[0], lib, PayloadDirection::Request).unwrap();
    assert_eq!(layout.fixed_length, 1);
    // 99 nested levels are allowed and parse.
    let mut text = String::from("Library 'L' Is Program 'P' Is Define Data Parameter\n");
    for level in 1..99 {
        text.push_str(&format!("{level} G{level}\n"));
    }
    text.push_str("99 F (A1)\nEnd-Define\n");
    assert!(parse(&text).is_ok());
}
