//! Generator and oracle harness for mqgate's mixed single/double-byte EBCDIC
//! CCSIDs (930, 939, 1390, 1399, 935, 1388, 937, 933, 1364).
//!
//! These code pages are stateful: shift-out (0x0E) starts a run of
//! double-byte characters, shift-in (0x0F) returns to single bytes (IBM
//! CDRA; ICU's `EBCDIC_STATEFUL` converter type). [`probe`] pushes every
//! single byte, every double byte 0x0000-0xFFFF and every Unicode scalar
//! through ICU `uconv` (IBM's `ibm-NNN` ucm mappings) and records what comes
//! back; [`render`] writes the compact tables that `mqgate_codecs` includes:
//! `codecs/src/ccsid/dbcs_tables.rs` (metadata, the single-byte half, the
//! few irregular mappings) and `codecs/src/ccsid/dbcs_tables.bin` (the
//! double-byte pages, both directions).

pub mod list;
pub mod probe;
pub mod render;
