//! Reading a format word such as `A32`, `AV`, `NU8.3`, `I4` (docs/rpc.md):
//! nom splits it into letters, length and decimals; the rules of the format
//! table then check them.

use nom::bytes::complete::take_till;
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, opt, rest};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use super::ast::{Format, Length, NumericSpec};
use super::error::IdlErrorKind;

/// Longest A/B/K/U length accepted, in bytes: 1 GiB, the largest Natural
/// alphanumeric field. Keeps layouts from sizing buffers by absurd numbers.
pub const MAX_FIELD_LENGTH: u32 = 1 << 30;

/// Largest n + m of an N/NU/P/PU format (docs/rpc.md).
pub const MAX_NUMERIC_DIGITS: u32 = 29;

/// Largest m of an N/NU/P/PU format (docs/rpc.md).
pub const MAX_NUMERIC_DECIMALS: u32 = 7;

fn invalid(word: &str, reason: impl Into<String>) -> IdlErrorKind {
    IdlErrorKind::InvalidFormat {
        format: word.to_string(),
        reason: reason.into(),
    }
}

/// A format word in its parts: the letters, the digits before the first `.`,
/// and what follows that `.` (if there is one): `N8.3` → (`N`, `8`, `3`).
struct Parts<'a> {
    letters: &'a str,
    length: &'a str,
    decimals: Option<&'a str>,
}

fn parts(word: &str) -> IResult<&str, Parts<'_>> {
    (
        take_till(|c: char| c.is_ascii_digit() || c == '.'),
        take_till(|c| c == '.'),
        opt(preceded(char('.'), rest)),
    )
        .map(|(letters, length, decimals)| Parts {
            letters,
            length,
            decimals,
        })
        .parse(word)
}

/// A length in decimal digits and nothing else.
fn number(word: &str, digits: &str) -> Result<u32, IdlErrorKind> {
    let digits = all_consuming(digit1::<_, nom::error::Error<&str>>)
        .parse(digits)
        .map_err(|_| invalid(word, "expected a length in decimal digits"))?
        .1;
    digits
        .parse::<u32>()
        .map_err(|_| invalid(word, "length too large"))
}

/// Parses a format word. `extended` admits the UNCONFIRMED `U`/`UV` and `I8`
/// formats (docs/rpc.md).
///
/// Errors: [`IdlErrorKind::LengthRequired`] (20010005) for `A`, `N` ...;
/// [`IdlErrorKind::LengthNotAllowed`] (20010004) for `D8`, `I4.2`, `A10.2` ...;
/// [`IdlErrorKind::InvalidFormat`] otherwise.
pub fn parse_format(word: &str, extended: bool) -> Result<Format, IdlErrorKind> {
    let Ok((
        _,
        Parts {
            letters,
            length,
            decimals,
        },
    )) = parts(word)
    else {
        return Err(invalid(word, "expected format letters and a length"));
    };
    let letters = letters.to_ascii_uppercase();
    // Nothing after the letters (`A`, `AV`, `D`).
    let rest_is_empty = length.is_empty() && decimals.is_none();
    let not_allowed = || IdlErrorKind::LengthNotAllowed {
        format: word.to_string(),
    };
    let required = || IdlErrorKind::LengthRequired {
        format: word.to_string(),
    };
    let fixed_length = || -> Result<Length, IdlErrorKind> {
        if rest_is_empty {
            return Err(required());
        }
        if decimals.is_some() {
            return Err(not_allowed());
        }
        let n = number(word, length)?;
        if n == 0 || n > MAX_FIELD_LENGTH {
            return Err(invalid(
                word,
                format!("length must be 1 to {MAX_FIELD_LENGTH} bytes"),
            ));
        }
        Ok(Length::Fixed(n))
    };
    let variable_length = || -> Result<Length, IdlErrorKind> {
        if rest_is_empty {
            return Ok(Length::Variable(None));
        }
        match fixed_length()? {
            Length::Fixed(n) => Ok(Length::Variable(Some(n))),
            v @ Length::Variable(_) => Ok(v),
        }
    };
    let numeric = |signed: bool| -> Result<NumericSpec, IdlErrorKind> {
        if rest_is_empty {
            return Err(required());
        }
        let (n, m) = match decimals {
            Some(m) => (
                if length.is_empty() {
                    0
                } else {
                    number(word, length)?
                },
                number(word, m)?,
            ),
            None => (number(word, length)?, 0),
        };
        if m > MAX_NUMERIC_DECIMALS {
            return Err(invalid(
                word,
                format!("at most {MAX_NUMERIC_DECIMALS} decimal digits"),
            ));
        }
        if n.saturating_add(m) > MAX_NUMERIC_DIGITS || n + m == 0 {
            return Err(invalid(
                word,
                format!("total digits must be 1 to {MAX_NUMERIC_DIGITS}"),
            ));
        }
        // Both are ≤ 29 here.
        Ok(NumericSpec {
            digits: n as u8,
            decimals: m as u8,
            signed,
        })
    };
    let no_length = |f: Format| -> Result<Format, IdlErrorKind> {
        if rest_is_empty {
            Ok(f)
        } else {
            Err(not_allowed())
        }
    };
    match letters.as_str() {
        "A" => Ok(Format::Alpha(fixed_length()?)),
        "AV" => Ok(Format::Alpha(variable_length()?)),
        "K" => Ok(Format::Kanji(fixed_length()?)),
        "KV" => Ok(Format::Kanji(variable_length()?)),
        "B" => Ok(Format::Binary(fixed_length()?)),
        "BV" => Ok(Format::Binary(variable_length()?)),
        "U" | "UV" if !extended => Err(invalid(
            word,
            "U/UV formats are not in the documented tables (enable extended formats)",
        )),
        "U" => Ok(Format::Unicode(fixed_length()?)),
        "UV" => Ok(Format::Unicode(variable_length()?)),
        "N" => Ok(Format::Unpacked(numeric(true)?)),
        "NU" => Ok(Format::Unpacked(numeric(false)?)),
        "P" => Ok(Format::Packed(numeric(true)?)),
        "PU" => Ok(Format::Packed(numeric(false)?)),
        "I" | "F" => {
            // The size is part of the type name; anything after it is a length.
            let size = length;
            if decimals.is_some() {
                return Err(not_allowed());
            }
            let allowed: &[&str] = match (letters.as_str(), extended) {
                ("I", false) => &["1", "2", "4"],
                ("I", true) => &["1", "2", "4", "8"],
                _ => &["4", "8"],
            };
            if size.is_empty() {
                return Err(invalid(
                    word,
                    format!("expected {}", expected_list(&letters, allowed)),
                ));
            }
            if !allowed.contains(&size) {
                if allowed.iter().any(|a| size.starts_with(a)) {
                    return Err(not_allowed());
                }
                return Err(invalid(
                    word,
                    format!("expected {}", expected_list(&letters, allowed)),
                ));
            }
            // `allowed` holds single digits only.
            let n = size.as_bytes()[0] - b'0';
            Ok(if letters == "I" {
                Format::Integer(n)
            } else {
                Format::Float(n)
            })
        }
        "D" => no_length(Format::Date),
        "T" => no_length(Format::Time),
        "L" => no_length(Format::Logical),
        _ => Err(invalid(
            word,
            "expected one of A, AV, K, KV, B, BV, N, NU, P, PU, I1, I2, I4, F4, F8, D, T, L",
        )),
    }
}

