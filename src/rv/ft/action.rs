//! The instructions a member gets (TIBCO Rendezvous Concepts, "Fault
//! Tolerance Callback Actions"; C Reference, "tibrvftAction"), with the
//! numbers of the public header `tibrv/ft.h`.

use std::fmt;

/// A fault tolerance action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// TIBRVFT_PREPARE_TO_ACTIVATE (1): a hint that an ACTIVATE may follow
    /// soon; do the slow part of becoming active now.
    PrepareToActivate,
    /// TIBRVFT_ACTIVATE (2): become active.
    Activate,
    /// TIBRVFT_DEACTIVATE (3): become inactive.
    Deactivate,
}

impl Action {
    /// The number of `tibrv/ft.h`: 1, 2 or 3.
    pub fn number(self) -> u8 {
        match self {
            Action::PrepareToActivate => 1,
            Action::Activate => 2,
            Action::Deactivate => 3,
        }
    }

    /// The C name: `TIBRVFT_PREPARE_TO_ACTIVATE`, `TIBRVFT_ACTIVATE`,
    /// `TIBRVFT_DEACTIVATE`.
    pub fn name(self) -> &'static str {
        match self {
            Action::PrepareToActivate => "TIBRVFT_PREPARE_TO_ACTIVATE",
            Action::Activate => "TIBRVFT_ACTIVATE",
            Action::Deactivate => "TIBRVFT_DEACTIVATE",
        }
    }

    /// The action of number `n`, if there is one.
    pub fn from_number(n: u64) -> Option<Action> {
        match n {
            1 => Some(Action::PrepareToActivate),
            2 => Some(Action::Activate),
            3 => Some(Action::Deactivate),
            _ => None,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_the_public_header() {
        // tibrv/ft.h: TIBRVFT_PREPARE_TO_ACTIVATE 1, TIBRVFT_ACTIVATE 2,
        // TIBRVFT_DEACTIVATE 3 (pytibrv's 4 is not TIBCO's).
        for (a, n) in [
            (Action::PrepareToActivate, 1),
            (Action::Activate, 2),
            (Action::Deactivate, 3),
        ] {
            assert_eq!(a.number(), n);
            assert_eq!(Action::from_number(u64::from(n)), Some(a));
        }
        assert_eq!(Action::from_number(4), None);
        assert_eq!(Action::from_number(0), None);
    }
}
