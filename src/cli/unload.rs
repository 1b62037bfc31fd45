//! `mqgate unload`: a queue of a running gateway into a dmpmqmsg file (IBM MQ
//! "dmpmqmsg (queue load and unload)"; docs/operations.md).
//!
//! It talks to the gateway over its HTTP API as `browse` and `get` do, so the
//! gateway keeps running. The unload sees the messages put before it started
//! (`put_before`, docs/http-api.md); with `--remove` it takes each one it
//! writes in one unit of work, committed only after the file is flushed and
//! synced to disk, so a message leaves the queue only once it is safe in the
//! file, and nothing that was not written is removed.

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use super::progress::Progress;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use clap::Args;
use mqgate_codecs::dump::{BodyStyle, DumpHeader, DumpMessage, WriteOptions, write_message};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate unload`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 done, 1 MQ error from the gateway or a file error (nothing removed), 2 gateway unreachable."
)]
pub struct UnloadArgs {
    /// Queue name.
    #[arg(long)]
    pub queue: String,
    /// The file to write; without it (or `-`) the file goes to stdout.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Remove the messages written (in one unit of work, committed once the
    /// file is on disk); needs --file.
    #[arg(long, requires = "file")]
    pub remove: bool,
    /// Runs of printable characters as `S "..."` lines instead of hex only
    /// (dmpmqmsg -dA).
    #[arg(long)]
    pub text: bool,
    /// Data bytes per `X` line (dmpmqmsg -dw, 10 or more).
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u16).range(10..))]
    pub width: u16,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
}

/// Why an unload stopped.
enum Failure {
    /// The gateway refused or could not be reached.
    Gateway(ClientError),
    /// Anything else (the file, an answer without a field); exit 1.
    Other(String),
    /// The file holds the messages but the unit of work that removes them
    /// did not commit; the file is kept, exit 1.
    NotRemoved(String),
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Failure::Gateway(e)
    }
}

/// Runs the unload; see the module documentation.
pub fn run(args: UnloadArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_secs(60)).with_token(args.token.as_deref());
    let to_stdout = args.file.as_ref().is_none_or(|f| f.as_os_str() == "-");
    if args.remove && to_stdout {
        eprintln!(
            "mqgate unload: --remove needs a --file other than `-`: messages leave the queue only once the file is synced to disk"
        );
        return ExitCode::from(2);
    }
    let mut uow: Option<String> = None;
    let result = unload(&gw, &args, to_stdout, &mut uow);
    match result {
        Ok(n) => {
            if !to_stdout || args.remove {
                let removed = if args.remove { ", removed" } else { "" };
                let to = args
                    .file
                    .as_ref()
                    .map_or("stdout".to_string(), |f| f.display().to_string());
                eprintln!(
                    "mqgate unload: {n} messages from {} to {to}{removed}",
                    args.queue
                );
            }
            ExitCode::SUCCESS
        }
        Err(f) => {
            let mut note = String::new();
            // A file the failed run wrote holds a header and at most part of
            // the messages; `load` would take it as a whole (smaller) queue,
            // so it does not stay behind.
            if let (Some(file), false) = (&args.file, to_stdout)
                && !matches!(f, Failure::NotRemoved(_))
                && std::fs::remove_file(file).is_ok()
            {
                note.push_str(&format!("; {} was removed", file.display()));
            }
            if let Some(u) = uow {
                // Nothing is removed: the unit of work gives the messages back.
                let back = gw.request("POST", &format!("/v1/uow/{}/backout", segment(&u)));
                note = match gw.call(back, Some(b"")) {
                    Ok(_) => "; nothing was removed".to_string(),
                    Err(e) => format!(
                        "; backing out failed ({e}): the gateway backs the unit of work out after http.uow_timeout_ms"
                    ),
                };
            }
            match f {
                Failure::Gateway(e) => {
                    eprintln!("mqgate unload: {e}{note}");
                    e.exit_code()
                }
                Failure::Other(e) | Failure::NotRemoved(e) => {
                    eprintln!("mqgate unload: {e}{note}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The unload proper: the number of messages written. `uow` is set while a
/// unit of work is open, for the caller to back out on an error.
fn unload(
    gw: &Gateway,
    args: &UnloadArgs,
    to_stdout: bool,
    uow: &mut Option<String>,
) -> Result<u64, Failure> {
    let status = gw.call(gw.request("GET", "/v1/status"), None)?;
    let Some(put_before) = status["next_put_sequence"].as_u64() else {
        return Err(Failure::Other(
            "the gateway's /v1/status has no next_put_sequence (a gateway older than this command)"
                .into(),
        ));
    };
    let mut out: Box<dyn Write> = match &args.file {
        Some(f) if !to_stdout => Box::new(std::io::BufWriter::new(
            std::fs::File::create(f)
                .map_err(|e| Failure::Other(format!("cannot create {}: {e}", f.display())))?,
        )),
        _ => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let file_name = args
        .file
        .as_ref()
        .map_or("stdout".to_string(), |f| f.display().to_string());
    let write_err = |e: std::io::Error| Failure::Other(format!("writing {file_name}: {e}"));
    let mut header = DumpHeader::dmpmqmsg(&created_now());
    header.q_mgr_name = status["queue_manager"].as_str().map(str::to_string);
    header.q_name = Some(args.queue.clone());
    // The header lines exactly as the codec writes a whole file's.
    let head = mqgate_codecs::dump::write_dump(&header, &[], &WriteOptions::default());
    out.write_all(&head).map_err(write_err)?;
    if args.remove {
        let u = gw.call(gw.request("POST", "/v1/uow"), Some(b""))?;
        let token = u["uow"]
            .as_str()
            .ok_or_else(|| Failure::Other(format!("POST /v1/uow answered no uow: {u}")))?;
        *uow = Some(token.to_string());
    }
    let opts = WriteOptions {
        width: usize::from(args.width),
        body: if args.text {
            BodyStyle::Ascii
        } else {
            BodyStyle::Hex
        },
    };
    let path = format!("/v1/queues/{}/messages/next", segment(&args.queue));
    let mut progress = Progress::new("unload", format!("from {}", args.queue));
    let mut cursor: Option<String> = None;
    let mut n = 0u64;
    let mut buf = Vec::new();
    loop {
        let mut req = gw
            .request("GET", &path)
            .query("put_before", &put_before.to_string())
            .query("mqmd", "true");
        match uow.as_deref() {
            Some(u) => req = req.query("uow", u),
            None => {
                req = req.query("browse", "true");
                if let Some(c) = &cursor {
                    req = req.query("cursor", c);
                }
            }
        }
        let msg = match gw.call(req, None) {
            Ok(v) => v,
            Err(ClientError::Mq { mqrc: 2033, .. }) => break,
            Err(e) => return Err(e.into()),
        };
        buf.clear();
        write_message(&dump_message(&msg)?, &opts, &mut buf);
        out.write_all(&buf).map_err(write_err)?;
        n += 1;
        progress.tick(n);
        if uow.is_none() {
            cursor = msg["cursor"].as_str().map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
    }
    progress.finish();
    out.flush().map_err(write_err)?;
    drop(out);
    if let (Some(f), false) = (&args.file, to_stdout) {
        // On disk before any message leaves the queue.
        std::fs::File::open(f)
            .and_then(|file| file.sync_all())
            .map_err(write_err)?;
    }
    if let Some(u) = uow.take() {
        let commit = gw.request("POST", &format!("/v1/uow/{}/commit", segment(&u)));
        if let Err(e) = gw.call(commit, Some(b"")) {
            return Err(Failure::NotRemoved(format!(
                "{file_name} holds the {n} messages, but removing them failed: {e}; they are still on {}",
                args.queue
            )));
        }
    }
    Ok(n)
}

/// The dmpmqmsg message of a get or browse answer with `mqmd_base64`.
fn dump_message(msg: &Value) -> Result<DumpMessage, Failure> {
    let md = msg["mqmd_base64"]
        .as_str()
        .ok_or_else(|| {
            Failure::Other(
                "the gateway's answer has no mqmd_base64 (a gateway older than this command)"
                    .into(),
            )
        })
        .and_then(|t| super::mqmd_wire::from_base64(t).map_err(Failure::Other))?;
    let data = BASE64
        .decode(msg["data_base64"].as_str().unwrap_or(""))
        .map_err(|e| Failure::Other(format!("bad data_base64 from the gateway: {e}")))?;
    Ok(DumpMessage {
        line: 0,
        index: None,
        md: Some(md),
        data: Bytes::from(data),
    })
}

/// The `Created:` text of the header: the time now, GMT.
fn created_now() -> String {
    let Some(t) = crate::qmgr::clock::put_timestamp(crate::qmgr::clock::now_ms()) else {
        return String::new();
    };
    let (d, h) = (t.put_date_digits(), t.put_time_digits());
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    format!(
        "{}-{}-{} {}:{}:{} GMT",
        s(&d[0..4]),
        s(&d[4..6]),
        s(&d[6..8]),
        s(&h[0..2]),
        s(&h[2..4]),
        s(&h[4..6])
    )
}
