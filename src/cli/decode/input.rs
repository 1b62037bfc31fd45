//! Reading the input of `mqgate decode`: a file or standard input, raw bytes or hex text.

use std::io::Read;

/// Reads `path`, or standard input for `-`.
pub fn read_source(path: &str) -> std::io::Result<Vec<u8>> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(path)
    }
}

/// Why hex text could not be read, with its 1-based line and column.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// A character that is neither a hex digit nor whitespace.
    #[error("hex input line {line}, column {column}: {found:?} is not a hex digit")]
    BadDigit {
        line: usize,
        column: usize,
        found: char,
    },
    /// An odd number of hex digits in all; `line`:`column` (1-based) is the
    /// last digit, the one without a partner.
    #[error(
        "hex input: line {line}, column {column}: odd number of hex digits ({digits}); the last byte is incomplete"
    )]
    OddDigits {
        line: usize,
        column: usize,
        digits: usize,
    },
}

/// Decodes hex text; whitespace anywhere (between bytes or between the two
/// digits of one byte) is ignored, upper and lower case are accepted.
pub fn parse_hex(text: &[u8]) -> Result<Vec<u8>, HexError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    // The high digit waiting for its partner, with its line and column.
    let mut pending: Option<(u8, usize, usize)> = None;
    let (mut line, mut column) = (1usize, 0usize);
    let mut digits = 0usize;
    for &b in text {
        column += 1;
        if b == b'\n' {
            line += 1;
            column = 0;
            continue;
        }
        if b.is_ascii_whitespace() {
            continue;
        }
        let v = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => {
                return Err(HexError::BadDigit {
                    line,
                    column,
                    found: char::from(b),
                });
            }
        };
        digits += 1;
        match pending.take() {
            None => pending = Some((v, line, column)),
            Some((hi, _, _)) => out.push(hi << 4 | v),
        }
    }
    if let Some((_, line, column)) = pending {
        return Err(HexError::OddDigits {
            line,
            column,
            digits,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_ignored_and_errors_have_positions() {
        // The RFH2 StrucId 52 46 48 20 (IBM MQ "StrucId (MQCHAR4)"), split over lines.
        assert_eq!(parse_hex(b"52 46\n4 8\t20\n").unwrap(), b"RFH ");
        assert_eq!(parse_hex(b"ab").unwrap(), [0xAB]);
        assert_eq!(
            parse_hex(b"5246\n48x0"),
            Err(HexError::BadDigit {
                line: 2,
                column: 3,
                found: 'x'
            })
        );
        // The unpaired digit `4` is line 2, column 2.
        assert_eq!(
            parse_hex(b"52\n 4"),
            Err(HexError::OddDigits {
                line: 2,
                column: 2,
                digits: 3
            })
        );
    }
}
