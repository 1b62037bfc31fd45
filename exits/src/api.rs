//! The exit API: exit points, reasons, the context every call gets, the data an
//! exit may change, and its response (IBM MQ "Constants" "Channel exits";
//! the EntireX WebSphere MQ RPC Server documentation: beforePut / beforeGet / afterGet).

use bytes::BytesMut;
use mqgate_codecs::mq::constants::{xcc, xr, xt};
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Length of the exit user area in bytes (MQ_EXIT_USER_AREA_LENGTH = 16,
/// IBM MQ "Constants" "Name and field lengths").
pub const EXIT_USER_AREA_LENGTH: usize = 16;

/// The exit user area: 16 bytes that mqgate keeps for one exit instance from
/// MQXR_INIT to MQXR_TERM and hands to every call (MQ: MQCXP ExitUserArea).
/// It starts as 16 × 0x00.
pub type ExitUserArea = [u8; EXIT_USER_AREA_LENGTH];

/// The CodedCharSetId of the gateway's queue manager (MQ's queue manager
/// attribute CCSID): 1208, UTF-8. A CodedCharSetId of 0 (MQCCSI_Q_MGR) in a
/// message or in a header an exit builds means this CCSID (IBM MQ "MQMD -
/// CodedCharSetId": MQCCSI_Q_MGR is replaced by the queue manager's CCSID).
pub const Q_MGR_CCSID: i32 = 1208;

/// Where in the gateway an exit is called.
///
/// Channel points follow MQ's message channel exits (MQXT_CHANNEL_RCV,
/// MQXT_CHANNEL_SEND, MQXT_CHANNEL_MSG); the queue points follow the EntireX
/// WebSphere MQ RPC Server exit (the EntireX WebSphere MQ RPC Server documentation: beforePut, beforeGet, afterGet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitPoint {
    /// Channel receive exit: the raw transmission message as it came off the
    /// channel, before it is parsed. The buffer starts with the MQXQH at
    /// offset 0, followed by the embedded MQMD's data (see docs/exits.md).
    Receive,
    /// Channel send exit: the raw transmission message just before a sender
    /// channel writes it, same layout as `Receive`; it may reserve room at
    /// MQXR_INIT ([`ExitContext::exit_space`]).
    Send,
    /// Channel message exit: the transmission message (MQXQH + data) on a
    /// sender channel as it is taken from the transmission queue, before it
    /// is sent; on a receiver channel after it was parsed, before it is
    /// resolved and put.
    Message,
    /// Before a message is put to a queue: MQMD, data and put options.
    BeforePut,
    /// Before a get from a queue: the get options only.
    BeforeGet,
    /// After a message was got from a queue: MQMD and data.
    AfterGet,
}

impl ExitPoint {
    /// All points, in flow order.
    pub const ALL: [ExitPoint; 6] = [
        ExitPoint::Receive,
        ExitPoint::Send,
        ExitPoint::Message,
        ExitPoint::BeforePut,
        ExitPoint::BeforeGet,
        ExitPoint::AfterGet,
    ];

    /// The MQXT_* ExitId MQ uses for this kind of exit: 14 CHANNEL_RCV,
    /// 13 CHANNEL_SEND, 12 CHANNEL_MSG, 2 API for the queue points.
    pub fn exit_id(self) -> i32 {
        match self {
            ExitPoint::Receive => xt::CHANNEL_RCV,
            ExitPoint::Send => xt::CHANNEL_SEND,
            ExitPoint::Message => xt::CHANNEL_MSG,
            ExitPoint::BeforePut | ExitPoint::BeforeGet | ExitPoint::AfterGet => xt::API,
        }
    }

    /// True for the channel points (receive, send, message): their objects are
    /// channels and an exit failure closes the channel.
    pub fn is_channel_point(self) -> bool {
        matches!(
            self,
            ExitPoint::Receive | ExitPoint::Send | ExitPoint::Message
        )
    }

    /// The reason code of an ordinary (non INIT/TERM) call: MQXR_XMIT for the
    /// send and receive exits, MQXR_MSG for the others (MQ uses MQXR_MSG for
    /// message exits; mqgate uses it for the queue points as well).
    pub fn data_reason(self) -> ExitReason {
        match self {
            ExitPoint::Receive | ExitPoint::Send => ExitReason::Xmit,
            _ => ExitReason::Msg,
        }
    }

