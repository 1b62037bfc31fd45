//! Probes one mixed EBCDIC converter through ICU `uconv` (or, for the
//! tests, glibc `iconv`).
//!
//! Every probe is one process: each item is framed so that the tool's output
//! splits back into one answer per item, whatever the tool skipped.
//!
//! - single bytes: `b F0 F1` (0x0E and 0x0F are the shifts, not characters);
//! - double bytes: `0E hi lo 0F F0 F1` for every pair whose bytes are not
//!   shifts (ICU consumes both bytes of an invalid pair, so the frame holds);
//! - Unicode: each scalar followed by "01"; ICU answers nothing, one byte,
//!   or `0E hi lo 0F`, then `F0 F1`.
//!
//! F0 F1 are EBCDIC "0" "1" in every one of these code pages.

use crate::oracle::Tool;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// Shift-out and shift-in.
const SO: u8 = 0x0E;
const SI: u8 = 0x0F;
/// The frame separator "01", in EBCDIC and as Unicode.
const SEP: [u8; 2] = [0xF0, 0xF1];
const SEP_U: [u32; 2] = ['0' as u32, '1' as u32];

/// Where a character goes in the code page: one byte, or a double byte
/// (lead << 8 | trail) inside SO ... SI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    /// A single byte.
    Single(u8),
    /// A double byte.
    Double(u16),
}

/// What ICU says about one mixed CCSID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbcsProbe {
    /// Unicode scalar of each single byte (None: undefined, and the shifts).
    pub sbcs: Vec<Option<u32>>,
    /// The Unicode text of every defined double byte (one scalar, or a
    /// sequence such as a kana with U+309A).
    pub dbcs: BTreeMap<u16, Vec<u32>>,
    /// Every scalar ICU can write, and where it goes (round-trip and
    /// one-way "fallback" mappings alike, as `uconv` uses them by default).
    pub from_unicode: BTreeMap<u32, Code>,
    /// Multi-scalar texts that encode as one double byte.
    pub sequences: Vec<(Vec<u32>, Code)>,
    /// ICU's single-byte substitution character (subchar1).
    pub sbcs_substitution: u8,
    /// ICU's double-byte substitution character (subchar).
    pub dbcs_substitution: u16,
    /// Scalars without a mapping whose substitution is not the one the
    /// default rule gives (single byte for U+0000-U+00FF, double byte above),
    /// sorted. Default-ignorable scalars, which ICU drops, are not listed.
    pub substitution_exceptions: Vec<u32>,
}

/// What the encoder does with a scalar the set has no mapping for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unmapped {
    /// Leave it out (`-c`).
    Skip,
    /// Write the substitution character (uconv `--to-callback substitute`;
    /// glibc iconv has no such option).
    Substitute,
}

/// Runs `tool` with `args` on `input` (stdout only; the exit status is not
/// looked at, since a skipping run reports what it skipped).
fn run(tool: Tool, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new(tool.program())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", tool.program()))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{} failed: {e}", tool.program()))?;
    writer
        .join()
        .map_err(|_| "writer thread panicked".to_string())?
        .map_err(|e| format!("writing to {}: {e}", tool.program()))?;
    Ok(out.stdout)
}

fn utf32be(cps: impl IntoIterator<Item = u32>) -> Vec<u8> {
    cps.into_iter().flat_map(u32::to_be_bytes).collect()
}

