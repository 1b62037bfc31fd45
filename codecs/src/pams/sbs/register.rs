//! SBS_REGISTER_REQ and SBS_REGISTER_RESP (BEA MessageQ `p_msg.h` V4.0-08;
//! Programmer's Guide, "Registering to Receive Selected Broadcast Messages").
//!
//! SBS_REGISTER_REQ is a 36-byte head of nine `int32` fields followed by the
//! rule array, 16 bytes per rule:
//!
//! | off | field | meaning |
//! |---:|---|---|
//! | 0 | version | the samples send 40 |
//! | 4 | user_tag | echoed in the response |
//! | 8 | mot | the MOT number (4000-6000) |
//! | 12 | distribution_q | `q_address` that receives the broadcasts |
//! | 16 | req_ack | 1 = send SBS_REGISTER_RESP |
//! | 20 | seq_gap_notify | 1 = send SBS_SEQUENCE_GAP |
//! | 24 | auto_dereg | 1 = deregister when the owner leaves the bus |
//! | 28 | rule_count | 0..=256; 0 = every message |
//! | 32 | rule_conjunct | PSEL_ALL_RULES 1 / PSEL_ANY_RULE 2 |
//! | 36 | `rule[256]` | offset, data_operator, length, operand (`int32` each) |
//!
//! The header declares `rule[256]` (MAX_SEL_RULES), so the full message is
//! 4132 bytes and the samples always send it whole, with whatever the unused
//! slots hold. mqgate accepts any body from the head plus `rule_count` rules up
//! to 4132 bytes, keeps the bytes after the counted rules as they came, and
//! reads `rule_count` 0..=256; it writes at most 255 rules, the Programmer's
//! Guide's limit ("up to 255 selection rules"). `rule_count` is checked against
//! 256 and against the body length before any rule is read or allocated.

use crate::pams::address::{Mot, QAddress};
use crate::pams::endian::Endian;
use crate::pams::error::{Field, Structure, WireError, WireErrorKind};
use crate::pams::rules::{Conjunction, RULE_SIZE, RuleSet, SelectionRule};
use crate::pams::status::{PSEL_SBS_MAX_SEL_RULES, SbsStatus};
use crate::pams::wire::{WireField, at_least, wire_struct};

/// Size of the SBS_REGISTER_REQ head: nine `int32`, 36 bytes.
pub const REGISTER_HEAD_SIZE: usize = 36;
/// Size of the whole SBS_REGISTER_REQ with its 256 rule slots: 4132 bytes.
pub const REGISTER_REQ_FULL_SIZE: usize = REGISTER_HEAD_SIZE + PSEL_SBS_MAX_SEL_RULES * RULE_SIZE;
/// Most rules mqgate writes: 255 (Programmer's Guide).
pub const MAX_RULES_SENT: usize = 255;
/// The `version` the BEA samples send in the extended SBS messages.
pub const SBS_VERSION: i32 = 40;

/// A decoded SBS_REGISTER_REQ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterReq {
    /// `version` (the samples send 40).
    pub version: i32,
    /// `user_tag`, echoed in SBS_REGISTER_RESP.
    pub user_tag: i32,
    /// `mot`: the MOT number, 4000-6000 (checked when decoding).
    pub mot: i32,
    /// `distribution_q`: the queue that receives the broadcasts.
    pub distribution_q: QAddress,
    /// `req_ack`: nonzero asks for SBS_REGISTER_RESP.
    pub req_ack: i32,
    /// `seq_gap_notify`: nonzero asks for SBS_SEQUENCE_GAP notices.
    pub seq_gap_notify: i32,
    /// `auto_dereg`: nonzero removes the registration when its owner leaves the bus.
    pub auto_dereg: i32,
    /// `rule_conjunct` as written: PSEL_ALL_RULES 1 or PSEL_ANY_RULE 2 (any value
    /// is kept when there are no rules).
    pub rule_conjunct: i32,
    /// The first `rule_count` rules, checked.
    pub rules: Vec<SelectionRule>,
    /// The bytes after the counted rules, as received (unused rule slots); empty
    /// for a request built in memory.
    pub unused_rule_area: Vec<u8>,
}

impl RegisterReq {
    /// A request for every message of `mot` to `distribution_q`: version 40,
    /// no acknowledgement, no gap notices, no automatic deregistration, no rules.
    pub fn new(mot: Mot, distribution_q: QAddress) -> Self {
        RegisterReq {
            version: SBS_VERSION,
            user_tag: 0,
            mot: i32::from(mot.number()),
            distribution_q,
            req_ack: 0,
            seq_gap_notify: 0,
            auto_dereg: 0,
            rule_conjunct: Conjunction::All.value(),
            rules: Vec::new(),
            unused_rule_area: Vec::new(),
        }
    }

