//! The TEDG tables of BEA Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway" as pure
//! functions: tpenqueue flags → RTQ put parameters ("BEA Tuxedo Client Flag Mapping") and
//! failure cause → tperrno/QME ("Error Values Returned to a BEA Tuxedo Client"); the RTQ
//! side is mqgate's (docs/tuxedo.md).

use std::fmt;

use super::codes::{Qme, TpError, Tperrno};
use super::rtq::{MAX_ABSOLUTE_SECONDS, RelativeTime, RtqStatus, ScheduleTime};
use super::tpqctl::{NamedFlags, TpFlags, TpqFlags};

/// The TPQ* flags the TEDG maps (the TEDG guide's flag mapping table):
/// TPQTIME_ABS, TPQTIME_REL, TPQMSGID. Every other bit is unsupported.
pub const SUPPORTED_TPQ_FLAGS: TpqFlags = TpqFlags(0x200 | 0x400 | 0x10);

/// A reason a tpenqueue through the TEDG fails: one per row of the TEDG guide's
/// error table, plus the call-flag check tpenqueue itself makes.
/// [`TedgFailure::tp_error`] gives the tperrno/diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TedgFailure {
    /// No QSPACE entry matches qspace → TPENOENT.
    #[error("no QSPACE entry for queue space {qspace:?}")]
    NoQspace {
        /// The qspace argument.
        qspace: String,
    },
    /// An on-demand connection failed → TPENOENT.
    #[error("on-demand connection to the RTQ side failed: {reason}")]
    OnDemandConnection {
        /// What failed.
        reason: String,
    },
    /// Encryption required and the input could not be decrypted → TPESYSTEM.
    #[error("client input could not be decrypted")]
    Decryption,
    /// Digital signature required and could not be removed → TPESYSTEM.
    #[error("digital signature could not be removed from the client input")]
    Signature,
    /// No QNAME entry matches qname → TPEDIAGNOSTIC/QMEBADQUEUE.
    #[error("no QNAME entry for queue name {qname:?}")]
    NoQname {
        /// The qname argument.
        qname: String,
    },
    /// An unsupported TPQ* flag (or QOS value) is set → TPEDIAGNOSTIC/QMEINVAL.
    #[error("unsupported TPQCTL flag(s) for the TEDG: {}", describe_unsupported(.names, *.unknown_bits))]
    UnsupportedFlags {
        /// Names of the unsupported flags / QOS values that were set.
        names: Vec<&'static str>,
        /// Set bits that have no TPQ* name.
        unknown_bits: i64,
    },
    /// TPQTIME_ABS and TPQTIME_REL together → TPEDIAGNOSTIC/QMEINVAL (mqgate:
    /// deq_time cannot be both; an invalid argument).
    #[error("TPQTIME_ABS and TPQTIME_REL are both set")]
    ConflictingTimeFlags,
    /// TPQTIME_REL with deq_time > 86400 (or negative) → TPEDIAGNOSTIC/QMEINVAL.
    #[error("TPQTIME_REL deq_time {deq_time} s is outside 0..=86400")]
    RelativeTimeOutOfRange {
        /// The deq_time given.
        deq_time: i64,
    },
    /// TPQTIME_ABS with deq_time outside 0..=[`MAX_ABSOLUTE_SECONDS`] (negative,
    /// or after 9999-12-31T23:59:59Z) → TPEDIAGNOSTIC/QMEINVAL (mqgate: an
    /// invalid argument, the same diagnostic the TEDG guide gives an
    /// out-of-range TPQTIME_REL; such a time can never be a real schedule).
    #[error(
        "TPQTIME_ABS deq_time {deq_time} is outside 0..={MAX_ABSOLUTE_SECONDS} (1970-01-01 to 9999-12-31T23:59:59Z, UNIX seconds)"
    )]
    AbsoluteTimeOutOfRange {
        /// The deq_time given.
        deq_time: i64,
    },
    /// Buffer type not FML32/CARRAY/X_OCTET, or not the QNAME's INBUFTYPE →
    /// TPEDIAGNOSTIC/QMEINVAL.
    #[error("buffer type {buftype:?} not accepted{}", inbuftype.as_ref().map(|t| format!(" (QNAME INBUFTYPE is {t:?})")).unwrap_or_else(|| " (FML32, CARRAY, X_OCTET only)".to_owned()))]
    BufferType {
        /// The buffer type given.
        buftype: String,
        /// The QNAME entry's INBUFTYPE, if it has one.
        inbuftype: Option<String>,
    },
    /// Buffer larger than 30,000 bytes after FML index stripping →
    /// TPEDIAGNOSTIC/QMEINVAL.
    #[error("buffer of {size} bytes exceeds the RTQ limit of 30000 bytes")]
    TooLarge {
        /// Size in bytes (FML32: index stripped).
        size: usize,
    },
    /// An FML32 buffer that does not decode → TPEDIAGNOSTIC/QMEINVAL (mqgate:
    /// an invalid argument; its size cannot be known without decoding).
    #[error("malformed FML32 buffer: {0}")]
    MalformedFml32(super::fml32::Fml32Error),
    /// The RTQ side returned a failure status; mapped per the error table.
    #[error("RTQ returned {0}")]
    Rtq(RtqStatus),
    /// Call flags other than TPNOTRAN, TPNOBLOCK, TPNOTIME, TPSIGRSTRT →
    /// TPEINVAL (tpenqueue(3c): invalid flags; that page lists the accepted
    /// ones). Checked before anything reaches the TEDG.
    #[error("tpenqueue flags {flags:#x} include {}, which tpenqueue does not accept (only TPNOTRAN, TPNOBLOCK, TPNOTIME, TPSIGRSTRT)", describe_call_flags(*.flags))]
    InvalidCallFlags {
        /// The whole flags argument.
        flags: i64,
    },
}

