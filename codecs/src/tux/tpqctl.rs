//! TPQCTL: the control structure of tpenqueue, its `flags` bits (TPQ*), the
//! delivery QOS values, and the tpenqueue call flags (Oracle Tuxedo
//! "tpenqueue(3c)"; values of Tuxedo's `atmi.h`, as in fuxedo `atmidefs.h`).
//!
//! The binary layout is the C structure of `atmi.h` with TMMSGIDLEN 32,
//! TMCORRIDLEN 32 and TMQNAMELEN 15 (arrays of 16) by default, for LP64 or
//! ILP32 and either byte order. Every byte is kept, so `encode(decode(b)) == b`.

use std::fmt;

use super::codes::Qme;

/// A TPQCTL `flags` value (C `long`), an open bit set: unknown bits survive.
///
/// Values of Tuxedo's `atmi.h` (TPQ* flags of tpenqueue(3c)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TpqFlags(pub i64);

/// Names and values of every TPQ* flag (tpenqueue(3c), `atmi.h`), in header order.
/// Multi-bit values (TPQGETBYMSGID, TPQGETBYCORRID) come after the bits they contain.
const TPQ_FLAG_NAMES: &[(&str, i64)] = &[
    ("TPNOFLAGS", 0x00000),
    ("TPQCORRID", 0x00001),
    ("TPQFAILUREQ", 0x00002),
    ("TPQBEFOREMSGID", 0x00004),
    ("TPQGETBYMSGIDOLD", 0x00008),
    ("TPQMSGID", 0x00010),
    ("TPQPRIORITY", 0x00020),
    ("TPQTOP", 0x00040),
    ("TPQWAIT", 0x00080),
    ("TPQREPLYQ", 0x00100),
    ("TPQTIME_ABS", 0x00200),
    ("TPQTIME_REL", 0x00400),
    ("TPQGETBYCORRIDOLD", 0x00800),
    ("TPQPEEK", 0x01000),
    ("TPQDELIVERYQOS", 0x02000),
    ("TPQREPLYQOS", 0x04000),
    ("TPQEXPTIME_ABS", 0x08000),
    ("TPQEXPTIME_REL", 0x10000),
    ("TPQEXPTIME_NONE", 0x20000),
    ("TPQGETBYMSGID", 0x40008),
    ("TPQGETBYCORRID", 0x80800),
    ("TPQASYNC", 0x100000),
];

impl TpqFlags {
    /// TPNOFLAGS (0x0).
    pub const TPNOFLAGS: TpqFlags = TpqFlags(0x00000);
    /// TPQCORRID (0x1): corrid is set.
    pub const TPQCORRID: TpqFlags = TpqFlags(0x00001);
    /// TPQFAILUREQ (0x2): failurequeue is set.
    pub const TPQFAILUREQ: TpqFlags = TpqFlags(0x00002);
    /// TPQBEFOREMSGID (0x4): enqueue before the message with msgid.
    pub const TPQBEFOREMSGID: TpqFlags = TpqFlags(0x00004);
    /// TPQGETBYMSGIDOLD (0x8), deprecated.
    pub const TPQGETBYMSGIDOLD: TpqFlags = TpqFlags(0x00008);
    /// TPQMSGID (0x10): on output, msgid holds the message id.
    pub const TPQMSGID: TpqFlags = TpqFlags(0x00010);
    /// TPQPRIORITY (0x20): priority is set.
    pub const TPQPRIORITY: TpqFlags = TpqFlags(0x00020);
    /// TPQTOP (0x40): enqueue at the top of the queue.
    pub const TPQTOP: TpqFlags = TpqFlags(0x00040);
    /// TPQWAIT (0x80): dequeue waits for a message.
    pub const TPQWAIT: TpqFlags = TpqFlags(0x00080);
    /// TPQREPLYQ (0x100): replyqueue is set.
    pub const TPQREPLYQ: TpqFlags = TpqFlags(0x00100);
    /// TPQTIME_ABS (0x200): deq_time is seconds since the epoch.
    pub const TPQTIME_ABS: TpqFlags = TpqFlags(0x00200);
    /// TPQTIME_REL (0x400): deq_time is seconds after enqueue.
    pub const TPQTIME_REL: TpqFlags = TpqFlags(0x00400);
    /// TPQGETBYCORRIDOLD (0x800), deprecated.
    pub const TPQGETBYCORRIDOLD: TpqFlags = TpqFlags(0x00800);
    /// TPQPEEK (0x1000): dequeue without removing.
    pub const TPQPEEK: TpqFlags = TpqFlags(0x01000);
    /// TPQDELIVERYQOS (0x2000): delivery_qos is set.
    pub const TPQDELIVERYQOS: TpqFlags = TpqFlags(0x02000);
    /// TPQREPLYQOS (0x4000): reply_qos is set.
    pub const TPQREPLYQOS: TpqFlags = TpqFlags(0x04000);
    /// TPQEXPTIME_ABS (0x8000): exp_time is absolute.
    pub const TPQEXPTIME_ABS: TpqFlags = TpqFlags(0x08000);
    /// TPQEXPTIME_REL (0x10000): exp_time is relative.
    pub const TPQEXPTIME_REL: TpqFlags = TpqFlags(0x10000);
    /// TPQEXPTIME_NONE (0x20000): never expires; the TEDG page calls it TPQEXPTIME_NEVER.
    pub const TPQEXPTIME_NONE: TpqFlags = TpqFlags(0x20000);
    /// TPQGETBYMSGID (0x40008): dequeue by msgid.
    pub const TPQGETBYMSGID: TpqFlags = TpqFlags(0x40008);
    /// TPQGETBYCORRID (0x80800): dequeue by corrid.
    pub const TPQGETBYCORRID: TpqFlags = TpqFlags(0x80800);
    /// TPQASYNC (0x100000), Enduro/X only.
    pub const TPQASYNC: TpqFlags = TpqFlags(0x100000);

