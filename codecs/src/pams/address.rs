//! MessageQ queue addresses and MOTs (Multipoint Outbound Targets).
//!
//! A queue address (`q_address`, BEA MessageQ `p_entry.h` 5.0) is a 32-bit
//! union of `int32 all` and `struct { int16 queue; int16 group; }`: the queue
//! number is the first 16-bit member, the group number the second, each in the
//! sender's byte order. On a little-endian machine `all = group << 16 | queue`.
//! The text form is `group.queue` in decimal (`13.1`, `7.5100`); group 0 means
//! "this group", which is how a group name table binds a name to a MOT so that
//! the local SBS server is used (BEA MessageQ 5.0 Programmer's Guide,
//! "Broadcasting Messages", "Named MOTs").
//!
//! A MOT is a queue number from 4000 to 6000 that names a broadcast stream
//! (Programmer's Guide, "Broadcasting Messages", Table 3-1): 4000-4999 are
//! private MOTs (distribution by the local SBS server only), 5000-6000
//! universal MOTs (distribution by every SBS server), and 4900-5100 are
//! reserved for BEA MessageQ (the first hundred private, the second hundred
//! universal).

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use nom::Parser;
use nom::character::complete::{char, digit1};

use super::endian::Endian;

/// Well-known queue numbers of every group (BEA MessageQ headers; queue 99 is
/// the SBS server of the Programmer's Guide, "Registering to Receive Broadcast
/// Messages").
pub mod queues {
    /// PAMS_TIMER_QUEUE: the timer service.
    pub const PAMS_TIMER_QUEUE: u16 = 92;
    /// PAMS_QTRANSFER_SERVER: the queue transfer server.
    pub const PAMS_QTRANSFER_SERVER: u16 = 95;
    /// PAMS_DEAD_LETTER_QUEUE: the group's dead letter queue.
    pub const PAMS_DEAD_LETTER_QUEUE: u16 = 96;
    /// PAMS_NAME_SERVER: the naming service.
    pub const PAMS_NAME_SERVER: u16 = 97;
    /// PAMS_MRS_SERVER: the message recovery server.
    pub const PAMS_MRS_SERVER: u16 = 98;
    /// PAMS_SBS_SERVER: the Selective Broadcast Services server (also AVAIL/UNAVAIL).
    pub const PAMS_SBS_SERVER: u16 = 99;
    /// PAMS_QUEUE_SERVER: the queue server.
    pub const PAMS_QUEUE_SERVER: u16 = 100;
    /// PAMS_TRANSPORT: the same queue as [`PAMS_QUEUE_SERVER`].
    pub const PAMS_TRANSPORT: u16 = 100;
}

/// A MessageQ queue address: group number and queue number, 16 bits each.
///
/// On the wire it is 4 bytes, [`QAddress::SIZE`]: the queue number (2 bytes)
/// then the group number (2 bytes), each in the structure's byte order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QAddress {
    /// Group number; 0 is the local group.
    pub group: u16,
    /// Queue number within the group.
    pub queue: u16,
}

impl QAddress {
    /// Bytes on the wire.
    pub const SIZE: usize = 4;

    /// The address `group.queue`.
    pub const fn new(group: u16, queue: u16) -> Self {
        QAddress { group, queue }
    }

    /// The SBS server of `group` (`group.99`; group 0 = the local one).
    pub const fn sbs_server(group: u16) -> Self {
        QAddress::new(group, queues::PAMS_SBS_SERVER)
    }

    /// True for group 0, "this group".
    pub fn is_local_group(self) -> bool {
        self.group == 0
    }

    /// The MOT this address names, if its queue number is in 4000-6000.
    pub fn mot(self) -> Option<Mot> {
        Mot::new(i64::from(self.queue)).ok()
    }

    /// Reads the 4 wire bytes: queue first, then group.
    pub fn from_bytes(b: [u8; 4], endian: Endian) -> Self {
        QAddress {
            queue: endian.u16_from([b[0], b[1]]),
            group: endian.u16_from([b[2], b[3]]),
        }
    }

    /// The 4 wire bytes: queue first, then group.
    pub fn to_bytes(self, endian: Endian) -> [u8; 4] {
        let q = endian.u16_to(self.queue);
        let g = endian.u16_to(self.group);
        [q[0], q[1], g[0], g[1]]
    }

    /// The union's `int32 all` member as a program with this byte order sees
    /// it: `group << 16 | queue` on little-endian, `queue << 16 | group` on
    /// big-endian.
    pub fn to_all(self, endian: Endian) -> i32 {
        endian.i32_from(self.to_bytes(endian))
    }

    /// The address whose `all` member is `all` on a machine of this byte order.
    pub fn from_all(all: i32, endian: Endian) -> Self {
        QAddress::from_bytes(endian.i32_to(all), endian)
    }

    /// Parses `group.queue` (decimal, 0-65535 each, nothing around it).
    ///
    /// Errors: [`AddressError`] with the 1-based column (in characters) of the fault.
    pub fn parse(text: &str) -> Result<QAddress, AddressError> {
        parse_address(text)
    }
}

