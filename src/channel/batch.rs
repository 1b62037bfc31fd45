//! Batch assembly on the receiver (docs/channel-protocol.md "Batches"): a
//! synchronous state machine fed one frame at a time after the handshake.
//! It collects MESSAGE frames into the open batch, checks END_BATCH's count
//! and sequence number, tells resends of batches committed before this
//! connection from new ones, and refuses whatever breaks the sequence rules
//! with 2142 MQRC_HEADER_ERROR. It does no I/O: the connection task feeds it
//! frames and hands what comes out to the committer.

use super::frame::{FLAG_FAST, Frame};
use bytes::Bytes;
use mqgate_codecs::mq::Mqrc;

/// What one frame amounts to.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A MESSAGE joined the open batch; nothing to hand on yet.
    Open,
    /// A complete batch (END_BATCH seen, count checked): apply and commit it.
    /// `bytes` is the length of its transmission messages together.
    Batch {
        seq: u64,
        msgs: Vec<Bytes>,
        bytes: usize,
    },
    /// A batch committed before this connection (its CONFIRM was lost):
    /// confirm it again, apply nothing.
    Reconfirm(u64),
    /// A non-persistent message sent outside any batch.
    Fast(Bytes),
    /// A HEARTBEAT between batches: answer it.
    Heartbeat,
    /// The sender sent CLOSE with `reason` (0 = orderly) and `text`;
    /// `discarded` messages of the open batch are not committed.
    SenderClosed {
        reason: i32,
        text: String,
        discarded: usize,
    },
}

/// A frame that breaks the protocol: the channel closes with `reason`
/// (always 2142 MQRC_HEADER_ERROR) and `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    pub reason: Mqrc,
    pub text: String,
}

fn breach(text: String) -> Breach {
    Breach {
        reason: Mqrc::HEADER_ERROR,
        text,
    }
}

/// The batch state of one receiver connection.
#[derive(Debug)]
pub struct BatchAssembler {
    /// The agreed batch size (at least 1).
    batch_size: usize,
    /// MESSAGE frames of the open batch.
    pending: Vec<Bytes>,
    pending_bytes: usize,
    /// Highest batch sequence number received complete on this connection,
    /// or the channel's last committed one when it started.
    received: u64,
    /// The channel's last committed sequence number when this connection
    /// started: a batch up to it is a resend whose CONFIRM was lost.
    committed_at_connect: u64,
    /// Highest such resend confirmed again on this connection.
    reconfirmed: u64,
}

impl BatchAssembler {
    /// The state of a new connection: agreed batch size `batch_size`, the
    /// channel's last committed batch `last_committed` (0 = none).
    pub fn new(batch_size: u32, last_committed: u64) -> Self {
        BatchAssembler {
            batch_size: batch_size.max(1) as usize,
            pending: Vec::new(),
            pending_bytes: 0,
            received: last_committed,
            committed_at_connect: last_committed,
            reconfirmed: 0,
        }
    }

    /// Messages of the open (not yet ended) batch.
    pub fn open_messages(&self) -> usize {
        self.pending.len()
    }

    /// Takes one frame from the sender.
    pub fn frame(&mut self, frame: Frame) -> Result<Event, Breach> {
        match frame {
            Frame::Message { flags, data } if flags & FLAG_FAST != 0 => Ok(Event::Fast(data)),
            Frame::Message { data, .. } => {
                if self.pending.len() >= self.batch_size {
                    return Err(breach(format!(
                        "more than the agreed batch size of {} messages without END_BATCH",
                        self.batch_size
                    )));
                }
                self.pending_bytes += data.len();
                self.pending.push(data);
                Ok(Event::Open)
            }
            Frame::EndBatch { seq, count } => self.end_batch(seq, count),
            Frame::Heartbeat if !self.pending.is_empty() => Err(breach(format!(
                "HEARTBEAT inside an open batch of {} messages (valid between batches only)",
                self.pending.len()
            ))),
            Frame::Heartbeat => Ok(Event::Heartbeat),
            Frame::Close { reason, text } => Ok(Event::SenderClosed {
                reason,
                text,
                discarded: self.pending.len(),
            }),
            other => Err(breach(format!(
                "unexpected {} frame from the sender",
                other.name()
            ))),
        }
    }

