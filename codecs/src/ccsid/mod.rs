//! Character conversion by IBM CCSID (docs/ccsid.md).
//!
//! - [`Ccsid`] is a supported CCSID, found with [`Ccsid::new`] (unknown numbers
//!   are an error naming them) and, for UTF-16, [`Ccsid::with_encoding`].
//! - [`decode`] (bytes → `String`), [`encode`] (`&str` → bytes) and [`convert`]
//!   / [`Converter`] (bytes of one CCSID → bytes of another). Between two
//!   single-byte sets the conversion is one composed 256-byte table, with no
//!   intermediate text.
//! - [`Options`] picks the EBCDIC newline policy ([`NewlinePolicy`], IBM MQ's
//!   ConvEBCDICNewline, default NL_TO_LF) and what happens to input that has no
//!   mapping ([`OnUnmappable`]: fail naming offset and byte, or substitute and
//!   count).
//! - [`StreamConverter`] converts a stream block by block with bounded
//!   memory (multi-byte sequences and mixed EBCDIC SO/SI runs may be split
//!   between blocks); output, substitutions and errors are those of
//!   [`convert`] on the whole input.
//! - [`decode_lossy`] is the one-call form for displaying text.
//!
//! Single-byte sets (ISO-8859, Windows, PC, EBCDIC) use 256-entry tables
//! generated from ICU by `tools/ccsid-gen`; the mixed single/double-byte
//! EBCDIC sets (930, 939, 1390, 1399, 935, 1388, 937, 933, 1364, stateful
//! with SO/SI) use two-level tables generated the same way ([`DbcsTable`]);
//! ASCII-based CJK sets use `encoding_rs`; UTF-8 and UTF-16 are handled
//! here. Pure: no I/O, no global state.

mod convert;
mod dbcs;
#[rustfmt::skip]
mod dbcs_tables;
mod error;
mod error_offset;
mod mbcs;
mod message;
mod options;
mod registry;
mod sbcs;
mod simd;
mod stream;
#[rustfmt::skip]
mod tables;
mod unicode;
mod via;

pub use convert::{
    Converter, Decoded, Encoded, convert, decode, decode_into, decode_lossy, encode, encode_into,
};
pub use dbcs::{DbcsCode, DbcsTable, DbcsText};
pub use error::ConvertError;
pub use message::{GetConversion, MessageConversion, convert_for_get, convert_message};
pub use options::{NewlinePolicy, OnUnmappable, Options};
pub use registry::{Ccsid, Family, supported};
pub use sbcs::{SbcsTable, UNDEFINED};
pub use stream::StreamConverter;
