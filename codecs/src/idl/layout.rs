//! The fixed-position text layout of a program's payload (docs/rpc.md "Text
//! payload"; EntireX "Mapping RPC Data to the MQ Message Buffer"): one field
//! after another, no separators, groups and arrays flattened in order
//! (row-major), a variable-length value only at the very end.

use std::fmt;

use super::ast::{
    Dimension, Format, Length, Library, NumericSpec, ParamKind, Parameter, Position, Program,
};
use super::dynamic::is_dynamic;

/// Largest payload a layout may describe, in characters: 100 MiB, the MQ
/// maximum message length (MaxMsgLength 104 857 600).
pub const MAX_PAYLOAD: usize = 104_857_600;

/// Deepest nesting of struct references followed when building a layout.
pub const MAX_STRUCT_DEPTH: usize = 32;

/// Which half of a call a payload carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadDirection {
    /// The message put: IN and IN OUT parameters.
    Request,
    /// The message got: OUT and IN OUT parameters.
    Reply,
}

/// Width of one field in the text layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// Exactly this many characters.
    Fixed(usize),
    /// The rest of the payload, at most `max` characters if given (AV, AVn, KV, KVn).
    Rest {
        /// Maximum characters.
        max: Option<usize>,
    },
}

/// What an array parameter repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Not an array.
    Scalar,
    /// Fixed dimensions: element counts, outermost first (row-major order).
    Fixed(Vec<usize>),
    /// One unbounded dimension at the end of the payload: as many elements as
    /// the rest holds, at most `max`.
    Tail {
        /// Maximum elements, if the IDL gives one (`V10`).
        max: Option<usize>,
    },
}

/// What one element holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    /// A field: its format and text width.
    Field(Format, Width),
    /// A group or struct: its members in order.
    Record(Vec<LayoutNode>),
}

/// One parameter in the layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutNode {
    /// IDL name.
    pub name: String,
    /// Array shape.
    pub shape: Shape,
    /// The element.
    pub element: Element,
    /// Where the parameter is declared.
    pub position: Position,
}

/// The text layout of one direction of one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextLayout {
    /// Level-1 payload parameters in order.
    pub nodes: Vec<LayoutNode>,
    /// Characters of all fixed-width parts.
    pub fixed_length: usize,
    /// True when the last value takes the rest of the payload.
    pub variable_tail: bool,
}

/// Why a program's payload has no text layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// Path of the parameter, e.g. `PERSON.PHONES`.
    pub path: String,
    /// Where it is declared.
    pub position: Position,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: parameter {}: {}",
            self.position.line, self.position.column, self.path, self.reason
        )
    }
}

impl std::error::Error for LayoutError {}

/// Text width of a format (docs/rpc.md "Text payload" table). `Ok(None)` for
/// formats with no confirmed text form (B, BV, F4, F8, U, UV).
pub fn text_width(format: &Format) -> Option<Width> {
    fn numeric(s: &NumericSpec) -> usize {
        usize::from(s.signed) + usize::from(s.digits) + usize::from(s.decimals)
    }
    let len = |l: &Length| match l {
        Length::Fixed(n) => Width::Fixed(*n as usize),
        Length::Variable(max) => Width::Rest {
            max: max.map(|m| m as usize),
        },
    };
    Some(match format {
        Format::Alpha(l) | Format::Kanji(l) => len(l),
        Format::Binary(_) | Format::Unicode(_) | Format::Float(_) => return None,
        // sign + 3 / 5 / 10 digits; I8 (extended) sign + 19.
        Format::Integer(1) => Width::Fixed(4),
        Format::Integer(2) => Width::Fixed(6),
        Format::Integer(4) => Width::Fixed(11),
        Format::Integer(_) => Width::Fixed(20),
        // sign + n + m digits, no decimal point; NU/PU without a sign position.
        Format::Unpacked(s) | Format::Packed(s) => Width::Fixed(numeric(s)),
        Format::Logical => Width::Fixed(1),
        Format::Date => Width::Fixed(8),
        Format::Time => Width::Fixed(15),
    })
}

impl TextLayout {
    /// Builds the layout of `program`'s request (IN, IN OUT) or reply (OUT, IN
    /// OUT) payload. Dynamic and IMS parameters are left out; struct references
    /// resolve in `library`.
    ///
    /// Errors: a format without a text form (B, F, U), a variable-length value
    /// or unbounded array that is not the last value, an unbounded array with
    /// more than one dimension or variable-length elements, an undefined struct,
    /// structs nested deeper than [`MAX_STRUCT_DEPTH`], or a payload above
    /// [`MAX_PAYLOAD`] characters.
    pub fn for_program(
        program: &Program,
        library: &Library,
        direction: PayloadDirection,
    ) -> Result<TextLayout, LayoutError> {
        let params: Vec<&Parameter> = program
            .params
            .iter()
            .filter(|p| !p.ims && !is_dynamic(&p.name))
            .filter(|p| match direction {
                PayloadDirection::Request => p.direction.is_in(),
                PayloadDirection::Reply => p.direction.is_out(),
            })
            .collect();
        let mut builder = Builder {
            library,
            fixed: 0,
            variable_tail: false,
        };
        let nodes = builder.nodes(&params, "", true, 0)?;
        Ok(TextLayout {
            nodes,
            fixed_length: builder.fixed,
            variable_tail: builder.variable_tail,
        })
    }
}

