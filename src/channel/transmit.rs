//! The exits a sender channel runs on each transmission message it takes
//! from its transmission queue, before the message is sent
//! (docs/exits.md "Where each point runs"):
//!
//! 0. the MQXQH check: a buffer that does not parse as a transmission
//!    message (no valid MQXQH, or a bad MQMD inside it) is not sent but
//!    dead-lettered with 2142 MQRC_HEADER_ERROR — the receiver could never
//!    deliver it, and it would block the messages behind it;
//! 1. the message exits (MQXT_CHANNEL_MSG, MQXR_MSG) on the transmission
//!    message (MQXQH + data); what they leave must still be one (else 2142
//!    as in step 0);
//! 2. the length check: the message and the send exits' reserved ExitSpace
//!    must fit the agreed maximum message length, else the message is
//!    dead-lettered with 2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL;
//! 3. the send exits (MQXT_CHANNEL_SEND, MQXR_XMIT) on the transmission
//!    buffer, the MESSAGE frame's data, with the ExitSpace room after it;
//!    a buffer they grow beyond the agreed maximum closes the channel with
//!    2374 MQRC_API_EXIT_ERROR.
//!
//! A suppressing exit dead-letters the message on the sender's side with the
//! exit's reason; `CloseChannel` closes the channel with 2374 and the message
//! stays on the transmission queue. Synchronous: run it on a blocking thread.

use super::xmit;
use crate::mqi::{DeadLetter, Mqi, QmError};
use bytes::{Bytes, BytesMut};
use mqgate_codecs::mq::xqh::XQH_LENGTH;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use mqgate_exits::{ExitChain, ExitPoint, ExitsConfig, Verdict};

/// Fewest bytes of the agreed message length that must stay for message
/// data after the send exits' ExitSpace (MQ: "fewer than 1024 bytes
/// available in the transmission buffer for message data" closes the channel).
pub const MIN_DATA_ROOM: usize = 1024;

/// What happens to one transmission message.
#[derive(Debug, PartialEq, Eq)]
pub enum Transmit {
    /// Send this buffer.
    Send(Bytes),
    /// Do not send it: it goes to the sender's dead-letter queue with
    /// `reason`; `buffer` is the transmission message as the exits before
    /// the one that refused it left it.
    DeadLetter {
        reason: Mqrc,
        text: String,
        buffer: Bytes,
    },
    /// Close the channel with `reason`; the message stays on the
    /// transmission queue.
    Close { reason: Mqrc, text: String },
}

/// The started message and send exit chains of one sender channel session.
pub struct SenderExits {
    channel: String,
    message: Option<ExitChain>,
    send: Option<ExitChain>,
}

impl SenderExits {
    /// Builds and starts (MQXR_INIT) the message chain (`exits.global.message`,
    /// then `exits.channels.NAME.message`) and the send chain (`global.send`,
    /// then `channels.NAME.send`) of sender channel `channel`. Errors: an exit
    /// cannot be built or refuses MQXR_INIT (the text names the point and
    /// the channel).
    pub fn start(exits: &ExitsConfig, channel: &str, q_mgr_name: &str) -> Result<Self, String> {
        let start = |point| {
            super::start_chain(point, channel, q_mgr_name, exits.chain_defs(point, channel))
        };
        let message = start(ExitPoint::Message)?;
        let send = start(ExitPoint::Send)?;
        Ok(SenderExits {
            channel: channel.to_string(),
            message,
            send,
        })
    }

    /// Chains already started (either may be `None`).
    pub fn from_chains(channel: &str, message: Option<ExitChain>, send: Option<ExitChain>) -> Self {
        SenderExits {
            channel: channel.to_string(),
            message,
            send,
        }
    }

    /// True when no exit runs: [`SenderExits::transmit`] then only checks
    /// the length.
    pub fn is_empty(&self) -> bool {
        self.message.is_none() && self.send.is_none()
    }

    /// Bytes the send exits reserved at MQXR_INIT (MQ: ExitSpace).
    pub fn exit_space(&self) -> usize {
        self.send.as_ref().map_or(0, ExitChain::exit_space)
    }

