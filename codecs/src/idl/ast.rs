//! The parsed form of a Software AG IDL file (docs/rpc.md).

use std::fmt;

/// A place in the IDL text: 1-based line and 1-based column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// Line number, starting at 1.
    pub line: u32,
    /// Column in characters, starting at 1 (a tab counts as one column).
    pub column: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A whole IDL file: one or more libraries (Software AG "Software AG IDL Grammar").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlFile {
    /// The libraries in file order.
    pub libraries: Vec<Library>,
}

impl IdlFile {
    /// The library with this name (case-insensitive, names are unique after case
    /// folding — Software AG "Software AG IDL Grammar").
    pub fn library(&self, name: &str) -> Option<&Library> {
        self.libraries
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
    }
}

/// `LIBRARY 'name' [: 'alias'] IS ...`. The library name (not the alias) goes on
/// the wire (docs/rpc.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    /// Library name as written between the apostrophes.
    pub name: String,
    /// Alias, used only for generated names.
    pub alias: Option<String>,
    /// Programs in file order.
    pub programs: Vec<Program>,
    /// Structs in file order.
    pub structs: Vec<StructDef>,
    /// Where the `LIBRARY` keyword stands.
    pub position: Position,
}

impl Library {
    /// The program with this name (case-insensitive).
    pub fn program(&self, name: &str) -> Option<&Program> {
        self.programs
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The struct with this name (case-insensitive). Struct references resolve
    /// inside their own library.
    pub fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }
}

/// `PROGRAM 'name' [: 'alias'] IS` followed by its parameter block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Program name as written; it goes on the wire unchanged.
    pub name: String,
    /// Alias, used only for generated names.
    pub alias: Option<String>,
    /// Level-1 parameters in order; groups hold their members.
    pub params: Vec<Parameter>,
    /// Where the `PROGRAM` keyword stands.
    pub position: Position,
}

/// `STRUCT 'name' IS` followed by its parameter block. Directions written inside
/// a struct are kept but the referencing parameter's direction applies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// Struct name (≤ 31 characters).
    pub name: String,
    /// Level-1 fields in order; groups hold their members.
    pub params: Vec<Parameter>,
    /// Where the `STRUCT` keyword stands.
    pub position: Position,
}

/// One parameter line and, for a group, its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// Level number 1-99.
    pub level: u8,
    /// Parameter name as written.
    pub name: String,
    /// Field with a format, group, or struct reference.
    pub kind: ParamKind,
    /// Array dimensions, if any (up to 3).
    pub array: Option<ArraySpec>,
    /// Direction written on this line, if any.
    pub declared_direction: Option<Direction>,
    /// Direction that applies: the declared one at level 1 (none = In Out), the
    /// level-1 parent's for members (docs/rpc.md "Reading an IDL file").
    pub direction: Direction,
    /// `ALIGNED` was given (no effect on the text layout).
    pub aligned: bool,
    /// `IMS` was given (PCB parameter, level 1 only).
    pub ims: bool,
    /// Members of a group (empty for fields and struct references).
    pub members: Vec<Parameter>,
    /// Where the level number stands.
    pub position: Position,
}

impl Parameter {
    /// True when this parameter's size is not fixed: a variable-length format
    /// (AV, BV, KV, UV), an unbounded array, or a group containing either.
    /// Struct references are not looked into here; see [`crate::idl::layout`].
    pub fn is_variable_length(&self) -> bool {
        if self.array.as_ref().is_some_and(ArraySpec::is_unbounded) {
            return true;
        }
        match &self.kind {
            ParamKind::Field(f) => f.is_variable_length(),
            ParamKind::Group => self.members.iter().any(Parameter::is_variable_length),
            ParamKind::StructRef(_) => false,
        }
    }
}

/// What a parameter line declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A field with a format, e.g. `(A32)`.
    Field(Format),
    /// A group: no format, members on the following lines.
    Group,
    /// A reference to a struct of the same library, e.g. `('ADDRESS')`.
    StructRef(String),
}

/// Parameter direction (docs/rpc.md; none written = In Out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `IN`: client to server only.
    In,
    /// `OUT`: server to client only.
    Out,
    /// `IN OUT` or `INOUT`, also the default.
    InOut,
}

impl Direction {
    /// True for In and InOut.
    pub fn is_in(self) -> bool {
        matches!(self, Direction::In | Direction::InOut)
    }

    /// True for Out and InOut.
    pub fn is_out(self) -> bool {
        matches!(self, Direction::Out | Direction::InOut)
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::In => "IN",
            Direction::Out => "OUT",
            Direction::InOut => "IN OUT",
        })
    }
}

