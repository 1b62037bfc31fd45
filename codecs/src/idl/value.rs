//! Parameter values of one RPC call, by IDL name (groups and structs as
//! records, arrays as lists — docs/rpc.md "Text payload").

use std::fmt;
use std::str::FromStr;

use super::ast::Format;

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
        let (negative, int, frac) =
            super::text::decimal_parts(s).ok_or_else(|| DecimalParseError(s.to_string()))?;
        if (int.is_empty() && frac.is_empty()) || int.len() + frac.len() > 29 {
            return Err(DecimalParseError(s.to_string()));
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
        let leap = self.year.is_multiple_of(4)
            && (!self.year.is_multiple_of(100) || self.year.is_multiple_of(400));
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
/// 0:00:00.0 means "no time" (docs/rpc.md).
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

/// Text that is no value of the format (see [`Value::from_text`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueTextError {
    /// The text given.
    pub text: String,
    /// The format it was read for.
    pub format: String,
    /// The forms accepted.
    pub expected: &'static str,
}

impl fmt::Display for ValueTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is no value of format {}: expected {}",
            self.text, self.format, self.expected
        )
    }
}

impl std::error::Error for ValueTextError {}

impl Value {
    /// Reads a scalar written as text (a CLI `--param NAME=VALUE`, a JSON string)
    /// for a field of `format`: A/K/U take the text as it is; I an integer
    /// (`-12`); N/P a decimal (`-12.50`); L `true`/`false`/`X`/blank; D
    /// `YYYY-MM-DD` or `YYYYMMDD`; T `YYYY-MM-DDThh:mm:ss.S` or
    /// `YYYYMMDDhhmmssS`. Range checks against the format happen when
    /// marshalling.
    ///
    /// Errors: [`ValueTextError`] for text of another form, and for B and F
    /// formats, which have no text form here (docs/rpc.md).
    pub fn from_text(format: &Format, text: &str) -> Result<Value, ValueTextError> {
        let err = |expected: &'static str| ValueTextError {
            text: text.to_string(),
            format: format.to_string(),
            expected,
        };
        match format {
            Format::Alpha(_) | Format::Kanji(_) | Format::Unicode(_) => {
                Ok(Value::Text(text.to_string()))
            }
            Format::Integer(_) => text
                .strip_prefix('+')
                .unwrap_or(text)
                .parse::<i64>()
                .map(Value::Integer)
                .map_err(|_| err("an integer such as -12")),
            Format::Unpacked(_) | Format::Packed(_) => text
                .parse::<Decimal>()
                .map(Value::Decimal)
                .map_err(|_| err("a decimal number such as -12.50")),
            Format::Logical => match text.trim() {
                t if t.eq_ignore_ascii_case("true") || t == "X" => Ok(Value::Logical(true)),
                t if t.eq_ignore_ascii_case("false") || t.is_empty() => Ok(Value::Logical(false)),
                _ => Err(err("true, false, X or blank")),
            },
            Format::Date => super::text::date(text)
                .map(Value::Date)
                .ok_or_else(|| err("a date YYYY-MM-DD or YYYYMMDD")),
            Format::Time => super::text::timestamp(text)
                .map(Value::Time)
                .ok_or_else(|| err("a timestamp YYYY-MM-DDThh:mm:ss.S or YYYYMMDDhhmmssS")),
            Format::Binary(_) | Format::Float(_) => Err(err("a format with a text form")),
        }
    }
}

impl fmt::Display for Date {
    /// `YYYY-MM-DD`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl fmt::Display for Timestamp {
    /// `YYYY-MM-DDThh:mm:ss.S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}T{:02}:{:02}:{:02}.{}",
            self.date, self.hour, self.minute, self.second, self.tenths
        )
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
