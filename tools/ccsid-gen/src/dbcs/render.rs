//! Renders probed mixed EBCDIC tables: Rust metadata plus one binary blob.
//!
//! Blob layout (the reader is `codecs/src/ccsid/dbcs.rs`; all integers
//! little-endian):
//!
//! - page descriptors, 6 bytes each: `start: u32` (byte offset of the
//!   page's first entry), `lo: u8`, `hi: u8` (the first and last index the
//!   page holds; `lo > hi` is an empty page). Each table has 256 for the
//!   double bytes (one per lead byte, indexed by the trail byte) and 256 for
//!   the Basic Multilingual Plane (one per high byte of the scalar, indexed
//!   by the low byte);
//! - the pool of pages, `u16` entries: for double bytes the BMP scalar, or
//!   0xD800 + i for the table's `specials[i]` (a scalar above U+FFFF or a
//!   sequence), or 0xFFFF for undefined; for Unicode the single byte
//!   (0x00-0xFF), the double byte (lead << 8 | trail), or 0xFFFF for none.
//!
//! Identical pages are stored once across all tables (930 and 939 share
//! their double-byte half, 1390 and 1399 theirs), and each page keeps only
//! the range from its first to its last defined entry.

use super::list::DbcsSpec;
use super::probe::{Code, DbcsProbe, probe};
use std::collections::HashMap;
use std::fmt::Write;

/// Marks "nothing" in a page (U+FFFF is not a character; no double byte is
/// 0xFFFF in these code pages, the generator checks).
const NONE: u16 = 0xFFFF;
/// First value that stands for `specials[value - SPECIAL]`.
const SPECIAL: u16 = 0xD800;
/// Bytes of one page descriptor.
const DESCRIPTOR: usize = 6;

/// The generated Rust source and binary blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// codecs/src/ccsid/dbcs_tables.rs
    pub rust: String,
    /// codecs/src/ccsid/dbcs_tables.bin
    pub blob: Vec<u8>,
}

/// One table's pages, before the pool offsets are known.
struct Pages {
    decode: Vec<Vec<u16>>,
    bmp: Vec<Vec<u16>>,
    specials: Vec<Vec<u32>>,
}

fn code_value(code: Code) -> Result<u16, String> {
    match code {
        Code::Single(b) => Ok(u16::from(b)),
        Code::Double(d) if d > 0xFF && d != NONE => Ok(d),
        Code::Double(d) => Err(format!("double byte 0x{d:04X} cannot be stored")),
    }
}

fn pages_of(spec: &DbcsSpec, p: &DbcsProbe) -> Result<Pages, String> {
    let mut decode = vec![vec![NONE; 256]; 256];
    let mut specials: Vec<Vec<u32>> = Vec::new();
    for (&code, text) in &p.dbcs {
        let [lead, trail] = code.to_be_bytes();
        let value = match text.as_slice() {
            [u] if *u < 0xD800 || (0xE000..0xFFFF).contains(u) => *u as u16,
            _ => {
                let i = match specials.iter().position(|s| s == text) {
                    Some(i) => i,
                    None => {
                        specials.push(text.clone());
                        specials.len() - 1
                    }
                };
                u16::try_from(i)
                    .ok()
                    .filter(|i| *i < 0x800)
                    .map(|i| SPECIAL + i)
                    .ok_or_else(|| format!("CCSID {}: too many special mappings", spec.ccsid))?
            }
        };
        decode[usize::from(lead)][usize::from(trail)] = value;
    }
    let mut bmp = vec![vec![NONE; 256]; 256];
    for (&u, &code) in &p.from_unicode {
        if u <= 0xFFFF {
            bmp[(u >> 8) as usize][(u & 0xFF) as usize] = code_value(code)?;
        }
    }
    Ok(Pages {
        decode,
        bmp,
        specials,
    })
}

/// The pool: each distinct trimmed page once.
#[derive(Default)]
struct Pool {
    bytes: Vec<u8>,
    seen: HashMap<Vec<u16>, u32>,
}

