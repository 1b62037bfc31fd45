//! `mqgate send`: a command-line sender channel (docs/channel-protocol.md).
//! Sends files holding transmission messages (MQXQH + data), or plain message
//! files wrapped into an MQXQH built from the options.

use crate::channel::sender::{Offer, PIPELINE_BATCHES, SendError, SenderConn};
use crate::channel::xmit;
use crate::config::{ChannelLimits, DEFAULT_BATCH_SIZE, DEFAULT_CHANNEL_MAX_MSG_LENGTH};
use bytes::Bytes;
use clap::Args;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Options of `mqgate send`.
#[derive(Args, Debug)]
pub struct SendArgs {
    /// The receiving gateway's channel listener, HOST:PORT.
    #[arg(long)]
    pub to: SocketAddr,
    /// Receiver channel name.
    #[arg(long)]
    pub channel: String,
    /// Batch size offered (the receiver may agree a lower one).
    #[arg(long, default_value_t = DEFAULT_BATCH_SIZE)]
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
    /// 2162); batches are resynchronised, never applied twice.
    #[arg(long, default_value_t = 0)]
    pub retry_ms: u64,
    /// Files: transmission messages (starting with an MQXQH) or, with
    /// --rqmname/--rname, plain message data.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

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

/// What a send did.
#[derive(Debug, Default)]
struct Sent {
    batches: u64,
    persistent: usize,
    fast: usize,
    reconnects: u32,
    /// The highest batch sequence number seen confirmed (told to the
    /// receiver in HELLO after a reconnect).
    last_confirmed_seq: u64,
}

async fn send_all(args: &SendArgs, msgs: &[Outgoing]) -> Result<Sent, SendError> {
    let mut offer = Offer {
        channel: args.channel.clone(),
        sending_q_mgr: args.sending_qmgr.clone(),
        receiving_q_mgr: String::new(),
        limits: ChannelLimits {
            batch_size: args.batch.max(1),
            max_msg_length: DEFAULT_CHANNEL_MAX_MSG_LENGTH,
            heartbeat_ms: 0,
        },
        last_confirmed_seq: 0,
    };
    let deadline = Instant::now() + Duration::from_millis(args.retry_ms);
    let may_retry = |e: &SendError| {
        let busy = matches!(e, SendError::Refused { reason, .. } if RETRY_REASONS.contains(&Mqrc(*reason)));
        (e.is_transient() || busy) && Instant::now() < deadline
    };
    let mut sent = Sent::default();
    // Index of the first message not yet sent on any connection.
    let mut next = 0;
    // Batches sent and not seen confirmed, oldest first: (sequence number,
    // the messages it holds). Fast-path messages between them are not kept:
    // they may be lost, never sent twice.
    let mut in_flight: VecDeque<(u64, Range<usize>)> = VecDeque::new();
    // Batches to send again after a reconnect, in their original order.
    let mut resend: VecDeque<Range<usize>> = VecDeque::new();
    loop {
        offer.last_confirmed_seq = sent.last_confirmed_seq;
        let mut conn = match SenderConn::connect(args.to, &offer).await {
            Ok(c) => c,
            Err(e) if may_retry(&e) => {
                sent.reconnects += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        // Batches the receiver committed (their CONFIRM was lost) are done;
        // the others are sent again, as they were, before anything new and
        // before those still waiting from an earlier reconnect.
        confirmed(&mut in_flight, conn.agreed.last_committed_seq, &mut sent);
        for (_, r) in in_flight.drain(..).rev() {
            resend.push_front(r);
        }
        let result: Result<(), SendError> = async {
            let batch_size = conn.agreed.limits.batch_size as usize;
            loop {
                // Room in the window first, so that a failure here leaves
                // every message either in `resend`, in `in_flight` or unsent.
                while conn.unconfirmed() >= PIPELINE_BATCHES {
                    let seq = conn.wait_confirm().await?;
                    confirmed(&mut in_flight, seq, &mut sent);
                }
                let range = match resend.pop_front() {
                    // Not committed, so it may be split if the receiver now
                    // agrees a smaller batch size than when it was sent.
                    Some(r) if r.len() > batch_size.max(1) => {
                        let cut = r.start + batch_size.max(1);
                        resend.push_front(cut..r.end);
                        r.start..cut
                    }
                    Some(r) => r,
                    None if next >= msgs.len() => break,
                    None if !msgs[next].persistent => {
                        next += 1;
                        conn.send_fast(msgs[next - 1].data.clone()).await?;
                        sent.fast += 1;
                        continue;
                    }
                    None => {
                        let mut end = next;
                        while end < msgs.len() && end - next < batch_size && msgs[end].persistent {
                            end += 1;
                        }
                        let r = next..end;
                        next = end;
                        r
                    }
                };
                let batch: Vec<Bytes> =
                    msgs[range.clone()].iter().map(|m| m.data.clone()).collect();
                in_flight.push_back((conn.next_seq(), range));
                conn.start_batch(&batch).await?;
            }
            while conn.unconfirmed() > 0 {
                let seq = conn.wait_confirm().await?;
                confirmed(&mut in_flight, seq, &mut sent);
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
                    Err(e) => return Err(e),
                }
                return Ok(sent);
            }
            Err(e) if may_retry(&e) => {
                sent.reconnects += 1;
                tracing::debug!(error = %e, "reconnecting");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Counts the batches up to `seq` as delivered and forgets them.
fn confirmed(in_flight: &mut VecDeque<(u64, Range<usize>)>, seq: u64, sent: &mut Sent) {
    while let Some((s, r)) = in_flight.front()
        && *s <= seq
    {
        sent.batches += 1;
        sent.persistent += r.len();
        sent.last_confirmed_seq = sent.last_confirmed_seq.max(*s);
        in_flight.pop_front();
    }
}

/// Sends every file; exit 0 when every batch was confirmed and the channel
/// closed normally, 1 with the reason otherwise.
pub fn run(args: SendArgs) -> ExitCode {
    let msgs = match load(&args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("mqgate send: {e}");
            return ExitCode::from(2);
        }
    };
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
    match rt.block_on(send_all(&args, &msgs)) {
        Ok(s) => {
            println!(
                "sent {} messages on channel {}: {} persistent in {} confirmed batches, {} on the fast path, {} reconnects",
                msgs.len(),
                args.channel,
                s.persistent,
                s.batches,
                s.fast,
                s.reconnects
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mqgate send: {e}");
            ExitCode::FAILURE
        }
    }
}
