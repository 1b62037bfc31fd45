//! `mqgate send`: a command-line sender channel (docs/channel-protocol.md).
//! Sends files holding transmission messages (MQXQH + data), or plain message
//! files wrapped into an MQXQH built from the options. With `--journal FILE`
//! the confirmed progress is kept durably ([`journal`]), so that a send that
//! failed or was killed resumes where the receiver's commits end.

mod journal;
mod progress;

use crate::channel::sender::{Offer, PIPELINE_BATCHES, Secure, SendError, SenderConn};
use crate::channel::xmit;
use crate::cli::out;
use crate::config::{ChannelLimits, DEFAULT_BATCH_SIZE, DEFAULT_CHANNEL_MAX_MSG_LENGTH};
use bytes::Bytes;
use clap::Args;
use journal::{Identity, Journal, JournalError};
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use progress::{Ranges, Tracker};
use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Exit codes of `mqgate send` (also in its --help and the README).
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 every batch was confirmed (or, with --journal, \
already confirmed by an earlier run); 1 the send failed: the receiver refused or closed the \
channel, or a batch was not confirmed within --confirm-wait-ms (the MQRC reason and how many \
messages were confirmed, with their file positions, are on stderr); 2 a usage error (e.g. --batch 0), an \
unreadable or unusable file, or a journal written for another send (nothing is sent).";

