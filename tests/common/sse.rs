//! A Server-Sent Events client for the tests: a thread reads the event
//! stream (WHATWG HTML, "Server-sent events": `event:` and `data:` lines, a
//! blank line ends an event, `:` lines are comments) and hands each event
//! over.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One Server-Sent Event: its type and data; `("eof", "")` when the
/// stream ended.
pub type Event = (String, String);

/// A listener over HTTP: a thread reading the event stream (WHATWG HTML,
/// "Server-sent events": `event:` and `data:` lines, a blank line ends an
/// event, `:` lines are comments) and handing each event over.
pub struct Sse {
    rx: mpsc::Receiver<Event>,
    /// Sending on it lets a held-back reader start reading.
    go: Option<mpsc::Sender<()>>,
}

impl Sse {
    /// Opens `url`; the thread reads at once.
    pub fn open(url: String) -> Sse {
        Sse::start(url, false)
    }

    /// Opens `url`; the thread reads only once [`Sse::release`] is called:
    /// until then the client reads nothing and the gateway's writes pile up
    /// in the socket.
    pub fn open_held(url: String) -> Sse {
        Sse::start(url, true)
    }

    fn start(url: String, hold: bool) -> Sse {
        let (tx, rx) = mpsc::channel();
        let (go, wait) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout_read(Duration::from_secs(60))
                .build();
            let res = match agent.get(&url).call() {
                Ok(r) => r,
                Err(ureq::Error::Status(code, r)) => {
                    let _ = tx.send((
                        "status".into(),
                        format!("{code} {}", r.into_string().unwrap_or_default()),
                    ));
                    return;
                }
                Err(e) => {
                    let _ = tx.send(("error".into(), e.to_string()));
                    return;
                }
            };
            if hold {
                let _ = wait.recv();
            }
            let mut reader = BufReader::new(res.into_reader());
            let (mut event, mut data) = (String::new(), String::new());
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(("eof".into(), String::new()));
                        return;
                    }
                    Ok(_) => {}
                }
                let l = line.trim_end_matches(['\r', '\n']);
                if l.is_empty() {
                    if !event.is_empty() || !data.is_empty() {
                        let ev = (std::mem::take(&mut event), std::mem::take(&mut data));
                        if tx.send(ev).is_err() {
                            return;
                        }
                    }
                } else if let Some(v) = l.strip_prefix("event:") {
                    event = v.trim_start().to_string();
                } else if let Some(v) = l.strip_prefix("data:") {
                    data = v.trim_start().to_string();
                }
            }
        });
        Sse { rx, go: Some(go) }
    }

    pub fn release(&mut self) {
        if let Some(go) = self.go.take() {
            let _ = go.send(());
        }
    }

    /// The next event, waiting up to `wait`.
    pub fn next(&self, wait: Duration) -> Option<Event> {
        self.rx.recv_timeout(wait).ok()
    }

    /// The `ready` event's data, which comes first.
    pub fn ready(&self) -> Value {
        let (event, data) = self.next(Duration::from_secs(20)).expect("no ready event");
        assert_eq!(event, "ready", "{data}");
        serde_json::from_str(&data).unwrap()
    }

    /// The next `message` event's JSON.
    pub fn message(&self) -> Value {
        let (event, data) = self
            .next(Duration::from_secs(20))
            .expect("no message event");
        assert_eq!(event, "message", "{data}");
        serde_json::from_str(&data).unwrap()
    }

    /// Messages until one on `subject` (returned); the others are kept in
    /// the panic message if none comes within 20 s.
    pub fn until(&self, subject: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let Some((event, data)) = self.next(left) else {
                break;
            };
            if event != "message" {
                seen.push(format!("{event} {data}"));
                continue;
            }
            let v: Value = serde_json::from_str(&data).unwrap();
            if v["subject"] == subject {
                return v;
            }
            seen.push(v["subject"].to_string());
        }
        panic!("no message on {subject}; saw {seen:?}");
    }

    /// True when nothing comes within `wait`.
    pub fn quiet(&self, wait: Duration) -> Option<Event> {
        self.next(wait)
    }
}