    /// Checks that the agreed `max_msg_length` leaves at least
    /// [`MIN_DATA_ROOM`] bytes for message data after the exit space.
    /// Errors: the text for the CLOSE (2539 MQRC_CHANNEL_CONFIG_ERROR).
    pub fn check_room(&self, max_msg_length: u32) -> Result<(), String> {
        let space = self.exit_space();
        if space > 0 && (max_msg_length as usize) < space + MIN_DATA_ROOM {
            return Err(format!(
                "the send exits of channel {} reserve {space} bytes of exit space; the agreed maximum message length of {max_msg_length} bytes leaves fewer than {MIN_DATA_ROOM} bytes for message data",
                self.channel
            ));
        }
        Ok(())
    }

    /// Runs the exits on one transmission message `raw` for a channel that
    /// agreed `max_msg_length` bytes (see the module rules).
    pub fn transmit(&mut self, raw: Bytes, max_msg_length: usize) -> Transmit {
        if let Err(e) = xmit::parse(&raw) {
            return not_sendable(raw, &e, "");
        }
        let space = self.exit_space();
        let mut buf = None;
        if let Some(chain) = self.message.as_mut() {
            let mut b = BytesMut::from(&raw[..]);
            if let Some(refused) = refusal(chain.run_buffer(&mut b), "message exit", &b) {
                return refused;
            }
            if let Err(e) = xmit::parse(&b) {
                return not_sendable(b.freeze(), &e, " as the message exits left it");
            }
            buf = Some(b);
        }
        let len = buf.as_ref().map_or(raw.len(), BytesMut::len);
        if len + space > max_msg_length {
            let room = if space > 0 {
                format!(" less {space} bytes of send exit space")
            } else {
                String::new()
            };
            return Transmit::DeadLetter {
                reason: Mqrc::MSG_TOO_BIG_FOR_CHANNEL,
                text: format!(
                    "transmission message of {len} bytes does not fit the channel's agreed maximum of {max_msg_length} bytes{room}"
                ),
                buffer: buf.map_or(raw, BytesMut::freeze),
            };
        }
        let Some(chain) = self.send.as_mut() else {
            return Transmit::Send(buf.map_or(raw, BytesMut::freeze));
        };
        let mut b = buf.unwrap_or_else(|| BytesMut::from(&raw[..]));
        if let Some(refused) = refusal(chain.run_buffer(&mut b), "send exit", &b) {
            return refused;
        }
        if b.len() > max_msg_length {
            return Transmit::Close {
                reason: Mqrc::API_EXIT_ERROR,
                text: format!(
                    "the send exits of channel {} grew a transmission buffer from {len} to {} bytes, above the agreed maximum of {max_msg_length} bytes (their exit space is {space} bytes)",
                    self.channel,
                    b.len()
                ),
            };
        }
        Transmit::Send(b.freeze())
    }

    /// Ends both chains (MQXR_TERM); failures are logged.
    pub fn terminate(&mut self) {
        for mut c in [self.message.take(), self.send.take()]
            .into_iter()
            .flatten()
        {
            for (exit, failure) in c.terminate() {
                tracing::warn!(channel = %self.channel, %exit, %failure, "exit failed at MQXR_TERM");
            }
        }
    }
}

/// A buffer that is no transmission message (no valid MQXQH, its MQMD
/// included): the receiver could never deliver it, so it is dead-lettered on
/// this side with 2142 MQRC_HEADER_ERROR instead of being sent
/// (docs/channel-protocol.md "Sender channels").
fn not_sendable(buffer: Bytes, e: &mqgate_codecs::mq::DecodeError, after: &str) -> Transmit {
    Transmit::DeadLetter {
        reason: Mqrc::HEADER_ERROR,
        text: format!("not a transmission message{after}, not sent: {e}"),
        buffer,
    }
}

