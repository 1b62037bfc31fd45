//! Tuxedo formats: TPQCTL, tperrno/QME codes, FML32, field tables, DMCONFIG (Oracle
//! Tuxedo manual pages, named per module; docs/tuxedo.md).
//!
//! Pure codecs for the TOP END Domain Gateway (BEA Tuxedo "Using the BEA Tuxedo TOP END
//! Domain Gateway"): the gateway in the service (`src/tedg/`) builds on these.
//!
//! - [`codes`]: tperrno, QME diagnostics, [`codes::TpError`].
//! - [`tpqctl`]: TPQCTL layout, TPQ* flags, tpenqueue call flags, flag names.
//! - [`rtq`]: the RTQ side mqgate defines: schedule times, TP_RTQ_* statuses, request ids.
//! - [`tedg`]: the TEDG guide's flag mapping table and error table as pure functions.
//! - [`buftype`]: the FML32/CARRAY/X_OCTET check against INBUFTYPE and the 30,000-byte limit.
//! - [`fml32`]: field ids and types, FML32 buffers, index-stripped size.
//! - [`fieldtbl`]: field tables in the Tuxedo text format.
//! - [`cfgtext`]: the DMCONFIG/UBBCONFIG text lexer and section parser.
//! - [`dmconfig`]: DMCONFIG as typed configuration for the TEDG.
//! - [`enqueue`]: a tpenqueue request checked end to end → the RTQ put to perform.

pub mod buftype;
pub mod cfgtext;
pub mod codes;
pub mod dmconfig;
pub mod enqueue;
pub mod fieldtbl;
pub mod fml32;
pub mod rtq;
pub mod tedg;
pub mod tpqctl;
