//! Validation of the `rpc:` section (docs/config.md "rpc"): queue names, the
//! wait interval, the CCSID, exit points, and the IDL files themselves —
//! a request/reply program needs an input queue that differs from the output
//! queue (Software AG EntireX "EntireX WebSphere MQ RPC Server": "the input queue must be different
//! from the output queue").

use super::programs::Programs;
use crate::config::RpcConfig;
use crate::mqi::names::check_object_name;
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
        if !q.is_empty()
            && let Err(e) = check_object_name(q, len::Q_NAME)
        {
            err(path, e);
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
    if rpc.request_expiry_ms / 100 > i32::MAX as u64 {
        err(
            "rpc.request_expiry_ms",
            format!(
                "at most {} ms (MQMD Expiry is in tenths of a second)",
                i32::MAX as u64 * 100
            ),
        );
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

#[cfg(test)]
mod tests {
    use crate::config::{Config, RpcPayload};

    const IDL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rpc/demo.idl");

    fn errors(rpc: &str) -> Vec<String> {
        let text = format!("rpc:\n  idl_files: [\"{IDL}\"]\n{rpc}");
        match Config::from_yaml(&text, "t.yaml") {
            Ok(_) => Vec::new(),
            Err(e) => e
                .errors
                .iter()
                .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
                .collect(),
        }
    }

    #[test]
    fn defaults_and_a_valid_section() {
        let c = Config::from_yaml("", "t.yaml").unwrap();
        // docs/config.md "rpc": the documented defaults.
        assert!(c.rpc.idl_files.is_empty());
        assert_eq!(c.rpc.wait_interval_ms, 30_000);
        assert_eq!(c.rpc.payload, RpcPayload::Text);
        assert_eq!(c.rpc.ccsid, 1208);
        assert_eq!(c.rpc.conversation_timeout_ms, 60_000);
        assert!(errors("  output_queue: A\n  input_queue: B\n  payload: xml\n").is_empty());
    }

    #[test]
    fn equal_queues_are_refused_only_with_request_reply_programs() {
        // the EntireX WebSphere MQ RPC Server documentation: "for this scenario the input queue must be different from
        // the output queue"; demo.idl has the request/reply programs CALC and ORDER.
        let e = errors("  output_queue: Q\n  input_queue: Q\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("4:16: rpc.input_queue: must differ from rpc.output_queue (Q)")
                && e[0].ends_with("(DEMO/CALC, DEMO/ORDER)"),
            "{e:?}"
        );
        let dir = tempfile::tempdir().unwrap();
        let put_only = dir.path().join("put.idl");
        std::fs::write(
            &put_only,
            "LIBRARY 'L' IS\nPROGRAM 'P' IS\nDEFINE DATA PARAMETER\n1 X (A1) IN\nEND-DEFINE\n",
        )
        .unwrap();
        let text = format!(
            "rpc:\n  idl_files: [\"{}\"]\n  output_queue: Q\n  input_queue: Q\n",
            put_only.display()
        );
        assert!(Config::from_yaml(&text, "t.yaml").is_ok());
    }

    #[test]
    fn bad_values_name_their_key() {
        let e = errors(
            "  wait_interval_ms: -2\n  ccsid: 4711\n  conversation_timeout_ms: 0\n  \
             output_queue: \"bad name!\"\n  exits:\n    receive:\n      - exit: convert\n",
        );
        let joined = e.join("\n");
        for key in [
            "rpc.wait_interval_ms: -2 ms",
            "rpc.ccsid: CCSID 4711 is not supported",
            "rpc.conversation_timeout_ms: must be at least 1 ms",
            "rpc.output_queue:",
            "rpc.exits.receive: RPC calls have only before_put, before_get and after_get exits",
        ] {
            assert!(joined.contains(key), "{key} missing in:\n{joined}");
        }
    }

    #[test]
    fn idl_faults_are_config_errors_with_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.idl");
        // Software AG "Software AG IDL Grammar" — A needs a length (EntireX 20010005).
        std::fs::write(
            &bad,
            "LIBRARY 'L' IS\nPROGRAM 'P' IS\nDEFINE DATA PARAMETER\n1 X (A) IN\nEND-DEFINE\n",
        )
        .unwrap();
        let text = format!(
            "rpc:\n  idl_files:\n    - \"{}\"\n    - /no/such.idl\n",
            bad.display()
        );
        let e = Config::from_yaml(&text, "t.yaml").unwrap_err();
        let msgs: Vec<&str> = e.errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(
            msgs[0].starts_with("rpc.idl_files[0]: IDL file ")
                && msgs[0].contains("line 4, column")
        );
        assert!(msgs[0].contains("20010005"), "{msgs:?}");
        assert!(msgs[1].starts_with("rpc.idl_files[1]: cannot read IDL file /no/such.idl"));
        assert_eq!((e.errors[1].line, e.errors[1].column), (4, 7));
    }
}