/// Decodes `input` from `name` to scalars, skipping what is invalid.
fn to_scalars(tool: Tool, name: &str, input: &[u8]) -> Result<Vec<u32>, String> {
    let args: &[&str] = match tool {
        Tool::Uconv => &["-f", name, "-t", "UTF-32BE", "-i", "-c"],
        Tool::Iconv => &["-c", "-f", name, "-t", "UTF-32BE"],
    };
    let out = run(tool, args, input)?;
    Ok(out
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Splits decoded scalars into `n` answers, each ending at the first "01".
fn split_text(out: &[u32], n: usize) -> Result<Vec<Vec<u32>>, String> {
    let mut items = Vec::with_capacity(n);
    let mut i = 0;
    for k in 0..n {
        let rest = out.get(i..).unwrap_or(&[]);
        let j = rest
            .windows(2)
            .position(|w| w == SEP_U)
            .ok_or_else(|| format!("decoded output does not parse at item {k}"))?;
        items.push(rest[..j].to_vec());
        i += j + 2;
    }
    if i != out.len() {
        return Err(format!("decoded output has {} extra units", out.len() - i));
    }
    Ok(items)
}

/// Splits encoded bytes into `n` answers (see the module doc), `None` where
/// ICU wrote nothing.
fn split_codes(out: &[u8], n: usize) -> Result<Vec<Option<Code>>, String> {
    let mut items = Vec::with_capacity(n);
    let mut i = 0;
    for k in 0..n {
        let rest = out.get(i..).unwrap_or(&[]);
        let bad = || format!("encoded output does not parse at item {k}: {rest:02X?}");
        let (code, len) = match rest {
            [SO, hi, lo, SI, s0, s1, ..] if [*s0, *s1] == SEP => {
                (Some(Code::Double(u16::from_be_bytes([*hi, *lo]))), 4)
            }
            [s0, s1, ..] if [*s0, *s1] == SEP => (None, 0),
            [b, s0, s1, ..] if [*s0, *s1] == SEP && *b != SO && *b != SI => {
                (Some(Code::Single(*b)), 1)
            }
            _ => return Err(bad()),
        };
        items.push(code);
        i += len + 2;
    }
    if i != out.len() {
        return Err(format!("encoded output has {} extra bytes", out.len() - i));
    }
    Ok(items)
}

/// Encodes each of `texts` (scalars) to `name` with `tool`; `None` where
/// the tool wrote nothing.
pub fn encode_each(
    tool: Tool,
    name: &str,
    texts: &[Vec<u32>],
    unmapped: Unmapped,
) -> Result<Vec<Option<Code>>, String> {
    let input = utf32be(texts.iter().flat_map(|t| t.iter().copied().chain(SEP_U)));
    let args: &[&str] = match (tool, unmapped) {
        (Tool::Uconv, Unmapped::Skip) => &["-f", "UTF-32BE", "-t", name, "-c"],
        (Tool::Uconv, Unmapped::Substitute) => {
            &["-f", "UTF-32BE", "-t", name, "--to-callback", "substitute"]
        }
        (Tool::Iconv, Unmapped::Skip) => &["-c", "-f", "UTF-32BE", "-t", name],
        (Tool::Iconv, Unmapped::Substitute) => {
            return Err("glibc iconv cannot substitute".to_string());
        }
    };
    let out = run(tool, args, &input)?;
    split_codes(&out, texts.len())
}

/// Every Unicode scalar value (surrogate code points are not scalars).
pub fn all_scalars() -> impl Iterator<Item = u32> {
    (0..=0x10_FFFFu32).filter(|c| !(0xD800..=0xDFFF).contains(c))
}

/// The text `tool` decodes each single byte 0x00-0xFF of `name` to (empty:
/// undefined; SO and SI are always empty, they are not characters).
pub fn decode_singles(tool: Tool, name: &str) -> Result<Vec<Vec<u32>>, String> {
    let singles: Vec<u8> = (0..=255u8).filter(|b| *b != SO && *b != SI).collect();
    let input: Vec<u8> = singles.iter().flat_map(|&b| [b, SEP[0], SEP[1]]).collect();
    let texts = split_text(&to_scalars(tool, name, &input)?, singles.len())?;
    let mut all = vec![Vec::new(); 256];
    for (&b, t) in singles.iter().zip(texts) {
        all[usize::from(b)] = t;
    }
    Ok(all)
}

/// The text `tool` decodes every double byte of `name` to, as `SO hi lo
/// SI`, for each pair whose bytes are not shifts; pairs that are not
/// characters are left out.
pub fn decode_doubles(tool: Tool, name: &str) -> Result<BTreeMap<u16, Vec<u32>>, String> {
    let pairs: Vec<u16> = (0..=0xFFFFu16)
        .filter(|p| !p.to_be_bytes().iter().any(|b| *b == SO || *b == SI))
        .collect();
    let input: Vec<u8> = pairs
        .iter()
        .flat_map(|p| {
            let [hi, lo] = p.to_be_bytes();
            [SO, hi, lo, SI, SEP[0], SEP[1]]
        })
        .collect();
    let texts = split_text(&to_scalars(tool, name, &input)?, pairs.len())?;
    Ok(pairs
        .iter()
        .zip(texts)
        .filter(|(_, t)| !t.is_empty())
        .map(|(&p, t)| (p, t))
        .collect())
}

/// Probes `icu` (an `ibm-NNN` converter of type EBCDIC_STATEFUL).
pub fn probe(icu: &str) -> Result<DbcsProbe, String> {
    let mut sbcs = vec![None; 256];
    for (b, t) in decode_singles(Tool::Uconv, icu)?.into_iter().enumerate() {
        match t.as_slice() {
            [] => {}
            [u] if *u <= 0xFFFF => sbcs[b] = Some(*u),
            other => return Err(format!("{icu}: byte 0x{b:02X} decodes to {other:X?}")),
        }
    }
    let dbcs = decode_doubles(Tool::Uconv, icu)?;
    // Unicode, one scalar at a time, skipping what has no mapping.
    let scalars: Vec<Vec<u32>> = all_scalars().map(|c| vec![c]).collect();
    let codes = encode_each(Tool::Uconv, icu, &scalars, Unmapped::Skip)?;
    let mut from_unicode = BTreeMap::new();
    let mut unmapped = Vec::new();
    for (t, code) in scalars.iter().zip(codes) {
        match code {
            Some(code) => {
                from_unicode.insert(t[0], code);
            }
            None => unmapped.push(t.clone()),
        }
    }
    // Multi-scalar texts of the double bytes, encoded as a whole.
    let multi: Vec<Vec<u32>> = dbcs.values().filter(|t| t.len() > 1).cloned().collect();
    let codes = encode_each(Tool::Uconv, icu, &multi, Unmapped::Skip)?;
    let mut sequences = Vec::new();
    for (t, code) in multi.into_iter().zip(codes) {
        let code = code.ok_or_else(|| format!("{icu}: {t:X?} does not encode as one code"))?;
        sequences.push((t, code));
    }
    sequences.sort();
    // Substitution: what ICU writes for each scalar it cannot map.
    let subs = encode_each(Tool::Uconv, icu, &unmapped, Unmapped::Substitute)?;
    let mut sbcs_substitution = None;
    let mut dbcs_substitution = None;
    let mut substitution_exceptions = Vec::new();
    for (t, sub) in unmapped.iter().zip(subs) {
        let single = match sub {
            None => continue,
            Some(Code::Single(b)) => {
                if *sbcs_substitution.get_or_insert(b) != b {
                    return Err(format!("{icu}: two single-byte substitutions"));
                }
                true
            }
            Some(Code::Double(d)) => {
                if *dbcs_substitution.get_or_insert(d) != d {
                    return Err(format!("{icu}: two double-byte substitutions"));
                }
                false
            }
        };
        if single != (t[0] <= 0xFF) {
            substitution_exceptions.push(t[0]);
        }
    }
    Ok(DbcsProbe {
        sbcs,
        dbcs,
        from_unicode,
        sequences,
        sbcs_substitution: sbcs_substitution.ok_or("no single-byte substitution seen")?,
        dbcs_substitution: dbcs_substitution.ok_or("no double-byte substitution seen")?,
        substitution_exceptions,
    })
}
