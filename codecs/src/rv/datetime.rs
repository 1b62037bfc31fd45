//! The Rendezvous datetime (`tibrvMsgDateTime`) and its RFC 3339 text.
//!
//! TIBCO Rendezvous C Reference, "tibrvMsgDateTime": `sec` is a signed 64-bit
//! count of seconds from the epoch (1970-01-01T00:00:00Z), `nsec` an unsigned
//! 32-bit count of nanoseconds after it, 0 to 999,999,999 ("1/2 second before
//! midnight of December 31, 1969 is -1 seconds plus 500,000,000
//! nanoseconds"). Dates use the proleptic Gregorian calendar, as
//! `tibrvMsg_ConvertToString()` does.
//!
//! The text form is RFC 3339 "Date and Time on the Internet: Timestamps",
//! section 5.6 (`2024-05-01T12:30:00.250000000Z`), which only spells years
//! 0000 to 9999; mqgate's JSON form gives other values as numbers
//! (docs/rendezvous.md "Messages").

use std::fmt;

use nom::Parser;
use nom::bytes::complete::take_while_m_n;
use nom::character::complete::{char, one_of};
use nom::combinator::opt;

/// Largest `nsec`.
pub const MAX_NSEC: u32 = 999_999_999;

/// Seconds of 0000-01-01T00:00:00Z, the earliest time RFC 3339 can write.
pub const RFC3339_MIN_SEC: i64 = -62_167_219_200;
/// Seconds of 9999-12-31T23:59:59Z, the latest time RFC 3339 can write.
pub const RFC3339_MAX_SEC: i64 = 253_402_300_799;

/// A Rendezvous datetime: seconds from the epoch and nanoseconds after them.
/// `nsec` above [`MAX_NSEC`] is representable here but refused when a
/// message is written (`TIBRV_INVALID_ARG`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DateTime {
    /// Seconds from 1970-01-01T00:00:00Z (negative before it).
    pub sec: i64,
    /// Nanoseconds after `sec`, 0 to 999,999,999.
    pub nsec: u32,
}

/// What was wrong in a datetime text, and where (byte offset in the text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("datetime {text:?} at offset {offset}: {kind}")]
pub struct DateTimeTextError {
    /// The text as given.
    pub text: String,
    /// Byte offset of the part that is wrong.
    pub offset: usize,
    /// What was wrong.
    pub kind: DateTimeTextErrorKind,
}

/// The kinds of [`DateTimeTextError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DateTimeTextErrorKind {
    /// The RFC 3339 grammar wanted this item here.
    #[error("expected {0} (RFC 3339: YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM))")]
    Expected(&'static str),
    /// A date or time item out of its range (month 13, day 30 of February).
    #[error("{0} out of range")]
    OutOfRange(&'static str),
    /// Second 60: RFC 3339 allows a leap second, a Rendezvous datetime
    /// (seconds from the epoch without leap seconds) cannot hold one.
    #[error("leap second 60 cannot be a Rendezvous datetime")]
    LeapSecond,
    /// More than 9 fraction digits (finer than a nanosecond).
    #[error("more than 9 fraction digits")]
    TooManyDigits,
    /// Text after the time offset.
    #[error("text after the time offset")]
    Trailing,
}

impl DateTime {
    /// The datetime `sec` + `nsec`; `None` when `nsec` > [`MAX_NSEC`].
    pub const fn new(sec: i64, nsec: u32) -> Option<DateTime> {
        if nsec > MAX_NSEC {
            None
        } else {
            Some(DateTime { sec, nsec })
        }
    }

    /// RFC 3339 in UTC with nine fraction digits
    /// (`1969-12-31T23:59:59.500000000Z` for sec -1, nsec 500,000,000);
    /// `None` when the year is outside 0000-9999 or `nsec` is too large.
    pub fn to_rfc3339(&self) -> Option<String> {
        if !(RFC3339_MIN_SEC..=RFC3339_MAX_SEC).contains(&self.sec) || self.nsec > MAX_NSEC {
            return None;
        }
        let days = self.sec.div_euclid(86_400);
        let secs = self.sec.rem_euclid(86_400);
        let (y, m, d) = crate::calendar::civil_from_days(days);
        Some(format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:09}Z",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.nsec
        ))
    }

    /// Reads an RFC 3339 date-time (section 5.6): `T`/`t`, `Z`/`z` or a
    /// `+HH:MM`/`-HH:MM` offset, 0 to 9 fraction digits. The time is
    /// converted to UTC. Errors give the byte offset of the wrong item.
    pub fn parse_rfc3339(text: &str) -> Result<DateTime, DateTimeTextError> {
        parse(text).map_err(|(offset, kind)| DateTimeTextError {
            text: text.to_string(),
            offset,
            kind,
        })
    }
}

impl fmt::Display for DateTime {
    /// RFC 3339 when it can be written so, else `sec=… nsec=…`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_rfc3339() {
            Some(s) => f.write_str(&s),
            None => write!(f, "sec={} nsec={}", self.sec, self.nsec),
        }
    }
}

type PResult<'a, T> = nom::IResult<&'a str, T, nom::error::Error<&'a str>>;

/// Exactly `n` ASCII digits as a number.
fn digits(n: usize) -> impl FnMut(&str) -> PResult<'_, u32> {
    move |i| {
        let (rest, s) = take_while_m_n(n, n, |c: char| c.is_ascii_digit()).parse(i)?;
        Ok((
            rest,
            s.bytes()
                .fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0')),
        ))
    }
}

