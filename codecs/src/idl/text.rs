//! nom parsers for values written as text: decimals, signs, digit runs, dates
//! and timestamps, both as a caller writes them ([`super::value::Value::from_text`])
//! and as fixed-position payload text holds them (`unmarshal.rs`; docs/rpc.md
//! "Text payload").
//!
//! Digits are ASCII digits only. Dates and timestamps out of range (a 30
//! February, hour 24) are refused here, so a caller gets `None` for them too.

use nom::bytes::complete::take_while_m_n;
use nom::character::complete::{char, digit0, digit1, one_of};
use nom::combinator::{all_consuming, map_res, opt, rest, verify};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use super::value::{Date, Timestamp};

type Res<'a, O> = IResult<&'a str, O>;

/// Exactly `n` ASCII digits as a number.
fn fixed<'a>(n: usize) -> impl Parser<&'a str, Output = u16, Error = nom::error::Error<&'a str>> {
    map_res(
        take_while_m_n(n, n, |c: char| c.is_ascii_digit()),
        str::parse::<u16>,
    )
}

/// Exactly `n` (1 or 2) ASCII digits as a u8.
fn small<'a>(n: usize) -> impl Parser<&'a str, Output = u8, Error = nom::error::Error<&'a str>> {
    map_res(fixed(n), u8::try_from)
}

fn valid_date(d: &Date) -> bool {
    d.is_valid()
}

/// `YYYYMMDD`, a real date (or all zero).
fn compact_date(i: &str) -> Res<'_, Date> {
    verify(
        (fixed(4), small(2), small(2)).map(|(year, month, day)| Date { year, month, day }),
        valid_date,
    )
    .parse(i)
}

/// `YYYY-MM-DD`, a real date (or all zero).
fn dashed_date(i: &str) -> Res<'_, Date> {
    verify(
        (fixed(4), char('-'), small(2), char('-'), small(2)).map(|(year, _, month, _, day)| Date {
            year,
            month,
            day,
        }),
        valid_date,
    )
    .parse(i)
}

/// `hhmmssS` after a date: the fixed-position form of a timestamp's time.
fn compact_time(date: Date) -> impl FnMut(&str) -> Res<'_, Timestamp> {
    move |i| {
        (small(2), small(2), small(2), small(1))
            .map(|(hour, minute, second, tenths)| Timestamp {
                date,
                hour,
                minute,
                second,
                tenths,
            })
            .parse(i)
    }
}

/// `[+-]digits[.digits]`, either run of digits possibly empty.
fn decimal(i: &str) -> Res<'_, (Option<char>, &str, Option<&str>)> {
    all_consuming((opt(one_of("+-")), digit0, opt(preceded(char('.'), digit0)))).parse(i)
}

/// `[+-]digits[.digits]`: the sign (true for `-`), the integer digits and the
/// fraction digits, either possibly empty.
pub(crate) fn decimal_parts(s: &str) -> Option<(bool, &str, &str)> {
    decimal(s)
        .ok()
        .map(|(_, (sign, int, frac))| (sign == Some('-'), int, frac.unwrap_or("")))
}

/// A value's text as a caller writes a date: `YYYY-MM-DD` or `YYYYMMDD`.
pub(crate) fn date(s: &str) -> Option<Date> {
    all_consuming(dashed_date.or(compact_date))
        .parse(s)
        .ok()
        .map(|(_, d)| d)
}

/// A value's text as a caller writes a timestamp: `YYYYMMDDhhmmssS`, or
/// `YYYY-MM-DDThh:mm:ss[.S]` with a blank allowed for the `T`.
pub(crate) fn timestamp(s: &str) -> Option<Timestamp> {
    let compact = compact_date.flat_map(compact_time);
    let iso = (
        dashed_date,
        one_of("T "),
        small(2),
        char(':'),
        small(2),
        char(':'),
        small(2),
        opt(preceded(char('.'), small(1))),
    )
        .map(|(date, _, hour, _, minute, _, second, tenths)| Timestamp {
            date,
            hour,
            minute,
            second,
            tenths: tenths.unwrap_or(0),
        });
    all_consuming(verify(compact.or(iso), Timestamp::is_valid))
        .parse(s)
        .ok()
        .map(|(_, t)| t)
}

