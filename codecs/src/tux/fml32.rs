//! FML32: field ids, field types, Ferror32 codes, and FML32 buffers (Oracle
//! Tuxedo FML reference; ids, types and limits as in Tuxedo's `fml32.h`).
//!
//! Buffer encoding: big-endian, 24-byte header, fields sorted by id, no index
//! entries. No public document gives Oracle's layout, so mqgate owns this
//! encoding (docs/tuxedo.md "FML32"): it is the one used in mqgate's store and
//! front ends, not a claim about Oracle's native form. FLD_FML32 and FLD_VIEW32
//! have no known form; mqgate's forms are given on [`FieldValue`]. FLD_PTR
//! cannot travel (a pointer), FLD_INT/FLD_DECIMAL are VIEW-only and FLD_FML
//! (embedded FML16) is not carried: all are refused.

use std::fmt;

/// F_MAGIC32, the first int32 of an FML32 buffer (`fml32.h`; mqgate's encoding).
pub const F_MAGIC32: i32 = -10000;
/// Bytes in the buffer header: six int32 (mqgate's encoding, docs/tuxedo.md).
pub const FML32_HEADER_LEN: usize = 24;
/// MAXFBLEN32, the largest FML32 buffer in bytes (`fml32.h`).
pub const MAXFBLEN32: usize = 0x7fff_fffe;
/// FSTDXINTVL, the standard index interval (`fml32.h`).
pub const FSTDXINTVL: i32 = 16;
/// Largest field number in an FML32 field id (`fml32.h`: 25 number bits).
pub const MAX_FIELD_NUMBER: u32 = 0x1FF_FFFF;
/// How deep FLD_FML32 fields may nest in a decoded buffer (mqgate limit, so
/// hostile input cannot exhaust the stack).
pub const MAX_NESTING: usize = 16;

/// An FML32 field type (FLD_* of `fml32.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldType {
    /// FLD_SHORT (0)
    Short,
    /// FLD_LONG (1)
    Long,
    /// FLD_CHAR (2)
    Char,
    /// FLD_FLOAT (3)
    Float,
    /// FLD_DOUBLE (4)
    Double,
    /// FLD_STRING (5)
    String,
    /// FLD_CARRAY (6)
    Carray,
    /// FLD_INT (7), reserved, VIEW only
    Int,
    /// FLD_DECIMAL (8), reserved, VIEW only
    Decimal,
    /// FLD_PTR (9)
    Ptr,
    /// FLD_FML32 (10)
    Fml32,
    /// FLD_VIEW32 (11)
    View32,
    /// FLD_MBSTRING (12)
    Mbstring,
    /// FLD_FML (13), embedded FML16, newer releases
    Fml,
}

impl FieldType {
    /// Every type in code order.
    pub const ALL: [FieldType; 14] = [
        FieldType::Short,
        FieldType::Long,
        FieldType::Char,
        FieldType::Float,
        FieldType::Double,
        FieldType::String,
        FieldType::Carray,
        FieldType::Int,
        FieldType::Decimal,
        FieldType::Ptr,
        FieldType::Fml32,
        FieldType::View32,
        FieldType::Mbstring,
        FieldType::Fml,
    ];

    /// The type code (FLD_SHORT 0 ... FLD_FML 13).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The type for a code; `None` above 13.
    pub fn from_code(code: u32) -> Option<FieldType> {
        usize::try_from(code)
            .ok()
            .and_then(|c| FieldType::ALL.get(c).copied())
    }