    /// The YAML key of this point (`receive`, `before_put`, ...).
    pub fn key(self) -> &'static str {
        match self {
            ExitPoint::Receive => "receive",
            ExitPoint::Send => "send",
            ExitPoint::Message => "message",
            ExitPoint::BeforePut => "before_put",
            ExitPoint::BeforeGet => "before_get",
            ExitPoint::AfterGet => "after_get",
        }
    }

    /// The C header's MQGATE_POINT_* number (exits/include/mqgate_exit.h).
    pub fn c_code(self) -> i32 {
        match self {
            ExitPoint::Receive => 1,
            ExitPoint::Send => 2,
            ExitPoint::Message => 3,
            ExitPoint::BeforePut => 4,
            ExitPoint::BeforeGet => 5,
            ExitPoint::AfterGet => 6,
        }
    }
}

impl fmt::Display for ExitPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// Why an exit is called (MQXR_*, IBM MQ "Constants" "Channel exits").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// MQXR_INIT (11): once, when the channel starts or the queue is opened,
    /// before any data. No payload.
    Init,
    /// MQXR_MSG (13): a message (message exit and the queue points).
    Msg,
    /// MQXR_XMIT (14): a transmission buffer (send and receive exits).
    Xmit,
    /// MQXR_TERM (12): once, when the chain ends. No payload.
    Term,
}

impl ExitReason {
    /// The MQXR_* value.
    pub fn value(self) -> i32 {
        match self {
            ExitReason::Init => xr::INIT,
            ExitReason::Msg => xr::MSG,
            ExitReason::Xmit => xr::XMIT,
            ExitReason::Term => xr::TERM,
        }
    }
}

/// What an exit answers (MQ: MQCXP ExitResponse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitResponse {
    /// MQXCC_OK (0): carry on with the data as the exit left it.
    Ok,
    /// MQXCC_SUPPRESS_FUNCTION (-1) with an MQRC reason: the message is not
    /// processed further and goes to the dead-letter queue with this reason
    /// (never silently away). At MQXR_INIT it stops the chain from starting.
    SuppressFunction(Mqrc),
    /// MQXCC_CLOSE_CHANNEL (-6): close the channel; the message stays on the
    /// sender's transmission queue. At a queue point the call fails with
    /// 2374 MQRC_API_EXIT_ERROR instead.
    CloseChannel,
    /// MQXCC_FAILED (-8): the exit could not do its work; mqgate applies the
    /// exit's failure policy exactly as for a panic or an overrun budget.
    Failed,
}

impl ExitResponse {
    /// The MQXCC_* value.
    pub fn xcc(self) -> i32 {
        match self {
            ExitResponse::Ok => xcc::OK,
            ExitResponse::SuppressFunction(_) => xcc::SUPPRESS_FUNCTION,
            ExitResponse::CloseChannel => xcc::CLOSE_CHANNEL,
            ExitResponse::Failed => xcc::FAILED,
        }
    }
}

/// Put options an exit may change before a put (the MQPMO fields mqgate uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PutOptions {
    /// MQPMO_* flags (IBM MQ "Constants" "MQPMO").
    pub options: i32,
}

/// Get options an exit may change before a get (the MQGMO fields mqgate uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GetOptions {
    /// MQGMO_* flags (IBM MQ "Constants" "MQGMO").
    pub options: i32,
    /// Milliseconds; 0 = no wait, -1 = MQWI_UNLIMITED.
    pub wait_interval: i32,
    /// MQMO_* match options.
    pub match_options: i32,
}

/// A warning the call completes with (MQCC_WARNING and a reason), as an IBM
/// MQ API exit sets the CompCode and Reason of the call it runs around (IBM
/// MQ "MQ_GET_EXIT - Get exit", "MQ_PUT_EXIT - Put exit": the exit may change
/// CompCode and Reason after the call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitWarning {
    /// The MQRC reason; its completion code is MQCC_WARNING (e.g. 2110
    /// MQRC_FORMAT_ERROR, 2119 MQRC_NOT_CONVERTED).
    pub reason: Mqrc,
    /// What happened, for the caller and the log.
    pub detail: String,
}