/// The names of the call-flag bits outside TPENQUEUE_ALLOWED.
fn describe_call_flags(flags: i64) -> String {
    let (names, unknown_bits) = TpFlags(flags & !TpFlags::TPENQUEUE_ALLOWED.0).names();
    describe_unsupported(&names, unknown_bits)
}

fn describe_unsupported(names: &[&str], unknown_bits: i64) -> String {
    let mut parts: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    if unknown_bits != 0 {
        parts.push(format!("unknown bits {unknown_bits:#x}"));
    }
    parts.join(", ")
}

impl TedgFailure {
    /// The tperrno and diagnostic the client receives: the TEDG guide's error table
    /// exactly.
    pub fn tp_error(&self) -> TpError {
        match self {
            TedgFailure::NoQspace { .. } | TedgFailure::OnDemandConnection { .. } => {
                TpError::tperrno(Tperrno::TPENOENT)
            }
            TedgFailure::Decryption | TedgFailure::Signature => {
                TpError::tperrno(Tperrno::TPESYSTEM)
            }
            TedgFailure::NoQname { .. } => TpError::diagnostic(Qme::QMEBADQUEUE),
            TedgFailure::UnsupportedFlags { .. }
            | TedgFailure::ConflictingTimeFlags
            | TedgFailure::RelativeTimeOutOfRange { .. }
            | TedgFailure::AbsoluteTimeOutOfRange { .. }
            | TedgFailure::BufferType { .. }
            | TedgFailure::TooLarge { .. }
            | TedgFailure::MalformedFml32(_) => TpError::diagnostic(Qme::QMEINVAL),
            TedgFailure::Rtq(status) => rtq_status_error(*status),
            TedgFailure::InvalidCallFlags { .. } => TpError::tperrno(Tperrno::TPEINVAL),
        }
    }
}

/// The tperrno/diagnostic for an RTQ failure status (the TEDG guide's error
/// table): TP_SERVICE → TPENOENT; TP_RTQ_EOF, TP_RTQ_NO_SPACE → QMENOSPACE;
/// TP_RTQ_ERROR, TP_RTQ_MEMERR, TP_RTQ_QDISABLED, TP_RESET → QMESYSTEM.
pub fn rtq_status_error(status: RtqStatus) -> TpError {
    match status {
        RtqStatus::Service => TpError::tperrno(Tperrno::TPENOENT),
        RtqStatus::RtqEof | RtqStatus::RtqNoSpace => TpError::diagnostic(Qme::QMENOSPACE),
        RtqStatus::RtqError | RtqStatus::RtqMemErr | RtqStatus::RtqQDisabled | RtqStatus::Reset => {
            TpError::diagnostic(Qme::QMESYSTEM)
        }
    }
}

