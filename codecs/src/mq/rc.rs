//! MQRC reason codes and MQCC completion codes (IBM MQ "API reason codes", "API
//! completion and reason codes").

use std::fmt;

/// An MQ reason code (MQRC_*), an open set: unknown values survive a round trip.
///
/// Values are IBM's (pymqi `CMQC.py`, mq-golang `cmqc_linux_amd64.go`). An MQDLH
/// Reason may also hold an MQFB feedback value, so any `i32` is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mqrc(pub i32);

macro_rules! reasons {
    ($($name:ident = $value:expr),* $(,)?) => {
        impl Mqrc {
            $(#[doc = concat!("MQRC_", stringify!($name), " (", stringify!($value), ").")]
            pub const $name: Mqrc = Mqrc($value);)*

            /// The symbolic name without the `MQRC_` prefix, if this code is known here.
            pub fn short_name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

reasons! {
    NONE = 0,
    ALIAS_BASE_Q_TYPE_ERROR = 2001,
    ALREADY_CONNECTED = 2002,
    BACKED_OUT = 2003,
    BUFFER_ERROR = 2004,
    BUFFER_LENGTH_ERROR = 2005,
    CHAR_ATTR_LENGTH_ERROR = 2006,
    CHAR_ATTRS_TOO_SHORT = 2008,
    CONNECTION_BROKEN = 2009,
    DATA_LENGTH_ERROR = 2010,
    EXPIRY_ERROR = 2013,
    GET_INHIBITED = 2016,
    HANDLE_NOT_AVAILABLE = 2017,
    HCONN_ERROR = 2018,
    HOBJ_ERROR = 2019,
    INT_ATTR_COUNT_ERROR = 2021,
    INT_ATTR_COUNT_TOO_SMALL = 2022,
    SYNCPOINT_LIMIT_REACHED = 2024,
    MAX_CONNS_LIMIT_REACHED = 2025,
    MD_ERROR = 2026,
    MISSING_REPLY_TO_Q = 2027,
    MSG_TYPE_ERROR = 2029,
    MSG_TOO_BIG_FOR_Q = 2030,
    MSG_TOO_BIG_FOR_Q_MGR = 2031,
    NO_MSG_AVAILABLE = 2033,
    NOT_AUTHORIZED = 2035,
    NOT_OPEN_FOR_BROWSE = 2036,
    NOT_OPEN_FOR_INPUT = 2037,
    NOT_OPEN_FOR_INQUIRE = 2038,
    NOT_OPEN_FOR_OUTPUT = 2039,
    OBJECT_TYPE_ERROR = 2043,
    OD_ERROR = 2044,
    OPTION_NOT_VALID_FOR_TYPE = 2045,
    OPTIONS_ERROR = 2046,
    PERSISTENCE_ERROR = 2047,
    PERSISTENT_NOT_ALLOWED = 2048,
    PRIORITY_EXCEEDS_MAXIMUM = 2049,
    PRIORITY_ERROR = 2050,
    PUT_INHIBITED = 2051,
    Q_DELETED = 2052,
    Q_FULL = 2053,
    Q_NOT_EMPTY = 2055,
    Q_SPACE_NOT_AVAILABLE = 2056,
    Q_TYPE_ERROR = 2057,
    Q_MGR_NAME_ERROR = 2058,
    Q_MGR_NOT_AVAILABLE = 2059,
    REPORT_OPTIONS_ERROR = 2061,
    SECURITY_ERROR = 2063,
    SELECTOR_COUNT_ERROR = 2065,
    SELECTOR_ERROR = 2067,
    SELECTOR_NOT_FOR_TYPE = 2068,
    STORAGE_NOT_AVAILABLE = 2071,
    TRUNCATED_MSG_ACCEPTED = 2079,
    TRUNCATED_MSG_FAILED = 2080,
    UNKNOWN_ALIAS_BASE_Q = 2082,
    UNKNOWN_OBJECT_NAME = 2085,
    UNKNOWN_REMOTE_Q_MGR = 2087,
    WAIT_INTERVAL_ERROR = 2090,
    XMIT_Q_TYPE_ERROR = 2091,
    XMIT_Q_USAGE_ERROR = 2092,
    OBJECT_ALREADY_EXISTS = 2100,
    OBJECT_DAMAGED = 2101,
    RESOURCE_PROBLEM = 2102,
    FORMAT_ERROR = 2110,
    SOURCE_CCSID_ERROR = 2111,
    SOURCE_INTEGER_ENC_ERROR = 2112,
    SOURCE_DECIMAL_ENC_ERROR = 2113,
    SOURCE_FLOAT_ENC_ERROR = 2114,
    TARGET_CCSID_ERROR = 2115,
    TARGET_INTEGER_ENC_ERROR = 2116,
    TARGET_DECIMAL_ENC_ERROR = 2117,
    TARGET_FLOAT_ENC_ERROR = 2118,
    NOT_CONVERTED = 2119,
    CONVERTED_MSG_TOO_BIG = 2120,
    HEADER_ERROR = 2142,
    OBJECT_NAME_ERROR = 2152,
    RECS_PRESENT_ERROR = 2154,
    Q_MGR_QUIESCING = 2161,
    Q_MGR_STOPPING = 2162,
    PMO_ERROR = 2173,
    GMO_ERROR = 2186,
    CLUSTER_RESOLUTION_ERROR = 2189,
    CONVERTED_STRING_TOO_BIG = 2190,
    NAME_NOT_VALID_FOR_TYPE = 2194,
    UNEXPECTED_ERROR = 2195,
    UNKNOWN_XMIT_Q = 2196,
    DEF_XMIT_Q_TYPE_ERROR = 2198,
    DEF_XMIT_Q_USAGE_ERROR = 2199,
    CONNECTION_QUIESCING = 2202,
    MSG_ID_ERROR = 2206,
    CORREL_ID_ERROR = 2207,
    FILE_SYSTEM_ERROR = 2208,
    MSG_TOO_BIG_FOR_CHANNEL = 2218,
    RFH_HEADER_FIELD_ERROR = 2228,
    FUNCTION_NOT_SUPPORTED = 2298,
    CLUSTER_EXIT_ERROR = 2266,
    CHANNEL_STOPPED_BY_USER = 2279,
    RFH_ERROR = 2334,
    RFH_STRING_ERROR = 2335,
    RFH_COMMAND_ERROR = 2336,
    RFH_PARM_ERROR = 2337,
    RFH_DUPLICATE_PARM = 2338,
    RFH_PARM_MISSING = 2339,
    API_EXIT_ERROR = 2374,
    COMMAND_MQSC = 2412,
    RFH_FORMAT_ERROR = 2421,
    PROPERTY_NAME_ERROR = 2442,
    CHANNEL_NOT_AVAILABLE = 2537,
    CHANNEL_CONFIG_ERROR = 2539,
    UNKNOWN_CHANNEL_NAME = 2540,
    HOST_NOT_AVAILABLE = 2538,
}

impl Mqrc {
    /// The full symbolic name, e.g. `MQRC_UNKNOWN_OBJECT_NAME`; `MQRC_<n>` when unknown.
    pub fn name(self) -> String {
        match self.short_name() {
            Some(n) => format!("MQRC_{n}"),
            None => format!("MQRC_{}", self.0),
        }
    }

    /// The completion code that goes with this reason (MQCC_OK 0 for NONE,
    /// MQCC_WARNING 1 for the conversion warnings MQ returns with data, 2002
    /// MQRC_ALREADY_CONNECTED and 2049 MQRC_PRIORITY_EXCEEDS_MAXIMUM (the
    /// message is put), else MQCC_FAILED 2; IBM MQ "API
    /// reason codes", each reason's "Completion code").
    pub fn completion_code(self) -> i32 {
        match self {
            Mqrc::NONE => 0,
            Mqrc::ALREADY_CONNECTED
            | Mqrc::PRIORITY_EXCEEDS_MAXIMUM
            | Mqrc::TRUNCATED_MSG_ACCEPTED
            | Mqrc::FORMAT_ERROR
            | Mqrc::NOT_CONVERTED
            | Mqrc::SOURCE_CCSID_ERROR
            | Mqrc::TARGET_CCSID_ERROR
            | Mqrc::SOURCE_INTEGER_ENC_ERROR
            | Mqrc::SOURCE_DECIMAL_ENC_ERROR
            | Mqrc::SOURCE_FLOAT_ENC_ERROR
            | Mqrc::TARGET_INTEGER_ENC_ERROR
            | Mqrc::TARGET_DECIMAL_ENC_ERROR
            | Mqrc::TARGET_FLOAT_ENC_ERROR
            | Mqrc::CONVERTED_MSG_TOO_BIG
            | Mqrc::CONVERTED_STRING_TOO_BIG => 1,
            _ => 2,
        }
    }
}

impl fmt::Display for Mqrc {
    /// `2085 MQRC_UNKNOWN_OBJECT_NAME`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_from_the_constants_sheet() {
        // Names and values of IBM MQ "API reason codes".
        assert_eq!(Mqrc::UNKNOWN_OBJECT_NAME.0, 2085);
        assert_eq!(Mqrc(2087).name(), "MQRC_UNKNOWN_REMOTE_Q_MGR");
        assert_eq!(Mqrc(2335).to_string(), "2335 MQRC_RFH_STRING_ERROR");
        assert_eq!(Mqrc(123456).name(), "MQRC_123456");
        // Channel reasons (IBM MQ cmqc.h values, as in mq-golang).
        assert_eq!(Mqrc(2540).name(), "MQRC_UNKNOWN_CHANNEL_NAME");
        assert_eq!(Mqrc(2279).name(), "MQRC_CHANNEL_STOPPED_BY_USER");
        assert_eq!(Mqrc(2218).name(), "MQRC_MSG_TOO_BIG_FOR_CHANNEL");
        assert_eq!(Mqrc::FORMAT_ERROR.completion_code(), 1);
        assert_eq!(Mqrc::Q_FULL.completion_code(), 2);
    }
}
