//! The store's stream: created when missing, checked when it exists
//! (docs/cluster.md "The stream").

use super::connect::api_error;
use super::error::OpenError;
use super::subjects::Subjects;
use async_nats::Client;
use serde_json::{Value, json};

/// JetStream's error code for a stream that does not exist ("JetStream API
/// Reference", JSStreamNotFoundErr).
const STREAM_NOT_FOUND: i64 = 10059;

/// The stream configuration the store needs, as the JetStream API takes it.
pub fn wanted(subjects: &Subjects, replicas: u8) -> Value {
    json!({
        "name": subjects.stream(),
        "description": "mqgate store (docs/cluster.md)",
        "subjects": [subjects.all()],
        "retention": "limits",
        "storage": "file",
        "num_replicas": replicas,
        "discard": "old",
        "max_msgs_per_subject": 1,
        "max_msgs": -1,
        "max_bytes": -1,
        "max_age": 0,
        "allow_atomic": true,
        "allow_msg_ttl": true,
        "allow_direct": false,
    })
}

/// The settings of an existing stream `config` that differ from what the
/// store needs, each as "setting is X, needs Y".
pub fn problems(config: &Value, subjects: &Subjects, replicas: u8) -> Vec<String> {
    let want = wanted(subjects, replicas);
    let mut out = Vec::new();
    let has_subject = config
        .get("subjects")
        .and_then(|s| s.as_array())
        .is_some_and(|s| s.iter().any(|x| x.as_str() == Some(&subjects.all())));
    if !has_subject {
        out.push(format!(
            "subjects are {}, need {}",
            config.get("subjects").unwrap_or(&Value::Null),
            subjects.all()
        ));
    }
    for field in [
        "retention",
        "storage",
        "num_replicas",
        "discard",
        "max_msgs_per_subject",
        "max_msgs",
        "max_bytes",
        "max_age",
        "allow_atomic",
        "allow_msg_ttl",
    ] {
        let need = &want[field];
        // The API leaves out false booleans.
        let is = config.get(field).cloned().unwrap_or(match need {
            Value::Bool(_) => Value::Bool(false),
            _ => Value::Null,
        });
        if &is != need {
            out.push(format!("{field} is {is}, needs {need}"));
        }
    }
    if let Some(mode) = config.get("persist_mode").and_then(|m| m.as_str())
        && mode != "default"
    {
        out.push(format!(
            "persist_mode is {mode:?}, needs \"default\" (an async stream acknowledges before writing)"
        ));
    }
    out
}

/// Creates the stream when it does not exist; `Err` naming every wrong
/// setting when it exists and differs.
pub async fn ensure(client: &Client, subjects: &Subjects, replicas: u8) -> Result<(), OpenError> {
    let name = subjects.stream();
    let request = |op: &str, e: String| OpenError::Request {
        op: format!("stream {name}: {op}"),
        detail: e,
    };
    let info = client
        .request(format!("$JS.API.STREAM.INFO.{name}"), bytes::Bytes::new())
        .await
        .map_err(|e| request("info", e.to_string()))?;
    let info: Value =
        serde_json::from_slice(&info.payload).map_err(|e| request("info", e.to_string()))?;
    match info.get("error") {
        None => {
            let config = info.get("config").cloned().unwrap_or(Value::Null);
            let problems = problems(&config, subjects, replicas);
            if problems.is_empty() {
                Ok(())
            } else {
                Err(OpenError::Incompatible {
                    stream: name,
                    problems,
                })
            }
        }
        Some(err) if err.get("err_code").and_then(|c| c.as_i64()) == Some(STREAM_NOT_FOUND) => {
            let body = wanted(subjects, replicas).to_string();
            let created = client
                .request(format!("$JS.API.STREAM.CREATE.{name}"), body.into())
                .await
                .map_err(|e| request("create", e.to_string()))?;
            let created: Value = serde_json::from_slice(&created.payload)
                .map_err(|e| request("create", e.to_string()))?;
            match created.get("error") {
                None => Ok(()),
                Some(err) => Err(request("create", api_error(err))),
            }
        }
        Some(err) => Err(request("info", api_error(err))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_stream_is_checked_setting_by_setting() {
        let s = Subjects::new("P");
        assert_eq!(problems(&wanted(&s, 3), &s, 3), Vec::<String>::new());
        let mut other = wanted(&s, 1);
        other["max_msgs_per_subject"] = json!(-1);
        other.as_object_mut().map(|o| o.remove("allow_atomic"));
        other["persist_mode"] = json!("async");
        assert_eq!(
            problems(&other, &s, 1),
            vec![
                "max_msgs_per_subject is -1, needs 1".to_string(),
                "allow_atomic is false, needs true".to_string(),
                "persist_mode is \"async\", needs \"default\" (an async stream acknowledges before writing)".to_string(),
            ]
        );
        assert_eq!(
            problems(&wanted(&s, 1), &s, 3),
            vec!["num_replicas is 1, needs 3".to_string()]
        );
    }
}