    /// Decodes a body in `endian`.
    ///
    /// Errors ([`WireError`], every one naming field and offset; the response
    /// status is PSYM_SBS_BADPARAM): `Truncated` below 36 bytes or below the
    /// head plus `rule_count` rules; `TooLong` above 4132 bytes; `NotAMot`;
    /// `RuleCountOutOfRange` outside 0..=256; `BadConjunct` when rules are
    /// given with a `rule_conjunct` other than 1 or 2; per rule
    /// `UnsupportedSelector`, `BadOperator`, `BadOperandLength`.
    pub fn decode(body: &[u8], endian: Endian) -> Result<Self, WireError> {
        let s = Structure::RegisterReq;
        at_least(s, body, REGISTER_HEAD_SIZE, endian)?;
        let tag = |e: WireError| e.with_user_tag_from(body, endian);
        if body.len() > REGISTER_REQ_FULL_SIZE {
            return Err(tag(WireError::new(
                s,
                Field::Whole,
                REGISTER_REQ_FULL_SIZE,
                WireErrorKind::TooLong {
                    max: REGISTER_REQ_FULL_SIZE,
                    available: body.len(),
                },
            )));
        }
        let int = |off: usize| endian.read_i32(body, off).unwrap_or(0);
        let mot = int(8);
        if Mot::new(i64::from(mot)).is_err() {
            return Err(tag(WireError::new(
                s,
                Field::Named("mot"),
                8,
                WireErrorKind::NotAMot {
                    value: i64::from(mot),
                },
            )));
        }
        let rule_count = int(28);
        let count = usize::try_from(rule_count)
            .ok()
            .filter(|&n| n <= PSEL_SBS_MAX_SEL_RULES)
            .ok_or_else(|| {
                tag(WireError::new(
                    s,
                    Field::Named("rule_count"),
                    28,
                    WireErrorKind::RuleCountOutOfRange {
                        rule_count: i64::from(rule_count),
                        max: PSEL_SBS_MAX_SEL_RULES,
                    },
                ))
            })?;
        let rules_end = REGISTER_HEAD_SIZE + count * RULE_SIZE;
        at_least(s, body, rules_end, endian)?;
        let rule_conjunct = int(32);
        if count > 0 && Conjunction::from_value(rule_conjunct).is_none() {
            return Err(tag(WireError::new(
                s,
                Field::Named("rule_conjunct"),
                32,
                WireErrorKind::BadConjunct {
                    value: rule_conjunct,
                },
            )));
        }
        let mut rules = Vec::with_capacity(count);
        for index in 0..count {
            let base = REGISTER_HEAD_SIZE + index * RULE_SIZE;
            let rule =
                SelectionRule::from_wire(int(base), int(base + 4), int(base + 8), int(base + 12))
                    .map_err(|f| {
                    tag(WireError::new(
                        s,
                        Field::Rule {
                            index,
                            field: f.field,
                        },
                        base + f.offset_in_rule,
                        f.kind,
                    ))
                })?;
            rules.push(rule);
        }
        Ok(RegisterReq {
            version: int(0),
            user_tag: int(4),
            mot,
            distribution_q: QAddress::read(body.get(12..).unwrap_or_default(), endian),
            req_ack: int(16),
            seq_gap_notify: int(20),
            auto_dereg: int(24),
            rule_conjunct,
            rules,
            unused_rule_area: body.get(rules_end..).unwrap_or_default().to_vec(),
        })
    }

    /// Encodes the head, the rules and [`RegisterReq::unused_rule_area`]: the
    /// same bytes as were decoded.
    ///
    /// Errors: `RuleCountOutOfRange` above 255 rules; `TooLong` when the unused
    /// area makes the body longer than 4132 bytes; `OperatorNotInGeneration`
    /// for a rule that cannot be written.
    pub fn encode(&self, endian: Endian) -> Result<Vec<u8>, WireError> {
        let mut out = self.encode_rules(endian)?;
        let total = out.len() + self.unused_rule_area.len();
        if total > REGISTER_REQ_FULL_SIZE {
            return Err(WireError::new(
                Structure::RegisterReq,
                Field::Named("unused_rule_area"),
                out.len(),
                WireErrorKind::TooLong {
                    max: REGISTER_REQ_FULL_SIZE,
                    available: total,
                },
            ));
        }
        out.extend_from_slice(&self.unused_rule_area);
        Ok(out)
    }

