//! Text forms of Rendezvous scalar values, shared by the JSON form (where a
//! value is a JSON string) and the `NAME:TYPE=VALUE` command-line syntax
//! (docs/rendezvous.md "Messages"):
//!
//! - integers: decimal (`-12`, `18446744073709551615`);
//! - floats: decimal or exponent (`101.25`, `1e-7`), `Infinity`,
//!   `-Infinity`, `NaN` (the quiet NaN Rust calls `f64::NAN`/`f32::NAN`) and
//!   `NaN(0x7ff4000000000000)` for any other NaN, by its bits;
//! - ipaddr32: dotted quad; datetime: RFC 3339; opaque and program-defined
//!   types: base64 (RFC 4648, standard alphabet, padded).

use std::net::Ipv4Addr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::rv::datetime::DateTime;

/// `s` as a decimal integer of type `T` (an optional `-`, then digits).
pub(crate) fn int<T: std::str::FromStr>(s: &str) -> Option<T> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Decimal float text: sign, digits, at most one `.`, an exponent; not the
/// words Rust's parser also takes (`inf`, `nan`).
fn decimal_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    body.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.')
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
}

/// An f64 from its text form.
pub(crate) fn f64_from_text(s: &str) -> Option<f64> {
    match s {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    if let Some(hex) = s.strip_prefix("NaN(0x").and_then(|h| h.strip_suffix(')')) {
        let x = f64::from_bits(u64::from_str_radix(hex, 16).ok()?);
        return (hex.len() == 16 && x.is_nan()).then_some(x);
    }
    if !decimal_float(s) {
        return None;
    }
    s.parse().ok()
}

/// An f32 from its text form (a decimal rounds to the nearest f32; one
/// beyond the f32 range is refused rather than made infinite).
pub(crate) fn f32_from_text(s: &str) -> Option<f32> {
    match s {
        "NaN" => return Some(f32::NAN),
        "Infinity" => return Some(f32::INFINITY),
        "-Infinity" => return Some(f32::NEG_INFINITY),
        _ => {}
    }
    if let Some(hex) = s.strip_prefix("NaN(0x").and_then(|h| h.strip_suffix(')')) {
        let x = f32::from_bits(u32::from_str_radix(hex, 16).ok()?);
        return (hex.len() == 8 && x.is_nan()).then_some(x);
    }
    if !decimal_float(s) {
        return None;
    }
    s.parse::<f32>().ok().filter(|x| x.is_finite())
}

/// The text of a non-finite f64 (`None` for a finite one, which is a JSON
/// number).
pub(crate) fn f64_special(x: f64) -> Option<String> {
    if x.is_nan() {
        Some(if x.to_bits() == f64::NAN.to_bits() {
            "NaN".into()
        } else {
            format!("NaN(0x{:016x})", x.to_bits())
        })
    } else if x.is_infinite() {
        Some(if x > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        None
    }
}

/// The text of a non-finite f32 (`None` for a finite one).
pub(crate) fn f32_special(x: f32) -> Option<String> {
    if x.is_nan() {
        Some(if x.to_bits() == f32::NAN.to_bits() {
            "NaN".into()
        } else {
            format!("NaN(0x{:08x})", x.to_bits())
        })
    } else {
        f64_special(f64::from(x))
    }
}

/// The f64 whose shortest decimal text reads back as exactly `x` when
/// narrowed to f32: `0.1` rather than `0.10000000149011612`. Falls back to
/// the exact widening when the short text would not.
pub(crate) fn f32_as_f64(x: f32) -> f64 {
    let short: Option<f64> = format!("{x:e}").parse().ok();
    match short {
        Some(d) if (d as f32).to_bits() == x.to_bits() => d,
        _ => f64::from(x),
    }
}

/// An IPv4 address in dotted-quad form.
pub(crate) fn ipaddr(s: &str) -> Option<Ipv4Addr> {
    s.parse().ok()
}

/// A datetime from RFC 3339, or why not.
pub(crate) fn datetime(s: &str) -> Result<DateTime, String> {
    DateTime::parse_rfc3339(s).map_err(|e| format!("{} at offset {}", e.kind, e.offset))
}

/// Bytes from base64, or why not.
pub(crate) fn base64(s: &str) -> Result<Vec<u8>, String> {
    BASE64.decode(s).map_err(|e| format!("not base64: {e}"))
}

/// Bytes as base64.
pub(crate) fn to_base64(b: &[u8]) -> String {
    BASE64.encode(b)
}