    /// Every named flag value with its name (tpenqueue(3c), `atmi.h`).
    pub fn all_named() -> impl Iterator<Item = (&'static str, TpqFlags)> {
        TPQ_FLAG_NAMES.iter().map(|&(n, v)| (n, TpqFlags(v)))
    }

    /// The value for a flag name. Accepts the `atmi.h` spellings and the TEDG
    /// page's `TPQEXPTIME_NEVER` (= TPQEXPTIME_NONE).
    pub fn from_name(name: &str) -> Option<TpqFlags> {
        if name == "TPQEXPTIME_NEVER" {
            return Some(TpqFlags::TPQEXPTIME_NONE);
        }
        TPQ_FLAG_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| TpqFlags(v))
    }

    /// True when every bit of `other` is set in `self` (and `other` is not empty).
    pub fn contains(self, other: TpqFlags) -> bool {
        other.0 != 0 && self.0 & other.0 == other.0
    }

    /// The union of two flag sets.
    pub fn union(self, other: TpqFlags) -> TpqFlags {
        TpqFlags(self.0 | other.0)
    }

    /// The single-bit flags set in `self`, by name, then the remaining unknown
    /// bits (if any) as a number. Multi-bit names (TPQGETBYMSGID...) are not
    /// used, so every set bit is reported once.
    pub fn names(self) -> (Vec<&'static str>, i64) {
        let mut names = Vec::new();
        let mut rest = self.0;
        for &(n, v) in TPQ_FLAG_NAMES {
            if v != 0 && v.count_ones() == 1 && self.0 & v != 0 {
                names.push(n);
                rest &= !v;
            }
        }
        (names, rest)
    }
}

impl fmt::Display for TpqFlags {
    /// `TPQTIME_REL|TPQMSGID`, unknown bits as hex, `TPNOFLAGS` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (names, rest) = self.names();
        if names.is_empty() && rest == 0 {
            return f.write_str("TPNOFLAGS");
        }
        let mut parts: Vec<String> = names.into_iter().map(str::to_owned).collect();
        if rest != 0 {
            parts.push(format!("{rest:#x}"));
        }
        f.write_str(&parts.join("|"))
    }
}

/// A delivery_qos / reply_qos value (tpenqueue(3c): these are values of the
/// TPQCTL fields, not `flags` bits). The TEDG page spells them TPQOS*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TpqQos(pub i64);

impl TpqQos {
    /// TPQQOSDEFAULTPERSIST (0x1); TEDG page: TPQOSDEFAULTPERSIST.
    pub const TPQQOSDEFAULTPERSIST: TpqQos = TpqQos(0x1);
    /// TPQQOSPERSISTENT (0x2); TEDG page: TPQOSPERSISTENT.
    pub const TPQQOSPERSISTENT: TpqQos = TpqQos(0x2);
    /// TPQQOSNONPERSISTENT (0x4); TEDG page: TPQOSNONPERSISTENT.
    pub const TPQQOSNONPERSISTENT: TpqQos = TpqQos(0x4);