struct Builder<'a> {
    library: &'a Library,
    fixed: usize,
    variable_tail: bool,
}

impl Builder<'_> {
    fn nodes(
        &mut self,
        params: &[&Parameter],
        prefix: &str,
        at_end: bool,
        depth: usize,
    ) -> Result<Vec<LayoutNode>, LayoutError> {
        let mut out = Vec::with_capacity(params.len());
        for (i, p) in params.iter().enumerate() {
            let last = at_end && i + 1 == params.len();
            out.push(self.node(p, prefix, last, depth)?);
        }
        Ok(out)
    }

    fn node(
        &mut self,
        p: &Parameter,
        prefix: &str,
        last: bool,
        depth: usize,
    ) -> Result<LayoutNode, LayoutError> {
        let path = if prefix.is_empty() {
            p.name.clone()
        } else {
            format!("{prefix}.{}", p.name)
        };
        let fault = |reason: String| LayoutError {
            path: path.clone(),
            position: p.position,
            reason,
        };
        let shape = match &p.array {
            None => Shape::Scalar,
            Some(spec) if spec.is_unbounded() => {
                if spec.dims.len() != 1 {
                    return Err(fault(
                        "an unbounded array with more than one dimension has no text layout".into(),
                    ));
                }
                if !last {
                    return Err(fault(
                        "an unbounded array must be the last value of the payload".into(),
                    ));
                }
                let max = match spec.dims[0] {
                    Dimension::Unbounded { max } => max.map(|m| m as usize),
                    Dimension::Fixed { .. } => None,
                };
                Shape::Tail { max }
            }
            Some(spec) => Shape::Fixed(
                spec.dims
                    .iter()
                    .map(|d| d.fixed_count().unwrap_or(1) as usize)
                    .collect(),
            ),
        };
        // Elements of an array are followed by more elements, so only a scalar
        // may end in a variable-length value.
        let element_last = last && shape == Shape::Scalar;
        let fixed_before = self.fixed;
        let element = match &p.kind {
            ParamKind::Field(format) => {
                let width = text_width(format).ok_or_else(|| {
                    fault(format!(
                        "format {format} has no confirmed text layout (docs/rpc.md)"
                    ))
                })?;
                match width {
                    Width::Fixed(n) => self.add(n, &fault)?,
                    Width::Rest { .. } if !element_last => {
                        return Err(fault(format!(
                            "variable-length format {format} must be the last value of the payload"
                        )));
                    }
                    Width::Rest { .. } => self.variable_tail = true,
                }
                Element::Field(*format, width)
            }
            ParamKind::Group => {
                let members: Vec<&Parameter> = p.members.iter().collect();
                Element::Record(self.nodes(&members, &path, element_last, depth)?)
            }
            ParamKind::StructRef(name) => {
                if depth >= MAX_STRUCT_DEPTH {
                    return Err(fault(format!(
                        "structs nested deeper than {MAX_STRUCT_DEPTH}"
                    )));
                }
                let s = self
                    .library
                    .struct_def(name)
                    .ok_or_else(|| fault(format!("undefined struct '{name}'")))?;
                let members: Vec<&Parameter> = s.params.iter().collect();
                Element::Record(self.nodes(&members, &path, element_last, depth + 1)?)
            }
        };
        match &shape {
            Shape::Scalar => {}
            Shape::Tail { .. } => {
                if self.variable_tail {
                    return Err(fault(
                        "elements of an unbounded array must have a fixed length".into(),
                    ));
                }
                let element_len = self.fixed - fixed_before;
                if element_len == 0 {
                    return Err(fault("elements of an unbounded array are empty".into()));
                }
                // The elements are counted from the rest of the payload.
                self.fixed = fixed_before;
                self.variable_tail = true;
            }
            Shape::Fixed(counts) => {
                let element_len = self.fixed - fixed_before;
                let total = counts
                    .iter()
                    .try_fold(element_len, |acc, &c| acc.checked_mul(c))
                    .filter(|&t| t <= MAX_PAYLOAD)
                    .ok_or_else(|| {
                        fault(format!("payload longer than {MAX_PAYLOAD} characters"))
                    })?;
                self.fixed = fixed_before;
                self.add(total, &fault)?;
            }
        }
        Ok(LayoutNode {
            name: p.name.clone(),
            shape,
            element,
            position: p.position,
        })
    }

    fn add(&mut self, n: usize, fault: &impl Fn(String) -> LayoutError) -> Result<(), LayoutError> {
        self.fixed = self
            .fixed
            .checked_add(n)
            .filter(|&t| t <= MAX_PAYLOAD)
            .ok_or_else(|| fault(format!("payload longer than {MAX_PAYLOAD} characters")))?;
        Ok(())
    }
}

/// Length in characters of one element of `node` (fixed parts only).
pub(crate) fn element_length(element: &Element) -> usize {
    match element {
        Element::Field(_, Width::Fixed(n)) => *n,
        Element::Field(_, Width::Rest { .. }) => 0,
        Element::Record(members) => members.iter().map(node_length).sum(),
    }
}

/// Length in characters of a fixed node (all its elements).
pub(crate) fn node_length(node: &LayoutNode) -> usize {
    let one = element_length(&node.element);
    match &node.shape {
        Shape::Scalar => one,
        Shape::Fixed(counts) => counts.iter().product::<usize>() * one,
        Shape::Tail { .. } => 0,
    }
}
