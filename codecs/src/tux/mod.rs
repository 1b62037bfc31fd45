//! Tuxedo formats: TPQCTL, tperrno/QME codes, FML32, field tables, DMCONFIG (spec: tuxedo.md).