    fn end_batch(&mut self, seq: u64, count: u32) -> Result<Event, Breach> {
        if count as usize != self.pending.len() {
            return Err(breach(format!(
                "END_BATCH {seq} counts {count} messages, {} were sent",
                self.pending.len()
            )));
        }
        if count == 0 || seq == 0 {
            return Err(breach(format!(
                "END_BATCH {seq} with {count} messages: a batch has 1 to batch_size messages and a sequence number from 1"
            )));
        }
        let msgs = std::mem::take(&mut self.pending);
        let bytes = std::mem::take(&mut self.pending_bytes);
        if seq <= self.committed_at_connect
            && seq > self.reconfirmed
            && self.received == self.committed_at_connect
        {
            // Committed before this connection; its CONFIRM was lost.
            // Resends come first and in order, so CONFIRMs never go backwards.
            self.reconfirmed = seq;
            return Ok(Event::Reconfirm(seq));
        }
        if seq <= self.received {
            return Err(breach(format!(
                "END_BATCH {seq} was already received or confirmed on this connection (next expected: {})",
                self.received + 1
            )));
        }
        if seq != self.received + 1 {
            return Err(breach(format!(
                "END_BATCH sequence number {seq}, expected {}",
                self.received + 1
            )));
        }
        self.received = seq;
        Ok(Event::Batch { seq, msgs, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(body: &'static [u8]) -> Frame {
        Frame::Message {
            flags: 0,
            data: Bytes::from_static(body),
        }
    }

    fn end(seq: u64, count: u32) -> Frame {
        Frame::EndBatch { seq, count }
    }

    /// Feeds `frames`; returns the events, or the first breach's text.
    fn run(a: &mut BatchAssembler, frames: Vec<Frame>) -> Result<Vec<Event>, String> {
        frames
            .into_iter()
            .map(|f| a.frame(f).map_err(|b| b.text))
            .collect()
    }

    fn breach_of(a: &mut BatchAssembler, frames: Vec<Frame>) -> Breach {
        let mut last = None;
        for f in frames {
            match a.frame(f) {
                Ok(_) => {}
                Err(b) => {
                    last = Some(b);
                    break;
                }
            }
        }
        last.expect("a breach")
    }

    #[test]
    fn a_batch_is_its_messages_then_end_batch_numbered_from_last_committed_plus_one() {
        // docs/channel-protocol.md "Batches": seq = last committed + 1.
        let mut a = BatchAssembler::new(50, 4);
        let events = run(&mut a, vec![msg(b"a"), msg(b"bc"), end(5, 2)]).unwrap();
        assert_eq!(
            events,
            vec![
                Event::Open,
                Event::Open,
                Event::Batch {
                    seq: 5,
                    msgs: vec![Bytes::from_static(b"a"), Bytes::from_static(b"bc")],
                    bytes: 3,
                },
            ]
        );
        assert_eq!(a.open_messages(), 0);
        let events = run(&mut a, vec![msg(b"d"), end(6, 1)]).unwrap();
        assert!(matches!(events[1], Event::Batch { seq: 6, .. }));
    }

    #[test]
    fn count_and_sequence_breaches_are_2142() {
        // docs/channel-protocol.md "Batches" step 1; tests/channel.rs
        // batches_that_break_the_sequence_rules_close_the_channel_with_2142.
        let cases: Vec<(u64, Vec<Frame>, &str)> = vec![
            (0, vec![end(1, 0)], "END_BATCH 1 with 0 messages"),
            (0, vec![msg(b"z"), end(0, 1)], "END_BATCH 0 with 1 messages"),
            (
                0,
                vec![msg(b"a"), end(1, 2)],
                "END_BATCH 1 counts 2 messages, 1 were sent",
            ),
            (
                0,
                vec![msg(b"a"), end(1, 1), msg(b"b"), end(1, 1)],
                "END_BATCH 1 was already received or confirmed on this connection (next expected: 2)",
            ),
            (
                0,
                vec![msg(b"a"), end(2, 1)],
                "END_BATCH sequence number 2, expected 1",
            ),
            (
                3,
                vec![msg(b"a"), end(5, 1)],
                "END_BATCH sequence number 5, expected 4",
            ),
            (
                0,
                vec![msg(b"a"), Frame::Heartbeat],
                "HEARTBEAT inside an open batch of 1 messages (valid between batches only)",
            ),
            (
                0,
                vec![Frame::Confirm { seq: 1 }],
                "unexpected CONFIRM frame from the sender",
            ),
        ];
        for (last, frames, want) in cases {
            let b = breach_of(&mut BatchAssembler::new(50, last), frames);
            assert_eq!(b.reason, Mqrc::HEADER_ERROR, "{want}");
            assert!(b.text.starts_with(want), "{} vs {want}", b.text);
        }
    }

    #[test]
    fn more_than_the_batch_size_without_end_batch_is_2142() {
        let mut a = BatchAssembler::new(2, 0);
        let b = breach_of(&mut a, vec![msg(b"1"), msg(b"2"), msg(b"3")]);
        assert_eq!(b.reason.0, 2142);
        assert_eq!(
            b.text,
            "more than the agreed batch size of 2 messages without END_BATCH"
        );
        // A batch size of 0 counts as 1.
        let mut a = BatchAssembler::new(0, 0);
        assert!(run(&mut a, vec![msg(b"1"), end(1, 1)]).is_ok());
    }

    #[test]
    fn resends_of_committed_batches_are_confirmed_again_only_before_new_ones() {
        // Batches 1..=3 were committed before this connection; their
        // CONFIRMs were lost. Resent in order, each is confirmed again.
        let mut a = BatchAssembler::new(50, 3);
        let events = run(
            &mut a,
            vec![
                msg(b"2"),
                end(2, 1),
                msg(b"3"),
                end(3, 1),
                msg(b"4"),
                end(4, 1),
            ],
        )
        .unwrap();
        assert_eq!(events[1], Event::Reconfirm(2));
        assert_eq!(events[3], Event::Reconfirm(3));
        assert!(matches!(events[5], Event::Batch { seq: 4, .. }));
        // After a new batch, a resend would make CONFIRMs go backwards.
        let b = breach_of(&mut a, vec![msg(b"1"), end(1, 1)]);
        assert_eq!(
            b.text,
            "END_BATCH 1 was already received or confirmed on this connection (next expected: 5)"
        );
        // Resends go forwards only: 3 then 2 is refused.
        let mut a = BatchAssembler::new(50, 3);
        let b = breach_of(&mut a, vec![msg(b"3"), end(3, 1), msg(b"2"), end(2, 1)]);
        assert_eq!(
            b.text,
            "END_BATCH 2 was already received or confirmed on this connection (next expected: 4)"
        );
    }

    #[test]
    fn fast_messages_heartbeats_and_close_between_and_inside_batches() {
        let mut a = BatchAssembler::new(50, 0);
        let fast = Frame::Message {
            flags: FLAG_FAST,
            data: Bytes::from_static(b"np"),
        };
        // A FAST message inside an open batch leaves the batch as it is.
        let events = run(&mut a, vec![Frame::Heartbeat, msg(b"p"), fast, end(1, 1)]).unwrap();
        assert_eq!(events[0], Event::Heartbeat);
        assert_eq!(events[2], Event::Fast(Bytes::from_static(b"np")));
        assert!(matches!(events[3], Event::Batch { seq: 1, .. }));
        // CLOSE inside a batch: its messages are discarded.
        let events = run(
            &mut a,
            vec![
                msg(b"x"),
                Frame::Close {
                    reason: 0,
                    text: "bye".into(),
                },
            ],
        )
        .unwrap();
        assert_eq!(
            events[1],
            Event::SenderClosed {
                reason: 0,
                text: "bye".into(),
                discarded: 1
            }
        );
    }
}