    /// The value for a QOS name, header spelling or the TEDG page's.
    pub fn from_name(name: &str) -> Option<TpqQos> {
        match name {
            "TPQQOSDEFAULTPERSIST" | "TPQOSDEFAULTPERSIST" => Some(Self::TPQQOSDEFAULTPERSIST),
            "TPQQOSPERSISTENT" | "TPQOSPERSISTENT" => Some(Self::TPQQOSPERSISTENT),
            "TPQQOSNONPERSISTENT" | "TPQOSNONPERSISTENT" => Some(Self::TPQQOSNONPERSISTENT),
            _ => None,
        }
    }
}

/// The `flags` argument of a tpenqueue call (C `long`), an open bit set
/// (tpenqueue(3c); values of `atmi.h`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TpFlags(pub i64);

const TP_FLAG_NAMES: &[(&str, i64)] = &[
    ("TPNOBLOCK", 0x1),
    ("TPSIGRSTRT", 0x2),
    ("TPNOREPLY", 0x4),
    ("TPNOTRAN", 0x8),
    ("TPTRAN", 0x10),
    ("TPNOTIME", 0x20),
    ("TPABSOLUTE", 0x40),
    ("TPGETANY", 0x80),
    ("TPNOCHANGE", 0x100),
    ("TPCONV", 0x400),
    ("TPSENDONLY", 0x800),
    ("TPRECVONLY", 0x1000),
    ("TPACK", 0x2000),
];

impl TpFlags {
    /// TPNOBLOCK (0x1).
    pub const TPNOBLOCK: TpFlags = TpFlags(0x1);
    /// TPSIGRSTRT (0x2).
    pub const TPSIGRSTRT: TpFlags = TpFlags(0x2);
    /// TPNOREPLY (0x4).
    pub const TPNOREPLY: TpFlags = TpFlags(0x4);
    /// TPNOTRAN (0x8): the call is outside the caller's transaction.
    pub const TPNOTRAN: TpFlags = TpFlags(0x8);
    /// TPTRAN (0x10).
    pub const TPTRAN: TpFlags = TpFlags(0x10);
    /// TPNOTIME (0x20).
    pub const TPNOTIME: TpFlags = TpFlags(0x20);
    /// TPABSOLUTE (0x40).
    pub const TPABSOLUTE: TpFlags = TpFlags(0x40);
    /// TPGETANY (0x80).
    pub const TPGETANY: TpFlags = TpFlags(0x80);
    /// TPNOCHANGE (0x100).
    pub const TPNOCHANGE: TpFlags = TpFlags(0x100);
    /// TPCONV (0x400).
    pub const TPCONV: TpFlags = TpFlags(0x400);
    /// TPSENDONLY (0x800).
    pub const TPSENDONLY: TpFlags = TpFlags(0x800);
    /// TPRECVONLY (0x1000).
    pub const TPRECVONLY: TpFlags = TpFlags(0x1000);
    /// TPACK (0x2000).
    pub const TPACK: TpFlags = TpFlags(0x2000);

    /// The flags tpenqueue accepts: TPNOTRAN | TPNOBLOCK | TPNOTIME | TPSIGRSTRT
    /// (tpenqueue(3c)).
    pub const TPENQUEUE_ALLOWED: TpFlags = TpFlags(0x8 | 0x1 | 0x20 | 0x2);

    /// The value for a call flag name (`atmi.h`).
    pub fn from_name(name: &str) -> Option<TpFlags> {
        TP_FLAG_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| TpFlags(v))
    }

    /// True when every bit of `other` is set in `self` (and `other` is not empty).
    pub fn contains(self, other: TpFlags) -> bool {
        other.0 != 0 && self.0 & other.0 == other.0
    }

    /// The names of the set bits, then the unknown bits as a number.
    pub fn names(self) -> (Vec<&'static str>, i64) {
        let mut names = Vec::new();
        let mut rest = self.0;
        for &(n, v) in TP_FLAG_NAMES {
            if self.0 & v != 0 {
                names.push(n);
                rest &= !v;
            }
        }
        (names, rest)
    }
}