    /// Encodes the whole 4132-byte message as the BEA samples send it: the
    /// head, the rules, then zeros in the unused slots (the unused area is not
    /// written).
    ///
    /// Errors: as [`RegisterReq::encode`], without `TooLong`.
    pub fn encode_full_size(&self, endian: Endian) -> Result<Vec<u8>, WireError> {
        let mut out = self.encode_rules(endian)?;
        out.resize(REGISTER_REQ_FULL_SIZE, 0);
        Ok(out)
    }

    /// The head and the rules.
    fn encode_rules(&self, endian: Endian) -> Result<Vec<u8>, WireError> {
        let n = self.rules.len();
        if n > MAX_RULES_SENT {
            return Err(WireError::new(
                Structure::RegisterReq,
                Field::Named("rule_count"),
                28,
                WireErrorKind::RuleCountOutOfRange {
                    rule_count: n as i64,
                    max: MAX_RULES_SENT,
                },
            ));
        }
        let mut out = Vec::with_capacity(REGISTER_HEAD_SIZE + n * RULE_SIZE);
        for v in [
            self.version,
            self.user_tag,
            self.mot,
            self.distribution_q.to_all(endian),
            self.req_ack,
            self.seq_gap_notify,
            self.auto_dereg,
            n as i32,
            self.rule_conjunct,
        ] {
            out.extend_from_slice(&endian.i32_to(v));
        }
        for (index, rule) in self.rules.iter().enumerate() {
            let fields = rule.to_wire().map_err(|f| {
                WireError::new(
                    Structure::RegisterReq,
                    Field::Rule {
                        index,
                        field: f.field,
                    },
                    REGISTER_HEAD_SIZE + index * RULE_SIZE + f.offset_in_rule,
                    f.kind,
                )
            })?;
            for v in fields {
                out.extend_from_slice(&endian.i32_to(v));
            }
        }
        Ok(out)
    }

    /// How the rules combine: PSEL_ANY_RULE 2 is "any", everything else "all"
    /// (a decoded request with rules holds 1 or 2).
    pub fn conjunction(&self) -> Conjunction {
        Conjunction::from_value(self.rule_conjunct).unwrap_or(Conjunction::All)
    }

    /// The rules as a [`RuleSet`] for a registration read in `registration_order`.
    pub fn rule_set(&self, registration_order: Endian) -> RuleSet<'_> {
        RuleSet {
            conjunction: self.conjunction(),
            rules: &self.rules,
            registration_order,
        }
    }

    /// The MOT, when `mot` is in 4000-6000 (always, for a decoded request).
    pub fn as_mot(&self) -> Option<Mot> {
        Mot::new(i64::from(self.mot)).ok()
    }

    /// True when `req_ack` is nonzero (as a C `if` reads it).
    pub fn wants_ack(&self) -> bool {
        self.req_ack != 0
    }

    /// True when `seq_gap_notify` is nonzero.
    pub fn wants_gap_notices(&self) -> bool {
        self.seq_gap_notify != 0
    }

    /// True when `auto_dereg` is nonzero.
    pub fn wants_auto_dereg(&self) -> bool {
        self.auto_dereg != 0
    }
}

wire_struct! {
    /// SBS_REGISTER_RESP: 20 bytes, five `int32` (`p_msg.h` V4.0-08).
    pub struct RegisterResp: Structure::RegisterResp, size 20 {
        /// `version`.
        version: i32 = 0,
        /// `user_tag` of the request.
        user_tag: i32 = 4,
        /// `status`: PSYM_SBS_SUCCESS 1, PSYM_SBS_BADPARAM 20, …
        status: SbsStatus = 8,
        /// `reg_id`: the registration's identifier, for deregistering by id.
        reg_id: i32 = 12,
        /// `number_reg`: how many registrations the stream has for the queue
        /// after the operation (mqgate's reading, docs/messageq.md).
        number_reg: i32 = 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn sizes() {
        assert_eq!(REGISTER_REQ_FULL_SIZE, 4132);
        assert_contiguous(RegisterResp::LAYOUT, 20);
        let names: Vec<_> = RegisterResp::LAYOUT.iter().map(|f| f.0).collect();
        assert_eq!(
            names,
            ["version", "user_tag", "status", "reg_id", "number_reg"]
        );
    }
}
