//! Character conversion by IBM CCSID (spec: ccsid.md).