impl Pool {
    /// Adds `page` (256 entries), returning its descriptor relative to the
    /// pool's start.
    fn add(&mut self, page: &[u16]) -> Result<(u32, u8, u8), String> {
        let Some(lo) = page.iter().position(|&v| v != NONE) else {
            return Ok((0, 1, 0));
        };
        let hi = page.iter().rposition(|&v| v != NONE).unwrap_or(lo);
        let trimmed = page[lo..=hi].to_vec();
        let start = match self.seen.get(&trimmed) {
            Some(&s) => s,
            None => {
                let s = u32::try_from(self.bytes.len()).map_err(|_| "pool too large")?;
                self.bytes
                    .extend(trimmed.iter().flat_map(|v| v.to_le_bytes()));
                self.seen.insert(trimmed, s);
                s
            }
        };
        // lo, hi < 256 (page indices).
        Ok((start, lo as u8, hi as u8))
    }
}

/// Probes every spec and renders both files.
pub fn generate(specs: &[DbcsSpec]) -> Result<Generated, String> {
    let mut probed = Vec::with_capacity(specs.len());
    for spec in specs {
        let p = probe(spec.icu).map_err(|e| format!("CCSID {}: {e}", spec.ccsid))?;
        check(spec, &p)?;
        probed.push(p);
    }
    render(specs, &probed)
}

/// Refuses data the tables cannot hold or the codec would get wrong.
fn check(spec: &DbcsSpec, p: &DbcsProbe) -> Result<(), String> {
    let c = spec.ccsid;
    if p.sbcs[0x0E].is_some() || p.sbcs[0x0F].is_some() {
        return Err(format!("CCSID {c}: a shift byte decodes as a character"));
    }
    if let Some(code) = p.dbcs.keys().find(|k| **k <= 0xFF || **k == NONE) {
        return Err(format!(
            "CCSID {c}: double byte 0x{code:04X} cannot be stored"
        ));
    }
    for (t, code) in &p.sequences {
        if !matches!(code, Code::Double(_)) || t.len() < 2 {
            return Err(format!("CCSID {c}: sequence {t:X?} → {code:?}"));
        }
    }
    Ok(())
}

/// Renders already probed tables (`probed[i]` belongs to `specs[i]`).
pub fn render(specs: &[DbcsSpec], probed: &[DbcsProbe]) -> Result<Generated, String> {
    let mut pool = Pool::default();
    let mut descriptors: Vec<Vec<(u32, u8, u8)>> = Vec::new();
    let mut all_pages = Vec::new();
    for (spec, p) in specs.iter().zip(probed) {
        let pages = pages_of(spec, p)?;
        let mut d = Vec::with_capacity(512);
        for page in pages.decode.iter().chain(&pages.bmp) {
            d.push(pool.add(page)?);
        }
        descriptors.push(d);
        all_pages.push(pages);
    }
    let header = specs.len() * 512 * DESCRIPTOR;
    let header32 = u32::try_from(header).map_err(|_| "too many tables")?;
    let mut blob = Vec::with_capacity(header + pool.bytes.len());
    for d in &descriptors {
        for &(start, lo, hi) in d {
            blob.extend((header32 + start).to_le_bytes());
            blob.extend([lo, hi]);
        }
    }
    blob.extend(&pool.bytes);

    let mut rust = String::new();
    let _ = write!(
        rust,
        "//! Mixed single/double-byte EBCDIC tables. GENERATED by `cargo run -p\n\
         //! mqgate-ccsid-gen` (tools/ccsid-gen) from ICU `uconv`, i.e. IBM's CDRA\n\
         //! mappings; do not edit. The double-byte pages of both directions are in\n\
         //! `dbcs_tables.bin` ({} bytes: {} page descriptors, then {} bytes of\n\
         //! pages; layout in tools/ccsid-gen/src/dbcs/render.rs).\n\
         //! `tools/ccsid-gen/tests/generated_tables.rs` regenerates and compares.\n\
         \n\
         use super::dbcs::DbcsTable;\n\
         use super::sbcs::UNDEFINED;\n\
         \n\
         /// The pages of every table below.\n\
         static DATA: &[u8] = include_bytes!(\"dbcs_tables.bin\");\n",
        blob.len(),
        specs.len() * 512,
        pool.bytes.len()
    );
    for (k, ((spec, p), pages)) in specs.iter().zip(probed).zip(&all_pages).enumerate() {
        render_one(&mut rust, spec, p, pages, k * 512 * DESCRIPTOR)?;
    }
    rust.push_str("\n/// Every generated table, in the generator's list order.\npub static ALL: &[&DbcsTable] = &[\n");
    for spec in specs {
        let _ = writeln!(rust, "    &CCSID_{},", spec.ccsid);
    }
    rust.push_str("];\n");
    Ok(Generated { rust, blob })
}