/// Flag names as a front end gives them (`["TPQTIME_REL","TPNOTRAN"]`), sorted
/// into TPQCTL flags, tpenqueue call flags and QOS names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamedFlags {
    /// TPQ* bits for TPQCTL `flags`.
    pub ctl: TpqFlags,
    /// Bits for the tpenqueue `flags` argument.
    pub call: TpFlags,
    /// QOS value names given in the list (TPQOSPERSISTENT...), in order. They are not
    /// flag bits; the TEDG rejects them (BEA Tuxedo "Using the BEA Tuxedo TOP END Domain
    /// Gateway": the error table).
    pub qos: Vec<&'static str>,
}

/// Flag names that are neither TPQ* flags, tpenqueue call flags nor QOS values.
/// An empty name (`--flags ""`, `"flags": [""]`) is reported as such rather
/// than as an empty list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe_unknown(.0))]
pub struct UnknownFlagNames(pub Vec<String>);

fn describe_unknown(names: &[String]) -> String {
    let named: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !n.is_empty())
        .collect();
    let empty = names.len() - named.len();
    let mut out = String::new();
    if !named.is_empty() {
        out = format!("unknown tpenqueue flag name(s): {}", named.join(", "));
    }
    if empty > 0 {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str("empty tpenqueue flag name: no flag was given (leave the flags out for none)");
    }
    out
}

/// Parses flag names (exact, upper case) into a [`NamedFlags`]. Every unknown
/// name is reported in the error, in input order.
pub fn parse_flag_names<'a, I>(names: I) -> Result<NamedFlags, UnknownFlagNames>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut out = NamedFlags::default();
    let mut unknown = Vec::new();
    for name in names {
        if let Some(f) = TpqFlags::from_name(name) {
            out.ctl = out.ctl.union(f);
        } else if let Some(f) = TpFlags::from_name(name) {
            out.call = TpFlags(out.call.0 | f.0);
        } else if TpqQos::from_name(name).is_some() {
            let canon = match name {
                "TPQQOSDEFAULTPERSIST" | "TPQOSDEFAULTPERSIST" => "TPQOSDEFAULTPERSIST",
                "TPQQOSPERSISTENT" | "TPQOSPERSISTENT" => "TPQOSPERSISTENT",
                _ => "TPQOSNONPERSISTENT",
            };
            out.qos.push(canon);
        } else {
            unknown.push(name.to_owned());
        }
    }
    if unknown.is_empty() {
        Ok(out)
    } else {
        Err(UnknownFlagNames(unknown))
    }
}

/// The C data model of the peer (LP64 or ILP32 layout of the tpenqueue(3c) TPQCTL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Abi {
    /// `long` is 8 bytes, 8-byte aligned (x86_64 Linux and most 64-bit Unix).
    Lp64,
    /// `long` is 4 bytes, 4-byte aligned.
    Ilp32,
}

/// Byte order of the `long` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Most significant byte first.
    Big,
    /// Least significant byte first.
    Little,
}

/// TMMSGIDLEN: bytes in msgid (`atmi.h`).
pub const TMMSGIDLEN: usize = 32;
/// TMCORRIDLEN: bytes in corrid (`atmi.h`).
pub const TMCORRIDLEN: usize = 32;
/// TMQNAMELEN of the TEDG era and mqgate's default (`atmi.h` of that era).
pub const TMQNAMELEN: usize = 15;
/// TMQNAMELEN in fuxedo and newer Oracle releases (fuxedo `atmidefs.h`).
pub const TMQNAMELEN_LONG: usize = 127;

/// How a TPQCTL is laid out in memory: data model, byte order, TMQNAMELEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TpqctlLayout {
    /// LP64 or ILP32.
    pub abi: Abi,
    /// Byte order of the `long` members.
    pub endian: Endian,
    /// TMQNAMELEN; replyqueue and failurequeue are `char[TMQNAMELEN + 1]`.
    pub qname_len: usize,
}

