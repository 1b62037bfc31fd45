//! `mqgate rpc`: calls an IDL program through a running gateway's
//! `POST /v1/rpc/{library}/{program}` and prints the OUT parameters as JSON
//! (docs/rpc.md "CLI"). The IDL file is read locally to find the program's
//! library and to check the parameters before anything is sent.

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use crate::rpc::json::params_from_json;
use clap::Args;
use mqgate_codecs::idl::{BridgeProgram, parse};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate rpc`.
#[derive(Args, Debug)]
#[command(after_help = EXIT_CODES_HELP)]
pub struct RpcArgs {
    /// The Software AG IDL file that describes the program.
    #[arg(long)]
    pub idl: PathBuf,
    /// Program name (as in the IDL).
    #[arg(long)]
    pub program: String,
    /// Library name; needed only when several libraries have the program.
    #[arg(long)]
    pub library: Option<String>,
    /// An IN parameter: NAME=VALUE; a group member as GROUP.MEMBER=VALUE; a
    /// VALUE starting with `[` or `{` is read as JSON (arrays, groups).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Run the call inside this conversation (from `POST /v1/rpc/conversations`).
    /// A token of 32 hex digits.
    #[arg(long, value_parser = super::client::token_arg)]
    pub conversation: Option<crate::mqi::Token>,
    /// The gateway's base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Exit codes of `mqgate rpc` (also in its --help and docs/rpc.md "CLI").
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 the call succeeded (the OUT parameters are \
printed as JSON); 1 the gateway answered an RPC error (the error JSON is printed); 2 bad \
arguments or IDL, or a value that does not fit its IDL format (e.g. 21 characters for an A20, \
2147483648 for an I4), refused before anything is sent; 3 the gateway could not be reached or \
gave no JSON answer.";

/// Exit status (docs/rpc.md "CLI"): 0 OUT parameters printed, 1 the call
/// failed (the error JSON is printed), 2 bad arguments or IDL or a value that
/// does not fit its format, 3 the gateway could not be reached or gave no
/// JSON answer.
pub fn run(args: RpcArgs) -> ExitCode {
    match call(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mqgate rpc: {e}");
            ExitCode::from(2)
        }
    }
}

fn find_program(args: &RpcArgs) -> Result<BridgeProgram, String> {
    let text = std::fs::read_to_string(&args.idl)
        .map_err(|e| format!("cannot read {}: {e}", args.idl.display()))?;
    let file = parse(&text).map_err(|e| format!("{}: {e}", args.idl.display()))?;
    let libraries: Vec<&str> = match &args.library {
        Some(l) => vec![l.as_str()],
        None => file
            .libraries
            .iter()
            .filter(|l| l.program(&args.program).is_some())
            .map(|l| l.name.as_str())
            .collect(),
    };
    match libraries.as_slice() {
        [lib] => BridgeProgram::bind(&file, lib, &args.program).map_err(|e| e.to_string()),
        [] => Err(format!(
            "no program '{}' in {}",
            args.program,
            args.idl.display()
        )),
        many => Err(format!(
            "program '{}' is in libraries {}; choose one with --library",
            args.program,
            many.join(", ")
        )),
    }
}

/// `GROUP.MEMBER=VALUE` items → a JSON object.
fn params_object(items: &[String]) -> Result<Map<String, Value>, String> {
    let mut root = Map::new();
    for item in items {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--param {item:?}: expected NAME=VALUE"))?;
        if name.split('.').any(str::is_empty) {
            return Err(format!(
                "--param {item:?}: empty parameter name before '=' (expected NAME=VALUE)"
            ));
        }
        let value = if value.starts_with(['[', '{']) {
            serde_json::from_str(value).map_err(|e| format!("--param {name}: bad JSON: {e}"))?
        } else {
            Value::String(value.to_string())
        };
        let mut parts: Vec<&str> = name.split('.').collect();
        let last = parts.pop().unwrap_or(name);
        let mut obj = &mut root;
        for p in parts {
            let slot = obj
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            obj = slot
                .as_object_mut()
                .ok_or_else(|| format!("--param {name}: {p} is not a group"))?;
        }
        // Names are case-insensitive (docs/rpc.md "HTTP"): a repeat is refused.
        if obj.keys().any(|k| k.eq_ignore_ascii_case(last)) {
            return Err(format!("--param {name}: {last} given twice"));
        }
        obj.insert(last.to_string(), value);
    }
    Ok(root)
}

/// Checks the parameters as the gateway will, before anything is sent
/// (docs/rpc.md "CLI", exit 2): names and shapes, the dynamic parameters
/// (MQ_CORREL_ID, MQ_WAIT_INTERVAL, queue names, MQ_RFH_<name>), and every
/// IN value against its IDL format by laying out the request text
/// (docs/rpc.md), e.g. `TEXT at offset 0: 5000 characters, at
/// most 20 allowed` for an A20, or `LEFT at offset 1: 2147483648 does not fit
/// format I4`. Characters the gateway's CCSID lacks are found only there.
fn check_values(program: &BridgeProgram, params: &Map<String, Value>) -> Result<(), String> {
    let values = params_from_json(program, params).map_err(|e| e.message)?;
    program.dynamic.inputs(&values).map_err(|e| e.to_string())?;
    program
        .request
        .marshal(&values)
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn call(args: &RpcArgs) -> Result<ExitCode, String> {
    let program = find_program(args)?;
    let params = params_object(&args.params)?;
    check_values(&program, &params)?;
    let mut path = format!(
        "/v1/rpc/{}/{}",
        segment(&program.library),
        segment(&program.program)
    );
    if let Some(c) = args.conversation {
        path.push_str(&format!("?conversation={c}"));
    }
    // A call may wait for a reply as long as its wait interval allows.
    let gw = Gateway::new(&args.gateway, Duration::from_secs(24 * 3600));
    let body = Value::Object(params).to_string();
    let res = gw
        .request("POST", &path)
        .set("Content-Type", "application/json")
        .send_string(&body);
    let (ok, answer) = match res {
        Ok(r) => (true, r.into_json::<Value>()),
        Err(ureq::Error::Status(_, r)) => (false, r.into_json::<Value>()),
        Err(e) => {
            eprintln!("mqgate rpc: gateway {} unreachable: {e}", args.gateway);
            return Ok(ExitCode::from(3));
        }
    };
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "mqgate rpc: bad answer from the gateway {}: {e}",
                args.gateway
            );
            return Ok(ExitCode::from(3));
        }
    };
    let text = serde_json::to_string_pretty(&answer).unwrap_or_else(|_| answer.to_string());
    if let Some(exit) = super::out::line_or_exit("rpc", &text) {
        return Ok(exit);
    }
    if ok {
        Ok(ExitCode::SUCCESS)
    } else {
        let error = answer["error"].as_str().unwrap_or("the call failed");
        let code = answer["code"].as_str().unwrap_or("ERROR");
        // The MQRC only when there is one and the message does not already name it.
        match answer["mqrc"].as_i64() {
            Some(rc) if !error.contains(&format!("MQRC {rc}")) => {
                eprintln!("mqgate rpc: {code}: {error} (MQRC {rc})")
            }
            _ => eprintln!("mqgate rpc: {code}: {error}"),
        }
        Ok(ExitCode::from(1))
    }
}

#[cfg(test)]
mod tests {
    use super::params_object;

    fn err(items: &[&str]) -> String {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        params_object(&items).unwrap_err()
    }

    #[test]
    fn repeated_and_empty_names_are_refused() {
        // Defect report (the EntireX WebSphere MQ RPC Server documentation, tester): a repeat must not silently win;
        // names are case-insensitive (docs/rpc.md "HTTP").
        assert_eq!(err(&["TEXT=a", "TEXT=b"]), "--param TEXT: TEXT given twice");
        assert_eq!(err(&["LEFT=1", "left=5"]), "--param left: left given twice");
        assert!(
            err(&["=x"]).contains("empty parameter name"),
            "{}",
            err(&["=x"])
        );
    }
}