    /// The C name, e.g. `FLD_STRING`.
    pub fn c_name(self) -> &'static str {
        match self {
            FieldType::Short => "FLD_SHORT",
            FieldType::Long => "FLD_LONG",
            FieldType::Char => "FLD_CHAR",
            FieldType::Float => "FLD_FLOAT",
            FieldType::Double => "FLD_DOUBLE",
            FieldType::String => "FLD_STRING",
            FieldType::Carray => "FLD_CARRAY",
            FieldType::Int => "FLD_INT",
            FieldType::Decimal => "FLD_DECIMAL",
            FieldType::Ptr => "FLD_PTR",
            FieldType::Fml32 => "FLD_FML32",
            FieldType::View32 => "FLD_VIEW32",
            FieldType::Mbstring => "FLD_MBSTRING",
            FieldType::Fml => "FLD_FML",
        }
    }

    /// The field-table name (`short`, `fml32`...) (Oracle Tuxedo "field_tables(5)").
    pub fn table_name(self) -> &'static str {
        match self {
            FieldType::Short => "short",
            FieldType::Long => "long",
            FieldType::Char => "char",
            FieldType::Float => "float",
            FieldType::Double => "double",
            FieldType::String => "string",
            FieldType::Carray => "carray",
            FieldType::Int => "int",
            FieldType::Decimal => "decimal",
            FieldType::Ptr => "ptr",
            FieldType::Fml32 => "fml32",
            FieldType::View32 => "view32",
            FieldType::Mbstring => "mbstring",
            FieldType::Fml => "fml",
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

/// An FML32 field id: `(type << 25) | number` (`fml32.h`). Any 32-bit value is
/// representable; [`FieldId::new`] builds only valid ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u32);

impl FieldId {
    /// BADFLDID (0).
    pub const BADFLDID: FieldId = FieldId(0);

    /// `(type << 25) | number`; `None` when number is 0 or above 0x1FFFFFF.
    pub fn new(field_type: FieldType, number: u32) -> Option<FieldId> {
        (1..=MAX_FIELD_NUMBER)
            .contains(&number)
            .then(|| FieldId((field_type.code() << 25) | number))
    }

    /// The field number (low 25 bits).
    pub fn number(self) -> u32 {
        self.0 & MAX_FIELD_NUMBER
    }

    /// The type code (bits 25 and up).
    pub fn type_code(self) -> u32 {
        self.0 >> 25
    }

    /// The field type, if the code is a known one.
    pub fn field_type(self) -> Option<FieldType> {
        FieldType::from_code(self.type_code())
    }
}

impl fmt::Display for FieldId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A Ferror32 value, an open set (Tuxedo `fml32.h`; Enduro/X numbers are
/// shifted by one and are not used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ferror32(pub i32);

impl Ferror32 {
    /// FMINVAL (0)
    pub const FMINVAL: Ferror32 = Ferror32(0);
    /// FALIGNERR (1): buffer not aligned / header invalid.
    pub const FALIGNERR: Ferror32 = Ferror32(1);
    /// FNOTFLD (2): not a fielded buffer.
    pub const FNOTFLD: Ferror32 = Ferror32(2);
    /// FNOSPACE (3): no space in buffer.
    pub const FNOSPACE: Ferror32 = Ferror32(3);
    /// FNOTPRES (4): field not present.
    pub const FNOTPRES: Ferror32 = Ferror32(4);
    /// FBADFLD (5): unknown field number or type.
    pub const FBADFLD: Ferror32 = Ferror32(5);
    /// FTYPERR (6): illegal field type.
    pub const FTYPERR: Ferror32 = Ferror32(6);
    /// FEUNIX (7): UNIX system call error.
    pub const FEUNIX: Ferror32 = Ferror32(7);
    /// FBADNAME (8): unknown field name.
    pub const FBADNAME: Ferror32 = Ferror32(8);
    /// FMALLOC (9): malloc failed.
    pub const FMALLOC: Ferror32 = Ferror32(9);
    /// FSYNTAX (10): bad syntax in boolean expression.
    pub const FSYNTAX: Ferror32 = Ferror32(10);
    /// FFTOPEN (11): cannot find or open field table.
    pub const FFTOPEN: Ferror32 = Ferror32(11);
    /// FFTSYNTAX (12): syntax error in field table.
    pub const FFTSYNTAX: Ferror32 = Ferror32(12);
    /// FEINVAL (13): invalid argument.
    pub const FEINVAL: Ferror32 = Ferror32(13);
    /// FBADTBL (14): destructive concurrent access to field table.
    pub const FBADTBL: Ferror32 = Ferror32(14);
    /// FBADVIEW (15): cannot find or get view.
    pub const FBADVIEW: Ferror32 = Ferror32(15);
    /// FVFSYNTAX (16): bad viewfile.
    pub const FVFSYNTAX: Ferror32 = Ferror32(16);
    /// FVFOPEN (17): cannot find or open viewfile.
    pub const FVFOPEN: Ferror32 = Ferror32(17);
    /// FBADACM (18): ACM contains negative value.
    pub const FBADACM: Ferror32 = Ferror32(18);
    /// FNOCNAME (19): cname not found.
    pub const FNOCNAME: Ferror32 = Ferror32(19);
    /// FEBADOP (20): operation invalid for field type.
    pub const FEBADOP: Ferror32 = Ferror32(20);
    /// FMAXVAL (21): one above the highest value.
    pub const FMAXVAL: Ferror32 = Ferror32(21);

    /// The symbolic name, if known.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 22] = [
            "FMINVAL",
            "FALIGNERR",
            "FNOTFLD",
            "FNOSPACE",
            "FNOTPRES",
            "FBADFLD",
            "FTYPERR",
            "FEUNIX",
            "FBADNAME",
            "FMALLOC",
            "FSYNTAX",
            "FFTOPEN",
            "FFTSYNTAX",
            "FEINVAL",
            "FBADTBL",
            "FBADVIEW",
            "FVFSYNTAX",
            "FVFOPEN",
            "FBADACM",
            "FNOCNAME",
            "FEBADOP",
            "FMAXVAL",
        ];
        usize::try_from(self.0)
            .ok()
            .and_then(|i| NAMES.get(i).copied())
    }
}