impl fmt::Display for QAddress {
    /// `group.queue`, e.g. `7.5100`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.group, self.queue)
    }
}

impl FromStr for QAddress {
    type Err = AddressError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        QAddress::parse(s)
    }
}

/// Why a `group.queue` text is not an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressErrorKind {
    /// The text is empty.
    Empty,
    /// A decimal digit was expected (start of the group or of the queue number).
    ExpectedDigit,
    /// The group number is not followed by `.`.
    ExpectedDot,
    /// A number above 65535.
    OutOfRange {
        /// `"group"` or `"queue"`.
        part: &'static str,
        /// The digits as written.
        digits: String,
    },
    /// Text after the queue number.
    TrailingText,
}

/// A `group.queue` text that is not an address, with where the fault is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("queue address {text:?}, column {column}: {}", describe(.kind))]
pub struct AddressError {
    /// The text as given (at most 64 characters of it).
    pub text: String,
    /// 1-based column of the fault, counted in characters.
    pub column: usize,
    /// What was wrong.
    pub kind: AddressErrorKind,
}

fn describe(kind: &AddressErrorKind) -> String {
    match kind {
        AddressErrorKind::Empty => "empty: the form is group.queue, e.g. 10.20".into(),
        AddressErrorKind::ExpectedDigit => "expected a decimal digit".into(),
        AddressErrorKind::ExpectedDot => {
            "expected '.' between group and queue (the form is group.queue)".into()
        }
        AddressErrorKind::OutOfRange { part, digits } => {
            format!("{part} number {digits} is out of range 0..=65535")
        }
        AddressErrorKind::TrailingText => "unexpected text after the queue number".into(),
    }
}

/// One 16-bit decimal number: the digits and their value (`None` above 65535).
fn number(i: &str) -> nom::IResult<&str, (&str, Option<u16>)> {
    digit1.map(|d: &str| (d, d.parse::<u16>().ok())).parse(i)
}

fn parse_address(text: &str) -> Result<QAddress, AddressError> {
    let err = |rest: &str, kind| AddressError {
        text: text.chars().take(64).collect(),
        column: text
            .get(..text.len().saturating_sub(rest.len()))
            .unwrap_or("")
            .chars()
            .count()
            + 1,
        kind,
    };
    if text.is_empty() {
        return Err(err(text, AddressErrorKind::Empty));
    }
    let (rest, (gd, group)) =
        number(text).map_err(|_| err(text, AddressErrorKind::ExpectedDigit))?;
    let group = group.ok_or_else(|| {
        err(
            text,
            AddressErrorKind::OutOfRange {
                part: "group",
                digits: gd.into(),
            },
        )
    })?;
    let (rest, _) = char::<_, nom::error::Error<&str>>('.')
        .parse(rest)
        .map_err(|_| err(rest, AddressErrorKind::ExpectedDot))?;
    let (after, (qd, queue)) =
        number(rest).map_err(|_| err(rest, AddressErrorKind::ExpectedDigit))?;
    let queue = queue.ok_or_else(|| {
        err(
            rest,
            AddressErrorKind::OutOfRange {
                part: "queue",
                digits: qd.into(),
            },
        )
    })?;
    if !after.is_empty() {
        return Err(err(after, AddressErrorKind::TrailingText));
    }
    Ok(QAddress { group, queue })
}

/// Which SBS servers distribute a MOT's stream (Programmer's Guide, Table 3-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MotKind {
    /// 4000-4999: distributed by the local SBS server only, to queues registered
    /// with it (the registrants may be in other groups).
    Private,
    /// 5000-6000: available to all SBS servers.
    Universal,
}

/// A Multipoint Outbound Target: a queue number from 4000 to 6000 that names a
/// broadcast stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mot(u16);

/// All MOT numbers: 4000-6000 (Programmer's Guide, "How Message Broadcasting Works").
pub const MOT_RANGE: RangeInclusive<u16> = 4000..=6000;
/// Private MOTs: 4000-4999.
pub const PRIVATE_MOTS: RangeInclusive<u16> = 4000..=4999;
/// Universal MOTs: 5000-6000.
pub const UNIVERSAL_MOTS: RangeInclusive<u16> = 5000..=6000;
/// MOTs reserved for BEA MessageQ: 4900-5100 (Table 3-1).
pub const RESERVED_MOTS: RangeInclusive<u16> = 4900..=5100;

/// A number that is not a MOT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{value} is not a MOT: MOT numbers are 4000 to 6000")]
pub struct MotError {
    /// The number given.
    pub value: i64,
}

impl Mot {
    /// The MOT `n`. Errors: [`MotError`] outside 4000-6000.
    pub fn new(n: i64) -> Result<Mot, MotError> {
        match u16::try_from(n) {
            Ok(q) if MOT_RANGE.contains(&q) => Ok(Mot(q)),
            _ => Err(MotError { value: n }),
        }
    }

