//! The project's own IDL fixtures (fixtures/idl/): valid files parse, each
//! invalid file is refused with the error named in its first comment line.

use mqgate_codecs::idl::{
    CallKind, Dimension, Direction, Format, IdlErrorKind, Length, ParamKind, call_kind, parse,
};

fn fixture(name: &str) -> String {
    let path = format!("{}/../fixtures/idl/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn bridge_text_parses_and_maps_directions() {
    let file = parse(&fixture("valid/bridge-text.idl")).unwrap_or_else(|e| panic!("{e}"));
    let lib = file.library("RPCDEMO").unwrap();
    // Software AG EntireX "EntireX WebSphere MQ RPC Server" — all IN → put, all OUT →
    // get, mixed / IN OUT → request/reply; dynamic parameters do not count (decoupled
    // request/reply, docs/rpc.md).
    let kinds: Vec<_> = lib
        .programs
        .iter()
        .map(|p| (p.name.as_str(), call_kind(p)))
        .collect();
    assert_eq!(
        kinds,
        [
            ("SENDNOTE", CallKind::Put),
            ("RECVNOTE", CallKind::Get),
            ("CALC", CallKind::RequestReply),
            ("ECHO", CallKind::RequestReply),
            ("ORDER", CallKind::RequestReply),
        ]
    );
    let echo = lib.program("ECHO").unwrap();
    assert_eq!(echo.params[0].declared_direction, None);
    assert_eq!(echo.params[0].direction, Direction::InOut);
}

#[test]
fn grammar_corners_parse() {
    let file = parse(&fixture("valid/grammar-corners.idl")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.libraries.len(), 2);
    let lib = &file.libraries[0];
    // Names in apostrophes may hold blanks; upper-case keywords and aliases.
    assert_eq!(lib.name, "Corner Cases");
    assert_eq!(lib.alias.as_deref(), Some("CornerAlias"));
    // `01 CODE (K4)`: two-digit level with a leading zero.
    let inner = lib.struct_def("inner").unwrap();
    assert_eq!(inner.params[0].level, 1);
    assert_eq!(
        inner.params[0].kind,
        ParamKind::Field(Format::Kanji(Length::Fixed(4)))
    );
    assert_eq!(
        inner.params[1].kind,
        ParamKind::Field(Format::Kanji(Length::Variable(Some(20))))
    );
    let p = lib.program("KEYWORDS").unwrap();
    assert!(p.params[0].ims);
    // Every special name character of Software AG "Software AG IDL Grammar".
    assert_eq!(p.params[1].name, "A-B_C$D#E&F@G+H/I");
    assert_eq!(p.params[1].direction, Direction::InOut);
    // `(I2/1:4,4:7)`: lower bound other than 1 is legal.
    let bounds = &p.params[2];
    assert_eq!(
        bounds.array.as_ref().unwrap().dims,
        [
            Dimension::Fixed { lower: 1, upper: 4 },
            Dimension::Fixed { lower: 4, upper: 7 }
        ]
    );
    assert!(bounds.aligned);
    assert_eq!(bounds.direction, Direction::InOut);
    assert_eq!(
        p.params[4].array.as_ref().unwrap().dims,
        [Dimension::Unbounded { max: None }; 2]
    );
    // Three levels of groups; the member's direction follows level 1.
    let g3 = &p.params[6].members[0].members[0];
    assert_eq!((g3.name.as_str(), g3.level), ("G3", 3));
    assert_eq!(g3.direction, Direction::In);
    // `1 LATER ('LAST'/1:V)`: forward struct reference with an unbounded array.
    let outer = lib.struct_def("OUTER").unwrap();
    assert_eq!(outer.params[1].kind, ParamKind::StructRef("LAST".into()));
    assert_eq!(
        outer.params[1].array.as_ref().unwrap().dims,
        [Dimension::Unbounded { max: None }]
    );
}

/// (file, line, column, EntireX message number, text the message must contain)
const INVALID: &[(&str, u32, u32, Option<u32>, &str)] = &[
    // Parser messages of EntireX "Message Class 2001"
    (
        "undefined-struct.idl",
        6,
        5,
        Some(20010026),
        "undefined struct 'MISSING'",
    ),
    (
        "self-referencing-struct.idl",
        11,
        5,
        Some(20010003),
        "self-referencing struct: A -> B -> A",
    ),
    (
        "empty-library.idl",
        2,
        1,
        Some(20010022),
        "library 'EMPTY' holds no program and no struct",
    ),
    (
        "no-library.idl",
        2,
        1,
        Some(20010020),
        "no library: expected LIBRARY, found 'Program'",
    ),
    (
        "unclosed-string.idl",
        2,
        16,
        Some(20010007),
        "expected a closing apostrophe",
    ),
    (
        "expected-string.idl",
        3,
        11,
        Some(20010006),
        "expected a name in apostrophes, found 'P'",
    ),
    (
        "only-ims.idl",
        4,
        5,
        Some(20010021),
        "program 'P' has only IMS parameters",
    ),
    (
        "program-name-clash.idl",
        7,
        3,
        Some(20010025),
        "program name or alias 'SECOND' is used twice",
    ),
    (
        "library-name-clash.idl",
        7,
        1,
        Some(20010023),
        "library name or alias 'one' is used twice",
    ),
    (
        "empty-program.idl",
        5,
        5,
        Some(20010024),
        "'P' has no parameter",
    ),
    // EntireX "Dynamic IDL/RPC Parameters": level 1 only, before any variable-length
    // parameter, A48, IN only
    (
        "dynamic-after-variable.idl",
        6,
        5,
        None,
        "dynamic parameter MQ_CORREL_ID: must come before any variable-length parameter, but follows 'NOTE' (line 5)",
    ),
    (
        "dynamic-below-level-1.idl",
        6,
        7,
        None,
        "dynamic parameter MQ_QUEUE_NAME: must be at level 1, found level 2",
    ),
    (
        "dynamic-wrong-format.idl",
        5,
        5,
        None,
        "dynamic parameter MQ_CORREL_ID: expected format A48, found A40",
    ),
    (
        "dynamic-wrong-direction.idl",
        5,
        5,
        None,
        "dynamic parameter MQ_QUEUE_NAME: is an IN parameter only, found IN OUT",
    ),
    // Software AG "Software AG IDL Grammar": arrays and levels
    (
        "mixed-array.idl",
        5,
        14,
        None,
        "fixed and unbounded dimensions mixed",
    ),
    ("four-dimensions.idl", 5, 13, None, "more than 3 dimensions"),
    (
        "field-with-members.idl",
        6,
        7,
        None,
        "'FIELD' has a format or struct, so it cannot have members",
    ),
    ("empty-group.idl", 5, 5, None, "group 'GRP' has no members"),
    (
        "unknown-attribute.idl",
        5,
        15,
        None,
        "expected an attribute (IN, OUT, IN OUT, INOUT, ALIGNED, IMS), a level number or END-DEFINE, found 'INPUT'",
    ),
];

#[test]
fn invalid_fixtures_are_refused_with_line_and_column() {
    let dir = format!("{}/../fixtures/idl/invalid", env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = INVALID.iter().map(|t| t.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every invalid fixture has an expectation");
    for &(name, line, column, number, text) in INVALID {
        let errors = match parse(&fixture(&format!("invalid/{name}"))) {
            Ok(_) => panic!("{name} must be refused"),
            Err(e) => e,
        };
        let first = errors.first().unwrap();
        let shown = first.to_string();
        assert_eq!(
            (first.position.line, first.position.column),
            (line, column),
            "{name}: {shown}"
        );
        assert_eq!(first.kind.message_number(), number, "{name}: {shown}");
        assert!(shown.contains(text), "{name}: {shown}");
        assert!(
            shown.starts_with(&format!("line {line}, column {column}: ")),
            "{name}: {shown}"
        );
    }
}

#[test]
fn every_error_is_reported_not_only_the_first() {
    // Rule violations on well-formed lines are collected (IdlErrors).
    let text = "Library 'L' Is\n Program 'P' Is\n Define Data Parameter\n 1 A (A) In\n 1 B (D8) In\n 1 C ('NONE') In\n End-Define\n";
    let errors = parse(text).unwrap_err();
    // Struct references are resolved only after the grammar and length rules pass.
    let got: Vec<_> = errors
        .0
        .iter()
        .map(|e| (e.position.line, e.kind.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (4, IdlErrorKind::LengthRequired { format: "A".into() }),
            (
                5,
                IdlErrorKind::LengthNotAllowed {
                    format: "D8".into()
                }
            ),
        ]
    );
}

#[test]
fn alias_equal_to_its_own_name_is_no_clash() {
    // 20010023/20010025 are about two entries sharing a name; one entry whose
    // alias repeats its own name clashes with nothing.
    let text =
        "Library 'L' : 'l' Is Program 'P' : 'P' Is Define Data Parameter 1 X (A1) End-Define";
    let file = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.libraries[0].programs[0].alias.as_deref(), Some("P"));
}

#[test]
fn name_rules() {
    // Software AG "Software AG IDL Grammar", names: struct ≤ 31 characters,
    // library/program/ alias ≤ 128, must not start with SAG, siblings unique
    // after case folding.
    let long_struct = "S".repeat(32);
    let text = format!(
        "Library 'L' Is\n\
         Struct '{long_struct}' Is Define Data Parameter 1 X (A1) End-Define\n\
         Program 'SagTool' Is Define Data Parameter\n\
         1 Dup (A1) In\n\
         1 DUP (A1) In\n\
         End-Define\n\
         Program '{}' Is Define Data Parameter 1 X (A1) End-Define\n",
        "P".repeat(129)
    );
    let errors = parse(&text).unwrap_err();
    let got: Vec<_> = errors
        .0
        .iter()
        .map(|e| (e.position.line, e.kind.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                2,
                IdlErrorKind::NameTooLong {
                    name: long_struct,
                    max: 31
                }
            ),
            (
                3,
                IdlErrorKind::ReservedName {
                    name: "SagTool".into()
                }
            ),
            (5, IdlErrorKind::DuplicateName { name: "DUP".into() }),
            (
                7,
                IdlErrorKind::NameTooLong {
                    name: "P".repeat(129),
                    max: 128
                }
            ),
        ]
    );
}