/// A field value. Wire forms of mqgate's encoding (docs/tuxedo.md "FML32"; big-endian,
/// each padded with zeros to 4 bytes):
///
/// - Short, Char, Long: one int32 (Char is the byte value 0..=255, Long must
///   fit 32 bits); Float 4 bytes; Double 8 bytes (IEEE, bits kept).
/// - String: int32 (len+1+8), int32 (len+1), bytes, NUL.
/// - Carray: int32 (len+8), int32 len, bytes.
/// - Mbstring: int32 (12+len), int32 udlen (= len), int32 len, bytes.
/// - Fml32 (mqgate): int32 (len+8), int32 len, the embedded buffer encoded.
/// - View32 (mqgate): int32 namelen, name bytes, pad, int32 datalen, data.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// FLD_SHORT
    Short(i16),
    /// FLD_LONG (carried as 32 bits)
    Long(i64),
    /// FLD_CHAR
    Char(u8),
    /// FLD_FLOAT
    Float(f32),
    /// FLD_DOUBLE
    Double(f64),
    /// FLD_STRING: bytes without the terminating NUL (no NUL inside).
    String(Vec<u8>),
    /// FLD_CARRAY
    Carray(Vec<u8>),
    /// FLD_MBSTRING: the packed bytes (Fmbpack32 form), opaque here.
    Mbstring(Vec<u8>),
    /// FLD_FML32: an embedded buffer.
    Fml32(Fml32Buffer),
    /// FLD_VIEW32: view name and the view's bytes, opaque here.
    View32 {
        /// The VIEW32 name.
        name: Vec<u8>,
        /// The structure bytes.
        data: Vec<u8>,
    },
}

impl FieldValue {
    /// The field type this value belongs to.
    pub fn field_type(&self) -> FieldType {
        match self {
            FieldValue::Short(_) => FieldType::Short,
            FieldValue::Long(_) => FieldType::Long,
            FieldValue::Char(_) => FieldType::Char,
            FieldValue::Float(_) => FieldType::Float,
            FieldValue::Double(_) => FieldType::Double,
            FieldValue::String(_) => FieldType::String,
            FieldValue::Carray(_) => FieldType::Carray,
            FieldValue::Mbstring(_) => FieldType::Mbstring,
            FieldValue::Fml32(_) => FieldType::Fml32,
            FieldValue::View32 { .. } => FieldType::View32,
        }
    }

    /// Encoded bytes after the 4-byte field id, padding included.
    fn wire_len(&self) -> usize {
        match self {
            FieldValue::Short(_) | FieldValue::Long(_) | FieldValue::Char(_) => 4,
            FieldValue::Float(_) => 4,
            FieldValue::Double(_) => 8,
            FieldValue::String(s) => 8 + pad4(s.len() + 1),
            FieldValue::Carray(c) => 8 + pad4(c.len()),
            FieldValue::Mbstring(m) => 12 + pad4(m.len()),
            FieldValue::Fml32(b) => 8 + pad4(b.encoded_len()),
            FieldValue::View32 { name, data } => 8 + pad4(name.len()) + pad4(data.len()),
        }
    }
}

fn pad4(n: usize) -> usize {
    n.saturating_add(3) & !3
}