/// Everything an exit call knows besides the data (MQ: MQCXP + MQCD).
#[derive(Debug)]
pub struct ExitContext<'a> {
    /// Where the exit is called.
    pub exit_point: ExitPoint,
    /// MQXR_INIT, MQXR_MSG / MQXR_XMIT, or MQXR_TERM.
    pub exit_reason: ExitReason,
    /// The channel name (channel points) or queue name (queue points).
    pub object_name: &'a str,
    /// The gateway's queue manager name.
    pub q_mgr_name: &'a str,
    /// The exit user data string from the configuration (MQ: EXITDATA),
    /// empty when none was configured.
    pub exit_data: &'a str,
    /// The user area kept for this exit instance between calls.
    pub exit_user_area: &'a mut ExitUserArea,
    /// Send exits only (MQ: MQCXP ExitSpace): bytes of every transmission
    /// buffer reserved for this exit to add data. 0 on input to MQXR_INIT,
    /// where the exit may set it; on later calls the value MQXR_INIT
    /// returned, and what the exit writes then is ignored. The reserved room
    /// follows the data; the sender channel keeps that much of the agreed
    /// message length free for it (docs/exits.md "Exit space"). Always 0 and
    /// ignored at the other points.
    pub exit_space: u32,
    /// The warning the call completes with so far: at after_get the get's own
    /// (e.g. a conversion warning of MQGMO_CONVERT), `None` when it completed
    /// with MQCC_OK, and whatever exits before this one in the chain left.
    /// An exit that answers [`ExitResponse::Ok`] may set or clear it; the
    /// last value is the call's (at after_get it reaches the consumer: the
    /// HTTP answer's `comp_code`, `reason_code` and `warning`, docs/http-api.md).
    /// When the exit answers anything else, what it left here is discarded.
    /// MQXR_INIT / MQXR_TERM: always `None`, ignored.
    pub warning: Option<ExitWarning>,
}

/// The data of one call; what the exit leaves here is what the gateway continues with.
#[derive(Debug)]
pub enum Payload<'a> {
    /// MQXR_INIT and MQXR_TERM carry no data.
    None,
    /// Receive, send and message exits: the transmission message
    /// (MQXQH at offset 0, then the data it describes).
    Buffer(&'a mut BytesMut),
    /// Before put: the message descriptor, the charset its character fields
    /// are in, the data and the put options.
    Put {
        md: &'a mut Mqmd,
        charset: Charset,
        data: &'a mut BytesMut,
        pmo: &'a mut PutOptions,
    },
    /// Before get: the get options.
    Get { gmo: &'a mut GetOptions },
    /// After get: the message descriptor, the charset of its character
    /// fields, and the data.
    Got {
        md: &'a mut Mqmd,
        charset: Charset,
        data: &'a mut BytesMut,
    },
}

impl Payload<'_> {
    /// The same payload, borrowed again for one exit call.
    pub fn reborrow(&mut self) -> Payload<'_> {
        match self {
            Payload::None => Payload::None,
            Payload::Buffer(b) => Payload::Buffer(b),
            Payload::Put {
                md,
                charset,
                data,
                pmo,
            } => Payload::Put {
                md,
                charset: *charset,
                data,
                pmo,
            },
            Payload::Get { gmo } => Payload::Get { gmo },
            Payload::Got { md, charset, data } => Payload::Got {
                md,
                charset: *charset,
                data,
            },
        }
    }

    /// Short name of the variant, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Payload::None => "none",
            Payload::Buffer(_) => "buffer",
            Payload::Put { .. } => "put",
            Payload::Get { .. } => "get",
            Payload::Got { .. } => "got",
        }
    }

    /// True when this payload is the one `point` carries on a data call.
    pub fn fits(&self, point: ExitPoint) -> bool {
        matches!(
            (self, point),
            (
                Payload::Buffer(_),
                ExitPoint::Receive | ExitPoint::Send | ExitPoint::Message
            ) | (Payload::Put { .. }, ExitPoint::BeforePut)
                | (Payload::Get { .. }, ExitPoint::BeforeGet)
                | (Payload::Got { .. }, ExitPoint::AfterGet)
        )
    }
}

