//! PAMS return codes and SBS status values.
//!
//! [`PamsStatus`] is the `int32` every `pams_*` call returns, with the names
//! and numbers of BEA MessageQ `p_return.h` (V4.0-09): odd positive values are
//! success or information, even negative values failures. (OpenVMS returns
//! condition values instead; mqgate speaks the UNIX/Windows numbers.)
//!
//! [`SbsStatus`] is the `status` field of SBS_REGISTER_RESP,
//! SBS_DEREGISTER_RESP and SBS_STATUS_RESP, with the PSYM_SBS_* values of
//! `p_symbol.h` 5.0.
//!
//! Both are open sets: an unknown value survives a round trip.

use std::fmt;

/// A PAMS return code (`PAMS__*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PamsStatus(pub i32);

/// Whether a PAMS return code reports success or failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Odd positive: success or information (e.g. PAMS__SUCCESS 1, PAMS__NOMOREMSG 7).
    Success,
    /// Even negative: failure (e.g. PAMS__TIMEOUT -14).
    Failure,
    /// Neither (0, even positive, odd negative): not a `p_return.h` pattern.
    Unknown,
}

macro_rules! pams_codes {
    ($($name:ident = $value:expr),* $(,)?) => {
        impl PamsStatus {
            $(#[doc = concat!("`PAMS__", stringify!($name), "` (", stringify!($value), "), `p_return.h`.")]
            pub const $name: PamsStatus = PamsStatus($value);)*

            /// Every named code, in table order.
            pub const ALL: &'static [PamsStatus] = &[$(PamsStatus::$name),*];

            /// The name without the `PAMS__` prefix, if the code is known here.
            pub fn short_name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// The code for a name, with or without the `PAMS__` prefix (exact case).
            pub fn from_name(name: &str) -> Option<PamsStatus> {
                match name.strip_prefix("PAMS__").unwrap_or(name) {
                    $(stringify!($name) => Some(PamsStatus::$name),)*
                    _ => None,
                }
            }
        }
    };
}

pams_codes! {
    SUCCESS = 1,
    LINK_UP = 3,
    JOURNAL_ON = 5,
    NOMOREMSG = 7,
    DISC_SUCCESS = 11,
    DISCL_SUCCESS = 13,
    DLJ_SUCCESS = 15,
    DLQ_SUCCESS = 17,
    RTS_SUCCESS = 19,
    SAF_SUCCESS = 21,
    RECOVERMODE = 23,
    NO_UMA = 25,
    UMA_NA = 27,
    TRACEBACK = 29,
    STORED = 31,
    ENQUEUED = 33,
    UNATTACHEDQ = 35,
    CONFIRMREQ = 37,
    PROPAGATE = 39,
    DETACHED = 41,
    SAF_FORCED = 43,
    TRUNCATED = 45,
    TIMEOUT = -14,
    MSGTOBIG = -22,
    NOTACTIVE = -54,
    BADPROCNUM = -62,
    NOTDCL = -70,
    NOLINK = -76,
    DECLARED = -106,
    DCLTMPFAIL = -136,
    EXCEEDQUOTA = -56,
    BADPRIORITY = -58,
    BADDELIVERY = -60,
    AREATOSMALL = -124,
    PAMSDOWN = -138,
    NOOBJECT = -166,
    BUFFEROVF = -174,
    BADSELIDX = -182,
    BADPARAM = -186,
    LINK_DOWN = -206,
    RESRCFAIL = -246,
    BADUMA = -222,
    BADRESPQ = -224,
    NOTSUPPORTED = -268,
    NETLINKLOST = -280,
    BADINITFILE = -282,
    FAILED = -320,
}

/// `PAMS_LAST_FAIL` (-382, `p_return.h`): the lowest failure code of the table.
pub const PAMS_LAST_FAIL: i32 = -382;

impl PamsStatus {
    /// The full name, e.g. `PAMS__EXCEEDQUOTA`; `PAMS__<n>` when unknown.
    pub fn name(self) -> String {
        match self.short_name() {
            Some(n) => format!("PAMS__{n}"),
            None => format!("PAMS__{}", self.0),
        }
    }

    /// Success for odd positive codes, failure for even negative ones
    /// (the pattern of `p_return.h`).
    pub fn severity(self) -> Severity {
        match (self.0 > 0, self.0 % 2 != 0) {
            (true, true) => Severity::Success,
            (false, false) if self.0 < 0 => Severity::Failure,
            _ => Severity::Unknown,
        }
    }

