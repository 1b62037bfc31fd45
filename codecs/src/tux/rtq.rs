//! The TOP END RTQ side as mqgate defines it (docs/tuxedo.md "RTQ codes mqgate defines"):
//! schedule times, RTQ return codes, request ids and the message size limit.
//!
//! No public TOP END API reference exists, so these are mqgate definitions;
//! numeric values of the TP_* codes are deliberately not assigned.

use std::fmt;
use std::str::FromStr;

/// Largest RTQ message in bytes, after FML32 index stripping (BEA Tuxedo "Using the BEA
/// Tuxedo TOP END Domain Gateway": "RTQ messages are limited to 30,000 bytes").
pub const RTQ_MAX_MESSAGE: usize = 30_000;

/// Largest TPQTIME_REL deq_time the TEDG accepts, in seconds (24 h; the TEDG guide's
/// error table).
pub const MAX_RELATIVE_SECONDS: i64 = 86_400;

/// Largest TPQTIME_ABS deq_time the TEDG accepts, in UNIX seconds:
/// 9999-12-31T23:59:59Z (mqgate's rule, docs/tuxedo.md: beyond the last
/// four-digit year no schedule is meaningful, and `due_at` arithmetic stays far
/// from i64 overflow). Negative times are refused as well.
pub const MAX_ABSOLUTE_SECONDS: i64 = 253_402_300_799;

/// When RTQ makes a request available (mqgate's definition, docs/tuxedo.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleTime {
    /// No time flag: available at once.
    Immediate,
    /// TPQTIME_ABS: UNIX time, seconds since the epoch; a past time means now.
    Absolute(i64),
    /// TPQTIME_REL: `R:HH:MM` after the put.
    Relative(RelativeTime),
}

impl ScheduleTime {
    /// The UNIX time (seconds) at which the request becomes available, for a
    /// put made at `put_time` (seconds since the epoch). Saturates instead of
    /// overflowing.
    pub fn due_at(&self, put_time: i64) -> i64 {
        match *self {
            ScheduleTime::Immediate => put_time,
            ScheduleTime::Absolute(t) => t.max(put_time),
            ScheduleTime::Relative(r) => put_time.saturating_add(r.seconds()),
        }
    }
}

impl fmt::Display for ScheduleTime {
    /// Text form: empty for immediate, decimal digits for absolute, `R:HH:MM`
    /// for relative (mqgate's definition, docs/tuxedo.md).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleTime::Immediate => Ok(()),
            ScheduleTime::Absolute(t) => write!(f, "{t}"),
            ScheduleTime::Relative(r) => write!(f, "{r}"),
        }
    }
}

/// An RTQ relative schedule time `R:HH:MM`: HH 00-24, MM 00-59, at most
/// `R:24:00` (the TEDG guide names `R:HH:MM`; bounds are mqgate's,
/// docs/tuxedo.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelativeTime {
    minutes: u16,
}

/// Why a relative time was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelativeTimeError {
    /// TPQTIME_REL seconds outside 0..=86400.
    #[error(
        "relative deq_time {0} s is outside 0..=86400 (the TOP END Domain Gateway guide: TPEDIAGNOSTIC/QMEINVAL)"
    )]
    OutOfRange(i64),
    /// Text that is not `R:HH:MM` within `R:00:00`..=`R:24:00`.
    #[error("schedule time {0:?} is not R:HH:MM within R:00:00..=R:24:00")]
    Syntax(String),
}

impl RelativeTime {
    /// The longest relative time, `R:24:00`.
    pub const MAX: RelativeTime = RelativeTime { minutes: 24 * 60 };

    /// From TPQTIME_REL seconds: rejects values above 86400 (the TEDG guide's
    /// error table) and below 0; minutes = ceil(seconds / 60) so delivery is
    /// never earlier than asked (mqgate's rule, docs/tuxedo.md).
    pub fn from_seconds(seconds: i64) -> Result<Self, RelativeTimeError> {
        if !(0..=MAX_RELATIVE_SECONDS).contains(&seconds) {
            return Err(RelativeTimeError::OutOfRange(seconds));
        }
        // In range, so the cast cannot truncate: at most 1440.
        let minutes = (seconds as u64).div_ceil(60) as u16;
        Ok(RelativeTime { minutes })
    }

    /// From hours and minutes; `None` outside `R:00:00`..=`R:24:00` or MM > 59.
    pub fn from_hm(hours: u16, minutes: u16) -> Option<Self> {
        let total = hours.checked_mul(60)?.checked_add(minutes)?;
        (minutes < 60 && total <= Self::MAX.minutes).then_some(RelativeTime { minutes: total })
    }