/// Byte offsets of the TPQCTL members for one layout. For TMQNAMELEN 15 they
/// are the C layout of the tpenqueue(3c) TPQCTL (LP64 size 200, ILP32 148, as
/// gcc lays it out); other lengths follow the same C alignment rules (arrays of
/// char, then `long` members aligned to their size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpqctlOffsets {
    /// flags
    pub flags: usize,
    /// deq_time
    pub deq_time: usize,
    /// priority
    pub priority: usize,
    /// diagnostic
    pub diagnostic: usize,
    /// msgid (char[32])
    pub msgid: usize,
    /// corrid (char[32])
    pub corrid: usize,
    /// replyqueue (char[TMQNAMELEN + 1])
    pub replyqueue: usize,
    /// failurequeue (char[TMQNAMELEN + 1])
    pub failurequeue: usize,
    /// cltid (CLIENTID = long[4])
    pub cltid: usize,
    /// urcode
    pub urcode: usize,
    /// appkey
    pub appkey: usize,
    /// delivery_qos
    pub delivery_qos: usize,
    /// reply_qos
    pub reply_qos: usize,
    /// exp_time
    pub exp_time: usize,
    /// sizeof(TPQCTL), padded to the `long` alignment.
    pub size: usize,
}

impl TpqctlLayout {
    /// mqgate's default: LP64, TMQNAMELEN 15, the given byte order.
    pub const fn lp64(endian: Endian) -> Self {
        TpqctlLayout {
            abi: Abi::Lp64,
            endian,
            qname_len: TMQNAMELEN,
        }
    }

    /// ILP32, TMQNAMELEN 15, the given byte order.
    pub const fn ilp32(endian: Endian) -> Self {
        TpqctlLayout {
            abi: Abi::Ilp32,
            endian,
            qname_len: TMQNAMELEN,
        }
    }

    /// Size of a C `long` in bytes.
    pub const fn long_size(&self) -> usize {
        match self.abi {
            Abi::Lp64 => 8,
            Abi::Ilp32 => 4,
        }
    }

    /// The member offsets and structure size.
    pub fn offsets(&self) -> TpqctlOffsets {
        let l = self.long_size();
        let align = |o: usize| o.div_ceil(l) * l;
        let q = self.qname_len + 1;
        let msgid = 4 * l;
        let corrid = msgid + TMMSGIDLEN;
        let replyqueue = corrid + TMCORRIDLEN;
        let failurequeue = replyqueue + q;
        let cltid = align(failurequeue + q);
        let urcode = cltid + 4 * l;
        TpqctlOffsets {
            flags: 0,
            deq_time: l,
            priority: 2 * l,
            diagnostic: 3 * l,
            msgid,
            corrid,
            replyqueue,
            failurequeue,
            cltid,
            urcode,
            appkey: urcode + l,
            delivery_qos: urcode + 2 * l,
            reply_qos: urcode + 3 * l,
            exp_time: urcode + 4 * l,
            size: urcode + 5 * l,
        }
    }
}

/// A TPQCTL (Oracle Tuxedo "tpenqueue(3c)"). Character arrays are kept whole
/// (including bytes after the NUL) so a decoded structure encodes to the same
/// bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tpqctl {
    /// flags: which members count (TPQ*).
    pub flags: TpqFlags,
    /// deq_time: seconds; absolute (TPQTIME_ABS) or relative (TPQTIME_REL).
    pub deq_time: i64,
    /// priority
    pub priority: i64,
    /// diagnostic: a QME value on output.
    pub diagnostic: Qme,
    /// msgid (TMMSGIDLEN bytes).
    pub msgid: [u8; TMMSGIDLEN],
    /// corrid (TMCORRIDLEN bytes).
    pub corrid: [u8; TMCORRIDLEN],
    /// replyqueue: exactly `qname_len + 1` bytes of the layout used.
    pub replyqueue: Vec<u8>,
    /// failurequeue: exactly `qname_len + 1` bytes of the layout used.
    pub failurequeue: Vec<u8>,
    /// cltid (CLIENTID, four longs).
    pub cltid: [i64; 4],
    /// urcode (not supported by the TEDG: the TEDG guide's Client Flag Mapping).
    pub urcode: i64,
    /// appkey
    pub appkey: i64,
    /// delivery_qos (a [`TpqQos`] value when TPQDELIVERYQOS is set).
    pub delivery_qos: i64,
    /// reply_qos (a [`TpqQos`] value when TPQREPLYQOS is set).
    pub reply_qos: i64,
    /// exp_time
    pub exp_time: i64,
    /// Padding bytes between members and at the end, in order of appearance,
    /// kept for byte fidelity (zero in a new structure).
    pub padding: Vec<u8>,
}

