use super::*;

fn one(text: &str) -> Command {
    let mut v = parse_script(text).unwrap();
    assert_eq!(v.len(), 1, "{v:?}");
    v.remove(0)
}

fn items(p: &Param) -> Vec<&str> {
    p.value.iter().flatten().map(String::as_str).collect()
}

#[test]
fn continuation_characters_join_lines_as_runmqsc_does() {
    // IBM MQ "Creating command scripts": `'Fr-` + `ed'` (e in column 1) and
    // `'Fr+` + `  ed'` are both 'Fred'.
    let c = one("DEFINE QLOCAL(Q) DESCR('Fr-\ned')\n");
    assert_eq!(c.param("DESCR").unwrap().single(), Some("Fred"));
    let c = one("DEFINE QLOCAL(Q) DESCR('Fr+\n      ed')\n");
    assert_eq!(c.param("DESCR").unwrap().single(), Some("Fred"));
    // `-` keeps the next line's leading blanks.
    let c = one("DEFINE QLOCAL(Q) DESCR('a -\n  b')\n");
    assert_eq!(c.param("DESCR").unwrap().single(), Some("a   b"));
}

#[test]
fn comments_and_blank_lines_inside_a_command_are_dropped() {
    // dmpmqcfg writes `* ALTDATE(...) +` comment lines between the lines of a
    // continued command (IBM MQ "dmpmqcfg"); "MQSC input file syntax": comments
    // and blank lines are discarded when the command is reassembled.
    let text = "* header\nDEFINE QLOCAL('APP.IN') +\n* ALTDATE(2026-11-02) +\n\n   MAXDEPTH(20000) +\n   REPLACE\nDEF QL(b)\n";
    let v = parse_script(text).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].line, v[0].verb.as_str()), (2, "DEFINE"));
    assert_eq!(v[0].object_type(), Some("QLOCAL"));
    assert_eq!(v[0].name(), Some("APP.IN"));
    let depth = v[0].param("MAXDEPTH").unwrap();
    assert_eq!((depth.single(), depth.line), (Some("20000"), 5));
    let replace = v[0].param("REPLACE").unwrap();
    assert_eq!((replace.value.is_none(), replace.line), (true, 6));
    // Abbreviations written out, a bare name folded to uppercase
    // (IBM MQ "Rules for using MQSC commands").
    assert_eq!(
        (v[1].verb.as_str(), v[1].object_type()),
        ("DEFINE", Some("QLOCAL"))
    );
    assert_eq!(v[1].name(), Some("B"));
}

#[test]
fn quotes_commas_blanks_and_semicolons() {
    // `''` inside quotes is one quote; commas and blanks separate alike;
    // blanks may stand between a keyword and its value (IBM MQ "Generic values
    // and characters with special meanings", "Rules for using MQSC commands").
    let c = one("ALTER QLOCAL ('Account' ),,TRIGDPTH ( 1) DESCR('it''s');");
    assert_eq!(c.verb, "ALTER");
    assert_eq!(c.name(), Some("Account"));
    assert_eq!(c.param("TRIGDPTH").unwrap().single(), Some("1"));
    assert_eq!(c.param("DESCR").unwrap().single(), Some("it's"));
    let c =
        one("SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('nobody','*MQADMIN') ACTION(REPLACE)");
    assert_eq!(items(c.param("USERLIST").unwrap()), ["nobody", "*MQADMIN"]);
    // A bare CONNAME keeps its port's parentheses; TARGQ is TARGET.
    let c = one("DEF CHL(X) CHLTYPE(SDR) CONNAME(host(1414)) XMITQ(QM2)");
    assert_eq!(c.object_type(), Some("CHANNEL"));
    assert_eq!(c.param("CONNAME").unwrap().single(), Some("HOST(1414)"));
    let c = one("DEF QA(A) TARGQ(B)");
    assert_eq!(c.param("TARGET").unwrap().single(), Some("B"));
    assert_eq!(
        one("DEFINE QLOCAL(Q) DESCR(' ')")
            .param("DESCR")
            .unwrap()
            .single(),
        Some(" ")
    );
    assert_eq!(quote("it's"), "'it''s'");
}

#[test]
fn errors_name_line_and_column() {
    let e = parse_script("DEFINE QLOCAL(A)\nDEFINE QLOCAL(B) DESCR('open\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind.clone()),
        (2, 24, MqscErrorKind::UnterminatedString)
    );
    let e = parse_script("DEFINE QLOCAL(A +\n  MAXDEPTH(5)\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind.clone()),
        (1, 14, MqscErrorKind::UnclosedParenthesis)
    );
    let e = parse_script("DEFINE QLOCAL(A) )\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind.clone()),
        (1, 18, MqscErrorKind::Unexpected(')'))
    );
    let e = parse_script("DEFINE QLOCAL(A) +\n* only a comment follows\n").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind.clone()),
        (1, 18, MqscErrorKind::ContinuedAtEnd('+'))
    );
    assert!(e.to_string().starts_with("MQSC line 1, column 18: "));
}

#[test]
fn no_input_panics() {
    for text in [
        "(",
        "'",
        "A(",
        "A('",
        "A(B",
        "+",
        "-",
        ";",
        "A)",
        "A(()",
        "é(",
        "A(é'",
        "\r\n+\r\n",
    ] {
        let _ = parse_script(text);
    }
}
