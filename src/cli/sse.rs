//! Reading a Server-Sent Events stream line by line (WHATWG HTML,
//! "Server-sent events", "Interpreting an event stream"): `event:` sets the
//! type, `data:` lines are joined with newlines, a blank line ends the
//! event, lines starting with `:` are comments (keep-alives), one space
//! after the colon is dropped. `id:` and `retry:` are not used by mqgate
//! and are skipped.

use std::io::{self, BufRead, Read};

/// Longest line read, bytes: the JSON form of the largest message the
/// gateway takes (4 × `rv.max_message_bytes` at most 100 MiB) fits.
pub const MAX_LINE: u64 = 512 * 1024 * 1024;

/// One event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// Its type; `message` when the stream named none.
    pub event: String,
    /// Its data lines, joined with `\n`.
    pub data: String,
}

/// Events of a stream.
pub struct EventReader<R> {
    reader: R,
    line: Vec<u8>,
}

impl<R: BufRead> EventReader<R> {
    /// Reads events from `reader`.
    pub fn new(reader: R) -> Self {
        EventReader {
            reader,
            line: Vec::new(),
        }
    }

    /// The next event; `Ok(None)` at the end of the stream (an event cut
    /// off by the end is dropped, as the specification says).
    ///
    /// Errors: the reader's, a line longer than [`MAX_LINE`], a line that
    /// is not UTF-8.
    pub fn next_event(&mut self) -> io::Result<Option<SseEvent>> {
        let mut event = String::new();
        let mut data: Option<String> = None;
        loop {
            self.line.clear();
            let n = (&mut self.reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut self.line)?;
            if n == 0 {
                return Ok(None);
            }
            if self.line.last() != Some(&b'\n') {
                if n as u64 > MAX_LINE {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("an event stream line is longer than {MAX_LINE} bytes"),
                    ));
                }
                // The stream ended inside a line.
                return Ok(None);
            }
            let text = std::str::from_utf8(&self.line).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("an event stream line is not UTF-8: {e}"),
                )
            })?;
            let text = text.trim_end_matches('\n').trim_end_matches('\r');
            if text.is_empty() {
                if let Some(data) = data.take() {
                    let event = if event.is_empty() {
                        "message".to_string()
                    } else {
                        std::mem::take(&mut event)
                    };
                    return Ok(Some(SseEvent { event, data }));
                }
                event.clear();
                continue;
            }
            if text.starts_with(':') {
                continue;
            }
            let (field, value) = match text.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (text, ""),
            };
            match field {
                "event" => event = value.to_string(),
                "data" => match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<SseEvent> {
        let mut r = EventReader::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            out.push(e);
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_types_data_comments_and_line_ends() {
        // WHATWG HTML "Interpreting an event stream": the default type is
        // "message", data lines join with LF, one leading space is
        // dropped, ':' lines are comments, CRLF ends a line too.
        assert_eq!(
            events(
                ": keep-alive\n\nevent: ready\ndata: {\"a\":1}\n\ndata:x\ndata:  y\r\n\r\nevent: end\ndata\n\n"
            ),
            [
                ev("ready", "{\"a\":1}"),
                ev("message", "x\n y"),
                ev("end", "")
            ]
        );
    }

    #[test]
    fn an_event_cut_off_by_the_end_is_dropped() {
        assert_eq!(
            events("event: message\ndata: 1\n\nevent: message\ndata: 2\n"),
            [ev("message", "1")]
        );
        assert_eq!(events("data: 1\n\ndata: 2"), [ev("message", "1")]);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error() {
        let mut r = EventReader::new(&b"data: \xff\n\n"[..]);
        let e = r.next_event().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }
}