/// Why a TPQCTL could not be decoded or encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TpqctlError {
    /// The input is shorter than sizeof(TPQCTL).
    #[error("TPQCTL: need {needed} bytes, got {got} (offset 0)")]
    TooShort {
        /// sizeof(TPQCTL) for the layout.
        needed: usize,
        /// Input length.
        got: usize,
    },
    /// A member value does not fit the layout (a 32-bit `long`, or an array length).
    #[error("TPQCTL member {member} at offset {offset}: {what}")]
    Member {
        /// Member name (e.g. `deq_time`).
        member: &'static str,
        /// Byte offset of the member in the structure.
        offset: usize,
        /// What was wrong.
        what: String,
    },
}

impl TpqctlError {
    /// The tpenqueue failure for a bad TPQCTL: TPEINVAL (invalid arguments,
    /// Oracle Tuxedo reference "tpenqueue(3c)").
    pub fn tp_error(&self) -> super::codes::TpError {
        super::codes::TpError::tperrno(super::codes::Tperrno::TPEINVAL)
    }
}

/// The padding runs of a layout (start, length), in order. Only the gap
/// before `cltid` can be non-empty: everything after it is `long`-sized.
fn padding_runs(o: &TpqctlOffsets, layout: &TpqctlLayout) -> [(usize, usize); 1] {
    let end_fq = o.failurequeue + layout.qname_len + 1;
    [(end_fq, o.cltid - end_fq)]
}

impl Tpqctl {
    /// A zeroed TPQCTL for `layout` (TPNOFLAGS, arrays of NULs).
    pub fn new(layout: &TpqctlLayout) -> Self {
        let o = layout.offsets();
        let pad: usize = padding_runs(&o, layout).iter().map(|r| r.1).sum();
        Tpqctl {
            flags: TpqFlags::TPNOFLAGS,
            deq_time: 0,
            priority: 0,
            diagnostic: Qme(0),
            msgid: [0; TMMSGIDLEN],
            corrid: [0; TMCORRIDLEN],
            replyqueue: vec![0; layout.qname_len + 1],
            failurequeue: vec![0; layout.qname_len + 1],
            cltid: [0; 4],
            urcode: 0,
            appkey: 0,
            delivery_qos: 0,
            reply_qos: 0,
            exp_time: 0,
            padding: vec![0; pad],
        }
    }

    /// Decodes the first sizeof(TPQCTL) bytes of `input`. The length is checked
    /// before anything is read; bytes after the structure are ignored.
    pub fn decode(input: &[u8], layout: &TpqctlLayout) -> Result<Self, TpqctlError> {
        let o = layout.offsets();
        if input.len() < o.size {
            return Err(TpqctlError::TooShort {
                needed: o.size,
                got: input.len(),
            });
        }
        let b = &input[..o.size];
        let l = layout.long_size();
        let long = |off: usize| -> i64 {
            let s = &b[off..off + l];
            match (layout.abi, layout.endian) {
                (Abi::Lp64, Endian::Big) => i64::from_be_bytes(arr8(s)),
                (Abi::Lp64, Endian::Little) => i64::from_le_bytes(arr8(s)),
                (Abi::Ilp32, Endian::Big) => i64::from(i32::from_be_bytes(arr4(s))),
                (Abi::Ilp32, Endian::Little) => i64::from(i32::from_le_bytes(arr4(s))),
            }
        };
        let q = layout.qname_len + 1;
        let mut msgid = [0; TMMSGIDLEN];
        msgid.copy_from_slice(&b[o.msgid..o.msgid + TMMSGIDLEN]);
        let mut corrid = [0; TMCORRIDLEN];
        corrid.copy_from_slice(&b[o.corrid..o.corrid + TMCORRIDLEN]);
        let mut padding = Vec::new();
        for (start, len) in padding_runs(&o, layout) {
            padding.extend_from_slice(&b[start..start + len]);
        }
        Ok(Tpqctl {
            flags: TpqFlags(long(o.flags)),
            deq_time: long(o.deq_time),
            priority: long(o.priority),
            diagnostic: Qme(long(o.diagnostic)),
            msgid,
            corrid,
            replyqueue: b[o.replyqueue..o.replyqueue + q].to_vec(),
            failurequeue: b[o.failurequeue..o.failurequeue + q].to_vec(),
            cltid: [
                long(o.cltid),
                long(o.cltid + l),
                long(o.cltid + 2 * l),
                long(o.cltid + 3 * l),
            ],
            urcode: long(o.urcode),
            appkey: long(o.appkey),
            delivery_qos: long(o.delivery_qos),
            reply_qos: long(o.reply_qos),
            exp_time: long(o.exp_time),
            padding,
        })
    }