/// Options of `mqgate send`.
#[derive(Args, Debug)]
#[command(after_help = EXIT_CODES_HELP)]
pub struct SendArgs {
    /// The receiving gateway's channel listener, HOST:PORT.
    #[arg(long)]
    pub to: SocketAddr,
    /// Receiver channel name.
    #[arg(long)]
    pub channel: String,
    /// Batch size offered (the receiver may agree a lower one): 1 to
    /// 4294967295, the HELLO batch_size field's range (a batch holds 1 to
    /// batch_size messages, docs/channel-protocol.md "Batches").
    #[arg(long, default_value_t = DEFAULT_BATCH_SIZE, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
    /// Wrap plain files: RemoteQMgrName of the MQXQH.
    #[arg(long)]
    pub rqmname: Option<String>,
    /// Wrap plain files: RemoteQName of the MQXQH.
    #[arg(long)]
    pub rname: Option<String>,
    /// Wrap plain files: MQMD Persistence 1 (persistent); otherwise 0, sent on
    /// the non-persistent fast path.
    #[arg(long)]
    pub persistent: bool,
    /// Wrap plain files: MQMD Format (8 characters at most, e.g. MQHRF2, MQSTR).
    #[arg(long, default_value = "")]
    pub format: String,
    /// Wrap plain files: MQMD Encoding (e.g. 273 big-endian, 546 little-endian).
    #[arg(long, default_value_t = 546)]
    pub encoding: i32,
    /// Wrap plain files: MQMD CodedCharSetId (0 = the receiving queue manager's).
    #[arg(long, default_value_t = 0)]
    pub ccsid: i32,
    /// The sending queue manager name announced in the handshake.
    #[arg(long, default_value = "")]
    pub sending_qmgr: String,
    /// Keep reconnecting and resending for this long (ms) when the
    /// connection breaks or the receiving gateway is stopping (2202, 2161,
    /// 2162); batches are resynchronised, never applied twice. 0 (no retry)
    /// to 2147483647.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub retry_ms: u64,
    /// The longest wait (ms) for the CONFIRM of a batch, 1 to 2147483647.
    /// Past it send closes the channel; a receiver still retrying one of
    /// the batches under its undelivered rule `retry` answers with the
    /// message's MQRC (e.g. 2085 for an unknown queue) within 5 s more, and
    /// send exits 1 with it and the count of messages confirmed.
    #[arg(long, default_value_t = DEFAULT_CONFIRM_WAIT_MS, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..=super::MAX_MS))]
    pub confirm_wait_ms: u64,
    /// Keep the progress in FILE (created when missing or empty), written
    /// durably after every confirmed batch: the same command run again after
    /// a failure or a kill sends only what the receiver has not committed.
    /// A journal of another --to, --channel or set of files is refused.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Run the channel over TLS (docs/security.md "Command-line clients"):
    /// the receiver's certificate must chain to the CA certificates of
    /// --cacert (default: the file the environment variable MQGATE_CACERT
    /// names) and carry the IP address of --to. Implied by --cacert.
    #[arg(long)]
    pub tls: bool,
    /// TLS: the PEM file of the CA certificates the receiver's certificate
    /// must chain to (default $MQGATE_CACERT).
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// TLS: the PEM file of the client certificate presented to a listener
    /// with client_auth (default $MQGATE_CERT); needs --key.
    #[arg(long, value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// TLS: the PEM file of the client certificate's private key (default
    /// $MQGATE_KEY).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// TLS: the SSLPEER filter the receiver's certificate subject DN must
    /// pass (IBM MQ "SSLPEER (SSL Peer)"); otherwise send exits 1 with 2035.
    #[arg(long, value_name = "FILTER")]
    pub sslpeer: Option<String>,
    /// Files: transmission messages (starting with an MQXQH) or, with
    /// --rqmname/--rname, plain message data.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The TLS of a send: the client and the SSLPEER filter.
struct SendTls {
    client: std::sync::Arc<crate::security::tls::TlsClient>,
    sslpeer: Option<crate::security::tls::SslPeer>,
}

/// The TLS the options ask for, `None` for plain TCP. Errors (exit 2) name
/// the option or environment variable and the file.
fn tls(args: &SendArgs) -> Result<Option<SendTls>, String> {
    use super::client::{CACERT_ENV, CERT_ENV, KEY_ENV};
    use crate::security::tls::{Side, SslPeer, TlsClient, TlsConfig, TlsEndpoints};
    if !args.tls && args.cacert.is_none() {
        if args.cert.is_some() || args.key.is_some() || args.sslpeer.is_some() {
            return Err("--cert, --key and --sslpeer need --tls or --cacert".into());
        }
        return Ok(None);
    }
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let Some(ca) = args.cacert.clone().or_else(|| env(CACERT_ENV)) else {
        return Err(format!(
            "--tls needs the CA certificates the receiver's certificate must chain to: --cacert FILE or {CACERT_ENV}"
        ));
    };
    let config = TlsConfig {
        ca: Some(ca),
        cert: args.cert.clone().or_else(|| env(CERT_ENV)),
        key: args.key.clone().or_else(|| env(KEY_ENV)),
        ..TlsConfig::default()
    };
    if let Some((_, message)) = config.problems(Side::Outbound).into_iter().next() {
        return Err(format!("--cert/{CERT_ENV} and --key/{KEY_ENV}: {message}"));
    }
    let sslpeer = match &args.sslpeer {
        Some(f) => Some(SslPeer::parse(f).map_err(|e| format!("--sslpeer: {e}"))?),
        None => None,
    };
    let client = TlsClient::new("send", &config, &TlsEndpoints::default())
        .map_err(|e| format!("--cacert/{CACERT_ENV}, --cert/{CERT_ENV}, --key/{KEY_ENV}: {e}"))?;
    Ok(Some(SendTls { client, sslpeer }))
}

/// Default of `--confirm-wait-ms`: 60 s, longer than the default schedule
/// of a receiver's undelivered rule `retry` (1 + 2 + 4 + 8 + 16 = 31 s,
/// docs/config.md `channels`), so that such a receiver stops the channel
/// and names the reason itself, while any other schedule is cut at 60 s.
pub const DEFAULT_CONFIRM_WAIT_MS: u64 = 60_000;

/// How long send waits for the receiver's answer to the CLOSE it sends when
/// no CONFIRM came within `--confirm-wait-ms`.
const CLOSE_ANSWER_WAIT: Duration = Duration::from_secs(5);

/// CLOSE reasons after which `--retry-ms` reconnects: the channel is busy
/// with another sender, or the receiving gateway is stopping (an IBM MQ
/// sending MCA goes into retry for these too).
const RETRY_REASONS: [Mqrc; 4] = [
    Mqrc::CHANNEL_NOT_AVAILABLE,
    Mqrc::CONNECTION_QUIESCING,
    Mqrc::Q_MGR_QUIESCING,
    Mqrc::Q_MGR_STOPPING,
];

struct Outgoing {
    data: Bytes,
    persistent: bool,
}

fn load(args: &SendArgs) -> Result<Vec<Outgoing>, String> {
    let mut out = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let data = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        if xmit::starts_with_xqh(&data) {
            let (x, _) = xmit::parse(&data).map_err(|e| format!("{}: {e}", f.display()))?;
            out.push(Outgoing {
                persistent: x.msg_desc.persistence == per::PERSISTENT,
                data: Bytes::from(data),
            });
            continue;
        }
        let (Some(rqm), Some(rq)) = (&args.rqmname, &args.rname) else {
            return Err(format!(
                "{}: not a transmission message (no MQXQH at offset 0); give --rqmname and --rname to wrap it",
                f.display()
            ));
        };
        let md = Mqmd {
            format: CharField::new(&args.format, Charset::Ascii)
                .map_err(|e| format!("--format: {e}"))?,
            encoding: args.encoding,
            coded_char_set_id: args.ccsid,
            persistence: if args.persistent {
                per::PERSISTENT
            } else {
                per::NOT_PERSISTENT
            },
            ..Mqmd::default()
        };
        let t = xmit::wrap(rq, rqm, md, &data).map_err(|e| format!("{}: {e}", f.display()))?;
        out.push(Outgoing {
            data: Bytes::from(t),
            persistent: args.persistent,
        });
    }
    Ok(out)
}

