//! `mqgate convert`: converts stdin from one CCSID to another on stdout
//! (docs/ccsid.md; conversion in `mqgate_codecs::ccsid`).

use clap::{Args, ValueEnum};
use mqgate_codecs::ccsid::{Ccsid, NewlinePolicy, OnUnmappable, Options, convert};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Arguments of `mqgate convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Source CCSID (e.g. 819, 37, 1208).
    #[arg(long, allow_negative_numbers = true)]
    from: i32,
    /// Target CCSID.
    #[arg(long, allow_negative_numbers = true)]
    to: i32,
    /// EBCDIC newline handling, like IBM MQ's ConvEBCDICNewline.
    #[arg(long, value_enum, default_value_t = Newline::NlToLf)]
    newline: Newline,
    /// What to do with bytes or characters that have no mapping.
    #[arg(long = "on-error", value_enum, default_value_t = OnError::Fail)]
    on_error: OnError,
    /// MQ Encoding of the input; only UTF-16 uses it (546 = little-endian).
    #[arg(long, default_value_t = 273, allow_negative_numbers = true)]
    from_encoding: i32,
    /// MQ Encoding of the output; only UTF-16 uses it (546 = little-endian).
    #[arg(long, default_value_t = 273, allow_negative_numbers = true)]
    to_encoding: i32,
}

/// `--newline` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Newline {
    /// EBCDIC NL 0x15 <-> LF (IBM MQ's default).
    NlToLf,
    /// The conversion tables unchanged (0x15 <-> U+0085, 0x25 <-> LF).
    Table,
    /// TABLE towards ISO-8859 CCSIDs, NL_TO_LF otherwise.
    Iso,
}

/// `--on-error` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum OnError {
    /// Stop at the first unmappable byte, naming its offset.
    Fail,
    /// Write the target's substitution character and report the count on stderr.
    Substitute,
}

/// Runs the command: 0 on success, 1 on a conversion error, 2 on an I/O error.
pub fn run(args: ConvertArgs) -> ExitCode {
    let options = Options {
        newline: match args.newline {
            Newline::NlToLf => NewlinePolicy::NlToLf,
            Newline::Table => NewlinePolicy::Table,
            Newline::Iso => NewlinePolicy::Iso,
        },
        on_unmappable: match args.on_error {
            OnError::Fail => OnUnmappable::Fail,
            OnError::Substitute => OnUnmappable::Substitute,
        },
    };
    for (flag, e) in [
        ("--from-encoding", args.from_encoding),
        ("--to-encoding", args.to_encoding),
    ] {
        if !valid_encoding(e) {
            eprintln!(
                "mqgate convert: {flag} {e} is not an MQ Encoding: reserved bits must be 0 and the integer part 1 (normal, 273) or 2 (reversed, 546) (IBM MQ 'Encoding (MQLONG)'; 2112/2116 MQRC_SOURCE/TARGET_INTEGER_ENC_ERROR)"
            );
            return ExitCode::from(1);
        }
    }
    let (from, to) = match (
        Ccsid::with_encoding(args.from, args.from_encoding),
        Ccsid::with_encoding(args.to, args.to_encoding),
    ) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("mqgate convert: {e}");
            return ExitCode::from(1);
        }
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("mqgate convert: reading stdin: {e}");
        return ExitCode::from(2);
    }
    match convert(&input, from, to, &options) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(&out.bytes).and_then(|()| stdout.flush()) {
                eprintln!("mqgate convert: writing stdout: {e}");
                return ExitCode::from(2);
            }
            if out.substitutions > 0 {
                eprintln!("mqgate convert: {} substitution(s)", out.substitutions);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mqgate convert: {e} (MQRC {})", e.mqrc().0);
            ExitCode::from(1)
        }
    }
}

/// An Encoding mqgate can read integers by: reserved bits clear and the
/// integer part undefined (0, read as normal), normal (1) or reversed (2)
/// (IBM MQ "Encoding (MQLONG)").
fn valid_encoding(e: i32) -> bool {
    use mqgate_codecs::mq::constants::enc;
    e & enc::RESERVED_MASK == 0 && e & enc::INTEGER_MASK <= 2
}
