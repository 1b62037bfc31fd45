//! Validation of the `rpc:` section (docs/config.md "rpc"): queue names, the
//! wait interval, the CCSID, exit points, and the IDL files themselves —
//! a request/reply program needs an input queue that differs from the output
//! queue (seed 004: "the input queue must be different from the output queue").

use super::programs::Programs;
use crate::config::RpcConfig;
use crate::qmgr::names::check_object_name;
use mqgate_codecs::ccsid::Ccsid;
use mqgate_codecs::idl::CallKind;
use mqgate_codecs::mq::constants::len;
use mqgate_exits::{ExitPoint, ExitRegistry, ExitsConfig};

/// Reports every problem of `rpc` through `err(path, message)`.
pub fn check_config(rpc: &RpcConfig, err: &mut impl FnMut(&str, String)) {
    for (path, q) in [
        ("rpc.output_queue", &rpc.output_queue),
        ("rpc.input_queue", &rpc.input_queue),
    ] {
        if !q.is_empty() {
            if let Err(e) = check_object_name(q, len::Q_NAME) {
                err(path, e);
            }
        }
    }
    if rpc.wait_interval_ms < -1 || rpc.wait_interval_ms > i64::from(i32::MAX) {
        err(
            "rpc.wait_interval_ms",
            format!(
                "{} ms: expected 0 to {} ms, or -1 for unlimited",
                rpc.wait_interval_ms,
                i32::MAX
            ),
        );
    }
    if let Err(e) = Ccsid::new(rpc.ccsid) {
        err("rpc.ccsid", e.to_string());
    }
    if rpc.conversation_timeout_ms == 0 {
        err(
            "rpc.conversation_timeout_ms",
            "must be at least 1 ms".into(),
        );
    }
    for point in [ExitPoint::Receive, ExitPoint::Send, ExitPoint::Message] {
        if !rpc.exits.at(point).is_empty() {
            err(
                &format!("rpc.exits.{}", point.key()),
                "RPC calls have only before_put, before_get and after_get exits".into(),
            );
        }
    }
    let exits = ExitsConfig {
        global: rpc.exits.clone(),
        ..ExitsConfig::default()
    };
    for e in ExitRegistry::with_builtins().check(&exits) {
        err("rpc.exits", e.to_string());
    }
    let (programs, errors) = Programs::load(&rpc.idl_files);
    for e in errors {
        err(&format!("rpc.idl_files[{}]", e.file_index), e.message);
    }
    if !rpc.input_queue.is_empty() && rpc.input_queue == rpc.output_queue {
        let mut rr: Vec<String> = programs
            .iter()
            .filter(|p| p.call_kind == CallKind::RequestReply)
            .map(|p| format!("{}/{}", p.library, p.program))
            .collect();
        rr.sort();
        if !rr.is_empty() {
            err(
                "rpc.input_queue",
                format!(
                    "must differ from rpc.output_queue ({}) for request/reply programs ({})",
                    rpc.output_queue,
                    rr.join(", ")
                ),
            );
        }
    }
}
