//! `mqgate decode`: print every MQ structure and field of a message, then its body.
//!
//! Input (docs/decode-json.md): a raw message (starting with an MQMD, an MQXQH or any other
//! header, detected by StrucId), the same as hex text, or a dmpmqmsg/qload file
//! with one or more messages. Output: amqsbcg-like text, or one JSON document
//! (docs/decode-json.md). Bad input: a message naming the structure, offset and
//! MQRC on stderr, exit status 2, and what was decoded before it still printed.

mod input;
mod view;
mod walk;

use clap::{Args, ValueEnum};
use mqgate_codecs::dump::{DumpError, DumpReader};
use mqgate_codecs::mq::{CharField, Charset};
use serde_json::{Value, json};
use std::process::ExitCode;
use view::MessageView;
use walk::Start;

/// What the input file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputKind {
    /// The message bytes as they are.
    Raw,
    /// The message bytes as hex text (whitespace ignored).
    Hex,
    /// A dmpmqmsg/qload text file with one or more messages.
    Dmpmqmsg,
}

/// Options of `mqgate decode`.
#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// The message file; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    pub file: String,
    /// Print one JSON document instead of text (schema: docs/decode-json.md).
    #[arg(long)]
    pub json: bool,
    /// What the input holds.
    #[arg(long, value_enum, default_value_t = InputKind::Raw)]
    pub input: InputKind,
    /// Encoding (MQENC, e.g. 273 or 546) of the first structure of the data,
    /// instead of the one detected or given by the MQMD.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub encoding: Option<i32>,
    /// CodedCharSetId of the first structure of the data (e.g. 819, 500).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub ccsid: Option<i32>,
    /// Format name (MQFMT, e.g. MQHRF2, MQXMIT, MQSTR) of the first structure of the data.
    #[arg(long, value_name = "NAME")]
    pub format: Option<String>,
}

/// Exit status for bad input (docs/decode-json.md).
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status when the input cannot be read at all.
const EXIT_IO: u8 = 1;

