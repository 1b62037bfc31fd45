//! Fixed-position text → parameters (docs/rpc.md). Every length is
//! checked against what is left before a field is read.

use super::ast::{Format, Length};
use super::layout::{Element, LayoutNode, Shape, TextLayout, Width, element_length};
use super::marshal::{MarshalError, MarshalErrorKind, error};
use super::text::{digits, payload_date, payload_timestamp, signed};
use super::value::{Decimal, Record, Value};

impl TextLayout {
    /// Reads fixed-position text into values by IDL name: A fields with
    /// trailing blanks trimmed, AV as it stands, numbers as Integer/Decimal,
    /// arrays as lists, groups and structs as records.
    ///
    /// Errors: the payload ends inside a field, a field's text is invalid for
    /// its format, characters remain after the last fixed-length value, or an
    /// unbounded array's rest is not a whole number of elements.
    pub fn unmarshal(&self, text: &str) -> Result<Record, MarshalError> {
        let mut reader = Reader {
            rest: text,
            offset: 0,
        };
        let mut record = Record::new();
        for node in &self.nodes {
            let v = reader.node(node, &node.name)?;
            record.set(node.name.clone(), v);
        }
        let left = reader.rest.chars().count();
        if left > 0 {
            return Err(MarshalError {
                path: "(end of payload)".into(),
                offset: reader.offset,
                kind: MarshalErrorKind::TrailingData { left },
            });
        }
        Ok(record)
    }
}

struct Reader<'a> {
    rest: &'a str,
    /// Characters consumed so far.
    offset: usize,
}

impl<'a> Reader<'a> {
    /// Takes exactly `n` characters; the length is checked before anything is
    /// read.
    fn take(&mut self, n: usize, path: &str) -> Result<&'a str, MarshalError> {
        let end = match self.rest.char_indices().nth(n) {
            Some((i, _)) => i,
            None => {
                let left = self.rest.chars().count();
                if left < n {
                    return Err(error(
                        path,
                        self.offset,
                        MarshalErrorKind::ShortPayload { needed: n, left },
                    ));
                }
                self.rest.len()
            }
        };
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        self.offset += n;
        Ok(taken)
    }

    fn node(&mut self, node: &LayoutNode, path: &str) -> Result<Value, MarshalError> {
        match &node.shape {
            Shape::Scalar => self.element(&node.element, path),
            Shape::Fixed(counts) => self.fixed_array(&node.element, counts, path),
            Shape::Tail { max } => {
                let element_len = element_length(&node.element);
                let left = self.rest.chars().count();
                if element_len == 0 || !left.is_multiple_of(element_len) {
                    return Err(error(
                        path,
                        self.offset,
                        MarshalErrorKind::PartialElement {
                            element_length: element_len,
                            left,
                        },
                    ));
                }
                let count = left / element_len;
                if let Some(max) = max
                    && count > *max
                {
                    return Err(error(
                        path,
                        self.offset,
                        MarshalErrorKind::TooManyElements {
                            max: *max,
                            found: count,
                        },
                    ));
                }
                let mut items = Vec::with_capacity(count);
                for i in 0..count {
                    items.push(self.element(&node.element, &format!("{path}[{}]", i + 1))?);
                }
                Ok(Value::List(items))
            }
        }
    }

    fn fixed_array(
        &mut self,
        element: &Element,
        counts: &[usize],
        path: &str,
    ) -> Result<Value, MarshalError> {
        let Some((&count, inner)) = counts.split_first() else {
            return self.element(element, path);
        };
        let mut items = Vec::new();
        for i in 0..count {
            items.push(self.fixed_array(element, inner, &format!("{path}[{}]", i + 1))?);
        }
        Ok(Value::List(items))
    }

    fn element(&mut self, element: &Element, path: &str) -> Result<Value, MarshalError> {
        match element {
            Element::Record(members) => {
                let mut record = Record::new();
                for m in members {
                    let v = self.node(m, &format!("{path}.{}", m.name))?;
                    record.set(m.name.clone(), v);
                }
                Ok(Value::Record(record))
            }
            Element::Field(format, width) => self.field(format, *width, path),
        }
    }

    fn field(&mut self, format: &Format, width: Width, path: &str) -> Result<Value, MarshalError> {
        let at = self.offset;
        let text = match width {
            Width::Fixed(n) => self.take(n, path)?,
            Width::Rest { max } => {
                let left = self.rest.chars().count();
                if let Some(max) = max
                    && left > max
                {
                    return Err(error(
                        path,
                        at,
                        MarshalErrorKind::TooLong { max, found: left },
                    ));
                }
                self.take(left, path)?
            }
        };
        let bad = || {
            error(
                path,
                at,
                MarshalErrorKind::BadText {
                    text: text.to_string(),
                    format: format.to_string(),
                },
            )
        };
        match format {
            Format::Alpha(Length::Fixed(_)) | Format::Kanji(Length::Fixed(_)) => {
                Ok(Value::Text(text.trim_end_matches(' ').to_string()))
            }
            Format::Alpha(_) | Format::Kanji(_) => Ok(Value::Text(text.to_string())),
            Format::Integer(size) => {
                let (negative, body) = signed(text).ok_or_else(bad)?;
                let m = i128::try_from(digits(body).ok_or_else(bad)?).map_err(|_| bad())?;
                let v = if negative { -m } else { m };
                let fits = match size {
                    1 => i8::try_from(v).is_ok(),
                    2 => i16::try_from(v).is_ok(),
                    4 => i32::try_from(v).is_ok(),
                    _ => i64::try_from(v).is_ok(),
                };
                match i64::try_from(v) {
                    Ok(v) if fits => Ok(Value::Integer(v)),
                    _ => Err(error(
                        path,
                        at,
                        MarshalErrorKind::OutOfRange {
                            value: v.to_string(),
                            format: format.to_string(),
                        },
                    )),
                }
            }
            Format::Unpacked(spec) | Format::Packed(spec) => {
                let (negative, body) = if spec.signed {
                    signed(text).ok_or_else(bad)?
                } else {
                    (false, text)
                };
                let m = digits(body).ok_or_else(bad)?;
                let m = i128::try_from(m).map_err(|_| bad())?;
                Ok(Value::Decimal(Decimal {
                    unscaled: if negative { -m } else { m },
                    scale: spec.decimals,
                }))
            }
            Format::Logical => Ok(Value::Logical(text == "X")),
            Format::Date => {
                let d = payload_date(text).ok_or_else(bad)?;
                Ok(Value::Date(d))
            }
            Format::Time => Ok(Value::Time(payload_timestamp(text).ok_or_else(bad)?)),
            Format::Binary(_) | Format::Unicode(_) | Format::Float(_) => Err(bad()),
        }
    }
}