    /// True for odd positive codes.
    pub fn is_success(self) -> bool {
        self.severity() == Severity::Success
    }
}

impl fmt::Display for PamsStatus {
    /// `-56 PAMS__EXCEEDQUOTA`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.name())
    }
}

/// An SBS status value (`status` of the SBS response messages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SbsStatus(pub i32);

impl SbsStatus {
    /// PSYM_SBS_SUCCESS (1, `p_symbol.h` 5.0).
    pub const SUCCESS: SbsStatus = SbsStatus(1);
    /// PSYM_SBS_BADPARAM (20): a request mqgate cannot read or accept.
    pub const BADPARAM: SbsStatus = SbsStatus(20);
    /// PSYM_SBS_RESRCFAIL (292): the server lacks a resource (e.g. table space).
    pub const RESRCFAIL: SbsStatus = SbsStatus(292);
    /// PSYM_SBS_NOMATCH (1012): a deregistration matched no registration.
    pub const NOMATCH: SbsStatus = SbsStatus(1012);

    /// Every named value, in `p_symbol.h` order.
    pub const ALL: &'static [SbsStatus] = &[
        SbsStatus::SUCCESS,
        SbsStatus::BADPARAM,
        SbsStatus::RESRCFAIL,
        SbsStatus::NOMATCH,
    ];

    /// The symbol, e.g. `PSYM_SBS_BADPARAM`, if the value is known.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "PSYM_SBS_SUCCESS",
            20 => "PSYM_SBS_BADPARAM",
            292 => "PSYM_SBS_RESRCFAIL",
            1012 => "PSYM_SBS_NOMATCH",
            _ => return None,
        })
    }
}

impl fmt::Display for SbsStatus {
    /// `20 PSYM_SBS_BADPARAM`, or the bare number when unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} {n}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// PSEL_SBS_MAX_SEL_RULES (256, `p_symbol.h` 5.0): the rule array size of
/// SBS_REGISTER_REQ (`MAX_SEL_RULES` in `p_msg.h`).
pub const PSEL_SBS_MAX_SEL_RULES: usize = 256;
/// PSEL_SBSE_MAX_RULES (10, `p_symbol.h` 5.0). Its meaning is not documented;
/// mqgate does not use it.
pub const PSEL_SBSE_MAX_RULES: i32 = 10;
/// PSYM_SBS_RAIL_A (0, `p_symbol.h` 5.0): the first Ethernet rail of a dual-rail MOT.
pub const PSYM_SBS_RAIL_A: i32 = 0;
/// PSYM_SBS_RAIL_B (1, `p_symbol.h` 5.0): the second Ethernet rail.
pub const PSYM_SBS_RAIL_B: i32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_severity() {
        assert_eq!(PamsStatus(-56).to_string(), "-56 PAMS__EXCEEDQUOTA");
        assert_eq!(PamsStatus(1).name(), "PAMS__SUCCESS");
        assert_eq!(PamsStatus(-9999).name(), "PAMS__-9999");
        assert_eq!(
            PamsStatus::from_name("PAMS__BADPARAM"),
            Some(PamsStatus(-186))
        );
        assert_eq!(PamsStatus::from_name("TIMEOUT"), Some(PamsStatus(-14)));
        assert_eq!(PamsStatus::from_name("pams__timeout"), None);
        assert_eq!(PamsStatus::NOMOREMSG.severity(), Severity::Success);
        assert_eq!(PamsStatus::TIMEOUT.severity(), Severity::Failure);
        assert_eq!(PamsStatus(0).severity(), Severity::Unknown);
        assert_eq!(PamsStatus(2).severity(), Severity::Unknown);
        assert_eq!(PamsStatus(-3).severity(), Severity::Unknown);
        // Every named code follows the odd-success / even-failure pattern of p_return.h.
        for s in PamsStatus::ALL {
            assert_ne!(s.severity(), Severity::Unknown, "{s}");
            assert!(s.0 >= PAMS_LAST_FAIL);
        }
    }

    #[test]
    fn sbs_status_names() {
        assert_eq!(SbsStatus::BADPARAM.to_string(), "20 PSYM_SBS_BADPARAM");
        assert_eq!(SbsStatus(7).to_string(), "7");
        assert_eq!(SbsStatus(1012).name(), Some("PSYM_SBS_NOMATCH"));
    }
}