    /// Appends the structure in `layout` to `out`. Fails (appending nothing)
    /// when a value does not fit a 32-bit `long` on ILP32, or an array or the
    /// padding has the wrong length for the layout.
    pub fn encode(&self, layout: &TpqctlLayout, out: &mut Vec<u8>) -> Result<(), TpqctlError> {
        let o = layout.offsets();
        let q = layout.qname_len + 1;
        for (member, offset, v) in [
            ("replyqueue", o.replyqueue, &self.replyqueue),
            ("failurequeue", o.failurequeue, &self.failurequeue),
        ] {
            if v.len() != q {
                return Err(TpqctlError::Member {
                    member,
                    offset,
                    what: format!("array of {} bytes, layout needs {q}", v.len()),
                });
            }
        }
        let runs = padding_runs(&o, layout);
        let pad_len: usize = runs.iter().map(|r| r.1).sum();
        if self.padding.len() != pad_len {
            return Err(TpqctlError::Member {
                member: "padding",
                offset: runs[0].0,
                what: format!("{} padding bytes, layout has {pad_len}", self.padding.len()),
            });
        }
        let longs: [(&'static str, usize, i64); 13] = [
            ("flags", o.flags, self.flags.0),
            ("deq_time", o.deq_time, self.deq_time),
            ("priority", o.priority, self.priority),
            ("diagnostic", o.diagnostic, self.diagnostic.0),
            ("cltid[0]", o.cltid, self.cltid[0]),
            ("cltid[1]", o.cltid + layout.long_size(), self.cltid[1]),
            ("cltid[2]", o.cltid + 2 * layout.long_size(), self.cltid[2]),
            ("cltid[3]", o.cltid + 3 * layout.long_size(), self.cltid[3]),
            ("urcode", o.urcode, self.urcode),
            ("appkey", o.appkey, self.appkey),
            ("delivery_qos", o.delivery_qos, self.delivery_qos),
            ("reply_qos", o.reply_qos, self.reply_qos),
            ("exp_time", o.exp_time, self.exp_time),
        ];
        if layout.abi == Abi::Ilp32 {
            for &(member, offset, v) in &longs {
                if i32::try_from(v).is_err() {
                    return Err(TpqctlError::Member {
                        member,
                        offset,
                        what: format!("{v} does not fit a 32-bit long"),
                    });
                }
            }
        }
        let mut b = vec![0u8; o.size];
        for &(_, offset, v) in &longs {
            let dst = &mut b[offset..offset + layout.long_size()];
            // Range checked above for ILP32, so the `as` keeps the value.
            match (layout.abi, layout.endian) {
                (Abi::Lp64, Endian::Big) => dst.copy_from_slice(&v.to_be_bytes()),
                (Abi::Lp64, Endian::Little) => dst.copy_from_slice(&v.to_le_bytes()),
                (Abi::Ilp32, Endian::Big) => dst.copy_from_slice(&(v as i32).to_be_bytes()),
                (Abi::Ilp32, Endian::Little) => dst.copy_from_slice(&(v as i32).to_le_bytes()),
            }
        }
        b[o.msgid..o.msgid + TMMSGIDLEN].copy_from_slice(&self.msgid);
        b[o.corrid..o.corrid + TMCORRIDLEN].copy_from_slice(&self.corrid);
        b[o.replyqueue..o.replyqueue + q].copy_from_slice(&self.replyqueue);
        b[o.failurequeue..o.failurequeue + q].copy_from_slice(&self.failurequeue);
        let mut p = 0;
        for (start, len) in runs {
            b[start..start + len].copy_from_slice(&self.padding[p..p + len]);
            p += len;
        }
        out.extend_from_slice(&b);
        Ok(())
    }

    /// replyqueue up to its first NUL.
    pub fn replyqueue_name(&self) -> &[u8] {
        until_nul(&self.replyqueue)
    }

    /// failurequeue up to its first NUL.
    pub fn failurequeue_name(&self) -> &[u8] {
        until_nul(&self.failurequeue)
    }
}

fn until_nul(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    &b[..end]
}

fn arr8(s: &[u8]) -> [u8; 8] {
    let mut a = [0; 8];
    a.copy_from_slice(s);
    a
}

fn arr4(s: &[u8]) -> [u8; 4] {
    let mut a = [0; 4];
    a.copy_from_slice(s);
    a
}