/// What was wrong in an FML32 buffer or field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fml32ErrorKind {
    /// Fewer bytes than the header or a field needs. The error's offset is
    /// where the header or the field (its id) starts, so it is inside the
    /// input (0 for an empty input).
    Truncated {
        /// Bytes needed from the offset.
        needed: usize,
        /// Bytes available from the offset.
        available: usize,
    },
    /// The first int32 is not F_MAGIC32.
    BadMagic(i32),
    /// A header field is inconsistent (len, maxlen, nfields).
    BadHeader(String),
    /// The field id's number is 0 or its type code unknown.
    BadFieldId(u32),
    /// A type that cannot be carried in a buffer (FLD_PTR, FLD_INT, FLD_DECIMAL, FLD_FML).
    UnsupportedType(FieldType),
    /// Field ids not in non-decreasing order.
    OutOfOrder {
        /// The previous field id.
        previous: u32,
        /// The field id that follows it.
        this: u32,
    },
    /// A value that does not match its field id's type.
    TypeMismatch {
        /// The field id's type.
        expected: FieldType,
        /// The value's type.
        got: FieldType,
    },
    /// A value field that is inconsistent (length fields, NUL, padding, range).
    BadValue(String),
    /// Embedded FML32 deeper than [`MAX_NESTING`].
    TooDeep,
    /// The buffer would exceed MAXFBLEN32 or a length would not fit int32.
    TooLarge(usize),
}

/// An FML32 decode/encode error: where (byte offset from the start of the
/// outermost buffer, field id if known) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("FML32 at offset {offset}{}: {}", field.map(|f| format!(" (field id {f})")).unwrap_or_default(), describe(.kind))]
pub struct Fml32Error {
    /// Byte offset of the offending item.
    pub offset: usize,
    /// The field id being read or written, if any.
    pub field: Option<u32>,
    /// What was wrong.
    pub kind: Fml32ErrorKind,
}

fn describe(kind: &Fml32ErrorKind) -> String {
    match kind {
        Fml32ErrorKind::Truncated { needed, available } => {
            format!("truncated: need {needed} bytes, {available} available")
        }
        Fml32ErrorKind::BadMagic(m) => format!("magic {m} is not F_MAGIC32 (-10000)"),
        Fml32ErrorKind::BadHeader(s) => format!("bad header: {s}"),
        Fml32ErrorKind::BadFieldId(id) => format!("bad field id {id:#x}"),
        Fml32ErrorKind::UnsupportedType(t) => format!("{t} fields cannot be carried"),
        Fml32ErrorKind::OutOfOrder { previous, this } => {
            format!("field id {this} follows {previous} (fields must be sorted by id)")
        }
        Fml32ErrorKind::TypeMismatch { expected, got } => {
            format!("value of type {got} for a {expected} field")
        }
        Fml32ErrorKind::BadValue(s) => format!("bad value: {s}"),
        Fml32ErrorKind::TooDeep => format!("embedded FML32 nested deeper than {MAX_NESTING}"),
        Fml32ErrorKind::TooLarge(n) => format!("{n} bytes exceeds MAXFBLEN32"),
    }
}

impl Fml32Error {
    /// The Ferror32 code Tuxedo would set for this error.
    pub fn ferror(&self) -> Ferror32 {
        match self.kind {
            Fml32ErrorKind::Truncated { .. }
            | Fml32ErrorKind::BadMagic(_)
            | Fml32ErrorKind::BadHeader(_) => Ferror32::FNOTFLD,
            Fml32ErrorKind::BadFieldId(_) | Fml32ErrorKind::OutOfOrder { .. } => Ferror32::FBADFLD,
            Fml32ErrorKind::UnsupportedType(_) | Fml32ErrorKind::TypeMismatch { .. } => {
                Ferror32::FTYPERR
            }
            Fml32ErrorKind::BadValue(_) | Fml32ErrorKind::TooDeep => Ferror32::FEINVAL,
            Fml32ErrorKind::TooLarge(_) => Ferror32::FNOSPACE,
        }
    }
}