/// What an accepted tpenqueue asks of the RTQ put (the TEDG guide's flag mapping).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtqPutParams {
    /// From TPQTIME_ABS / TPQTIME_REL, else immediate.
    pub schedule: ScheduleTime,
    /// True unless TPNOTRAN: the put joins the caller's transaction (if any).
    pub in_caller_transaction: bool,
    /// TPQMSGID: return the RTQ request_id in TPQCTL msgid on success.
    pub return_request_id: bool,
    /// TPNOBLOCK: do not wait for a blocking condition.
    pub no_block: bool,
    /// TPNOTIME: no blocking timeout.
    pub no_time: bool,
    /// TPSIGRSTRT: restart interrupted system calls.
    pub sig_restart: bool,
}

impl fmt::Display for RtqPutParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "schedule={:?} transactional={} msgid={}",
            self.schedule, self.in_caller_transaction, self.return_request_id
        )
    }
}

/// The TEDG guide's flag mapping table as a pure function (`R:HH:MM` and the time bounds:
/// docs/tuxedo.md):
///
/// - call flags beyond TPNOTRAN/TPNOBLOCK/TPNOTIME/TPSIGRSTRT → TPEINVAL;
/// - any TPQ* bit other than TPQTIME_ABS, TPQTIME_REL, TPQMSGID → QMEINVAL,
///   naming every offending flag;
/// - TPQTIME_ABS: deq_time passed as an absolute UNIX time; outside
///   0..=[`MAX_ABSOLUTE_SECONDS`] → QMEINVAL;
/// - TPQTIME_REL: deq_time seconds → `R:HH:MM` (minutes rounded up); above
///   86400 or negative → QMEINVAL; both time flags → QMEINVAL;
/// - TPNOTRAN: outside the caller's transaction; TPQMSGID: return request_id.
///
/// urcode is not supported and is simply not carried (the TEDG guide).
pub fn map_flags(
    ctl_flags: TpqFlags,
    deq_time: i64,
    call_flags: TpFlags,
) -> Result<RtqPutParams, TedgFailure> {
    if call_flags.0 & !TpFlags::TPENQUEUE_ALLOWED.0 != 0 {
        return Err(TedgFailure::InvalidCallFlags {
            flags: call_flags.0,
        });
    }
    let unsupported = TpqFlags(ctl_flags.0 & !SUPPORTED_TPQ_FLAGS.0);
    if unsupported.0 != 0 {
        let (names, unknown_bits) = unsupported.names();
        return Err(TedgFailure::UnsupportedFlags {
            names,
            unknown_bits,
        });
    }
    let abs = ctl_flags.contains(TpqFlags::TPQTIME_ABS);
    let rel = ctl_flags.contains(TpqFlags::TPQTIME_REL);
    let schedule = match (abs, rel) {
        (true, true) => return Err(TedgFailure::ConflictingTimeFlags),
        (true, false) if (0..=MAX_ABSOLUTE_SECONDS).contains(&deq_time) => {
            ScheduleTime::Absolute(deq_time)
        }
        (true, false) => return Err(TedgFailure::AbsoluteTimeOutOfRange { deq_time }),
        (false, true) => ScheduleTime::Relative(
            RelativeTime::from_seconds(deq_time)
                .map_err(|_| TedgFailure::RelativeTimeOutOfRange { deq_time })?,
        ),
        (false, false) => ScheduleTime::Immediate,
    };
    Ok(RtqPutParams {
        schedule,
        in_caller_transaction: !call_flags.contains(TpFlags::TPNOTRAN),
        return_request_id: ctl_flags.contains(TpqFlags::TPQMSGID),
        no_block: call_flags.contains(TpFlags::TPNOBLOCK),
        no_time: call_flags.contains(TpFlags::TPNOTIME),
        sig_restart: call_flags.contains(TpFlags::TPSIGRSTRT),
    })
}

/// [`map_flags`] for flags given by name (the JSON and CLI front ends): QOS
/// value names (TPQOSPERSISTENT...) are on the TEDG guide's unsupported list,
/// so any → QMEINVAL together with any unsupported TPQ* flags.
pub fn map_named_flags(named: &NamedFlags, deq_time: i64) -> Result<RtqPutParams, TedgFailure> {
    match map_flags(named.ctl, deq_time, named.call) {
        Err(TedgFailure::UnsupportedFlags {
            mut names,
            unknown_bits,
        }) => {
            names.extend(named.qos.iter().copied());
            Err(TedgFailure::UnsupportedFlags {
                names,
                unknown_bits,
            })
        }
        Ok(_) if !named.qos.is_empty() => Err(TedgFailure::UnsupportedFlags {
            names: named.qos.clone(),
            unknown_bits: 0,
        }),
        other => other,
    }
}
