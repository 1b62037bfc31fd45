//! SBS selection rules: what a rule selects, how it compares, and whether a
//! broadcast message matches a registration's rules.
//!
//! A rule (SBS_REGISTER_RULE, `p_msg.h` V4.0-08) has four `int32` fields:
//! `offset` (≥ 0: a zero-based byte offset into the message body; < 0: a
//! header field, PSEL_SOURCE -1, PSEL_CLASS -2, PSEL_TYPE -3), `data_operator`
//! (PSEL_OPER_*), `length` (1, 2 or 4 bytes) and `operand` (BEA MessageQ 5.0
//! Programmer's Guide, "Broadcasting Messages", Tables 3-2 and 3-3). PSEL_SOURCE
//! compares the *original* source (the publisher), not the MOT. Matching on
//! priority is not supported.
//!
//! The operator values differ between the DECmessageQ V1.0 headers (EQ 1 …
//! LTE 6) and the BEA MessageQ 5.0 headers (EQ -1 … LTE -6, AND 7); both share
//! ANY 0. mqgate reads either set into one [`Operator`], remembers which set a
//! rule used so it is written back as it came, and writes new rules with the
//! 5.0 values unless told otherwise ([`HeaderGeneration`]).
//!
//! Comparison (mqgate's reading; docs/messageq.md "Choices mqgate made"): a body
//! rule takes `length` bytes at `offset` as a signed integer in the message's
//! byte order and compares it with the low `length` bytes of `operand`, also
//! signed; a rule whose bytes lie beyond the body is false. PSEL_CLASS and
//! PSEL_TYPE compare the 16-bit header field with the operand's low 16 bits,
//! PSEL_SOURCE the 32-bit `q_address` (its `all` member as the registrant's
//! byte order sees it) with the whole operand. PSEL_OPER_AND is true when
//! `(operand AND data) != 0`; PSEL_OPER_ANY is always true, even beyond the
//! body. Rules combine with PSEL_ALL_RULES (all true) or PSEL_ANY_RULE (one
//! true); no rules match every message.

use std::fmt;

use super::address::QAddress;
use super::endian::Endian;
use super::error::WireErrorKind;
pub use super::symbols::HeaderGeneration;

/// PSEL_SOURCE (-1): select on the original source (publisher) address.
pub const PSEL_SOURCE: i32 = -1;
/// PSEL_CLASS (-2): select on the message class.
pub const PSEL_CLASS: i32 = -2;
/// PSEL_TYPE (-3): select on the message type.
pub const PSEL_TYPE: i32 = -3;
/// PSEL_CORRELATION_ID (-4, BEA MessageQ 5.0 header only): a selective-receive
/// symbol; mqgate does not accept it as an SBS rule offset.
pub const PSEL_CORRELATION_ID: i32 = -4;
/// PSEL_SEQUENCE_NUMBER (-5, BEA MessageQ 5.0 header only): as PSEL_CORRELATION_ID.
pub const PSEL_SEQUENCE_NUMBER: i32 = -5;

/// PSEL_ALL_RULES (1, `p_symbol.h` 5.0): every rule must be true ("match all").
pub const PSEL_ALL_RULES: i32 = 1;
/// PSEL_ANY_RULE (2, `p_symbol.h` 5.0): one true rule is enough ("match any").
pub const PSEL_ANY_RULE: i32 = 2;

/// How a registration's rules combine (`rule_conjunct`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conjunction {
    /// PSEL_ALL_RULES: logical AND over the rules.
    All,
    /// PSEL_ANY_RULE: logical OR over the rules.
    Any,
}

impl Conjunction {
    /// The `rule_conjunct` value: 1 or 2.
    pub fn value(self) -> i32 {
        match self {
            Conjunction::All => PSEL_ALL_RULES,
            Conjunction::Any => PSEL_ANY_RULE,
        }
    }

    /// The conjunction for a `rule_conjunct` value; `None` for any other value.
    pub fn from_value(value: i32) -> Option<Conjunction> {
        match value {
            PSEL_ALL_RULES => Some(Conjunction::All),
            PSEL_ANY_RULE => Some(Conjunction::Any),
            _ => None,
        }
    }
}

/// A zero-based byte offset into a message body, 0..=2147483647 (a
/// non-negative `int32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyOffset(u32);

impl BodyOffset {
    /// The offset `n`; `None` above `i32::MAX` (not representable in the rule).
    pub fn new(n: u32) -> Option<BodyOffset> {
        (n <= i32::MAX as u32).then_some(BodyOffset(n))
    }

    /// The offset in bytes.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// What a rule compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selector {
    /// PSEL_SOURCE: the original source address (the publisher, not the MOT).
    Source,
    /// PSEL_CLASS: the message class.
    Class,
    /// PSEL_TYPE: the message type.
    Type,
    /// A zero-based byte offset into the body.
    Body(BodyOffset),
}