fn text_literal(scalars: &[u32]) -> String {
    let mut s = String::from("\"");
    for u in scalars {
        let _ = write!(s, "\\u{{{u:X}}}");
    }
    s.push('"');
    s
}

fn render_one(
    out: &mut String,
    spec: &DbcsSpec,
    p: &DbcsProbe,
    pages: &Pages,
    descriptors: usize,
) -> Result<(), String> {
    let _ = write!(
        out,
        "\n/// CCSID {} ({}): ICU `{}`, glibc `{}`; {} double bytes, {} scalars written.\n\
         pub static CCSID_{}: DbcsTable = DbcsTable {{\n    ccsid: {},\n    name: \"{}\",\n    icu: \"{}\",\n    iconv: \"{}\",\n    \
         sbcs_substitution: 0x{:02X},\n    dbcs_substitution: 0x{:04X},\n    substitution_exceptions: &[",
        spec.ccsid,
        spec.name,
        spec.icu,
        spec.iconv,
        p.dbcs.len(),
        p.from_unicode.len(),
        spec.ccsid,
        spec.ccsid,
        spec.name,
        spec.icu,
        spec.iconv,
        p.sbcs_substitution,
        p.dbcs_substitution
    );
    for row in p.substitution_exceptions.chunks(8) {
        out.push_str("\n       ");
        for u in row {
            let _ = write!(out, " 0x{u:04X},");
        }
    }
    if !p.substitution_exceptions.is_empty() {
        out.push_str("\n    ");
    }
    out.push_str("],\n    sbcs_to_unicode: [\n");
    for row in p.sbcs.chunks(8) {
        out.push_str("       ");
        for cp in row {
            match cp {
                Some(c) => {
                    let _ = write!(out, " 0x{c:04X},");
                }
                None => out.push_str(" UNDEFINED,"),
            }
        }
        out.push('\n');
    }
    let _ = write!(
        out,
        "    ],\n    dbcs_pages: {},\n    bmp_pages: {},\n    specials: &[",
        descriptors,
        descriptors + 256 * DESCRIPTOR
    );
    for row in pages.specials.chunks(6) {
        out.push_str("\n       ");
        for s in row {
            let _ = write!(out, " {},", text_literal(s));
        }
    }
    if !pages.specials.is_empty() {
        out.push_str("\n    ");
    }
    out.push_str("],\n    supplementary: &[");
    let supp: Vec<(u32, u16)> = p
        .from_unicode
        .iter()
        .filter(|(u, _)| **u > 0xFFFF)
        .map(|(&u, &c)| code_value(c).map(|v| (u, v)))
        .collect::<Result<_, _>>()?;
    for row in supp.chunks(5) {
        out.push_str("\n       ");
        for (u, v) in row {
            let _ = write!(out, " (0x{u:05X}, 0x{v:04X}),");
        }
    }
    if !supp.is_empty() {
        out.push_str("\n    ");
    }
    out.push_str("],\n    sequences: &[");
    for (t, code) in &p.sequences {
        let _ = write!(
            out,
            "\n        ({}, 0x{:04X}),",
            text_literal(t),
            code_value(*code)?
        );
    }
    if !p.sequences.is_empty() {
        out.push_str("\n    ");
    }
    out.push_str("],\n    data: DATA,\n};\n");
    Ok(())
}