/// Runs `mqgate decode`; prints to stdout/stderr and returns the exit status.
pub fn run(args: DecodeArgs) -> ExitCode {
    if let Some(e) = args.encoding
        && let Err(why) = check_encoding(e)
    {
        eprintln!("mqgate decode: --encoding {e}: {why}");
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    if let Some(c) = args.ccsid
        && let Err(why) = check_ccsid(c)
    {
        eprintln!("mqgate decode: --ccsid {c}: {why}");
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    let format = match &args.format {
        None => None,
        Some(f) => match CharField::<8>::new(f, Charset::Ascii) {
            Ok(cf) => Some(cf),
            Err(e) => {
                eprintln!("mqgate decode: --format {f:?}: {e}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        },
    };
    let overrides = walk::Overrides {
        encoding: args.encoding,
        ccsid: args.ccsid,
        format,
    };
    let raw = match input::read_source(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mqgate decode: cannot read {}: {e}", args.file);
            return ExitCode::from(EXIT_IO);
        }
    };
    match args.input {
        InputKind::Raw => {
            // A common slip: a dmpmqmsg file decoded as raw bytes shows no structure.
            if raw.starts_with(b"* DMPMQMSG") || raw.starts_with(b"* QLOAD") {
                eprintln!(
                    "mqgate decode: note: this looks like a dmpmqmsg file; use --input dmpmqmsg"
                );
            }
            single(&raw, &overrides, args.json)
        }
        InputKind::Hex => match input::parse_hex(&raw) {
            Ok(bytes) => single(&bytes, &overrides, args.json),
            Err(e) => {
                eprintln!("mqgate decode: {e}");
                ExitCode::from(EXIT_BAD_INPUT)
            }
        },
        InputKind::Dmpmqmsg => dump(&raw, &overrides, args.json),
    }
}

/// Checks an `--encoding` value: the reserved bits 0xFFFFF000 must be 0 and
/// the integer part (mask 0xF) 0, 1 or 2 (IBM MQ "Encoding (MQLONG)").
fn check_encoding(enc: i32) -> Result<(), String> {
    // Bit pattern, so that a negative number shows its reserved bits.
    let bits = enc as u32;
    if bits & 0xFFFF_F000 != 0 {
        return Err(format!(
            "not an MQ Encoding: reserved bits 0xFFFFF000 are set (0x{bits:08X})"
        ));
    }
    if bits & 0xF > 2 {
        return Err(format!(
            "not an MQ Encoding: integer part {} is not 0, 1 (NORMAL) or 2 (REVERSED)",
            bits & 0xF
        ));
    }
    Ok(())
}

/// Checks a `--ccsid` value: a CCSID mqgate can convert, or one of the MQCCSI
/// specials 0 (DEFAULT/Q_MGR), -1 (EMBEDDED), -2 (INHERIT), -3 (APPL),
/// -4 (AS_PUBLISHED) (MQ docs: MQCCSI_* constants).
fn check_ccsid(ccsid: i32) -> Result<(), String> {
    if (-4..=0).contains(&ccsid) {
        return Ok(());
    }
    mqgate_codecs::ccsid::Ccsid::new(ccsid)
        .map(|_| ())
        .map_err(|_| {
            "unknown CodedCharSetId (not an MQCCSI special value 0, -1..-4 nor a supported CCSID)"
                .to_string()
        })
}

/// Decodes and prints one message; exit 2 if it had an error.
fn single(data: &[u8], overrides: &walk::Overrides, as_json: bool) -> ExitCode {
    let view = walk::decode(data, None, Start::Detect, overrides);
    let failed = report(&view);
    if as_json {
        if let Some(exit) = print_json(&view.to_json()) {
            return exit;
        }
    } else {
        let mut out = String::new();
        view.write_text(&mut out);
        if let Some(exit) = super::out::write_or_exit("decode", out.as_bytes()) {
            return exit;
        }
    }
    status(failed)
}

/// Decodes every message of a dmpmqmsg file; prints what was read before an error.
fn dump(text: &[u8], overrides: &walk::Overrides, as_json: bool) -> ExitCode {
    let mut reader = match DumpReader::new(text) {
        Ok(r) => r,
        Err(e) => return dump_error_only(&e, as_json),
    };
    let mut docs = Vec::new();
    let mut failed = false;
    let mut file_error: Option<DumpError> = None;
    let mut out = String::new();
    for (n, item) in reader.by_ref().enumerate() {
        let msg = match item {
            Ok(m) => m,
            Err(e) => {
                file_error = Some(e);
                break;
            }
        };
        let start = match &msg.md {
            Some(md) => Start::FromMd(md),
            None => Start::Detect,
        };
        let view = walk::decode(&msg.data, msg.md.clone(), start, overrides);
        let view = MessageView {
            line: Some(msg.line),
            ..view
        };
        failed |= report(&view);
        if as_json {
            docs.push(view.to_json());
        } else {
            out.push_str(&format!(
                "==== Message {} (line {}) ====\n\n",
                n + 1,
                msg.line
            ));
            view.write_text(&mut out);
            out.push('\n');
        }
    }
    if let Some(e) = &file_error {
        eprintln!("mqgate decode: {e}");
        failed = true;
    }
    if as_json {
        let mut doc = json!({ "messages": docs });
        if let Some(e) = &file_error {
            doc["error"] = dump_error_json(e);
        }
        if let Some(exit) = print_json(&doc) {
            return exit;
        }
    } else {
        if let Some(exit) = super::out::write_or_exit("decode", out.as_bytes()) {
            return exit;
        }
    }
    status(failed)
}

fn dump_error_only(e: &DumpError, as_json: bool) -> ExitCode {
    eprintln!("mqgate decode: {e}");
    if as_json
        && let Some(exit) = print_json(&json!({ "messages": [], "error": dump_error_json(e) }))
    {
        return exit;
    }
    ExitCode::from(EXIT_BAD_INPUT)
}

fn dump_error_json(e: &DumpError) -> Value {
    json!({
        "line": e.line,
        "column": e.column,
        "mqrc": e.mqrc().0,
        "reason": e.mqrc().name(),
        "message": e.to_string(),
    })
}

/// Writes a message's decode error to stderr; true if there was one.
fn report(view: &MessageView) -> bool {
    match &view.error {
        Some(e) => {
            match view.line {
                Some(l) => eprintln!("mqgate decode: message at line {l}: {e}"),
                None => eprintln!("mqgate decode: {e}"),
            }
            true
        }
        None => false,
    }
}

/// Prints `v` pretty; `Some(exit)` when stdout is closed or failed.
fn print_json(v: &Value) -> Option<ExitCode> {
    match serde_json::to_string_pretty(v) {
        Ok(s) => super::out::line_or_exit("decode", &s),
        Err(e) => {
            eprintln!("mqgate decode: cannot write JSON: {e}");
            None
        }
    }
}

fn status(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}
