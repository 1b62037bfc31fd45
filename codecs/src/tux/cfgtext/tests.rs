//! Error positions of the nom lexer and grammar, and arbitrary text. Every
//! expected line:column is counted by hand in the test's text; columns count
//! characters, the rules are docs/tuxedo.md "DMCONFIG and UBBCONFIG text".

use super::*;
use proptest::prelude::*;

fn error_at(text: &str) -> (Pos, ConfigTextErrorKind) {
    let e = ConfigText::parse(text).unwrap_err();
    (e.pos, e.kind)
}

fn pos(line: usize, column: usize) -> Pos {
    Pos { line, column }
}

#[test]
fn a_newline_inside_quotes_starts_a_new_line_for_later_positions() {
    // Line 3 is `lines" B="open`: the second quote opens at column 10.
    assert_eq!(
        error_at("*S\nE A=\"two\nlines\" B=\"open\n"),
        (pos(3, 10), ConfigTextErrorKind::UnterminatedQuote)
    );
    // And a token after the quoted newline is not at a line start: `*B` is a word.
    let toks = tokenize("*S\nE A=\"x\n\" *B\n*C\n").unwrap();
    assert_eq!(
        toks[5],
        (
            pos(3, 3),
            Token::Word {
                text: "*B".into(),
                quoted: false
            }
        )
    );
    assert_eq!(toks[6], (pos(4, 1), Token::Section("C".into())));
}

#[test]
fn columns_count_characters_not_bytes() {
    // `ÉTÉ A==1`: É is two bytes in UTF-8, one column; A is the fifth character.
    assert_eq!(
        error_at("*S\nÉTÉ A==1\n"),
        (pos(2, 5), ConfigTextErrorKind::MissingValue("A".into()))
    );
    // A quoted keyword is refused at the keyword; an escape is two characters,
    // so the stray `=` after `A="a\"b"` is at column 12.
    assert_eq!(
        error_at("*S\nE \"a\\\"b\"=1\n"),
        (pos(2, 3), ConfigTextErrorKind::UnexpectedEquals)
    );
    assert_eq!(
        error_at("*S\nE A=\"a\\\"b\" =\n"),
        (pos(2, 12), ConfigTextErrorKind::UnexpectedEquals)
    );
}

#[test]
fn blanks_crlf_and_comments_before_a_token() {
    // `\r` and a tab are blanks (one column each); `*S-1` still starts line 2.
    assert_eq!(
        error_at("*S\r\n\t*S-1\n"),
        (
            pos(2, 2),
            ConfigTextErrorKind::BadSectionName("*S-1".into())
        )
    );
    // A quote inside a comment opens nothing; the one on line 3 does (column 5).
    assert_eq!(
        error_at("*S\n# say \"\nE A=\"\n"),
        (pos(3, 5), ConfigTextErrorKind::UnterminatedQuote)
    );
    // `=` first in the file, after blanks: no keyword before it.
    assert_eq!(
        error_at("  = x\n"),
        (pos(1, 3), ConfigTextErrorKind::UnexpectedEquals)
    );
    // A section name is at most shown by its first 40 characters.
    let long = format!("*{}-", "N".repeat(50));
    let (at, kind) = error_at(&long);
    assert_eq!(at, pos(1, 1));
    assert_eq!(
        kind,
        ConfigTextErrorKind::BadSectionName(long.chars().take(40).collect())
    );
}

#[test]
fn lexical_errors_come_before_grammar_errors() {
    // The text is lexed first: the bad section name on line 2 is reported, not
    // the entry before any section on line 1.
    assert_eq!(
        error_at("E A=1\n*S-1\n"),
        (
            pos(2, 1),
            ConfigTextErrorKind::BadSectionName("*S-1".into())
        )
    );
    assert_eq!(
        error_at("E A=1\n*S\nF B=\"open\n"),
        (pos(3, 5), ConfigTextErrorKind::UnterminatedQuote)
    );
}

#[test]
fn resources_errors_are_at_the_keyword() {
    // `KEYWORD =` with nothing after it, and a keyword followed by a section.
    assert_eq!(
        error_at("*RESOURCES\nMASTER site1\n  IPCKEY =\n"),
        (
            pos(3, 3),
            ConfigTextErrorKind::MissingResourceValue("IPCKEY".into())
        )
    );
    assert_eq!(
        error_at("*RESOURCES\nMODEL\n*MACHINES\n"),
        (
            pos(2, 1),
            ConfigTextErrorKind::MissingResourceValue("MODEL".into())
        )
    );
    // A stray `=` in *RESOURCES is at the `=`.
    assert_eq!(
        error_at("*RESOURCES\n = 1\n"),
        (pos(2, 2), ConfigTextErrorKind::UnexpectedEquals)
    );
}

#[test]
fn a_quoted_resources_keyword_is_refused_at_its_quote() {
    // Found by fuzzing (codecs/fuzz tux_dmconfig): `*RESOURCES"~"2` was read
    // as the keyword `~` with the quotes dropped, while a quoted keyword
    // before `=` is refused. UBBCONFIG(5) keywords (IPCKEY, MASTER, ...) are
    // words; a quoted one is an error at its opening quote, with or without
    // the `=`.
    assert_eq!(
        error_at("*RESOURCES\"~\"2"),
        (pos(1, 11), ConfigTextErrorKind::QuotedKeyword("~".into()))
    );
    assert_eq!(
        error_at("*RESOURCES\nMASTER site1\n\"IPCKEY\" = 123456\n"),
        (
            pos(3, 1),
            ConfigTextErrorKind::QuotedKeyword("IPCKEY".into())
        )
    );
    // A quoted value stays a value.
    let cfg = ConfigText::parse("*RESOURCES\nDOMAINID \"dom 1\"\n").unwrap();
    let p = &cfg.sections[0].params[0];
    assert_eq!(
        (p.key.as_str(), p.value.as_str(), p.quoted),
        ("DOMAINID", "dom 1", true)
    );
}

/// Text made mostly of the characters the lexer and grammar decide on.
fn config_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(
            &[
                "*",
                "\"",
                "=",
                "#",
                "\n",
                "\r\n",
                "\t",
                " ",
                "\\",
                "\\\"",
                "\u{a0}",
                "é",
                "S",
                "*S\n",
                "*RESOURCES\n",
                "DEFAULT:",
                "KEY",
                "v",
                "-",
            ][..],
        ),
        0..50,
    )
    .prop_map(|parts| parts.concat())
}

/// The error's position is inside the text: a line of it, at most one column
/// past that line's last character.
fn assert_inside(text: &str, e: &ConfigTextError) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.split('\n').collect();
    prop_assert!(e.pos.line >= 1 && e.pos.line <= lines.len(), "{e}");
    let width = lines[e.pos.line - 1].chars().count();
    prop_assert!(e.pos.column >= 1 && e.pos.column <= width + 1, "{e}");
    Ok(())
}

proptest! {
    #[test]
    fn config_like_text_never_panics_and_errors_point_into_it(text in config_like()) {
        if let Err(e) = tokenize(&text) {
            assert_inside(&text, &e)?;
        }
        if let Err(e) = ConfigText::parse(&text) {
            assert_inside(&text, &e)?;
        }
    }

    #[test]
    fn any_text_never_panics(text in any::<String>()) {
        if let Err(e) = ConfigText::parse(&text) {
            assert_inside(&text, &e)?;
        }
    }
}
