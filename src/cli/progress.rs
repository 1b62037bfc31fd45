//! A message count on stderr for long runs (`mqgate unload`, `mqgate load`):
//! shown only when stderr is a terminal, so logs and pipes stay clean.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How long a run goes before the count appears, and how often it is redrawn.
const EVERY: Duration = Duration::from_millis(500);

/// A `\r`-redrawn line `mqgate <cmd>: <n> messages <what>` on a terminal.
pub struct Progress {
    cmd: &'static str,
    what: String,
    shown: bool,
    on_terminal: bool,
    last: Instant,
}

impl Progress {
    /// A counter for `mqgate <cmd>`; `what` ends the line (e.g. `from Q`).
    pub fn new(cmd: &'static str, what: String) -> Self {
        Progress {
            cmd,
            what,
            shown: false,
            on_terminal: std::io::stderr().is_terminal(),
            last: Instant::now(),
        }
    }

    /// `n` messages done so far: redraws at most every 500 ms, the first
    /// time 500 ms after the start.
    pub fn tick(&mut self, n: u64) {
        if !self.on_terminal || self.last.elapsed() < EVERY {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\rmqgate {}: {n} messages {}", self.cmd, self.what);
        let _ = err.flush();
    }

    /// Ends the line drawn, if any, so the next message starts on its own.
    pub fn finish(&mut self) {
        if self.shown {
            eprintln!();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