/// A verdict that stops the message, as a [`Transmit`]; `None` to go on.
fn refusal(verdict: Verdict, what: &str, buf: &BytesMut) -> Option<Transmit> {
    match verdict {
        Verdict::Continue => None,
        Verdict::Suppress { reason, exit, .. } | Verdict::FailCall { reason, exit, .. } => {
            Some(Transmit::DeadLetter {
                reason,
                text: format!("{what} {exit} suppressed the message"),
                buffer: Bytes::copy_from_slice(buf),
            })
        }
        Verdict::CloseChannel { exit, failure } => {
            let detail = failure.map(|f| format!(": {f}")).unwrap_or_default();
            Some(Transmit::Close {
                reason: Mqrc::API_EXIT_ERROR,
                text: format!("{what} {exit} closed the channel{detail}"),
            })
        }
    }
}

/// Puts a transmission message the sender will not send on the dead-letter
/// queue under unit of work `uow`: the MQDLH carries `reason`, the MQXQH's
/// RemoteQName and RemoteQMgrName as the destination and the channel name as
/// PutApplName; the MQXQH's MQMD and the data after it follow (a buffer
/// without an MQXQH goes as it is, behind a default MQMD). Through
/// [`Mqi::dead_letter_as`]; errors are its own (2085 when there is no
/// dead-letter queue, 2003 when `uow` is not open, the put's errors).
pub fn dead_letter(
    mqi: &Mqi,
    channel: &str,
    buffer: &[u8],
    reason: Mqrc,
    uow: u64,
) -> Result<(), QmError> {
    let parsed = xmit::parse(buffer).ok();
    let default_md = Mqmd::default();
    let (md, charset, data, rq, rqm) = match &parsed {
        Some((x, cs)) => (
            &x.msg_desc,
            *cs,
            &buffer[XQH_LENGTH..],
            x.remote_q_name.text(*cs),
            x.remote_q_mgr_name.text(*cs),
        ),
        None => (
            &default_md,
            Charset::Ascii,
            buffer,
            String::new(),
            String::new(),
        ),
    };
    let msg = DeadLetter {
        md,
        charset,
        data,
        reason,
        dest_q: &rq,
        dest_q_mgr: &rqm,
    };
    mqi.dead_letter_as(&msg, channel, Some(uow)).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::mq::CharField;
    use mqgate_exits::{ChainEntry, Exit, ExitContext, ExitReason, ExitResponse, Payload};
    use std::sync::{Arc, Mutex};

    type Log = Arc<Mutex<Vec<String>>>;

    fn xmit_msg(rq: &str, body: &[u8]) -> Bytes {
        let md = Mqmd {
            format: CharField::new("MQSTR", Charset::Ascii).unwrap(),
            ..Mqmd::default()
        };
        Bytes::from(xmit::wrap(rq, "GWB", md, body).unwrap())
    }

    /// Logs every call as `REASON:len`; asks for `space` bytes of ExitSpace
    /// at MQXR_INIT; on data calls appends `add` bytes, or answers `answer`.
    struct Probe {
        log: Log,
        space: u32,
        add: usize,
        answer: ExitResponse,
    }

    impl Exit for Probe {
        fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
            let len = match &payload {
                Payload::Buffer(b) => b.len(),
                _ => 0,
            };
            self.log
                .lock()
                .unwrap()
                .push(format!("{}:{len}", ctx.exit_reason.value()));
            match ctx.exit_reason {
                ExitReason::Init => {
                    ctx.exit_space = self.space;
                    ExitResponse::Ok
                }
                ExitReason::Term => ExitResponse::Ok,
                _ => {
                    if let Payload::Buffer(b) = payload {
                        b.extend_from_slice(&vec![b'+'; self.add]);
                    }
                    self.answer
                }
            }
        }
    }

    fn probe(log: &Log, space: u32, add: usize, answer: ExitResponse) -> Vec<ChainEntry> {
        vec![ChainEntry::new(
            "probe",
            "",
            Box::new(Probe {
                log: log.clone(),
                space,
                add,
                answer,
            }),
        )]
    }

    fn chain(point: ExitPoint, entries: Vec<ChainEntry>) -> Option<ExitChain> {
        Some(ExitChain::start(point, "A.TO.B", "GWA", entries).unwrap())
    }

    #[test]
    fn message_then_send_exits_see_each_message_once_and_init_term_once() {
        let msg_log: Log = Arc::default();
        let send_log: Log = Arc::default();
        let mut exits = SenderExits::from_chains(
            "A.TO.B",
            chain(ExitPoint::Message, probe(&msg_log, 0, 1, ExitResponse::Ok)),
            chain(ExitPoint::Send, probe(&send_log, 0, 2, ExitResponse::Ok)),
        );
        let m = xmit_msg("INBOX", b"body");
        for _ in 0..3 {
            match exits.transmit(m.clone(), 4096) {
                Transmit::Send(b) => {
                    // The message exit's byte, then the send exit's two.
                    assert_eq!(b.len(), m.len() + 3);
                    assert!(b.ends_with(b"body+++"));
                }
                other => panic!("{other:?}"),
            }
        }
        exits.terminate();
        exits.terminate();
        // IBM MQ "Constants" "Channel exits": MQXR_INIT 11, MQXR_TERM 12,
        // MQXR_MSG 13 for the message exit, MQXR_XMIT 14 for the send exit;
        // INIT and TERM once each, one data call per message. The send exit
        // sees the message as the message exit left it (432 = 428 + 4, + 1).
        let l = m.len();
        assert_eq!(
            *msg_log.lock().unwrap(),
            [
                "11:0",
                &format!("13:{l}"),
                &format!("13:{l}"),
                &format!("13:{l}"),
                "12:0"
            ]
        );
        let s = l + 1;
        assert_eq!(
            *send_log.lock().unwrap(),
            [
                "11:0",
                &format!("14:{s}"),
                &format!("14:{s}"),
                &format!("14:{s}"),
                "12:0"
            ]
        );
    }

    #[test]
    fn a_suppressing_exit_dead_letters_with_its_reason_and_close_closes_with_2374() {
        let log: Log = Arc::default();
        let m = xmit_msg("INBOX", b"body");
        let suppress = ExitResponse::SuppressFunction(Mqrc::UNKNOWN_REMOTE_Q_MGR);
        for point in [ExitPoint::Message, ExitPoint::Send] {
            let c = chain(point, probe(&log, 0, 5, suppress));
            let mut exits = match point {
                ExitPoint::Message => SenderExits::from_chains("A.TO.B", c, None),
                _ => SenderExits::from_chains("A.TO.B", None, c),
            };
            match exits.transmit(m.clone(), 4096) {
                // The suppressing exit's change is undone (docs/exits.md).
                Transmit::DeadLetter {
                    reason,
                    text,
                    buffer,
                } => {
                    assert_eq!(reason, Mqrc(2087), "{point}");
                    assert!(text.contains("suppressed the message"), "{text}");
                    assert_eq!(buffer, m);
                }
                other => panic!("{point}: {other:?}"),
            }
            let c = chain(point, probe(&log, 0, 0, ExitResponse::CloseChannel));
            let mut exits = match point {
                ExitPoint::Message => SenderExits::from_chains("A.TO.B", c, None),
                _ => SenderExits::from_chains("A.TO.B", None, c),
            };
            match exits.transmit(m.clone(), 4096) {
                Transmit::Close { reason, text } => {
                    assert_eq!(reason, Mqrc::API_EXIT_ERROR);
                    assert!(text.contains("closed the channel"), "{text}");
                }
                other => panic!("{point}: {other:?}"),
            }
        }
    }

    #[test]
    fn exit_space_is_kept_free_and_a_buffer_grown_past_the_maximum_closes_with_2374() {
        let log: Log = Arc::default();
        let m = xmit_msg("INBOX", &[b'x'; 500]);
        let max = m.len() + 100;
        // 100 bytes of ExitSpace; the exit adds 100: exactly the maximum.
        let mut exits = SenderExits::from_chains(
            "A.TO.B",
            None,
            chain(ExitPoint::Send, probe(&log, 100, 100, ExitResponse::Ok)),
        );
        assert_eq!(exits.exit_space(), 100);
        assert!(matches!(exits.transmit(m.clone(), max), Transmit::Send(b) if b.len() == max));
        // One byte longer no longer fits with the space kept free: 2218 on
        // the sender's side, the send exit not called.
        let calls = log.lock().unwrap().len();
        match exits.transmit(xmit_msg("INBOX", &[b'x'; 501]), max) {
            Transmit::DeadLetter { reason, text, .. } => {
                assert_eq!(reason, Mqrc::MSG_TOO_BIG_FOR_CHANNEL);
                assert!(text.contains("less 100 bytes of send exit space"), "{text}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(log.lock().unwrap().len(), calls);
        // An exit that reserved 10 bytes but adds 200: past the maximum.
        let mut exits = SenderExits::from_chains(
            "A.TO.B",
            None,
            chain(ExitPoint::Send, probe(&log, 10, 200, ExitResponse::Ok)),
        );
        match exits.transmit(m.clone(), max) {
            Transmit::Close { reason, text } => {
                assert_eq!(reason, Mqrc(2374));
                assert!(text.contains("above the agreed maximum"), "{text}");
            }
            other => panic!("{other:?}"),
        }
        // MQ: fewer than 1024 bytes left for message data closes the channel.
        let exits = SenderExits::from_chains(
            "A.TO.B",
            None,
            chain(ExitPoint::Send, probe(&log, 4000, 0, ExitResponse::Ok)),
        );
        assert!(exits.check_room(5024).is_ok());
        let e = exits.check_room(5023).unwrap_err();
        assert!(e.contains("fewer than 1024 bytes"), "{e}");
        // Without exits only the length counts.
        let mut none = SenderExits::from_chains("A.TO.B", None, None);
        assert!(none.is_empty());
        assert!(none.check_room(10).is_ok());
        assert_eq!(none.transmit(m.clone(), m.len()), Transmit::Send(m.clone()));
        assert!(matches!(
            none.transmit(m.clone(), m.len() - 1),
            Transmit::DeadLetter {
                reason: Mqrc(2218),
                ..
            }
        ));
    }

    #[test]
    fn a_buffer_without_an_mqxqh_is_dead_lettered_with_2142_and_not_sent() {
        // docs/channel-protocol.md "Sender channels": the receiver could
        // never deliver it (IBM MQ "MQXQH - Transmission-queue header").
        let log: Log = Arc::default();
        let mut exits = SenderExits::from_chains(
            "A.TO.B",
            chain(ExitPoint::Message, probe(&log, 0, 1, ExitResponse::Ok)),
            None,
        );
        let junk = Bytes::from_static(b"not a transmission message");
        let want_2142 = |t: Transmit, buf: &Bytes| match t {
            Transmit::DeadLetter {
                reason,
                text,
                buffer,
            } => {
                assert_eq!(reason, Mqrc::HEADER_ERROR);
                assert!(text.starts_with("not a transmission message"), "{text}");
                assert_eq!(&buffer, buf);
            }
            other => panic!("{other:?}"),
        };
        want_2142(exits.transmit(junk.clone(), 4096), &junk);
        // The message exit is not called for it (only MQXR_INIT was).
        assert_eq!(*log.lock().unwrap(), ["11:0"]);
        // Without exits too; and an MQXQH whose MQMD (offset 104) is damaged.
        let mut none = SenderExits::from_chains("A.TO.B", None, None);
        want_2142(none.transmit(junk.clone(), 4096), &junk);
        let mut bad_md = xmit_msg("INBOX", b"body").to_vec();
        // StrucId "MD  " replaced (IBM MQ "MQMD - Message descriptor").
        bad_md[104..108].copy_from_slice(b"BAD ");
        let bad_md = Bytes::from(bad_md);
        want_2142(none.transmit(bad_md.clone(), 4096), &bad_md);
    }
}
