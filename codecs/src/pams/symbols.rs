//! PAMS symbols outside SBS proper: the two header generations, the
//! selective-receive symbols whose values differ between them, delivery modes,
//! undeliverable-message actions and message size limits.
//!
//! Values: BEA MessageQ `p_symbol.h` 5.0 (the "Bea50" generation) and
//! DECmessageQ V1.0 `p_symbol.h` (the "DmqV10" generation, also used by the
//! DmQ language bindings). Where the two differ, each constant says so; the
//! SBS operators are in [`crate::pams::rules`].

use std::fmt;

/// The header generation a numeric PAMS symbol comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderGeneration {
    /// DECmessageQ V1.0 `p_symbol.h` (and the DmQ bindings): PSEL_OPER_EQ 1 …
    DmqV10,
    /// BEA MessageQ 5.0 `p_symbol.h`: PSEL_OPER_EQ -1 …, PSEL_OPER_AND 7.
    Bea50,
}

impl fmt::Display for HeaderGeneration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeaderGeneration::DmqV10 => "the DECmessageQ V1.0 headers",
            HeaderGeneration::Bea50 => "the BEA MessageQ 5.0 headers",
        })
    }
}

/// A symbol whose value depends on the header generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenerationSymbol {
    /// The symbol, e.g. `PSEL_PRI_P0`.
    pub name: &'static str,
    /// Value in DECmessageQ V1.0.
    pub dmq_v10: i32,
    /// Value in BEA MessageQ 5.0.
    pub bea50: i32,
}

impl GenerationSymbol {
    /// The value in `generation`.
    pub fn value(&self, generation: HeaderGeneration) -> i32 {
        match generation {
            HeaderGeneration::DmqV10 => self.dmq_v10,
            HeaderGeneration::Bea50 => self.bea50,
        }
    }
}

const fn sym(name: &'static str, dmq_v10: i32, bea50: i32) -> GenerationSymbol {
    GenerationSymbol {
        name,
        dmq_v10,
        bea50,
    }
}

/// Priority selectors of selective receive: PSEL_PRI_P0 / P1 / ANY
/// (DmQ V1.0 1 / 2 / 3; BEA 5.0 -6 / -7 / -8).
pub const PSEL_PRI: [GenerationSymbol; 3] = [
    sym("PSEL_PRI_P0", 1, -6),
    sym("PSEL_PRI_P1", 2, -7),
    sym("PSEL_PRI_ANY", 3, -8),
];

/// Selection order: PSEL_ORDER_FIFO / MIN / MAX (DmQ V1.0 0 / 11 / 12; BEA 5.0 0 / -1 / -2).
pub const PSEL_ORDER: [GenerationSymbol; 3] = [
    sym("PSEL_ORDER_FIFO", 0, 0),
    sym("PSEL_ORDER_MIN", 11, -1),
    sym("PSEL_ORDER_MAX", 12, -2),
];

/// Select-by-queue symbols: the same in both generations except PSEL_PQ_PRI
/// (DmQ V1.0 -8, BEA 5.0 -12).
pub const PSEL_BY_QUEUE: [GenerationSymbol; 11] = [
    sym("PSEL_BY_MASK", -1, -1),
    sym("PSEL_PQ", -2, -2),
    sym("PSEL_AQ", -3, -3),
    sym("PSEL_PQ_AQ", -4, -4),
    sym("PSEL_AQ_PQ", -5, -5),
    sym("PSEL_PQ_TYPE", -6, -6),
    sym("PSEL_PQ_CLASS", -7, -7),
    sym("PSEL_PQ_PRI", -8, -12),
    sym("PSEL_UCB", -9, -9),
    sym("PSEL_TQ_PQ", -10, -10),
    sym("PSEL_TQ_PQ_AQ", -11, -11),
];