/// One or more ASCII digits and nothing else, as a number (`None` past u128).
pub(crate) fn digits(s: &str) -> Option<u128> {
    all_consuming(digit1::<_, nom::error::Error<&str>>)
        .parse(s)
        .ok()
        .and_then(|(_, d)| d.parse().ok())
}

/// A leading `+` or `-` (true for `-`) and the text after it.
pub(crate) fn signed(s: &str) -> Option<(bool, &str)> {
    (one_of::<_, _, nom::error::Error<&str>>("+-"), rest)
        .parse(s)
        .ok()
        .map(|(_, (sign, body))| (sign == '-', body))
}

/// `YYYYMMDD` and nothing else: a fixed-position D field.
pub(crate) fn payload_date(s: &str) -> Option<Date> {
    all_consuming(compact_date).parse(s).ok().map(|(_, d)| d)
}

/// `YYYYMMDDhhmmssS` at the start of a fixed-position T field; what follows
/// the 15 characters is not read.
pub(crate) fn payload_timestamp(s: &str) -> Option<Timestamp> {
    verify(compact_date.flat_map(compact_time), Timestamp::is_valid)
        .parse(s)
        .ok()
        .map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(year: u16, month: u8, day: u8) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn dates_in_both_forms_and_only_real_ones() {
        assert_eq!(date("2024-02-29"), Some(d(2024, 2, 29)));
        assert_eq!(date("20240229"), Some(d(2024, 2, 29)));
        assert_eq!(date("00000000"), Some(d(0, 0, 0)));
        assert_eq!(date("2023-02-29"), None);
        assert_eq!(date("2024-2-29"), None);
        assert_eq!(date("2024022"), None);
        assert_eq!(date("2024-02-290"), None);
    }

    #[test]
    fn timestamps_in_both_forms() {
        let t = Timestamp {
            date: d(2024, 1, 5),
            hour: 13,
            minute: 4,
            second: 59,
            tenths: 7,
        };
        assert_eq!(timestamp("202401051304597"), Some(t));
        assert_eq!(timestamp("2024-01-05T13:04:59.7"), Some(t));
        assert_eq!(timestamp("2024-01-05 13:04:59.7"), Some(t));
        assert_eq!(
            timestamp("2024-01-05T13:04:59"),
            Some(Timestamp { tenths: 0, ..t })
        );
        assert_eq!(timestamp("2024-01-05T24:00:00"), None);
        assert_eq!(timestamp("2024-01-05T13:04:59.70"), None);
        assert_eq!(timestamp("2024-01-05T13:04"), None);
        // The fixed-position form reads 15 characters and no more.
        assert_eq!(payload_timestamp("202401051304597xyz"), Some(t));
        assert_eq!(payload_timestamp("20240105130459"), None);
    }

    #[test]
    fn decimals_signs_and_digits() {
        assert_eq!(decimal_parts("-12.50"), Some((true, "12", "50")));
        assert_eq!(decimal_parts("+.5"), Some((false, "", "5")));
        assert_eq!(decimal_parts("7."), Some((false, "7", "")));
        assert_eq!(decimal_parts("+-7"), None);
        assert_eq!(decimal_parts("1.2.3"), None);
        assert_eq!(signed("-0042"), Some((true, "0042")));
        assert_eq!(signed("0042"), None);
        assert_eq!(digits("0042"), Some(42));
        assert_eq!(digits(""), None);
        assert_eq!(digits("4 2"), None);
        assert_eq!(digits(&"9".repeat(40)), None);
    }
}
