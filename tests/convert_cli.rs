//! `mqgate convert` end to end (expected bytes from the ICU conversion tables).

use mqgate_codecs::ccsid::{Ccsid, Options, convert};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};

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
    // U+20AC is not in 037: fail names offset 1 and leaves the conversion of
    // what comes before on stdout ('x' is 0xA7), as `iconv -f UTF-8 -t IBM037`
    // and `uconv --callback stop` do; substitute writes 0x3F and counts.
    let (out, err, code) = run(&["--from", "1208", "--to", "37"], "x\u{20AC}".as_bytes());
    assert_eq!((out, code), (vec![0xA7], 1));
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
    // Before it, 'b' is 0x82 in 1026 (ICU ibm-1026).
    let (out, err, code) = run(&["--from", "950", "--to", "1026"], b"b\x88b");
    assert_eq!((out, code), (vec![0x82], 1));
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

/// Starts `mqgate convert ARGS` with piped stdin, stdout and stderr.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .arg("convert")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `child` (whose pipes were taken) and returns its exit status
/// and peak resident set size in KiB: `ru_maxrss` of getrusage(2), as
/// wait4(2) reports it for that one child.
fn wait_with_peak_rss(child: Child) -> (i32, i64) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: `rusage` is plain integers, for which all zeros is a value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; `pid` is our own child,
    // not yet waited for (std waits only in `wait`, which is not called).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(libc::WIFEXITED(status), "status {status:#x}");
    (libc::WEXITSTATUS(status), usage.ru_maxrss)
}

#[test]
fn sixty_four_mib_convert_in_bounded_memory() {
    // 64 MiB of Japanese business text in UTF-8 to mixed EBCDIC 939 (SO/SI
    // runs, pairs and UTF-8 sequences cut at every kind of block edge, since
    // the 62-byte line does not divide the block size). The whole input at
    // once needed over 128 MiB resident (input, text and output buffers);
    // streamed, the peak is a few MiB of buffers over the program itself.
    const SIZE: usize = 64 << 20;
    let line = "受注番号 12345 数量７ 単価 ¥1,200 かな カナ ABC\n";
    let from = Ccsid::new(1208).unwrap();
    let to = Ccsid::new(939).unwrap();
    // Each line converts alone to the same bytes as inside the stream: it
    // starts with a double byte and ends with a single byte (NL), so its
    // run is closed before the next line opens one.
    let want = convert(line.as_bytes(), from, to, &Options::default())
        .unwrap()
        .bytes;
    assert_eq!((want.first(), want.last()), (Some(&0x0E), Some(&0x15)));
    let lines = SIZE / line.len();
    let mut child = spawn(&["--from", "1208", "--to", "939"]);
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = line.repeat(1000);
        let mut left = lines;
        while left > 0 {
            let n = left.min(1000);
            stdin.write_all(&block.as_bytes()[..n * line.len()])?;
            left -= n;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let (mut total, mut mismatch) = (0usize, None);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        for (k, &b) in buf[..n].iter().enumerate() {
            if mismatch.is_none() && b != want[(total + k) % want.len()] {
                mismatch = Some(total + k);
            }
        }
        total += n;
    }
    feeder.join().unwrap().unwrap();
    let mut err = String::new();
    stderr.read_to_string(&mut err).unwrap();
    let (code, peak_kib) = wait_with_peak_rss(child);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mismatch, None);
    assert_eq!(total, lines * want.len());
    // Bound: half the input size, far above what streaming needs and far
    // below what holding the input needs.
    assert!(
        peak_kib < 32 * 1024,
        "peak RSS {peak_kib} KiB for {SIZE} bytes of input"
    );
}