/// An FML32 buffer: field occurrences sorted by field id, plus the header
/// values that are kept for byte fidelity but otherwise ignored (maxlen, the
/// index count and interval: Tuxedo strips the index before a buffer travels,
/// FML reference Funindex32/Frstrindex32, so they must be ignored).
#[derive(Clone, Debug, PartialEq)]
pub struct Fml32Buffer {
    fields: Vec<(FieldId, FieldValue)>,
    /// Header maxlen when it differs from len; 0 means "equal to len".
    maxlen: u32,
    nie: i32,
    indxintvl: i32,
}

impl Default for Fml32Buffer {
    fn default() -> Self {
        Self::new()
    }
}

fn err(offset: usize, field: Option<u32>, kind: Fml32ErrorKind) -> Fml32Error {
    Fml32Error {
        offset,
        field,
        kind,
    }
}

fn carried(id: FieldId, offset: usize) -> Result<FieldType, Fml32Error> {
    let t = match id.field_type() {
        Some(t) if id.number() != 0 => t,
        _ => return Err(err(offset, Some(id.0), Fml32ErrorKind::BadFieldId(id.0))),
    };
    match t {
        FieldType::Ptr | FieldType::Int | FieldType::Decimal | FieldType::Fml => {
            Err(err(offset, Some(id.0), Fml32ErrorKind::UnsupportedType(t)))
        }
        _ => Ok(t),
    }
}

impl Fml32Buffer {
    /// An empty buffer (index interval FSTDXINTVL, no index entries).
    pub fn new() -> Self {
        Fml32Buffer {
            fields: Vec::new(),
            maxlen: 0,
            nie: 0,
            indxintvl: FSTDXINTVL,
        }
    }

    /// Adds an occurrence after the existing occurrences of `id` (keeping the
    /// fields sorted). Fails with FBADFLD/FTYPERR when the id is invalid, its
    /// type cannot be carried, or the value's type differs from the id's.
    pub fn add(&mut self, id: FieldId, value: FieldValue) -> Result<(), Fml32Error> {
        let t = carried(id, 0)?;
        if t != value.field_type() {
            return Err(err(
                0,
                Some(id.0),
                Fml32ErrorKind::TypeMismatch {
                    expected: t,
                    got: value.field_type(),
                },
            ));
        }
        let pos = self.fields.partition_point(|(f, _)| *f <= id);
        self.fields.insert(pos, (id, value));
        Ok(())
    }

    /// All field occurrences, sorted by id.
    pub fn fields(&self) -> &[(FieldId, FieldValue)] {
        &self.fields
    }

    /// Occurrence `occ` (0-based) of field `id`.
    pub fn get(&self, id: FieldId, occ: usize) -> Option<&FieldValue> {
        self.occurrences(id).nth(occ)
    }

    /// Every occurrence of field `id`, in order.
    pub fn occurrences(&self, id: FieldId) -> impl Iterator<Item = &FieldValue> {
        let start = self.fields.partition_point(|(f, _)| *f < id);
        self.fields[start..]
            .iter()
            .take_while(move |(f, _)| *f == id)
            .map(|(_, v)| v)
    }

    /// The encoded (index stripped) length in bytes: header plus fields, what Fused32
    /// reports and what counts toward the 30,000-byte RTQ limit (FML reference
    /// Funindex32; BEA Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway"). Saturates
    /// at `usize::MAX`.
    pub fn encoded_len(&self) -> usize {
        self.fields.iter().fold(FML32_HEADER_LEN, |n, (_, v)| {
            n.saturating_add(4 + v.wire_len())
        })
    }

