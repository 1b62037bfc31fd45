//! Generator and oracle harness for mqgate's CCSID tables: single-byte sets
//! and mixed single/double-byte EBCDIC ([`dbcs`]).
//!
//! The tables in `codecs/src/ccsid/tables.rs` are produced by pushing bytes
//! 0x00-0xFF through ICU `uconv` (IBM's own CDRA mappings, the `ibm-NNN` ucm
//! files) and back (docs/ccsid.md). The same harness runs glibc `iconv`, so
//! the tests can compare mqgate with both tools. The mixed EBCDIC tables are
//! probed through uconv over every byte, double byte and Unicode scalar. The
//! tools are oracles for the generator and the tests only; mqgate never runs
//! them.

pub mod dbcs;
pub mod list;
pub mod oracle;
pub mod render;
