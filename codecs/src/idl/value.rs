//! Parameter values of one RPC call, by IDL name (groups and structs as
//! records, arrays as lists — issue 8 "Front ends").

use std::fmt;
use std::str::FromStr;

/// The value of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A, AV, K, KV (and U, UV with extended formats).
    Text(String),
    /// I1, I2, I4 (I8 with extended formats).
    Integer(i64),
    /// N, NU, P, PU.
    Decimal(Decimal),
    /// L.
    Logical(bool),
    /// D.
    Date(Date),
    /// T.
    Time(Timestamp),
    /// A group or a struct: members by name, in IDL order.
    Record(Record),
    /// An array: elements in order; a multi-dimensional array is a list of lists.
    List(Vec<Value>),
}

/// Named values in IDL order: the parameters of a call, or a group's members.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record(pub Vec<(String, Value)>);

impl Record {
    /// An empty record.
    pub fn new() -> Self {
        Record(Vec::new())
    }

    /// The value named `name` (exact match first, then without case, since IDL
    /// names are unique after case folding).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)))
            .map(|(_, v)| v)
    }

    /// Sets `name` to `value`, replacing an earlier value of that name.
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        let name = name.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }
}

/// A decimal number: `unscaled × 10^-scale` (N/P formats have at most 29
/// digits, which fits an i128).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    /// The digits as an integer, with the sign.
    pub unscaled: i128,
    /// Digits after the decimal point.
    pub scale: u8,
}

/// Text that is no decimal number, or has more than 29 digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecimalParseError(pub String);

impl fmt::Display for DecimalParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a decimal number of at most 29 digits",
            self.0
        )
    }
}

impl std::error::Error for DecimalParseError {}

impl FromStr for Decimal {
    type Err = DecimalParseError;

    /// `[+-]digits[.digits]`, at most 29 digits in all.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || DecimalParseError(s.to_string());
        let (negative, body) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty() {
            return Err(err());
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
            || int.len() + frac.len() > 29
        {
            return Err(err());
        }
        let mut unscaled: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            unscaled = unscaled * 10 + i128::from(b - b'0');
        }
        Ok(Decimal {
            unscaled: if negative { -unscaled } else { unscaled },
            scale: frac.len() as u8,
        })
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.unscaled.unsigned_abs().to_string();
        let sign = if self.unscaled < 0 { "-" } else { "" };
        let scale = usize::from(self.scale);
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        write!(f, "{sign}{int}.{frac}")
    }
}

/// A calendar date (IDL `D`). All zero means "no date".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    /// Year 0-9999.
    pub year: u16,
    /// Month 1-12 (0 only in the all-zero "no date").
    pub month: u8,
    /// Day 1-31 (0 only in the all-zero "no date").
    pub day: u8,
}

impl Date {
    /// True when the fields form a real date (or the all-zero "no date").
    pub fn is_valid(&self) -> bool {
        if self.year == 0 && self.month == 0 && self.day == 0 {
            return true;
        }
        if self.year > 9999 || !(1..=12).contains(&self.month) || self.day == 0 {
            return false;
        }
        let leap = self.year % 4 == 0 && (self.year % 100 != 0 || self.year % 400 == 0);
        let days = match self.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        self.day <= days
    }
}

/// A timestamp (IDL `T`): date and time to tenths of a second. 1.1.0000
/// 0:00:00.0 means "no time" (spec: rpc-bridge.md §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    /// The date part.
    pub date: Date,
    /// Hour 0-23.
    pub hour: u8,
    /// Minute 0-59.
    pub minute: u8,
    /// Second 0-59.
    pub second: u8,
    /// Tenths of a second 0-9.
    pub tenths: u8,
}

impl Timestamp {
    /// True when every field is in range.
    pub fn is_valid(&self) -> bool {
        self.date.is_valid()
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.tenths < 10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_round_trip() {
        let d: Decimal = "-12.340".parse().unwrap();
        assert_eq!(
            d,
            Decimal {
                unscaled: -12340,
                scale: 3
            }
        );
        assert_eq!(d.to_string(), "-12.340");
        assert_eq!("0.05".parse::<Decimal>().unwrap().to_string(), "0.05");
        assert_eq!(".5".parse::<Decimal>().unwrap().to_string(), "0.5");
        assert!("1.2.3".parse::<Decimal>().is_err());
        assert!("".parse::<Decimal>().is_err());
        assert!("123456789012345678901234567890".parse::<Decimal>().is_err());
    }

    #[test]
    fn dates() {
        assert!(
            Date {
                year: 2024,
                month: 2,
                day: 29
            }
            .is_valid()
        );
        assert!(
            !Date {
                year: 2023,
                month: 2,
                day: 29
            }
            .is_valid()
        );
        assert!(
            Date {
                year: 0,
                month: 0,
                day: 0
            }
            .is_valid()
        );
        assert!(
            !Date {
                year: 2023,
                month: 13,
                day: 1
            }
            .is_valid()
        );
    }
}