fn expected_list(letter: &str, sizes: &[&str]) -> String {
    sizes
        .iter()
        .map(|s| format!("{letter}{s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_of_the_sheet() {
        // docs/rpc.md "Reading an IDL file", formats; Software AG "Software AG IDL Grammar"
        assert_eq!(
            parse_format("A32", false),
            Ok(Format::Alpha(Length::Fixed(32)))
        );
        assert_eq!(
            parse_format("AV", false),
            Ok(Format::Alpha(Length::Variable(None)))
        );
        assert_eq!(
            parse_format("av80", false),
            Ok(Format::Alpha(Length::Variable(Some(80))))
        );
        assert_eq!(
            parse_format("NU8.3", false),
            Ok(Format::Unpacked(NumericSpec {
                digits: 8,
                decimals: 3,
                signed: false
            }))
        );
        assert_eq!(
            parse_format("P9.2", false),
            Ok(Format::Packed(NumericSpec {
                digits: 9,
                decimals: 2,
                signed: true
            }))
        );
        assert_eq!(parse_format("I2", false), Ok(Format::Integer(2)));
        assert_eq!(parse_format("F8", false), Ok(Format::Float(8)));
        assert_eq!(parse_format("T", false), Ok(Format::Time));
        assert_eq!(
            parse_format("BV128", false),
            Ok(Format::Binary(Length::Variable(Some(128))))
        );
    }

    #[test]
    fn length_rules() {
        // docs/rpc.md: A needs a length (20010005); I/F/D/T/L take none (20010004).
        assert_eq!(
            parse_format("A", false).unwrap_err().message_number(),
            Some(20010005)
        );
        assert_eq!(
            parse_format("I4.2", false).unwrap_err().message_number(),
            Some(20010004)
        );
        assert_eq!(
            parse_format("D8", false).unwrap_err().message_number(),
            Some(20010004)
        );
        assert_eq!(
            parse_format("A10.2", false).unwrap_err().message_number(),
            Some(20010004)
        );
        // n + m ≤ 29, m ≤ 7
        assert!(parse_format("N22.7", false).is_ok());
        assert!(parse_format("N23.7", false).is_err());
        assert!(parse_format("N21.8", false).is_err());
        assert!(parse_format("N25.5", false).is_err());
        assert!(parse_format("I3", false).is_err());
        assert!(parse_format("A0", false).is_err());
    }

    #[test]
    fn extended_formats_only_on_request() {
        // docs/rpc.md: U/UV/I8 behind a flag.
        assert!(parse_format("U10", false).is_err());
        assert_eq!(
            parse_format("U10", true),
            Ok(Format::Unicode(Length::Fixed(10)))
        );
        assert!(parse_format("I8", false).is_err());
        assert_eq!(parse_format("I8", true), Ok(Format::Integer(8)));
    }
}