/// Why a send stopped.
#[derive(Debug)]
enum Failure {
    /// The channel failed or the receiver refused.
    Send(SendError),
    /// The journal could not be written; nothing more is sent, since the
    /// progress could no longer be kept.
    Journal(JournalError),
    /// No CONFIRM of batch `seq` came within `--confirm-wait-ms`; send
    /// closed the channel and `answer` is how the receiver answered (its
    /// CLOSE with a reason, or no answer).
    NoConfirm {
        seq: u64,
        waited_ms: u64,
        answer: SendError,
    },
}

impl Failure {
    /// The channel error behind the failure, if it is one.
    fn send_error(&self) -> Option<&SendError> {
        match self {
            Failure::Send(e) | Failure::NoConfirm { answer: e, .. } => Some(e),
            Failure::Journal(_) => None,
        }
    }
}

impl From<SendError> for Failure {
    fn from(e: SendError) -> Self {
        Failure::Send(e)
    }
}

impl From<JournalError> for Failure {
    fn from(e: JournalError) -> Self {
        Failure::Journal(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Send(e) => write!(f, "{e}"),
            Failure::Journal(e) => write!(f, "{e}"),
            Failure::NoConfirm {
                seq,
                waited_ms,
                answer,
            } => write!(
                f,
                "no CONFIRM of batch {seq} within {waited_ms} ms (--confirm-wait-ms), so send closed the channel; {answer}"
            ),
        }
    }
}

/// Counters of one run besides the tracker's.
#[derive(Debug, Default)]
struct Counts {
    /// Non-persistent messages sent on the fast path.
    fast: usize,
    reconnects: u32,
}

/// The journal's identity for this send: receiver, channel and messages.
fn identity(args: &SendArgs, msgs: &[Outgoing]) -> Identity {
    Identity {
        to: args.to.to_string(),
        channel: args.channel.clone(),
        messages: msgs.len(),
        fingerprint: journal::fingerprint(msgs.iter().map(|m| (m.persistent, &m.data[..]))),
    }
}

