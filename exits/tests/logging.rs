//! The failure log line names the exit (docs/exits.md: a failure "is logged
//! through `tracing` at ERROR with the exit's name"). Alone in its own test
//! binary: tracing caches callsite interest process-wide, so a scoped
//! subscriber can miss events that other tests' threads registered first.

use bytes::BytesMut;
use mqgate_exits::{
    ChainEntry, Exit, ExitChain, ExitContext, ExitPoint, ExitResponse, FailurePolicy, Isolation,
    Payload,
};
use std::sync::{Arc, Mutex};

struct Panics;

impl Exit for Panics {
    fn call(&mut self, ctx: &mut ExitContext<'_>, _: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason == mqgate_exits::ExitReason::Init {
            return ExitResponse::Ok;
        }
        panic!("exit bug: index out of range");
    }
}

/// A tracing writer that keeps what was logged.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn failures_are_logged_with_the_exits_name() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let mut entry = ChainEntry::new("device-router", "", Box::new(Panics));
        entry.isolation = Isolation::Inline;
        entry.on_failure = FailurePolicy::Close;
        let mut chain = ExitChain::start(ExitPoint::Receive, "TO.GW", "GW", vec![entry]).unwrap();
        let mut buf = BytesMut::from(&b"m"[..]);
        chain.run_buffer(&mut buf);
    });
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("exit failed"))
        .unwrap_or_else(|| panic!("no failure line in {text:?}"));
    assert!(line.contains("ERROR"), "{line}");
    assert!(line.contains("exit=device-router"), "{line}");
    assert!(line.contains("object=TO.GW"), "{line}");
    assert!(line.contains("exit bug: index out of range"), "{line}");
    assert!(line.contains("policy=Close"), "{line}");
}