    /// HH.
    pub fn hours(&self) -> u16 {
        self.minutes / 60
    }

    /// MM.
    pub fn minutes(&self) -> u16 {
        self.minutes % 60
    }

    /// Total length in seconds.
    pub fn seconds(&self) -> i64 {
        i64::from(self.minutes) * 60
    }
}

impl fmt::Display for RelativeTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "R:{:02}:{:02}", self.hours(), self.minutes())
    }
}

impl FromStr for RelativeTime {
    type Err = RelativeTimeError;

    /// Parses exactly `R:HH:MM` (two digits each).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || RelativeTimeError::Syntax(s.chars().take(32).collect());
        let b = s.as_bytes();
        if b.len() != 7 || &b[..2] != b"R:" || b[4] != b':' {
            return Err(err());
        }
        let two = |x: &[u8]| -> Option<u16> {
            (x[0].is_ascii_digit() && x[1].is_ascii_digit())
                .then(|| u16::from(x[0] - b'0') * 10 + u16::from(x[1] - b'0'))
        };
        let h = two(&b[2..4]).ok_or_else(err)?;
        let m = two(&b[5..7]).ok_or_else(err)?;
        RelativeTime::from_hm(h, m).ok_or_else(err)
    }
}

/// A failure status returned by the RTQ side of a put (names from the TEDG guide's error
/// table; docs/tuxedo.md "RTQ codes mqgate defines"; success is the `Ok` side of a
/// `Result`). Numeric values are not public and are not assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtqStatus {
    /// TP_RTQ_EOF: the queue file is full.
    RtqEof,
    /// TP_RTQ_NO_SPACE: no space for the request.
    RtqNoSpace,
    /// TP_RTQ_ERROR: RTQ internal error.
    RtqError,
    /// TP_RTQ_MEMERR: RTQ out of memory.
    RtqMemErr,
    /// TP_RTQ_QDISABLED: the queue is disabled.
    RtqQDisabled,
    /// TP_SERVICE: the RTQ server for the queue is unavailable.
    Service,
    /// TP_RESET: the connection to TOP END was reset.
    Reset,
}

impl RtqStatus {
    /// Every status, in the order of docs/tuxedo.md "RTQ codes mqgate defines".
    pub const ALL: [RtqStatus; 7] = [
        RtqStatus::RtqEof,
        RtqStatus::RtqNoSpace,
        RtqStatus::RtqError,
        RtqStatus::RtqMemErr,
        RtqStatus::RtqQDisabled,
        RtqStatus::Service,
        RtqStatus::Reset,
    ];

    /// The TOP END symbolic name, e.g. `TP_RTQ_EOF`.
    pub fn name(self) -> &'static str {
        match self {
            RtqStatus::RtqEof => "TP_RTQ_EOF",
            RtqStatus::RtqNoSpace => "TP_RTQ_NO_SPACE",
            RtqStatus::RtqError => "TP_RTQ_ERROR",
            RtqStatus::RtqMemErr => "TP_RTQ_MEMERR",
            RtqStatus::RtqQDisabled => "TP_RTQ_QDISABLED",
            RtqStatus::Service => "TP_SERVICE",
            RtqStatus::Reset => "TP_RESET",
        }
    }

    /// The status for a symbolic name.
    pub fn from_name(name: &str) -> Option<RtqStatus> {
        RtqStatus::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for RtqStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An RTQ request id: 16 opaque bytes (a UUID), unique per gateway across
/// restarts; carried in TPQCTL msgid bytes 0-15 with bytes 16-31 zero; text
/// form 32 lower-case hex digits (mqgate's definition, docs/tuxedo.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub [u8; 16]);

impl RequestId {
    /// The 32-byte TPQCTL msgid: the id, then 16 zero bytes.
    pub fn to_msgid(&self) -> [u8; 32] {
        let mut m = [0; 32];
        m[..16].copy_from_slice(&self.0);
        m
    }

    /// The id from a TPQCTL msgid; `None` when bytes 16-31 are not zero.
    pub fn from_msgid(msgid: &[u8; 32]) -> Option<Self> {
        if msgid[16..].iter().any(|&b| b != 0) {
            return None;
        }
        let mut id = [0; 16];
        id.copy_from_slice(&msgid[..16]);
        Some(RequestId(id))
    }
}

impl fmt::Display for RequestId {
    /// 32 lower-case hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl FromStr for RequestId {
    type Err = hex::FromHexError;

    /// 32 hex digits (either case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut id = [0; 16];
        hex::decode_to_slice(s, &mut id)?;
        Ok(RequestId(id))
    }
}