#[test]
fn streamed_output_equals_uconv_over_many_blocks() {
    // About 1.2 MiB, so several 256 KiB blocks, whose edges fall inside
    // UTF-8 sequences, double bytes and SO/SI runs; against ICU `uconv`
    // with the converters the tables come from (`,swaplfnl` for NL_TO_LF,
    // docs/ccsid.md). 1390 also writes か + U+309A as one double byte.
    let status = Command::new("uconv").arg("--version").output();
    if !status.is_ok_and(|s| s.status.success()) {
        missing("uconv not installed (apt-get install icu-devtools)");
        return;
    }
    let cases = [
        (
            "939",
            "ibm-939_P120-1999,swaplfnl",
            "受注 日本語 テキスト かな ABC 123 ｶﾅ\n",
        ),
        (
            "1390",
            "ibm-1390_P110-2003,swaplfnl",
            "受注 か\u{309A}キ\u{309A} 日本語 ABC 123\n",
        ),
        (
            "935",
            "ibm-935_P110-1999,swaplfnl",
            "订单 简体中文 ABC 123\n",
        ),
        ("933", "ibm-933_P110-1995,swaplfnl", "주문 한국어 ABC 123\n"),
    ];
    for (ccsid, icu, line) in cases {
        let text = line.repeat((1_200_000 / line.len()) | 1);
        let uconv = |from: &str, to: &str, input: &[u8]| {
            let mut child = Command::new("uconv")
                .args(["-f", from, "-t", to, "--callback", "stop"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let input = input.to_vec();
            let feeder = std::thread::spawn(move || stdin.write_all(&input));
            let out = child.wait_with_output().unwrap();
            feeder.join().unwrap().unwrap();
            assert!(out.status.success(), "uconv -f {from} -t {to}");
            out.stdout
        };
        let theirs = uconv("UTF-8", icu, text.as_bytes());
        let (ours, err, code) = run_large(&["--from", "1208", "--to", ccsid], text.as_bytes());
        assert_eq!(code, 0, "{err}");
        assert!(ours == theirs, "UTF-8 -> {icu}: output differs from uconv");
        let back = uconv(icu, "UTF-8", &theirs);
        let (ours, err, code) = run_large(&["--from", ccsid, "--to", "1208"], &theirs);
        assert_eq!(code, 0, "{err}");
        assert!(ours == back, "{icu} -> UTF-8: output differs from uconv");
        assert!(ours == text.as_bytes(), "{icu}: not a round trip");
    }
}

/// [`run`] for inputs larger than a pipe holds: stdin is written from a
/// thread while stdout is read.
fn run_large(args: &[&str], input: &[u8]) -> (Vec<u8>, String, i32) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    if let Err(e) = feeder.join().unwrap() {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

#[test]
fn an_error_after_many_blocks_names_its_offset_in_the_whole_input() {
    // 600,001 'a' (three blocks and more), then € (not in 037, ICU ibm-37):
    // the error names offset 600001 and stdout holds the 600,001 'a' as
    // 0x81 (ICU ibm-37), as iconv leaves it.
    let input = [&vec![b'a'; 600_001][..], "€b".as_bytes()].concat();
    let (out, err, code) = run_large(&["--from", "1208", "--to", "37"], &input);
    assert_eq!(code, 1);
    assert!(
        err.contains("U+20AC at offset 600001 ") && err.contains("2119"),
        "{err}"
    );
    assert_eq!(out, vec![0x81; 600_001]);
    // 939: pairs at odd offsets, so block edges (reads of a pipe end at
    // even offsets) fall inside them, in a run opened at offset 2, then the
    // undefined pair FF FF at offset 400,003 (ICU ibm-939 has no pair with
    // lead 0xFF); 45 62 is 日 (ICU ibm-939).
    let mut input = vec![0xC1, 0xC2, 0x0E];
    for _ in 0..200_000 {
        input.extend_from_slice(&[0x45, 0x62]);
    }
    input.extend_from_slice(&[0xFF, 0xFF, 0x0F]);
    let (out, err, code) = run_large(&["--from", "939", "--to", "1208"], &input);
    assert_eq!(code, 1);
    assert!(
        err.contains("byte 0xFF at offset 400003 ") && err.contains("CCSID 939"),
        "{err}"
    );
    let want = format!("AB{}", "日".repeat(200_000));
    assert!(out == want.as_bytes(), "output before the error differs");
}

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool"
    );
    println!("SKIP: {what}");
}