/// An in-process exit.
///
/// mqgate calls it once with [`ExitReason::Init`] and [`Payload::None`], then
/// once per message, then once with [`ExitReason::Term`]. A panic is caught and
/// treated as an exit failure (see [`crate::chain`]); the exit is then not called
/// again until its chain is rebuilt.
///
/// ```
/// use bytes::BytesMut;
/// use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
/// use mqgate_exits::{
///     ChainEntry, Exit, ExitChain, ExitContext, ExitPoint, ExitReason, ExitResponse, Payload,
///     PutOptions, Verdict,
/// };
///
/// /// Dead-letters messages longer than the limit with 2030 MQRC_MSG_TOO_BIG_FOR_Q.
/// struct MaxSize(usize);
///
/// impl Exit for MaxSize {
///     fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
///         if ctx.exit_reason == ExitReason::Init {
///             return ExitResponse::Ok;
///         }
///         match payload {
///             Payload::Put { data, .. } if data.len() > self.0 => {
///                 ExitResponse::SuppressFunction(Mqrc::MSG_TOO_BIG_FOR_Q)
///             }
///             _ => ExitResponse::Ok,
///         }
///     }
/// }
///
/// let entry = ChainEntry::new("max-size", "", Box::new(MaxSize(4)));
/// let mut chain = ExitChain::start(ExitPoint::BeforePut, "APP.IN", "GW", vec![entry]).unwrap();
/// let (mut md, mut pmo) = (Mqmd::default(), PutOptions::default());
/// let mut data = BytesMut::from(&b"too long"[..]);
/// let verdict = chain.run_before_put(&mut md, Charset::Ascii, &mut data, &mut pmo);
/// assert!(matches!(verdict, Verdict::Suppress { reason: Mqrc(2030), .. }));
/// ```
pub trait Exit: Send + 'static {
    /// Handles one call. The response decides what happens to the message.
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse;

    /// True when the exit either completes its change or leaves the data
    /// untouched, also when it answers SuppressFunction (it checks everything
    /// before it writes and cannot panic halfway). The chain then skips the
    /// copy it otherwise takes to undo a failed exit's change.
    fn edits_atomically(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_ids_and_reasons_are_mqs() {
        // IBM MQ "Constants" "Channel exits": MQXT CHANNEL_RCV 14, CHANNEL_SEND 13,
        // CHANNEL_MSG 12, API 2; MQXR INIT 11, TERM 12, MSG 13, XMIT 14.
        assert_eq!(ExitPoint::Receive.exit_id(), 14);
        assert_eq!(ExitPoint::Send.exit_id(), 13);
        assert_eq!(ExitPoint::Message.exit_id(), 12);
        assert_eq!(ExitPoint::BeforePut.exit_id(), 2);
        assert_eq!(ExitReason::Init.value(), 11);
        assert_eq!(ExitReason::Term.value(), 12);
        assert_eq!(ExitPoint::Message.data_reason().value(), 13);
        assert_eq!(ExitPoint::Receive.data_reason().value(), 14);
        // MQXCC OK 0, SUPPRESS_FUNCTION -1, CLOSE_CHANNEL -6, FAILED -8.
        assert_eq!(ExitResponse::Ok.xcc(), 0);
        assert_eq!(ExitResponse::SuppressFunction(Mqrc(2085)).xcc(), -1);
        assert_eq!(ExitResponse::CloseChannel.xcc(), -6);
        assert_eq!(ExitResponse::Failed.xcc(), -8);
    }

    #[test]
    fn payload_fits_only_its_point() {
        let mut b = BytesMut::new();
        assert!(Payload::Buffer(&mut b).fits(ExitPoint::Receive));
        assert!(!Payload::Buffer(&mut b).fits(ExitPoint::BeforePut));
        let mut gmo = GetOptions::default();
        assert!(Payload::Get { gmo: &mut gmo }.fits(ExitPoint::BeforeGet));
        assert!(!Payload::None.fits(ExitPoint::BeforeGet));
    }
}