    /// The queue number.
    pub fn number(self) -> u16 {
        self.0
    }

    /// Private (4000-4999) or universal (5000-6000).
    pub fn kind(self) -> MotKind {
        if PRIVATE_MOTS.contains(&self.0) {
            MotKind::Private
        } else {
            MotKind::Universal
        }
    }

    /// True in 4900-5100, the range BEA MessageQ reserves for itself.
    pub fn is_reserved(self) -> bool {
        RESERVED_MOTS.contains(&self.0)
    }

    /// The MOT as an address in `group` (0 = the local group).
    pub fn address(self, group: u16) -> QAddress {
        QAddress::new(group, self.0)
    }
}

impl fmt::Display for Mot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// True when a queue number is a MOT (4000-6000): messages to it go to the SBS
/// server ("Any message sent to a queue address in the range of 4000-6000 is
/// automatically redirected to the SBS Server").
pub fn is_mot(queue: u16) -> bool {
    MOT_RANGE.contains(&queue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        // Programmer's Guide examples: `10.SBS_SERVER` is 10.99; Listing 3-1 `0.5110`.
        for (text, group, queue) in [
            ("10.99", 10, 99),
            ("0.5110", 0, 5110),
            ("0.4810", 0, 4810),
            ("65535.65535", 65535, 65535),
        ] {
            let a = QAddress::parse(text).unwrap();
            assert_eq!(a, QAddress::new(group, queue));
            assert_eq!(a.to_string(), text);
        }
        assert!(QAddress::parse("0.5110").unwrap().is_local_group());
    }

    #[test]
    fn bad_text_names_the_column() {
        let e = |t: &str| QAddress::parse(t).unwrap_err();
        assert_eq!(e("").kind, AddressErrorKind::Empty);
        assert_eq!(
            (e("x.1").column, e("x.1").kind),
            (1, AddressErrorKind::ExpectedDigit)
        );
        assert_eq!(
            (e("10").column, e("10").kind),
            (3, AddressErrorKind::ExpectedDot)
        );
        assert_eq!(
            (e("10.").column, e("10.").kind),
            (4, AddressErrorKind::ExpectedDigit)
        );
        assert_eq!(e("10.20x").column, 6);
        assert_eq!(e("10.20x").kind, AddressErrorKind::TrailingText);
        assert_eq!(
            e("65536.1").kind,
            AddressErrorKind::OutOfRange {
                part: "group",
                digits: "65536".into()
            }
        );
        assert_eq!(e("1.99999999999999999999").column, 3);
        assert_eq!(e("-1.2").column, 1);
        assert_eq!(e(" 1.2").column, 1);
        assert_eq!(
            e("1.2.3").to_string(),
            "queue address \"1.2.3\", column 4: unexpected text after the queue number"
        );
    }

    #[test]
    fn wire_bytes_queue_first() {
        // p_entry.h 5.0: struct { int16 queue; int16 group; } — queue is the first member.
        let a = QAddress::new(7, 5100);
        assert_eq!(a.to_bytes(Endian::Little), [0xEC, 0x13, 0x07, 0x00]);
        assert_eq!(a.to_bytes(Endian::Big), [0x13, 0xEC, 0x00, 0x07]);
        // On little-endian `all = group << 16 | queue`.
        assert_eq!(a.to_all(Endian::Little), 7 << 16 | 5100);
        assert_eq!(a.to_all(Endian::Big), 5100 << 16 | 7);
        for e in Endian::BOTH {
            assert_eq!(QAddress::from_bytes(a.to_bytes(e), e), a);
            assert_eq!(QAddress::from_all(a.to_all(e), e), a);
        }
    }

    #[test]
    fn mot_ranges_of_table_3_1() {
        assert!(Mot::new(3999).is_err());
        assert!(Mot::new(6001).is_err());
        assert!(Mot::new(-4000).is_err());
        assert_eq!(Mot::new(4000).unwrap().kind(), MotKind::Private);
        assert_eq!(Mot::new(4999).unwrap().kind(), MotKind::Private);
        assert_eq!(Mot::new(5000).unwrap().kind(), MotKind::Universal);
        assert_eq!(Mot::new(6000).unwrap().kind(), MotKind::Universal);
        assert!(!Mot::new(4899).unwrap().is_reserved());
        assert!(Mot::new(4900).unwrap().is_reserved());
        assert!(Mot::new(5100).unwrap().is_reserved());
        assert!(!Mot::new(5101).unwrap().is_reserved());
        assert_eq!(QAddress::new(0, 5110).mot(), Mot::new(5110).ok());
        assert_eq!(QAddress::new(0, 99).mot(), None);
        assert!(is_mot(4000) && is_mot(6000) && !is_mot(99));
        assert_eq!(
            Mot::new(7000).unwrap_err().to_string(),
            "7000 is not a MOT: MOT numbers are 4000 to 6000"
        );
    }
}
