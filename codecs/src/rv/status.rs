//! `tibrv_status` codes (TIBCO Rendezvous C Reference, "tibrv_status";
//! C++ Reference, "TibrvStatus"), an open set. Names and meanings are
//! TIBCO's; the numbers are those of the public header `tibrv/status.h`,
//! as arienchen/pytibrv `pytibrv/status.py`, the Perl module Tibco::Rv and
//! raitechnology/sassrv `include/sassrv/rv7api.h` agree. Only the codes mqgate
//! reports (and TIBRV_OK) are named here.

use std::fmt;

/// A `tibrv_status` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TibrvStatus(pub i32);

impl TibrvStatus {
    /// TIBRV_OK (0): no error.
    pub const OK: TibrvStatus = TibrvStatus(0);
    /// TIBRV_INVALID_ARG (3): an argument is invalid.
    pub const INVALID_ARG: TibrvStatus = TibrvStatus(3);
    /// TIBRV_INVALID_SUBJECT (20): a subject name with incorrect syntax.
    pub const INVALID_SUBJECT: TibrvStatus = TibrvStatus(20);
    /// TIBRV_DAEMON_NOT_CONNECTED (21): the daemon exited, or was never
    /// started (mqgate: the gateway is stopping).
    pub const DAEMON_NOT_CONNECTED: TibrvStatus = TibrvStatus(21);
    /// TIBRV_VERSION_MISMATCH (22): incompatible versions.
    pub const VERSION_MISMATCH: TibrvStatus = TibrvStatus(22);
    /// TIBRV_NOT_PERMITTED (27): the operation is not permitted.
    pub const NOT_PERMITTED: TibrvStatus = TibrvStatus(27);
    /// TIBRV_INVALID_NAME (30): an invalid field name.
    pub const INVALID_NAME: TibrvStatus = TibrvStatus(30);
    /// TIBRV_INVALID_TYPE (31): an invalid field type.
    pub const INVALID_TYPE: TibrvStatus = TibrvStatus(31);
    /// TIBRV_INVALID_SIZE (32): an invalid data size.
    pub const INVALID_SIZE: TibrvStatus = TibrvStatus(32);
    /// TIBRV_ID_IN_USE (36): a field identifier already present in the message.
    pub const ID_IN_USE: TibrvStatus = TibrvStatus(36);
    /// TIBRV_CONVERSION_FAILED (38): data that cannot be converted.
    pub const CONVERSION_FAILED: TibrvStatus = TibrvStatus(38);
    /// TIBRV_INVALID_MSG (42): an invalid message.
    pub const INVALID_MSG: TibrvStatus = TibrvStatus(42);
    /// TIBRV_INVALID_FIELD (43): an invalid field.
    pub const INVALID_FIELD: TibrvStatus = TibrvStatus(43);
    /// TIBRV_CORRUPT_MSG (45): the message data is corrupt.
    pub const CORRUPT_MSG: TibrvStatus = TibrvStatus(45);
    /// TIBRV_TIMEOUT (50): the time limit passed first (a request without
    /// a reply in time).
    pub const TIMEOUT: TibrvStatus = TibrvStatus(50);

    /// The C name (`TIBRV_CORRUPT_MSG`), if this is one of the named codes.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "TIBRV_OK",
            3 => "TIBRV_INVALID_ARG",
            20 => "TIBRV_INVALID_SUBJECT",
            21 => "TIBRV_DAEMON_NOT_CONNECTED",
            22 => "TIBRV_VERSION_MISMATCH",
            27 => "TIBRV_NOT_PERMITTED",
            30 => "TIBRV_INVALID_NAME",
            31 => "TIBRV_INVALID_TYPE",
            32 => "TIBRV_INVALID_SIZE",
            36 => "TIBRV_ID_IN_USE",
            38 => "TIBRV_CONVERSION_FAILED",
            42 => "TIBRV_INVALID_MSG",
            43 => "TIBRV_INVALID_FIELD",
            45 => "TIBRV_CORRUPT_MSG",
            50 => "TIBRV_TIMEOUT",
            _ => return None,
        })
    }
}

impl fmt::Display for TibrvStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} {n}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}
