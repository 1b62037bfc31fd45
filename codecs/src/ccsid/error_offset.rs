//! Where a [`ConvertError`] points, and moving it from a block to the stream.

use super::error::ConvertError;

impl ConvertError {
    /// The byte offset in the input that the error names, or `None` for
    /// [`ConvertError::UnknownCcsid`].
    pub fn offset(&self) -> Option<usize> {
        match self {
            ConvertError::UnknownCcsid { .. } => None,
            ConvertError::Invalid { offset, .. }
            | ConvertError::Truncated { offset, .. }
            | ConvertError::UnpairedSurrogate { offset, .. }
            | ConvertError::Unmappable { offset, .. } => Some(*offset),
        }
    }

    /// The same error with its offset moved by `base`: a block's error as
    /// an offset in the whole stream.
    pub(crate) fn shifted(mut self, base: usize) -> ConvertError {
        match &mut self {
            ConvertError::UnknownCcsid { .. } => {}
            ConvertError::Invalid { offset, .. }
            | ConvertError::Truncated { offset, .. }
            | ConvertError::UnpairedSurrogate { offset, .. }
            | ConvertError::Unmappable { offset, .. } => *offset += base,
        }
        self
    }
}