    /// Appends the encoded buffer to `out` (nothing is appended on error).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), Fml32Error> {
        let mut buf = Vec::with_capacity(self.encoded_len().min(1 << 20));
        self.encode_at(&mut buf, 0)?;
        out.extend_from_slice(&buf);
        Ok(())
    }

    fn encode_at(&self, out: &mut Vec<u8>, base: usize) -> Result<(), Fml32Error> {
        let len = self.encoded_len();
        if len > MAXFBLEN32 {
            return Err(err(base, None, Fml32ErrorKind::TooLarge(len)));
        }
        let nfields = i32::try_from(self.fields.len())
            .map_err(|_| err(base, None, Fml32ErrorKind::TooLarge(len)))?;
        let start = out.len();
        // len <= MAXFBLEN32 < i32::MAX, so these conversions are exact.
        let len32 = len as i32;
        let maxlen = (self.maxlen as i32).max(len32);
        for v in [F_MAGIC32, len32, maxlen, nfields, self.nie, self.indxintvl] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        let mut prev: Option<FieldId> = None;
        for (id, value) in &self.fields {
            let off = base + out.len() - start;
            if let Some(p) = prev
                && *id < p
            {
                return Err(err(
                    off,
                    Some(id.0),
                    Fml32ErrorKind::OutOfOrder {
                        previous: p.0,
                        this: id.0,
                    },
                ));
            }
            prev = Some(*id);
            let t = carried(*id, off)?;
            if t != value.field_type() {
                return Err(err(
                    off,
                    Some(id.0),
                    Fml32ErrorKind::TypeMismatch {
                        expected: t,
                        got: value.field_type(),
                    },
                ));
            }
            out.extend_from_slice(&id.0.to_be_bytes());
            encode_value(value, out, off, id.0, base + out.len() - start)?;
        }
        Ok(())
    }

    /// Decodes one buffer from the start of `input`, returning it and the
    /// number of bytes used (the header's len; any bytes after it are not
    /// read). Every length is checked against the input before it is used.
    pub fn decode(input: &[u8]) -> Result<(Self, usize), Fml32Error> {
        decode_at(input, 0, 0)
    }
}

/// The index-stripped size of an encoded FML32 buffer (FML reference
/// Funindex32): the buffer is decoded and its encoded length returned, so stale
/// index counts in the header do not count.
pub fn index_stripped_size(input: &[u8]) -> Result<usize, Fml32Error> {
    Fml32Buffer::decode(input).map(|(b, _)| b.encoded_len())
}

fn len_i32(n: usize, offset: usize, id: u32) -> Result<i32, Fml32Error> {
    i32::try_from(n).map_err(|_| err(offset, Some(id), Fml32ErrorKind::TooLarge(n)))
}

fn put_padded(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
    out.resize(out.len() + (pad4(bytes.len()) - bytes.len()), 0);
}