impl Selector {
    /// The selector for a rule `offset`; `None` for a negative value other than
    /// PSEL_SOURCE, PSEL_CLASS and PSEL_TYPE.
    pub fn from_offset(offset: i32) -> Option<Selector> {
        match offset {
            PSEL_SOURCE => Some(Selector::Source),
            PSEL_CLASS => Some(Selector::Class),
            PSEL_TYPE => Some(Selector::Type),
            n if n >= 0 => Some(Selector::Body(BodyOffset(n as u32))),
            _ => None,
        }
    }

    /// The rule `offset` value.
    pub fn offset(self) -> i32 {
        match self {
            Selector::Source => PSEL_SOURCE,
            Selector::Class => PSEL_CLASS,
            Selector::Type => PSEL_TYPE,
            Selector::Body(BodyOffset(n)) => n as i32,
        }
    }
}

/// The comparison a rule makes (PSEL_OPER_*, Programmer's Guide Table 3-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    /// PSEL_OPER_ANY: always match.
    Any,
    /// PSEL_OPER_EQ: data equal to the operand.
    Eq,
    /// PSEL_OPER_NEQ: not equal.
    Neq,
    /// PSEL_OPER_GTR: data greater than the operand.
    Gtr,
    /// PSEL_OPER_LT: data less than the operand.
    Lt,
    /// PSEL_OPER_GTRE: greater than or equal.
    Gtre,
    /// PSEL_OPER_LTE: less than or equal.
    Lte,
    /// PSEL_OPER_AND: operand AND data not zero (BEA MessageQ 5.0 only).
    And,
}

impl Operator {
    /// Every operator, in Table 3-3 order.
    pub const ALL: [Operator; 8] = [
        Operator::Any,
        Operator::Eq,
        Operator::Neq,
        Operator::Gtr,
        Operator::Lt,
        Operator::Gtre,
        Operator::Lte,
        Operator::And,
    ];

    /// The symbol, e.g. `PSEL_OPER_GTRE`.
    pub fn symbol(self) -> &'static str {
        match self {
            Operator::Any => "PSEL_OPER_ANY",
            Operator::Eq => "PSEL_OPER_EQ",
            Operator::Neq => "PSEL_OPER_NEQ",
            Operator::Gtr => "PSEL_OPER_GTR",
            Operator::Lt => "PSEL_OPER_LT",
            Operator::Gtre => "PSEL_OPER_GTRE",
            Operator::Lte => "PSEL_OPER_LTE",
            Operator::And => "PSEL_OPER_AND",
        }
    }

    /// The value in a header generation: DECmessageQ V1.0 ANY 0, EQ 1 … LTE 6
    /// (no AND); BEA MessageQ 5.0 ANY 0, EQ -1 … LTE -6, AND 7.
    pub fn value(self, generation: HeaderGeneration) -> Option<i32> {
        let dmq = match self {
            Operator::Any => 0,
            Operator::Eq => 1,
            Operator::Neq => 2,
            Operator::Gtr => 3,
            Operator::Lt => 4,
            Operator::Gtre => 5,
            Operator::Lte => 6,
            Operator::And => {
                return match generation {
                    HeaderGeneration::DmqV10 => None,
                    HeaderGeneration::Bea50 => Some(7),
                };
            }
        };
        Some(match generation {
            HeaderGeneration::DmqV10 => dmq,
            HeaderGeneration::Bea50 => -dmq,
        })
    }

    /// The operator for a `data_operator` value of either generation, and the
    /// generation it came from (0, shared by both, counts as BEA MessageQ 5.0;
    /// both write it as 0). `None` for any other value.
    pub fn from_value(value: i32) -> Option<(Operator, HeaderGeneration)> {
        let (generation, magnitude) = match value {
            0 => return Some((Operator::Any, HeaderGeneration::Bea50)),
            7 => return Some((Operator::And, HeaderGeneration::Bea50)),
            1..=6 => (HeaderGeneration::DmqV10, value),
            -6..=-1 => (HeaderGeneration::Bea50, -value),
            _ => return None,
        };
        let op = match magnitude {
            1 => Operator::Eq,
            2 => Operator::Neq,
            3 => Operator::Gtr,
            4 => Operator::Lt,
            5 => Operator::Gtre,
            _ => Operator::Lte,
        };
        Some((op, generation))
    }

    /// Applies the comparison to `data` and `operand` (both already narrowed to
    /// the rule's width and sign-extended).
    pub fn holds(self, data: i32, operand: i32) -> bool {
        match self {
            Operator::Any => true,
            Operator::Eq => data == operand,
            Operator::Neq => data != operand,
            Operator::Gtr => data > operand,
            Operator::Lt => data < operand,
            Operator::Gtre => data >= operand,
            Operator::Lte => data <= operand,
            Operator::And => data & operand != 0,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// How many bytes a rule compares: 1, 2 or 4 ("The operand length can be 1, 2,
/// or 4 bytes only").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandLength {
    /// 1 byte.
    One,
    /// 2 bytes.
    Two,
    /// 4 bytes (the samples use 4, also for class and type).
    Four,
}

impl OperandLength {
    /// The length in bytes.
    pub fn bytes(self) -> usize {
        match self {
            OperandLength::One => 1,
            OperandLength::Two => 2,
            OperandLength::Four => 4,
        }
    }

    /// The length for a rule `length` value; `None` unless 1, 2 or 4.
    pub fn from_value(value: i32) -> Option<OperandLength> {
        match value {
            1 => Some(OperandLength::One),
            2 => Some(OperandLength::Two),
            4 => Some(OperandLength::Four),
            _ => None,
        }
    }

    /// `v` narrowed to this width (its low bytes) and sign-extended back.
    pub fn narrow(self, v: i32) -> i32 {
        match self {
            OperandLength::One => i32::from(v as i8),
            OperandLength::Two => i32::from(v as i16),
            OperandLength::Four => v,
        }
    }
}

/// A rule field that cannot be read or written, with the fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFault {
    /// `offset`, `data_operator` or `length`.
    pub field: &'static str,
    /// Byte offset of the field inside the 16-byte rule: 0, 4 or 8.
    pub offset_in_rule: usize,
    /// What was wrong.
    pub kind: WireErrorKind,
}

