//! The MOT check shared by the requests that name a MOT.

use crate::pams::address::Mot;
use crate::pams::error::{Field, Structure, WireError, WireErrorKind};

/// `NotAMot` for `field` at `offset` unless `value` is 4000-6000.
pub(crate) fn check_mot(
    structure: Structure,
    field: &'static str,
    offset: usize,
    value: i64,
    user_tag: Option<i32>,
) -> Result<(), WireError> {
    match Mot::new(value) {
        Ok(_) => Ok(()),
        Err(_) => {
            let mut e = WireError::new(
                structure,
                Field::Named(field),
                offset,
                WireErrorKind::NotAMot { value },
            );
            e.user_tag = user_tag;
            Err(e)
        }
    }
}