async fn send_all(
    args: &SendArgs,
    secure: Option<&SendTls>,
    msgs: &[Outgoing],
    t: &mut Tracker,
    counts: &mut Counts,
) -> Result<(), Failure> {
    let mut offer = Offer {
        channel: args.channel.clone(),
        sending_q_mgr: args.sending_qmgr.clone(),
        receiving_q_mgr: String::new(),
        limits: ChannelLimits {
            batch_size: args.batch,
            max_msg_length: DEFAULT_CHANNEL_MAX_MSG_LENGTH,
            heartbeat_ms: 0,
        },
        last_confirmed_seq: 0,
    };
    let deadline = Instant::now() + Duration::from_millis(args.retry_ms);
    let confirm_wait = Duration::from_millis(args.confirm_wait_ms);
    let may_retry = |e: &Failure| {
        let Some(e) = e.send_error() else {
            return false;
        };
        let busy = matches!(e, SendError::Refused { reason, .. } if RETRY_REASONS.contains(&Mqrc(*reason)));
        (e.is_transient() || busy) && Instant::now() < deadline
    };
    // Messages an earlier run (the journal) settled: done, or in a batch
    // that `reconnected` resolves at the first handshake.
    let skip = t.settled();
    // Index of the first message not yet sent on any connection.
    let mut next = 0;
    // Batches to send again after a reconnect, in their original order.
    // Fast-path messages are never kept: they may be lost, never sent twice.
    let mut resend: VecDeque<Range<usize>> = VecDeque::new();
    loop {
        offer.last_confirmed_seq = t.last_confirmed_seq;
        let secure = secure.map(|s| Secure {
            client: &s.client,
            sslpeer: s.sslpeer.as_ref(),
        });
        let mut conn = match SenderConn::connect_secure(args.to, &offer, secure)
            .await
            .map_err(Failure::from)
        {
            Ok(c) => c,
            Err(e) if may_retry(&e) => {
                counts.reconnects += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        // Batches the receiver committed (their CONFIRM was lost) are done;
        // the others are sent again, as they were, before anything new and
        // before those still waiting from an earlier reconnect.
        for r in t
            .reconnected(conn.agreed.last_committed_seq)?
            .into_iter()
            .rev()
        {
            resend.push_front(r);
        }
        let result: Result<(), Failure> = async {
            let batch_size = conn.agreed.limits.batch_size.max(1) as usize;
            loop {
                // Room in the window first, so that a failure here leaves
                // every message either in `resend`, in flight or unsent.
                while conn.unconfirmed() >= PIPELINE_BATCHES {
                    next_confirm(&mut conn, t, confirm_wait).await?;
                }
                while next < msgs.len() && skip.contains(next) {
                    next += 1;
                }
                let range = match resend.pop_front() {
                    // Not committed, so it may be split if the receiver now
                    // agrees a smaller batch size than when it was sent.
                    Some(r) if r.len() > batch_size => {
                        let cut = r.start + batch_size;
                        resend.push_front(cut..r.end);
                        r.start..cut
                    }
                    Some(r) => r,
                    None if next >= msgs.len() => break,
                    None if !msgs[next].persistent => {
                        let from = next;
                        t.before_fast(from, || {
                            (from..msgs.len())
                                .find(|&i| msgs[i].persistent || skip.contains(i))
                                .unwrap_or(msgs.len())
                        })?;
                        next += 1;
                        conn.send_fast(msgs[from].data.clone()).await?;
                        counts.fast += 1;
                        continue;
                    }
                    None => {
                        let mut end = next;
                        while end < msgs.len()
                            && end - next < batch_size
                            && msgs[end].persistent
                            && !skip.contains(end)
                        {
                            end += 1;
                        }
                        let r = next..end;
                        next = end;
                        r
                    }
                };
                let batch: Vec<Bytes> =
                    msgs[range.clone()].iter().map(|m| m.data.clone()).collect();
                // Recorded before END_BATCH: whatever happens next, the
                // handshake of a later connection (or run) resolves it.
                t.before_batch(conn.next_seq(), range)?;
                conn.start_batch(&batch).await?;
            }
            while conn.unconfirmed() > 0 {
                next_confirm(&mut conn, t, confirm_wait).await?;
            }
            Ok(())
        }
        .await;
        match result {
            Ok(()) => {
                // Every batch is confirmed: a connection lost while closing
                // loses nothing persistent (at most a fast-path message, which
                // may be lost by definition), so it is a warning. A CLOSE with
                // a reason is still an error.
                match conn.close("all messages sent").await {
                    Ok(()) => {}
                    Err(e) if e.is_transient() => {
                        eprintln!(
                            "mqgate send: warning: every batch was confirmed, but the channel did not close cleanly: {e}"
                        );
                    }
                    Err(e) => return Err(e.into()),
                }
                return Ok(());
            }
            Err(e) if may_retry(&e) => {
                counts.reconnects += 1;
                tracing::debug!(error = %e, "reconnecting");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Waits at most `limit` for the next CONFIRM and records it. When none
/// comes, closes the channel ([`SenderConn::give_up`]), records the
/// CONFIRMs still on their way, and fails with the receiver's answer
/// ([`Failure::NoConfirm`]).
async fn next_confirm(
    conn: &mut SenderConn,
    t: &mut Tracker,
    limit: Duration,
) -> Result<(), Failure> {
    if let Some(seq) = conn.wait_confirm_within(limit).await? {
        t.confirmed(seq)?;
        return Ok(());
    }
    let seq = conn.oldest_unconfirmed().unwrap_or_default();
    let waited_ms = limit.as_millis() as u64;
    let text = format!("no CONFIRM of batch {seq} within {waited_ms} ms; the sender gives up");
    let (confirmed, answer) = conn.give_up(&text, CLOSE_ANSWER_WAIT).await;
    for s in confirmed {
        t.confirmed(s)?;
    }
    Err(Failure::NoConfirm {
        seq,
        waited_ms,
        answer,
    })
}

/// Sends every file not done yet; exit 0 when every batch was confirmed and
/// the channel closed normally, 1 with the reason and the progress
/// otherwise, 2 when a file or the journal cannot be used.
pub fn run(args: SendArgs) -> ExitCode {
    let secure = match tls(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mqgate send: {e}");
            return ExitCode::from(2);
        }
    };
    let msgs = match load(&args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("mqgate send: {e}");
            return ExitCode::from(2);
        }
    };
    let journal = match &args.journal {
        Some(p) => match Journal::open(p, identity(&args, &msgs)) {
            Ok(j) => Some(j),
            Err(e) => {
                eprintln!("mqgate send: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut t = Tracker::new(journal);
    let earlier = t.done.count();
    let journal_note = |t: &Tracker| match t.journal_path() {
        Some(p) => format!(" (journal {})", p.display()),
        None => String::new(),
    };
    if earlier == msgs.len() {
        return out::line_or_exit(
            "send",
            &format!(
                "nothing to send on channel {}: all {} messages were confirmed by an earlier run{}",
                args.channel,
                msgs.len(),
                journal_note(&t)
            ),
        )
        .unwrap_or(ExitCode::SUCCESS);
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mqgate send: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut counts = Counts::default();
    let result = rt.block_on(send_all(&args, secure.as_ref(), &msgs, &mut t, &mut counts));
    let resumed = if earlier > 0 {
        format!(
            "; {earlier} were done by an earlier run{}",
            journal_note(&t)
        )
    } else {
        String::new()
    };
    match result {
        Ok(()) => out::line_or_exit(
            "send",
            &format!(
                "sent {} messages on channel {}: {} persistent in {} confirmed batches, {} on the fast path, {} reconnects{resumed}",
                msgs.len() - earlier,
                args.channel,
                t.persistent,
                t.batches,
                counts.fast,
                counts.reconnects
            ),
        )
        .unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("mqgate send: {e}");
            eprintln!(
                "mqgate send: {}",
                progress_report(&t, &counts, msgs.len(), earlier)
            );
            ExitCode::FAILURE
        }
    }
}

/// `n` with `one` or `many`: `1 message`, `0 messages`, `3 batches`.
fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// What a failed send tells the user (README "Exit codes of `send`"): how
/// many messages this run had confirmed — plainly, `0 messages confirmed`
/// when none — and sent on the fast path, how many of all are done and
/// which files they are, and what a rerun does. `earlier`: messages an
/// earlier run (the journal) had done.
fn progress_report(t: &Tracker, counts: &Counts, total: usize, earlier: usize) -> String {
    let done: &Ranges = &t.done;
    let n_done = done.count();
    let left = total - n_done;
    let mut report = counted(t.persistent, "message confirmed", "messages confirmed");
    if t.persistent > 0 {
        report += &format!(" in {}", counted(t.batches as usize, "batch", "batches"));
    }
    if counts.fast > 0 {
        report += &format!(
            " and {} non-persistent sent on the fast path (never confirmed)",
            counts.fast
        );
    }
    report += " by this run";
    if earlier > 0 {
        report += &format!(", {earlier} done by an earlier run");
    }
    report += &format!(
        "; {n_done} of {} done",
        counted(total, "message", "messages")
    );
    if n_done > 0 {
        report += &format!(": the files at positions {done} on the command line");
    }
    let rerun = match t.journal_path() {
        Some(p) => format!(
            "run the same command again to send the other {left} (journal {})",
            p.display()
        ),
        None if total == 1 && n_done == 0 => "a rerun sends the message again".to_string(),
        None if n_done == 0 => format!("a rerun sends all {total} again"),
        None => format!(
            "without --journal a rerun sends all {total} again; send only the files not listed"
        ),
    };
    format!("{report}; {rerun}")
}

#[cfg(test)]
mod tests {
    use super::{Counts, Tracker, progress_report};

    #[test]
    fn the_progress_report_says_plainly_what_was_confirmed() {
        // README "Exit codes of `send`": the count of messages confirmed,
        // `0 messages confirmed` when none, never an empty list of positions.
        let t = Tracker::new(None);
        let fast = Counts::default();
        assert_eq!(
            progress_report(&t, &fast, 3, 0),
            "0 messages confirmed by this run; 0 of 3 messages done; a rerun sends all 3 again"
        );
        assert_eq!(
            progress_report(&t, &fast, 1, 0),
            "0 messages confirmed by this run; 0 of 1 message done; a rerun sends the message again"
        );
        // 1080 confirmed in 216 batches (positions 1-1080) and 120 on the fast
        // path (1081-1200), of 3000.
        let mut t = Tracker::new(None);
        t.done.insert(0..1200);
        (t.persistent, t.batches) = (1080, 216);
        let counts = Counts {
            fast: 120,
            reconnects: 0,
        };
        assert_eq!(
            progress_report(&t, &counts, 3000, 0),
            "1080 messages confirmed in 216 batches and 120 non-persistent sent on the fast path \
             (never confirmed) by this run; 1200 of 3000 messages done: the files at positions \
             1-1200 on the command line; without --journal a rerun sends all 3000 again; send only \
             the files not listed"
        );
        let mut t = Tracker::new(None);
        t.done.insert(4..5);
        (t.persistent, t.batches) = (1, 1);
        assert_eq!(
            progress_report(&t, &Counts::default(), 5, 0),
            "1 message confirmed in 1 batch by this run; 1 of 5 messages done: the files at \
             positions 5 on the command line; without --journal a rerun sends all 5 again; send \
             only the files not listed"
        );
    }
}