fn parse(text: &str) -> Result<DateTime, (usize, DateTimeTextErrorKind)> {
    use DateTimeTextErrorKind::*;
    let at = |rest: &str| text.len() - rest.len();
    // Each step: run a parser, or fail at the current offset naming the item.
    macro_rules! step {
        ($i:expr, $p:expr, $what:expr) => {{
            let r: PResult<'_, _> = $p.parse($i);
            match r {
                Ok(v) => v,
                Err(_) => return Err((at($i), Expected($what))),
            }
        }};
    }
    let i = text;
    let (i, year) = step!(i, digits(4), "a 4-digit year");
    let (i, _) = step!(i, char('-'), "'-' after the year");
    let month_at = at(i);
    let (i, month) = step!(i, digits(2), "a 2-digit month");
    let (i, _) = step!(i, char('-'), "'-' after the month");
    let day_at = at(i);
    let (i, day) = step!(i, digits(2), "a 2-digit day");
    let (i, _) = step!(i, one_of("Tt"), "'T' between date and time");
    let hour_at = at(i);
    let (i, hour) = step!(i, digits(2), "a 2-digit hour");
    let (i, _) = step!(i, char(':'), "':' after the hour");
    let minute_at = at(i);
    let (i, minute) = step!(i, digits(2), "2-digit minutes");
    let (i, _) = step!(i, char(':'), "':' after the minutes");
    let second_at = at(i);
    let (i, second) = step!(i, digits(2), "2-digit seconds");
    let (i, dot) = step!(i, opt(char('.')), "a fraction");
    let (i, nsec) = if dot.is_some() {
        let frac_at = at(i);
        let (rest, frac) = step!(
            i,
            take_while_m_n(1, usize::MAX, |c: char| c.is_ascii_digit()),
            "fraction digits after '.'"
        );
        if frac.len() > 9 {
            return Err((frac_at + 9, TooManyDigits));
        }
        let v = frac
            .bytes()
            .fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0'));
        (rest, v * 10u32.pow(9 - frac.len() as u32))
    } else {
        (i, 0)
    };
    let offset_at = at(i);
    let (i, sign) = step!(i, one_of("Zz+-"), "'Z', '+HH:MM' or '-HH:MM'");
    let (i, offset_s) = match sign {
        '+' | '-' => {
            let (i, oh) = step!(i, digits(2), "a 2-digit offset hour");
            let (i, _) = step!(i, char(':'), "':' in the offset");
            let (i, om) = step!(i, digits(2), "2-digit offset minutes");
            if oh > 23 || om > 59 {
                return Err((offset_at, OutOfRange("time offset")));
            }
            let s = i64::from(oh * 3600 + om * 60);
            (i, if sign == '-' { -s } else { s })
        }
        _ => (i, 0),
    };
    if !i.is_empty() {
        return Err((at(i), Trailing));
    }
    if !(1..=12).contains(&month) {
        return Err((month_at, OutOfRange("month")));
    }
    if day == 0 || day > crate::calendar::days_in_month(i64::from(year), month) {
        return Err((day_at, OutOfRange("day of month")));
    }
    if hour > 23 {
        return Err((hour_at, OutOfRange("hour")));
    }
    if minute > 59 {
        return Err((minute_at, OutOfRange("minute")));
    }
    if second == 60 {
        return Err((second_at, LeapSecond));
    }
    if second > 59 {
        return Err((second_at, OutOfRange("second")));
    }
    let days = crate::calendar::days_from_civil(i64::from(year), month, day);
    let sec = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_s;
    Ok(DateTime { sec, nsec })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_and_the_tibco_example() {
        // C Reference "tibrvMsgDateTime": 1/2 second before midnight of
        // December 31, 1969 is -1 seconds plus 500,000,000 nanoseconds.
        let half = DateTime::new(-1, 500_000_000).unwrap();
        assert_eq!(
            half.to_rfc3339().as_deref(),
            Some("1969-12-31T23:59:59.500000000Z")
        );
        assert_eq!(DateTime::parse_rfc3339("1969-12-31T23:59:59.5Z"), Ok(half));
        assert_eq!(
            DateTime::default().to_rfc3339().as_deref(),
            Some("1970-01-01T00:00:00.000000000Z")
        );
    }

    #[test]
    fn limits_of_rfc3339_years() {
        // 0000-01-01 is 719,528 days before the epoch (1970 × 365 + 478 leap
        // days of the proleptic calendar); 9999-12-31T23:59:59Z is
        // 253,402,300,799 s after it (both checked with Python's datetime).
        assert_eq!(RFC3339_MIN_SEC, -719_528 * 86_400);
        assert_eq!(
            DateTime::parse_rfc3339("0000-01-01T00:00:00Z").unwrap().sec,
            RFC3339_MIN_SEC
        );
        assert_eq!(
            DateTime::parse_rfc3339("9999-12-31T23:59:59Z").unwrap().sec,
            RFC3339_MAX_SEC
        );
        assert_eq!(
            DateTime::new(RFC3339_MIN_SEC - 1, 0).unwrap().to_rfc3339(),
            None
        );
        assert_eq!(
            DateTime::new(RFC3339_MAX_SEC + 1, 0).unwrap().to_rfc3339(),
            None
        );
    }
}
