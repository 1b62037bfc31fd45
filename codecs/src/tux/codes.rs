//! tperrno values, QME diagnostic values and the tperrno/diagnostic pair a
//! tpenqueue call returns (Oracle Tuxedo "tperrno(5)", "tpenqueue(3c)").

use std::fmt;

/// A Tuxedo `tperrno` value, an open set: unknown values survive a round trip.
///
/// Names and numbers as Oracle Tuxedo `atmi.h` ("tperrno(5)"). Enduro/X adds
/// values above TPMAXVAL 26 (TPINITFAIL = 30); they are carried as unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tperrno(pub i32);

/// A QME diagnostic value as found in TPQCTL `diagnostic` (a C `long`), an open
/// set: unknown values survive a round trip (tpenqueue(3c) diagnostics; values
/// of `atmi.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Qme(pub i64);

macro_rules! open_enum {
    ($ty:ident, $repr:ty, $doc:literal, $($name:ident = $value:expr),* $(,)?) => {
        impl $ty {
            $(#[doc = concat!("`", stringify!($name), "` (", stringify!($value), "), ", $doc, ".")]
            pub const $name: $ty = $ty($value);)*

            /// Every value with a name, in table order.
            pub const ALL: &'static [$ty] = &[$($ty::$name),*];

            /// The symbolic name (for example `TPENOENT`), if the value is known.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// The value for a symbolic name (exact, upper case), if known.
            pub fn from_name(name: &str) -> Option<$ty> {
                match name {
                    $(stringify!($name) => Some($ty::$name),)*
                    _ => None,
                }
            }
        }

        impl From<$repr> for $ty {
            fn from(v: $repr) -> Self {
                $ty(v)
            }
        }

        impl fmt::Display for $ty {
            /// `NAME (value)` when known, the bare number otherwise.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => write!(f, "{n} ({})", self.0),
                    None => write!(f, "{}", self.0),
                }
            }
        }
    };
}

open_enum! {
    Tperrno, i32, "Oracle Tuxedo tperrno(5), atmi.h",
    TPMINVAL = 0,
    TPEABORT = 1,
    TPEBADDESC = 2,
    TPEBLOCK = 3,
    TPEINVAL = 4,
    TPELIMIT = 5,
    TPENOENT = 6,
    TPEOS = 7,
    TPEPERM = 8,
    TPEPROTO = 9,
    TPESVCERR = 10,
    TPESVCFAIL = 11,
    TPESYSTEM = 12,
    TPETIME = 13,
    TPETRAN = 14,
    TPGOTSIG = 15,
    TPERMERR = 16,
    TPEITYPE = 17,
    TPEOTYPE = 18,
    TPERELEASE = 19,
    TPEHAZARD = 20,
    TPEHEURISTIC = 21,
    TPEEVENT = 22,
    TPEMATCH = 23,
    TPEDIAGNOSTIC = 24,
    TPEMIB = 25,
}

impl Tperrno {
    /// TPMAXVAL in Oracle Tuxedo: one above the highest tperrno (`atmi.h`).
    pub const TPMAXVAL: i32 = 26;
}

open_enum! {
    Qme, i64, "Oracle Tuxedo tpenqueue(3c), atmi.h",
    QMEINVAL = -1,
    QMEBADRMID = -2,
    QMENOTOPEN = -3,
    QMETRAN = -4,
    QMEBADMSGID = -5,
    QMESYSTEM = -6,
    QMEOS = -7,
    QMEABORTED = -8,
    QMEPROTO = -9,
    QMEBADQUEUE = -10,
    QMENOMSG = -11,
    QMEINUSE = -12,
    QMENOSPACE = -13,
    QMERELEASE = -14,
    QMEINVHANDLE = -15,
    QMESHARE = -16,
}

impl Qme {
    /// `QMENOTA`, the other name of QMEABORTED (-8) (`atmi.h`).
    pub const QMENOTA: Qme = Qme::QMEABORTED;

    /// Like [`Qme::from_name`], also accepting the alias `QMENOTA`.
    pub fn from_name_or_alias(name: &str) -> Option<Qme> {
        match name {
            "QMENOTA" => Some(Qme::QMENOTA),
            _ => Qme::from_name(name),
        }
    }
}

/// The failure a tpenqueue call returns: `tperrno`, plus the TPQCTL
/// `diagnostic` when tperrno is TPEDIAGNOSTIC (tpenqueue(3c): a queue-specific
/// failure is TPEDIAGNOSTIC with the reason in ctl->diagnostic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TpError {
    /// The tperrno value.
    pub tperrno: Tperrno,
    /// The QME diagnostic; `Some` exactly when `tperrno` is TPEDIAGNOSTIC.
    pub diagnostic: Option<Qme>,
}

impl TpError {
    /// A failure without a diagnostic (tperrno other than TPEDIAGNOSTIC).
    pub const fn tperrno(tperrno: Tperrno) -> Self {
        TpError {
            tperrno,
            diagnostic: None,
        }
    }

    /// TPEDIAGNOSTIC with the given QME diagnostic.
    pub const fn diagnostic(qme: Qme) -> Self {
        TpError {
            tperrno: Tperrno::TPEDIAGNOSTIC,
            diagnostic: Some(qme),
        }
    }
}

impl fmt::Display for TpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.diagnostic {
            Some(d) => write!(f, "tperrno {}, diagnostic {}", self.tperrno, d),
            None => write!(f, "tperrno {}", self.tperrno),
        }
    }
}