fn encode_value(
    value: &FieldValue,
    out: &mut Vec<u8>,
    off: usize,
    id: u32,
    value_base: usize,
) -> Result<(), Fml32Error> {
    let bad = |s: String| err(off, Some(id), Fml32ErrorKind::BadValue(s));
    match value {
        FieldValue::Short(v) => out.extend_from_slice(&i32::from(*v).to_be_bytes()),
        FieldValue::Char(v) => out.extend_from_slice(&i32::from(*v).to_be_bytes()),
        FieldValue::Long(v) => {
            let v = i32::try_from(*v)
                .map_err(|_| bad(format!("FLD_LONG {v} does not fit the 32-bit wire form")))?;
            out.extend_from_slice(&v.to_be_bytes());
        }
        FieldValue::Float(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
        FieldValue::Double(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
        FieldValue::String(s) => {
            if s.contains(&0) {
                return Err(bad("FLD_STRING contains a NUL byte".into()));
            }
            let l1 = len_i32(s.len().saturating_add(1), off, id)?;
            out.extend_from_slice(&l1.saturating_add(8).to_be_bytes());
            out.extend_from_slice(&l1.to_be_bytes());
            let mut with_nul = Vec::with_capacity(s.len() + 1);
            with_nul.extend_from_slice(s);
            with_nul.push(0);
            put_padded(out, &with_nul);
        }
        FieldValue::Carray(c) => {
            let l = len_i32(c.len(), off, id)?;
            out.extend_from_slice(&l.saturating_add(8).to_be_bytes());
            out.extend_from_slice(&l.to_be_bytes());
            put_padded(out, c);
        }
        FieldValue::Mbstring(m) => {
            let l = len_i32(m.len(), off, id)?;
            out.extend_from_slice(&l.saturating_add(12).to_be_bytes());
            out.extend_from_slice(&l.to_be_bytes());
            out.extend_from_slice(&l.to_be_bytes());
            put_padded(out, m);
        }
        FieldValue::Fml32(b) => {
            let l = len_i32(b.encoded_len(), off, id)?;
            out.extend_from_slice(&l.saturating_add(8).to_be_bytes());
            out.extend_from_slice(&l.to_be_bytes());
            b.encode_at(out, value_base + 8)?;
            out.resize(out.len() + (pad4(b.encoded_len()) - b.encoded_len()), 0);
        }
        FieldValue::View32 { name, data } => {
            out.extend_from_slice(&len_i32(name.len(), off, id)?.to_be_bytes());
            put_padded(out, name);
            out.extend_from_slice(&len_i32(data.len(), off, id)?.to_be_bytes());
            put_padded(out, data);
        }
    }
    Ok(())
}

/// A bounds-checked big-endian reader over one buffer's bytes.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    base: usize,
    field: Option<u32>,
    /// Where the item being read starts in `b` (the header, or the field's
    /// id): a read past the end names it, so the offset is inside the input.
    item: usize,
}

impl<'a> Reader<'a> {
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Takes `n` bytes. When fewer are left the error names the start of
    /// the item being read, with the bytes it needs and has from there.
    fn take(&mut self, n: usize) -> Result<&'a [u8], Fml32Error> {
        let available = self.b.len() - self.pos;
        if n > available {
            return Err(err(
                self.base + self.item,
                self.field,
                Fml32ErrorKind::Truncated {
                    needed: self.pos - self.item + n,
                    available: self.b.len() - self.item,
                },
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn i32(&mut self) -> Result<i32, Fml32Error> {
        let s = self.take(4)?;
        Ok(i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// A non-negative int32 length.
    fn len(&mut self, what: &str) -> Result<usize, Fml32Error> {
        let at = self.offset();
        let v = self.i32()?;
        usize::try_from(v).map_err(|_| {
            err(
                at,
                self.field,
                Fml32ErrorKind::BadValue(format!("negative {what} {v}")),
            )
        })
    }

    /// `n` bytes then zero padding to a multiple of 4.
    fn padded(&mut self, n: usize) -> Result<&'a [u8], Fml32Error> {
        let data = self.take(n)?;
        let at = self.offset();
        let pad = self.take(pad4(n) - n)?;
        if pad.iter().any(|&b| b != 0) {
            return Err(err(
                at,
                self.field,
                Fml32ErrorKind::BadValue("non-zero padding".into()),
            ));
        }
        Ok(data)
    }

    fn bad(&self, at: usize, s: String) -> Fml32Error {
        err(at, self.field, Fml32ErrorKind::BadValue(s))
    }
}

fn decode_at(input: &[u8], base: usize, depth: usize) -> Result<(Fml32Buffer, usize), Fml32Error> {
    if depth > MAX_NESTING {
        return Err(err(base, None, Fml32ErrorKind::TooDeep));
    }
    let mut r = Reader {
        b: input,
        pos: 0,
        base,
        field: None,
        item: 0,
    };
    let magic = r.i32()?;
    if magic != F_MAGIC32 {
        return Err(err(base, None, Fml32ErrorKind::BadMagic(magic)));
    }
    let hdr = r.take(FML32_HEADER_LEN - 4)?;
    let h = |i: usize| i32::from_be_bytes([hdr[i], hdr[i + 1], hdr[i + 2], hdr[i + 3]]);
    let (len, maxlen, nfields, nie, indxintvl) = (h(0), h(4), h(8), h(12), h(16));
    let bad_header = |s: String| err(base, None, Fml32ErrorKind::BadHeader(s));
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l >= FML32_HEADER_LEN)
        .ok_or_else(|| bad_header(format!("len {len} below the 24-byte header")))?;
    if len > input.len() {
        return Err(err(
            base,
            None,
            Fml32ErrorKind::Truncated {
                needed: len,
                available: input.len(),
            },
        ));
    }
    if maxlen < 0 || (maxlen as usize) < len {
        return Err(bad_header(format!("maxlen {maxlen} below len {len}")));
    }
    let nfields =
        usize::try_from(nfields).map_err(|_| bad_header(format!("negative nfields {nfields}")))?;
    let mut r = Reader {
        b: &input[..len],
        pos: FML32_HEADER_LEN,
        base,
        field: None,
        item: FML32_HEADER_LEN,
    };
    // Each field takes at least 8 bytes, which bounds the allocation below.
    let mut fields = Vec::with_capacity(nfields.min(len / 8));
    let mut prev: Option<FieldId> = None;
    while r.pos < len {
        let at = r.offset();
        r.item = r.pos;
        let id = FieldId(r.i32()? as u32);
        r.field = Some(id.0);
        if let Some(p) = prev
            && id < p
        {
            return Err(err(
                at,
                Some(id.0),
                Fml32ErrorKind::OutOfOrder {
                    previous: p.0,
                    this: id.0,
                },
            ));
        }
        prev = Some(id);
        let t = carried(id, at)?;
        let value = decode_value(&mut r, t, depth)?;
        fields.push((id, value));
        r.field = None;
    }
    if fields.len() != nfields {
        return Err(bad_header(format!(
            "nfields {nfields} but {} fields present",
            fields.len()
        )));
    }
    // maxlen equal to len is stored as 0 ("same as len"), so a decoded buffer
    // equals a freshly built one with the same fields.
    let maxlen = if maxlen as usize == len {
        0
    } else {
        maxlen as u32
    };
    let buf = Fml32Buffer {
        fields,
        maxlen,
        nie,
        indxintvl,
    };
    Ok((buf, len))
}

fn decode_value(r: &mut Reader<'_>, t: FieldType, depth: usize) -> Result<FieldValue, Fml32Error> {
    let at = r.offset();
    Ok(match t {
        FieldType::Short => {
            let v = r.i32()?;
            FieldValue::Short(
                i16::try_from(v).map_err(|_| r.bad(at, format!("FLD_SHORT {v} out of range")))?,
            )
        }
        FieldType::Char => {
            let v = r.i32()?;
            FieldValue::Char(
                u8::try_from(v).map_err(|_| r.bad(at, format!("FLD_CHAR {v} out of 0..=255")))?,
            )
        }
        FieldType::Long => FieldValue::Long(i64::from(r.i32()?)),
        FieldType::Float => FieldValue::Float(f32::from_bits(r.i32()? as u32)),
        FieldType::Double => {
            let s = r.take(8)?;
            let mut a = [0; 8];
            a.copy_from_slice(s);
            FieldValue::Double(f64::from_bits(u64::from_be_bytes(a)))
        }
        FieldType::String => {
            let total = r.len("string total length")?;
            let l1 = r.len("string length")?;
            if l1 == 0 || total != l1.saturating_add(8) {
                return Err(r.bad(at, format!("string lengths {total}/{l1} inconsistent")));
            }
            let s = r.padded(l1)?;
            let (body, nul) = s.split_at(l1 - 1);
            if nul != [0] || body.contains(&0) {
                return Err(r.bad(at, "string not NUL-terminated exactly once".into()));
            }
            FieldValue::String(body.to_vec())
        }
        FieldType::Carray => {
            let total = r.len("carray total length")?;
            let l = r.len("carray length")?;
            if total != l.saturating_add(8) {
                return Err(r.bad(at, format!("carray lengths {total}/{l} inconsistent")));
            }
            FieldValue::Carray(r.padded(l)?.to_vec())
        }
        FieldType::Mbstring => {
            let total = r.len("mbstring total length")?;
            let udlen = r.len("mbstring udlen")?;
            let l = r.len("mbstring length")?;
            if total != l.saturating_add(12) || udlen != l {
                return Err(r.bad(
                    at,
                    format!("mbstring lengths {total}/{udlen}/{l} inconsistent"),
                ));
            }
            FieldValue::Mbstring(r.padded(l)?.to_vec())
        }
        FieldType::Fml32 => {
            let total = r.len("fml32 total length")?;
            let l = r.len("fml32 length")?;
            if total != l.saturating_add(8) {
                return Err(r.bad(at, format!("fml32 lengths {total}/{l} inconsistent")));
            }
            if l < FML32_HEADER_LEN {
                return Err(r.bad(
                    at,
                    format!("embedded FML32 of {l} bytes is shorter than the 24-byte header"),
                ));
            }
            let inner_at = r.offset();
            let bytes = r.padded(l)?;
            let (inner, used) = decode_at(bytes, inner_at, depth + 1)?;
            if used != l {
                return Err(r.bad(at, format!("embedded FML32 uses {used} of {l} bytes")));
            }
            FieldValue::Fml32(inner)
        }
        FieldType::View32 => {
            let nl = r.len("view32 name length")?;
            let name = r.padded(nl)?.to_vec();
            let dl = r.len("view32 data length")?;
            let data = r.padded(dl)?.to_vec();
            FieldValue::View32 { name, data }
        }
        FieldType::Ptr | FieldType::Int | FieldType::Decimal | FieldType::Fml => {
            return Err(err(at, r.field, Fml32ErrorKind::UnsupportedType(t)));
        }
    })
}
