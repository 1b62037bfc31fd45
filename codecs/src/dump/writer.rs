//! Writing dmpmqmsg/qload files (the `WriteFile*` functions of the qload source,
//! ibm-messaging/mq-q-qload `qloadfnc.c`).
//!
//! Output is what dmpmqmsg writes with its default options (`A` lines, `X`
//! lines of 25 bytes) or with `-dA` ([`BodyStyle::Ascii`]). One deviation: `A VER`
//! is written for version 1 MDs too (qload writes it only for version 2), so
//! that a version 1 MD reads back as version 1.

use super::codes::{self, Slot};
use super::{DumpHeader, DumpMessage};
use std::io::Write;

/// How message data lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyStyle {
    /// All data as `X` hex lines (dmpmqmsg's default).
    #[default]
    Hex,
    /// Runs of printable invariant characters as `S "…"` lines, the rest as `X`
    /// lines (dmpmqmsg `-dA`).
    Ascii,
}

/// Writer options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Data bytes per `X` line (dmpmqmsg `-dw`, default 25, at least 10 as in qload);
    /// an `S` line holds up to `2 × width − 2` characters.
    pub width: usize,
    /// How data is written.
    pub body: BodyStyle,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            width: 25,
            body: BodyStyle::Hex,
        }
    }
}

/// Writes a whole file: the header, a blank line, then each message followed
/// by a blank line.
pub fn write_dump(header: &DumpHeader, messages: &[DumpMessage], opts: &WriteOptions) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(header.first_line.as_bytes());
    out.push(b'\n');
    if let Some(q) = &header.q_mgr_name {
        out.extend_from_slice(format!("* Qmgr  = {q}\n").as_bytes());
    }
    if let Some(q) = &header.q_name {
        out.extend_from_slice(format!("* Queue = {q}\n").as_bytes());
    }
    out.push(b'\n');
    for m in messages {
        write_message(m, opts, &mut out);
    }
    out
}

/// Writes one message: `* Index n` if it has one, `N` or the `A` lines, the
/// data lines, and a blank line.
///
/// Character fields are written as their raw bytes up to the first NUL, so the
/// MD should hold ASCII text (as one read from a file does).
pub fn write_message(msg: &DumpMessage, opts: &WriteOptions, out: &mut Vec<u8>) {
    if let Some(n) = msg.index {
        out.extend_from_slice(format!("* Index {n}\n").as_bytes());
    }
    match &msg.md {
        None => out.extend_from_slice(b"N\n"),
        Some(md) => {
            // slot_mut needs a mutable MD; a copy keeps the caller's untouched.
            let mut copy = md.clone();
            for c in codes::CODES {
                // The v2 fields only for a version 2 MD; every other field always,
                // whatever the Version says (a Version 0 MD still gets its A lines).
                if c.optional || (c.min_version >= 2 && md.version < 2) {
                    continue;
                }
                let Some((_, slot)) = codes::slot_mut(&mut copy, c.code) else {
                    continue;
                };
                out.extend_from_slice(b"A ");
                out.extend_from_slice(c.code.as_bytes());
                out.push(b' ');
                match slot {
                    Slot::Int(v) => {
                        let _ = write!(out, "{v}");
                    }
                    Slot::Hex(b) => out.extend_from_slice(hex::encode_upper(&*b).as_bytes()),
                    Slot::Char(b) => {
                        let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
                        out.extend_from_slice(&b[..end]);
                    }
                }
                out.push(b'\n');
            }
        }
    }
    let width = opts.width.max(10);
    match opts.body {
        BodyStyle::Hex => hex_lines(&msg.data, width, out),
        BodyStyle::Ascii => {
            let data = &msg.data[..];
            let mut i = 0;
            let mut first = true;
            loop {
                let run = data[i..].iter().take_while(|&&b| is_invariant(b)).count();
                if run > 0 || first {
                    string_lines(&data[i..i + run], 2 * width - 2, out);
                }
                i += run;
                if i >= data.len() {
                    break;
                }
                let run = data[i..].iter().take_while(|&&b| !is_invariant(b)).count();
                hex_lines(&data[i..i + run], width, out);
                i += run;
                if i >= data.len() {
                    break;
                }
                first = false;
            }
        }
    }
    out.push(b'\n');
}

/// The C invariant printable characters (same code point in every ASCII and
/// EBCDIC code page); qload's `-dA` writes only these as text.
fn is_invariant(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b" \"%&'()*+,-./:;<=>?_".contains(&b)
}

fn hex_lines(data: &[u8], width: usize, out: &mut Vec<u8>) {
    if data.is_empty() {
        out.extend_from_slice(b"X \n");
        return;
    }
    for chunk in data.chunks(width) {
        out.extend_from_slice(b"X ");
        out.extend_from_slice(hex::encode_upper(chunk).as_bytes());
        out.push(b'\n');
    }
}

fn string_lines(text: &[u8], max: usize, out: &mut Vec<u8>) {
    if text.is_empty() {
        out.extend_from_slice(b"S \n");
        return;
    }
    for chunk in text.chunks(max) {
        out.extend_from_slice(b"S \"");
        for &b in chunk {
            if b == b'"' || b == b'~' {
                out.push(b'~');
            }
            out.push(b);
        }
        out.extend_from_slice(b"\"\n");
    }
}
