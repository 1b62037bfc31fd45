//! Line and column of IDL errors at the places that need care: the last line
//! without a line feed, after comments, deep in nested groups, after
//! multi-byte characters, with CR LF line ends and a byte order mark.
//!
//! Lines count from 1 at each line feed; columns count characters from 1, so a
//! CR is a column and `ß` is one column though two bytes (docs/rpc.md "Reading
//! an IDL file"). Every expected position is counted by hand in the test's
//! text, as the comment next to it shows.

use mqgate_codecs::idl::{IdlError, IdlErrorKind, parse};

/// The first error of `text`, which must not parse.
fn first_error(text: &str) -> IdlError {
    let errors = parse(text).expect_err("the text must not parse");
    errors.0[0].clone()
}

fn line_column(e: &IdlError) -> (u32, u32) {
    (e.position.line, e.position.column)
}

#[test]
fn end_of_file_on_a_last_line_without_line_feed() {
    let text = "Library 'L' Is\nProgram 'P' Is\nDefine Data Parameter\n1 X (A1) In";
    let e = first_error(text);
    // Line 4 is `1 X (A1) In`: 11 characters, so the end of the text is column 12.
    assert_eq!(line_column(&e), (4, 12));
    assert_eq!(e.kind, IdlErrorKind::MissingEndDefine { opened_at_line: 3 });
    assert_eq!(
        e.to_string(),
        "line 4, column 12: expected END-DEFINE, found end of file (DEFINE DATA PARAMETER opened at line 3)"
    );
}

#[test]
fn unexpected_character_as_the_last_character() {
    let text = "Library 'L' Is\nProgram 'P' Is\nDefine Data Parameter\n1 X (A1)\nEnd-Define\n?";
    let e = first_error(text);
    // `?` alone on line 6.
    assert_eq!(line_column(&e), (6, 1));
    assert_eq!(e.to_string(), "line 6, column 1: unexpected character '?'");
}

#[test]
fn errors_after_comments() {
    // A `*` line and a `/*` comment (with an apostrophe in it, which opens no
    // string) come before the fault; a name may touch its `/*`.
    let text = concat!(
        "Library 'L' Is\n",
        "  * Bob's program\n",
        "Program 'P' Is /* it's here\n",
        "Define Data Parameter\n",
        "1 X/*no blank before the comment\n",
        "    (Q1)\n",
        "End-Define\n",
    );
    let e = first_error(text);
    // Line 6 is `    (Q1)`: `Q1` starts in column 6.
    assert_eq!(line_column(&e), (6, 6));
    assert_eq!(
        e.to_string(),
        "line 6, column 6: invalid format Q1: expected one of A, AV, K, KV, B, BV, N, NU, P, PU, I1, I2, I4, F4, F8, D, T, L"
    );
}

#[test]
fn a_comment_line_at_the_very_start_before_any_line_feed() {
    // The first line is blanks and a `*` comment: a comment, not a character
    // that starts no token. The fault is `Librar` on line 2.
    let e = first_error("   * header\nLibrar 'L' Is");
    assert_eq!(line_column(&e), (2, 1));
    assert_eq!(
        e.to_string(),
        "line 2, column 1: no library: expected LIBRARY, found 'Librar' (EntireX 20010020)"
    );
}

#[test]
fn errors_inside_nested_groups() {
    let text = concat!(
        "Library 'L' Is\n",
        "Program 'P' Is\n",
        "Define Data Parameter\n",
        "1 G In\n",
        "  2 H\n",
        "    3 X (A0)\n",
        "    3 Y (N5/0)\n",
        "      4 Z (A1)\n",
        "End-Define\n",
    );
    let found: Vec<_> = parse(text)
        .unwrap_err()
        .0
        .iter()
        .map(|e| (line_column(e), e.to_string()))
        .collect();
    let expected = [
        // Line 6 `    3 X (A0)`: `A0` in column 10.
        (
            (6, 10),
            "line 6, column 10: invalid format A0: length must be 1 to 1073741824 bytes",
        ),
        // Line 7 `    3 Y (N5/0)`: the dimension `0` in column 13.
        (
            (7, 13),
            "line 7, column 13: invalid array: upper bound 0 is below the lower bound 1",
        ),
        // Line 8 `      4 Z (A1)`: the level `4` in column 7; Y has a format.
        (
            (8, 7),
            "line 8, column 7: 'Y' has a format or struct, so it cannot have members: expected a level not deeper than it",
        ),
    ];
    assert_eq!(
        found,
        expected
            .iter()
            .map(|&(at, text)| (at, text.to_string()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn array_faults_stand_right_after_the_slash_even_before_a_blank() {
    let text = concat!(
        "Library 'L' Is\n",
        "Program 'P' Is\n",
        "Define Data Parameter\n",
        "1 G\n",
        "  2 A (A5/ 1,V) In\n",
        "End-Define\n",
    );
    let e = first_error(text);
    // Line 5 `  2 A (A5/ 1,V) In`: the `/` is column 10, so right after it is
    // column 11 (a blank); the dimension `1` is column 12.
    assert_eq!(line_column(&e), (5, 11));
    assert_eq!(
        e.to_string(),
        "line 5, column 11: invalid array: fixed and unbounded dimensions mixed in one array"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let text =
        "Library 'Ärger' Is\nProgram 'P' Is\nDefine Data Parameter\n1 Straße (A0)\nEnd-Define\n";
    let e = first_error(text);
    // Line 4 `1 Straße (A0)`: `ß` is two bytes but one column, so `A0` is column 11.
    assert_eq!(line_column(&e), (4, 11));
}

#[test]
fn carriage_returns_are_columns_and_end_no_string() {
    let text = "Library 'L' Is\r\nProgram 'P\r\n' Is";
    let e = first_error(text);
    // Line 2 `Program 'P<CR>`: the string runs from column 9; the CR in
    // column 11 ends it without its apostrophe (20010007).
    assert_eq!(line_column(&e), (2, 11));
    assert_eq!(e.kind, IdlErrorKind::ExpectedApostrophe);

    let text = "Library 'L' Is\r\nProgram 'P' Is\r\nDefine Data Parameter\r\n1 X (A1)\r\n";
    let e = first_error(text);
    // The text ends after the line feed of line 4: line 5, column 1.
    assert_eq!(line_column(&e), (5, 1));
    assert_eq!(e.kind, IdlErrorKind::MissingEndDefine { opened_at_line: 3 });
}

#[test]
fn byte_order_mark_takes_no_column() {
    let e = first_error("\u{feff}Program 'P' Is");
    assert_eq!(line_column(&e), (1, 1));
    assert_eq!(e.kind.message_number(), Some(20010020));
    let e = first_error("\u{feff}Library 'L' Is Program 'P' Is Define Data Parameter 1 X (A0)");
    // `A0` stands in column 58 of the text after the byte order mark.
    assert_eq!(line_column(&e), (1, 58));
}
