//! Tokens: how a client names a lease or a unit of work it was given.
//!
//! Inside the queue manager a unit of work (a lease is one) has a 64-bit
//! number from a counter that starts again at 1 in every run of the gateway;
//! it is never handed to a client. What a client receives — and must give
//! back to acknowledge, back out or commit — is a [`Token`]: 128 bits from
//! the operating system's random number generator (`getrandom`), written as
//! 32 lowercase hex digits. A token is known only to the gateway run that
//! issued it and only while its unit is open, so:
//!
//! - a token cannot be guessed (2^128 values; a client that tries one gets
//!   2003 MQRC_BACKED_OUT and nothing changes);
//! - a token from before a restart names nothing after it (the unit was
//!   backed out by the crash or the stop; leases do not survive a restart,
//!   only their messages do — the store conformance suite's
//!   `leases_and_backouts_survive_a_restart`), so it can never reach a unit
//!   another client now holds;
//! - a lease token and a unit-of-work token come from the same generator but
//!   the calls that take them check the kind: an acknowledge with a
//!   unit-of-work token, or a commit with a lease token, is unknown too
//!   (docs/http-api.md "Leases", "Units of work").

use super::QmError;
use mqgate_codecs::mq::Mqrc;
use std::fmt;

/// What a [`Token`] names, fixed when it is issued: each kind is taken only
/// by the calls of its own front end, and a token of another kind answers
/// there exactly as a token nobody issued (docs/http-api.md "Tokens").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A lease on a queue (a destructive HTTP get, an RTQ request): taken
    /// by the acknowledge and backout of that queue.
    Lease,
    /// A unit of work of `POST /v1/uow`: taken by `/v1/uow/{id}/...`, the
    /// `uow=` of puts and gets, and tpenqueue's `uow`.
    Uow,
    /// An RPC conversation (`POST /v1/rpc/conversations`): taken by the RPC
    /// routes only.
    Conversation,
}

/// The 128-bit random name of a lease or unit of work handed to a client
/// (module docs). Shown and parsed as 32 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Token([u8; Token::BYTES]);

impl Token {
    /// Bytes in a token: 128 bits.
    const BYTES: usize = 16;
    /// Hex digits in a token's text.
    const HEX_DIGITS: usize = 2 * Token::BYTES;

    /// A new token from the operating system's random number generator.
    /// Errors: the generator failed (2195 MQRC_UNEXPECTED_ERROR; nothing
    /// was begun).
    pub fn random() -> Result<Token, QmError> {
        let mut bytes = [0u8; Token::BYTES];
        getrandom::fill(&mut bytes).map_err(|e| {
            QmError::new(
                Mqrc::UNEXPECTED_ERROR,
                format!("no random bytes for a lease or unit of work token: {e}"),
            )
        })?;
        Ok(Token(bytes))
    }

    /// The token written as `text`: exactly 32 hex digits
    /// (either case). `None` for anything else — a different length (the
    /// numbers earlier versions handed out included), or a character that is
    /// not a hex digit. Checks the length before decoding.
    pub fn parse(text: &str) -> Option<Token> {
        if text.len() != Token::HEX_DIGITS {
            return None;
        }
        let mut bytes = [0u8; Token::BYTES];
        hex::decode_to_slice(text, &mut bytes).ok()?;
        Some(Token(bytes))
    }
}

impl fmt::Display for Token {
    /// 32 lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({self})")
    }
}

impl serde::Serialize for Token {
    /// As its text: a JSON string of 32 hex digits (docs/http-api.md).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_32_lowercase_hex_digits_and_parses_back() {
        let t = Token::random().unwrap();
        let text = t.to_string();
        assert_eq!(text.len(), 32);
        assert!(
            text.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{text}"
        );
        assert_eq!(Token::parse(&text), Some(t));
        assert_eq!(Token::parse(&text.to_uppercase()), Some(t));
        assert_eq!(serde_json::to_value(t).unwrap(), serde_json::json!(text));
    }

    #[test]
    fn random_tokens_differ() {
        // 128 random bits: a repeat among 1000 draws has probability ~1.5e-33.
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            assert!(seen.insert(Token::random().unwrap()));
        }
    }

    #[test]
    fn anything_but_32_hex_digits_is_no_token() {
        let bad = [
            String::new(),
            "17".to_string(),
            "0".to_string(),
            "0".repeat(31),
            "0".repeat(33),
            "g".repeat(32),
            format!("{}-", "0".repeat(31)),
            // 32 bytes but not 32 ASCII hex digits.
            format!("é{}", "0".repeat(30)),
        ];
        for text in &bad {
            assert_eq!(Token::parse(text), None, "{text:?}");
        }
        assert_eq!(Token::parse(&"0".repeat(32)), Some(Token([0; 16])));
    }
}
