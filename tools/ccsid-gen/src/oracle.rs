//! Runs glibc `iconv` and ICU `uconv` over all 256 byte values of a set.
//!
//! Each probe is one process per set: every item is followed by the two
//! separator characters "01", and undefined items are skipped by the tool
//! (`-c` / `-i`), so item `i` yields either `x 0 1` or just `0 1`. Reading left
//! to right that is unambiguous even when `x` is itself `0` or `1`. Digits,
//! not letters: glibc's CP1255/CP1258 compose a letter with a following
//! combining mark.

use std::io::Write;
use std::process::{Command, Stdio};

/// An external converter used as a test oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// glibc `iconv` (package libc-bin).
    Iconv,
    /// ICU `uconv` (package icu-devtools).
    Uconv,
}

impl Tool {
    /// The program name.
    pub fn program(self) -> &'static str {
        match self {
            Tool::Iconv => "iconv",
            Tool::Uconv => "uconv",
        }
    }

    /// True when the program can be started.
    pub fn available(self) -> bool {
        Command::new(self.program())
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    }

    /// Converts `input` from `from` to `to`; `skip` omits what cannot be
    /// converted instead of stopping. A non-zero exit is only an error when
    /// nothing was skipped on purpose (iconv exits 1 after skipping).
    pub fn run(self, from: &str, to: &str, input: &[u8], skip: bool) -> Result<Vec<u8>, String> {
        let mut cmd = Command::new(self.program());
        cmd.args(["-f", from, "-t", to]);
        if skip {
            match self {
                Tool::Iconv => cmd.arg("-c"),
                Tool::Uconv => cmd.args(["-i", "-c"]),
            };
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.program()))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let data = input.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child
            .wait_with_output()
            .map_err(|e| format!("{} failed: {e}", self.program()))?;
        writer
            .join()
            .map_err(|_| "writer thread panicked".to_string())?
            .map_err(|e| format!("writing to {}: {e}", self.program()))?;
        if !out.status.success() && !skip {
            return Err(format!(
                "{} -f {from} -t {to}: {}",
                self.program(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    }
}

/// The separator bytes "01" in a set: 0xF0 0xF1 in EBCDIC, 0x30 0x31 otherwise.
pub fn separator(ebcdic: bool) -> [u8; 2] {
    if ebcdic { [0xF0, 0xF1] } else { [0x30, 0x31] }
}

fn utf32be(cps: &[u32]) -> Vec<u8> {
    cps.iter().flat_map(|c| c.to_be_bytes()).collect()
}

/// Splits `out` into one optional item per input item (see the module doc).
fn split_items<T: Copy + PartialEq>(
    out: &[T],
    sep: [T; 2],
    n: usize,
) -> Result<Vec<Option<T>>, String> {
    let mut items = Vec::with_capacity(n);
    let mut i = 0;
    for k in 0..n {
        let rest = &out[i.min(out.len())..];
        if rest.len() >= 2 && rest[0] == sep[0] && rest[1] == sep[1] {
            items.push(None);
            i += 2;
        } else if rest.len() >= 3 && rest[1] == sep[0] && rest[2] == sep[1] {
            items.push(Some(rest[0]));
            i += 3;
        } else {
            return Err(format!("oracle output does not parse at item {k}"));
        }
    }
    if i != out.len() {
        return Err(format!("oracle output has {} extra units", out.len() - i));
    }
    Ok(items)
}

/// Decodes every byte 0x00-0xFF of `name` to a Unicode scalar (None = undefined).
pub fn decode_all(tool: Tool, name: &str, ebcdic: bool) -> Result<Vec<Option<u32>>, String> {
    let sep = separator(ebcdic);
    let input: Vec<u8> = (0..=255u8).flat_map(|b| [b, sep[0], sep[1]]).collect();
    let out = tool.run(name, "UTF-32BE", &input, true)?;
    let cps: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    split_items(&cps, ['0' as u32, '1' as u32], 256)
}

/// Encodes each of `cps` to `name` (None = not representable).
pub fn encode_each(
    tool: Tool,
    name: &str,
    ebcdic: bool,
    cps: &[u32],
) -> Result<Vec<Option<u8>>, String> {
    let input: Vec<u32> = cps
        .iter()
        .flat_map(|&c| [c, '0' as u32, '1' as u32])
        .collect();
    let out = tool.run("UTF-32BE", name, &utf32be(&input), true)?;
    split_items(&out, separator(ebcdic), cps.len())
}

/// The byte ICU substitutes for a character the set lacks (U+4E00 is in none
/// of the single-byte sets).
pub fn substitution_byte(name: &str) -> Result<u8, String> {
    let mut cmd = Command::new(Tool::Uconv.program());
    cmd.args(["-f", "UTF-32BE", "-t", name, "--to-callback", "substitute"]);
    let out = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(&0x4E00u32.to_be_bytes())?;
            }
            child.wait_with_output()
        })
        .map_err(|e| format!("uconv: {e}"))?;
    match out.stdout.as_slice() {
        [b] => Ok(*b),
        other => Err(format!("uconv substitution for {name} gave {other:02X?}")),
    }
}
