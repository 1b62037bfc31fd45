//! Writing to stdout without panicking on a closed pipe.
//!
//! `println!` panics ("failed printing to stdout: Broken pipe") when the
//! reader has gone, e.g. `mqgate browse ... | head -1`. Every command writes
//! through [`write`] instead; a reader that stopped reading is a clean end,
//! like `convert` does.

use std::io::{ErrorKind, Write};

/// What happened to a write to stdout.
enum Outcome {
    /// Written and flushed.
    Written,
    /// The reader closed the pipe (EPIPE): stop writing, exit 0.
    Closed,
    /// Any other I/O error (disk full...): reported on stderr by the caller.
    Failed(std::io::Error),
}

/// Writes `bytes` to a locked stdout and flushes.
fn write(bytes: &[u8]) -> Outcome {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Outcome::Written,
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Outcome::Closed,
        Err(e) => Outcome::Failed(e),
    }
}

/// Writes `bytes`; `None` when the caller may go on, `Some(exit)` to stop:
/// 0 when the reader closed the pipe, 1 (with a message naming `cmd`) on
/// another write error.
pub fn write_or_exit(cmd: &str, bytes: &[u8]) -> Option<std::process::ExitCode> {
    match write(bytes) {
        Outcome::Written => None,
        Outcome::Closed => Some(std::process::ExitCode::SUCCESS),
        Outcome::Failed(e) => {
            eprintln!("mqgate {cmd}: writing stdout: {e}");
            Some(std::process::ExitCode::FAILURE)
        }
    }
}

/// [`write_or_exit`] of `line` plus a newline.
pub fn line_or_exit(cmd: &str, line: &str) -> Option<std::process::ExitCode> {
    let mut s = String::with_capacity(line.len() + 1);
    s.push_str(line);
    s.push('\n');
    write_or_exit(cmd, s.as_bytes())
}