/// One selection rule, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SelectionRule {
    /// What the rule compares.
    pub selector: Selector,
    /// How it compares.
    pub operator: Operator,
    /// Which operator values the rule is written with (as read, or BEA 5.0 for new rules).
    pub generation: HeaderGeneration,
    /// How many bytes it compares.
    pub length: OperandLength,
    /// The comparison value.
    pub operand: i32,
}

/// Size of SBS_REGISTER_RULE on the wire: four `int32`, 16 bytes.
pub const RULE_SIZE: usize = 16;

impl SelectionRule {
    /// A rule written with the BEA MessageQ 5.0 operator values.
    pub fn new(
        selector: Selector,
        operator: Operator,
        length: OperandLength,
        operand: i32,
    ) -> Self {
        SelectionRule {
            selector,
            operator,
            generation: HeaderGeneration::Bea50,
            length,
            operand,
        }
    }

    /// Checks the four `int32` fields of SBS_REGISTER_RULE, in field order.
    ///
    /// Errors: [`RuleFault`] for an unsupported negative offset, an operator of
    /// neither generation, or a length other than 1, 2 or 4.
    pub fn from_wire(
        offset: i32,
        data_operator: i32,
        length: i32,
        operand: i32,
    ) -> Result<SelectionRule, RuleFault> {
        let selector = Selector::from_offset(offset).ok_or(RuleFault {
            field: "offset",
            offset_in_rule: 0,
            kind: WireErrorKind::UnsupportedSelector { offset },
        })?;
        let (operator, generation) = Operator::from_value(data_operator).ok_or(RuleFault {
            field: "data_operator",
            offset_in_rule: 4,
            kind: WireErrorKind::BadOperator {
                operator: data_operator,
            },
        })?;
        let length = OperandLength::from_value(length).ok_or(RuleFault {
            field: "length",
            offset_in_rule: 8,
            kind: WireErrorKind::BadOperandLength { length },
        })?;
        Ok(SelectionRule {
            selector,
            operator,
            generation,
            length,
            operand,
        })
    }

    /// The four `int32` fields: offset, data_operator, length, operand.
    ///
    /// Errors: [`RuleFault`] when the operator has no value in the rule's
    /// generation (PSEL_OPER_AND with the DECmessageQ V1.0 values).
    pub fn to_wire(&self) -> Result<[i32; 4], RuleFault> {
        let op = self.operator.value(self.generation).ok_or(RuleFault {
            field: "data_operator",
            offset_in_rule: 4,
            kind: WireErrorKind::OperatorNotInGeneration {
                operator: self.operator,
                generation: self.generation,
            },
        })?;
        Ok([
            self.selector.offset(),
            op,
            self.length.bytes() as i32,
            self.operand,
        ])
    }

    /// Whether the rule is true for `message`. `registration_order` is the byte
    /// order of the registration the rule came from (it decides how a
    /// PSEL_SOURCE operand is read as a `q_address`).
    pub fn matches(&self, message: &Broadcast<'_>, registration_order: Endian) -> bool {
        if self.operator == Operator::Any {
            return true;
        }
        let (data, operand) = match self.selector {
            Selector::Class => (
                i32::from(message.class),
                OperandLength::Two.narrow(self.operand),
            ),
            Selector::Type => (
                i32::from(message.msg_type),
                OperandLength::Two.narrow(self.operand),
            ),
            Selector::Source => (
                message.original_source.to_all(registration_order),
                self.operand,
            ),
            Selector::Body(offset) => {
                let Some(data) = read_body(message, offset, self.length) else {
                    return false;
                };
                (data, self.length.narrow(self.operand))
            }
        };
        self.operator.holds(data, operand)
    }
}

