//! `mqgate convert`: converts stdin from one CCSID to another on stdout,
//! block by block with bounded memory (docs/ccsid.md; conversion in
//! `mqgate_codecs::ccsid::StreamConverter`).

use clap::{Args, ValueEnum};
use mqgate_codecs::ccsid::{Ccsid, NewlinePolicy, OnUnmappable, Options, StreamConverter};
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
    /// Stop at the first unmappable byte, naming its offset in the input
    /// (what comes before it is written).
    Fail,
    /// Write the target's substitution character and report the count on stderr.
    Substitute,
}

/// Runs the command: 0 on success, 1 on a conversion error (stdout then
/// holds the conversion of the input before the error), 2 on an I/O error.
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
    stream(StreamConverter::new(from, to, &options))
}

/// Bytes read from stdin per block: large enough that the per-block cost
/// is small next to the conversion, small enough that memory stays a few
/// MiB whatever the input size (docs/ccsid.md, "Streams").
const BLOCK: usize = 256 * 1024;

/// Converts stdin to stdout block by block: each block's output is written
/// before the next is read, so memory does not grow with the input. On a
/// conversion error stdout holds the conversion of everything before the
/// offending character (as iconv and uconv leave it) and the error names
/// its offset in the whole input.
fn stream(mut conv: StreamConverter) -> ExitCode {
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut input = vec![0u8; BLOCK];
    let mut output = Vec::with_capacity(2 * BLOCK);
    let result = loop {
        let n = match stdin.read(&mut input) {
            Ok(0) => break conv.finish(&mut output),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!(
                    "mqgate convert: reading stdin at offset {}: {e}",
                    conv.position()
                );
                return ExitCode::from(2);
            }
        };
        let fed = conv.feed(&input[..n], &mut output);
        if let Err(code) = write_out(&mut stdout, &mut output) {
            return code;
        }
        if let Err(e) = fed {
            break Err(e);
        }
    };
    let flushed = write_out(&mut stdout, &mut output).and_then(|()| {
        stdout.flush().map_err(|e| {
            eprintln!("mqgate convert: writing stdout: {e}");
            ExitCode::from(2)
        })
    });
    if let Err(code) = flushed {
        return code;
    }
    match result {
        Ok(substitutions) => {
            if substitutions > 0 {
                eprintln!("mqgate convert: {substitutions} substitution(s)");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mqgate convert: {e} (MQRC {})", e.mqrc().0);
            ExitCode::from(1)
        }
    }
}

/// Writes and empties `output`; exit status 2 on an I/O error.
fn write_out(stdout: &mut impl Write, output: &mut Vec<u8>) -> Result<(), ExitCode> {
    let r = stdout.write_all(output);
    output.clear();
    r.map_err(|e| {
        eprintln!("mqgate convert: writing stdout: {e}");
        ExitCode::from(2)
    })
}

/// An Encoding mqgate can read integers by: reserved bits clear and the
/// integer part undefined (0, read as normal), normal (1) or reversed (2)
/// (IBM MQ "Encoding (MQLONG)").
fn valid_encoding(e: i32) -> bool {
    use mqgate_codecs::mq::constants::enc;
    e & enc::RESERVED_MASK == 0 && e & enc::INTEGER_MASK <= 2
}