/// Delivery modes `PDEL_MODE_*` (`p_symbol.h` 5.0), name and value.
pub const PDEL_MODES: [(&str, i32); 21] = [
    ("PDEL_MODE_WF_SAF", 25),
    ("PDEL_MODE_WF_DQF", 26),
    ("PDEL_MODE_WF_NET", 27),
    ("PDEL_MODE_WF_RCM", 28),
    ("PDEL_MODE_WF_MEM", 29),
    ("PDEL_MODE_AK_SAF", 30),
    ("PDEL_MODE_AK_DQF", 31),
    ("PDEL_MODE_AK_NET", 32),
    ("PDEL_MODE_AK_RCM", 33),
    ("PDEL_MODE_AK_MEM", 34),
    ("PDEL_MODE_NN_SAF", 35),
    ("PDEL_MODE_NN_DQF", 36),
    ("PDEL_MODE_NN_NET", 37),
    ("PDEL_MODE_NN_RCM", 38),
    ("PDEL_MODE_NN_MEM", 39),
    ("PDEL_MODE_WF_DEQ", 40),
    ("PDEL_MODE_AK_DEQ", 41),
    ("PDEL_MODE_WF_CONF", 42),
    ("PDEL_MODE_AK_CONF", 43),
    ("PDEL_MODE_WF_ACK", 44),
    ("PDEL_MODE_AK_ACK", 45),
];

/// PDEL_MODE_NN_MEM (39): no notification, memory only — the mode the SBS
/// samples use for registrations.
pub const PDEL_MODE_NN_MEM: i32 = 39;

/// Undeliverable-message actions `PDEL_UMA_*` (`p_symbol.h` 5.0), name and value.
pub const PDEL_UMAS: [(&str, i32); 6] = [
    ("PDEL_UMA_RTS", 1),
    ("PDEL_UMA_DLJ", 2),
    ("PDEL_UMA_DLQ", 3),
    ("PDEL_UMA_SAF", 4),
    ("PDEL_UMA_DISC", 5),
    ("PDEL_UMA_DISCL", 6),
];

/// PDEL_UMA_DISC (5): discard — the action the SBS samples use.
pub const PDEL_UMA_DISC: i32 = 5;

/// The value of a `PDEL_MODE_*` or `PDEL_UMA_*` name.
pub fn delivery_symbol(name: &str) -> Option<i32> {
    PDEL_MODES
        .iter()
        .chain(PDEL_UMAS.iter())
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
}

/// Highest message priority of BEA MessageQ 5.0 `pams_put_msg` (0..=99); on
/// `pams_get_msg` priority 0 means "any".
pub const MAX_PRIORITY: u8 = 99;

/// Largest message body in a static buffer: 32767 bytes (a `short` size).
pub const MAX_STATIC_MSG_SIZE: usize = 32767;

/// PSYM_MSG_LARGE (-2): `msg_size` value saying the size is in `large_size`.
pub const PSYM_MSG_LARGE: i32 = -2;

/// The `pams_put_msg` timeout in tenths of a second; 0 means the default of
/// 30 seconds. Returns tenths of a second.
pub fn put_timeout_tenths(timeout: i32) -> i64 {
    if timeout == 0 {
        300
    } else {
        i64::from(timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_values() {
        assert_eq!(PSEL_PRI[0].value(HeaderGeneration::DmqV10), 1);
        assert_eq!(PSEL_PRI[2].value(HeaderGeneration::Bea50), -8);
        assert_eq!(PSEL_BY_QUEUE[7].name, "PSEL_PQ_PRI");
        assert_eq!(PSEL_BY_QUEUE[7].value(HeaderGeneration::Bea50), -12);
        assert_eq!(delivery_symbol("PDEL_MODE_NN_MEM"), Some(PDEL_MODE_NN_MEM));
        assert_eq!(delivery_symbol("PDEL_UMA_DISC"), Some(PDEL_UMA_DISC));
        assert_eq!(delivery_symbol("PDEL_MODE_XX"), None);
        assert_eq!(put_timeout_tenths(0), 300);
        assert_eq!(put_timeout_tenths(100), 100);
    }
}