/// `length` bytes at `offset` of the body as a signed integer in the message's
/// byte order; `None` when they run past the body.
fn read_body(message: &Broadcast<'_>, offset: BodyOffset, length: OperandLength) -> Option<i32> {
    let start = usize::try_from(offset.get()).ok()?;
    let end = start.checked_add(length.bytes())?;
    let b = message.body.get(start..end)?;
    Some(match length {
        OperandLength::One => i32::from(b[0] as i8),
        OperandLength::Two => i32::from(message.endian.u16_from([b[0], b[1]]) as i16),
        OperandLength::Four => message.endian.i32_from([b[0], b[1], b[2], b[3]]),
    })
}

/// A broadcast message as the rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broadcast<'a> {
    /// Message class (a `short` in `pams_put_msg`).
    pub class: i16,
    /// Message type.
    pub msg_type: i16,
    /// The publisher's address (PSEL_SOURCE compares this, not the MOT).
    pub original_source: QAddress,
    /// The message body.
    pub body: &'a [u8],
    /// The byte order of the body (the publisher's).
    pub endian: Endian,
}

/// A registration's rules: the conjunction, the rules and the registration's byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet<'a> {
    /// How the rules combine.
    pub conjunction: Conjunction,
    /// The rules (0 rules match every message).
    pub rules: &'a [SelectionRule],
    /// The byte order the registration was read in.
    pub registration_order: Endian,
}

impl RuleSet<'_> {
    /// Whether `message` is selected: always with no rules, else all rules
    /// true (PSEL_ALL_RULES) or one true (PSEL_ANY_RULE).
    pub fn matches(&self, message: &Broadcast<'_>) -> bool {
        let mut results = self
            .rules
            .iter()
            .map(|r| r.matches(message, self.registration_order));
        if self.rules.is_empty() {
            return true;
        }
        match self.conjunction {
            Conjunction::All => results.all(|m| m),
            Conjunction::Any => results.any(|m| m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_values_of_both_generations() {
        // p_symbol.h 5.0: ANY 0, EQ -1 … LTE -6, AND 7; DECmessageQ V1.0: EQ 1 … LTE 6.
        let bea: Vec<_> = Operator::ALL
            .iter()
            .map(|o| o.value(HeaderGeneration::Bea50))
            .collect();
        assert_eq!(bea, [0, -1, -2, -3, -4, -5, -6, 7].map(Some).to_vec());
        let dmq: Vec<_> = Operator::ALL
            .iter()
            .map(|o| o.value(HeaderGeneration::DmqV10))
            .collect();
        assert_eq!(
            dmq,
            [
                Some(0),
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
                None
            ]
            .to_vec()
        );
        for op in Operator::ALL {
            for g in [HeaderGeneration::DmqV10, HeaderGeneration::Bea50] {
                if let Some(v) = op.value(g) {
                    let (back, from) = Operator::from_value(v).unwrap();
                    assert_eq!(back, op);
                    assert_eq!(op.value(from), Some(v));
                }
            }
        }
        assert_eq!(Operator::from_value(8), None);
        assert_eq!(Operator::from_value(-7), None);
    }

    #[test]
    fn selectors_and_lengths() {
        assert_eq!(Selector::from_offset(-1), Some(Selector::Source));
        assert_eq!(Selector::from_offset(-2), Some(Selector::Class));
        assert_eq!(Selector::from_offset(-3), Some(Selector::Type));
        assert_eq!(Selector::from_offset(PSEL_CORRELATION_ID), None);
        assert_eq!(Selector::from_offset(PSEL_SEQUENCE_NUMBER), None);
        assert_eq!(
            Selector::from_offset(i32::MAX).map(|s| s.offset()),
            Some(i32::MAX)
        );
        assert_eq!(BodyOffset::new(1 << 31), None);
        assert_eq!(OperandLength::from_value(3), None);
        assert_eq!(OperandLength::One.narrow(0x1FF), -1);
        assert_eq!(OperandLength::Two.narrow(0x1_8000), -32768);
    }

    #[test]
    fn and_has_no_dmq_value() {
        let mut r = SelectionRule::new(Selector::Class, Operator::And, OperandLength::Four, 1);
        assert_eq!(r.to_wire().unwrap(), [-2, 7, 4, 1]);
        r.generation = HeaderGeneration::DmqV10;
        let fault = r.to_wire().unwrap_err();
        assert_eq!(fault.field, "data_operator");
    }
}
