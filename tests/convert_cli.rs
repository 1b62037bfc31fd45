//! `mqgate convert` end to end (expected bytes from the ICU conversion tables).

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], input: &[u8]) -> (Vec<u8>, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .arg("convert")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // mqgate may refuse its arguments and exit before it reads stdin: a broken
    // pipe here is then expected, and the exit status tells the rest.
    if let Err(e) = child.stdin.take().unwrap().write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

#[test]
fn a_bracket_b_bracket_from_819_to_1047() {
    // `echo -n 'A[B]' | mqgate convert --from 819 --to 1047 | xxd` prints c1ad c2bd (ICU
    // ibm-1047).
    let (out, _, code) = run(&["--from", "819", "--to", "1047"], b"A[B]");
    assert_eq!((out, code), (vec![0xC1, 0xAD, 0xC2, 0xBD], 0));
}

#[test]
fn newline_and_error_options() {
    // A\nB to 037 is C1 15 C2 (nl-to-lf, IBM MQ ConvEBCDICNewline NL_TO_LF), C1 25 C2
    // (table: ICU ibm-37 unchanged).
    assert_eq!(
        run(&["--from", "819", "--to", "37"], b"A\nB").0,
        [0xC1, 0x15, 0xC2]
    );
    assert_eq!(
        run(
            &["--from", "819", "--to", "37", "--newline", "table"],
            b"A\nB"
        )
        .0,
        [0xC1, 0x25, 0xC2]
    );
    // U+20AC is not in 037: fail names offset 1; substitute writes 0x3F and counts.
    let (out, err, code) = run(&["--from", "1208", "--to", "37"], "x\u{20AC}".as_bytes());
    assert_eq!((out.len(), code), (0, 1));
    assert!(
        err.contains("offset 1") && err.contains("U+20AC") && err.contains("2119"),
        "{err}"
    );
    let (out, err, code) = run(
        &["--from", "1208", "--to", "37", "--on-error", "substitute"],
        "x\u{20AC}".as_bytes(),
    );
    assert_eq!((out, code), (vec![0xA7, 0x3F], 0));
    assert!(err.contains("1 substitution"), "{err}");
    // An unknown CCSID is named.
    let (_, err, code) = run(&["--from", "4711", "--to", "37"], b"x");
    assert_eq!(code, 1);
    assert!(err.contains("4711"), "{err}");
    // UTF-16LE output by Encoding 546.
    assert_eq!(
        run(
            &["--from", "37", "--to", "1200", "--to-encoding", "546"],
            &[0xC1]
        )
        .0,
        [0x41, 0x00]
    );
}

#[test]
fn bad_encodings_and_negative_ccsids_are_named() {
    // IBM MQ "MQENC_* (Encoding)": reserved bits 0xFFFFF000 must be 0; integer part 1 or
    // 2.
    let (out, err, code) = run(
        &["--from", "37", "--to", "1200", "--to-encoding", "12345"],
        b"x",
    );
    assert_eq!((out.len(), code), (0, 1));
    assert!(
        err.contains("--to-encoding 12345") && err.contains("2116"),
        "{err}"
    );
    // A negative CCSID reaches the CCSID check (not clap's "unexpected argument").
    let (_, err, code) = run(&["--from", "-1", "--to", "37"], b"x");
    assert_eq!(code, 1);
    assert!(err.contains("CCSID -1 is not supported"), "{err}");
}

#[test]
fn big5_sequence_of_two_characters_is_named_at_its_first_byte() {
    // `printf 'b\x88b' | mqgate convert --from 950 --to 1026`: Big5 0x88 0x62 is
    // U+00CA U+0304 (WHATWG Encoding Standard "index Big5", pointer 1133) and EBCDIC
    // 1026 has no U+0304 (ICU ibm-1026), so the error names offset 1, where 0x88
    // starts (a tester saw offset 3, past the end of the 3-byte input).
    let (out, err, code) = run(&["--from", "950", "--to", "1026"], b"b\x88b");
    assert_eq!((out.len(), code), (0, 1));
    assert!(
        err.contains("U+0304 at offset 1 ") && err.contains("CCSID 1026") && err.contains("2119"),
        "{err}"
    );
}

#[test]
fn utf16_errors_name_offsets_inside_the_input() {
    // RFC 2781: an odd byte count leaves a lone final byte (offset 2 of 3); a low
    // surrogate DC00 with no high one before it is unpaired (offset 2 of 4).
    let (_, err, code) = run(&["--from", "1200", "--to", "37"], b"\x00a\x00");
    assert_eq!(code, 1);
    assert!(err.contains("lone byte is left at offset 2"), "{err}");
    let (_, err, code) = run(&["--from", "1200", "--to", "37"], b"\x00a\xDC\x00");
    assert_eq!(code, 1);
    assert!(
        err.contains("unpaired surrogate U+DC00 at offset 2"),
        "{err}"
    );
}