/// Length of an A/B/K/U field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Length {
    /// `An`: exactly n bytes.
    Fixed(u32),
    /// `AV` (no maximum) or `AVn` (at most n bytes).
    Variable(Option<u32>),
}

/// Digits of an N/NU/P/PU field: `Nn.m` has n integer and m decimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NumericSpec {
    /// Digits before the decimal point (n).
    pub digits: u8,
    /// Digits after the decimal point (m, ≤ 7; n + m ≤ 29).
    pub decimals: u8,
    /// False for NU/PU.
    pub signed: bool,
}

/// A field format (docs/rpc.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `An`, `AV`, `AVn`: alphanumeric.
    Alpha(Length),
    /// `Kn`, `KV`, `KVn`: Kanji (DBCS without SO/SI).
    Kanji(Length),
    /// `Bn`, `BV`, `BVn`: binary.
    Binary(Length),
    /// `Un`, `UV`, `UVn`: Unicode — UNCONFIRMED, only with
    /// [`crate::idl::ParseOptions::extended_formats`].
    Unicode(Length),
    /// `Nn.m` / `NUn.m`: unpacked decimal.
    Unpacked(NumericSpec),
    /// `Pn.m` / `PUn.m`: packed decimal.
    Packed(NumericSpec),
    /// `I1`, `I2`, `I4` (and `I8` with extended formats): integer of that many bytes.
    Integer(u8),
    /// `F4`, `F8`: float of that many bytes.
    Float(u8),
    /// `D`: date.
    Date,
    /// `T`: timestamp (date and time to tenths of a second).
    Time,
    /// `L`: logical.
    Logical,
}

impl Format {
    /// True for AV/BV/KV/UV (with or without a maximum).
    pub fn is_variable_length(&self) -> bool {
        matches!(
            self,
            Format::Alpha(Length::Variable(_))
                | Format::Kanji(Length::Variable(_))
                | Format::Binary(Length::Variable(_))
                | Format::Unicode(Length::Variable(_))
        )
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn len(f: &mut fmt::Formatter<'_>, base: &str, l: &Length) -> fmt::Result {
            match l {
                Length::Fixed(n) => write!(f, "{base}{n}"),
                Length::Variable(None) => write!(f, "{base}V"),
                Length::Variable(Some(n)) => write!(f, "{base}V{n}"),
            }
        }
        fn num(f: &mut fmt::Formatter<'_>, base: &str, s: &NumericSpec) -> fmt::Result {
            let u = if s.signed { "" } else { "U" };
            if s.decimals == 0 {
                write!(f, "{base}{u}{}", s.digits)
            } else {
                write!(f, "{base}{u}{}.{}", s.digits, s.decimals)
            }
        }
        match self {
            Format::Alpha(l) => len(f, "A", l),
            Format::Kanji(l) => len(f, "K", l),
            Format::Binary(l) => len(f, "B", l),
            Format::Unicode(l) => len(f, "U", l),
            Format::Unpacked(s) => num(f, "N", s),
            Format::Packed(s) => num(f, "P", s),
            Format::Integer(n) => write!(f, "I{n}"),
            Format::Float(n) => write!(f, "F{n}"),
            Format::Date => f.write_str("D"),
            Format::Time => f.write_str("T"),
            Format::Logical => f.write_str("L"),
        }
    }
}

/// Array dimensions of one parameter: 1 to 3, all fixed or all unbounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArraySpec {
    /// Dimensions, outermost first.
    pub dims: Vec<Dimension>,
}

impl ArraySpec {
    /// True when the dimensions are unbounded (`V`).
    pub fn is_unbounded(&self) -> bool {
        self.dims
            .iter()
            .any(|d| matches!(d, Dimension::Unbounded { .. }))
    }
}

/// One array dimension, fixed or unbounded (Software AG "Software AG IDL Grammar").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// `[lower:]upper`, lower defaults to 1, upper ≥ lower.
    Fixed {
        /// Lower bound (inclusive).
        lower: u32,
        /// Upper bound (inclusive).
        upper: u32,
    },
    /// `[1:]V[max]`.
    Unbounded {
        /// Maximum number of elements, if given.
        max: Option<u32>,
    },
}

impl Dimension {
    /// Number of elements of a fixed dimension; `None` for an unbounded one.
    pub fn fixed_count(&self) -> Option<u32> {
        match self {
            Dimension::Fixed { lower, upper } => {
                Some(upper.saturating_sub(*lower).saturating_add(1))
            }
            Dimension::Unbounded { .. } => None,
        }
    }
}
