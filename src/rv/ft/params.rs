//! A member's parameters and a group's name, checked as
//! `tibrvftMember_Create()` checks them (TIBCO Rendezvous C Reference,
//! "tibrvftMember_Create()": "The heartbeat interval must be less than the
//! activation interval. If the preparation interval is non-zero, it must be
//! greater than the heartbeat interval and less than the activation
//! interval."; docs/rendezvous.md "Fault tolerance").

use std::time::Duration;

use mqgate_codecs::rv::{NameKind, check_reusable_name};

use super::error::{FtError, IntervalName};

/// Longest group name, bytes (**mqgate**): `_RVFT.` and the name make the
/// subject heartbeats travel on, which must stay within the 196 bytes
/// programs can receive ("Subject Name Syntax") to cross a routing link.
pub const MAX_GROUP_BYTES: usize = 196 - "_RVFT.".len();

/// Shortest heartbeat interval (**mqgate**): 10 ms, so that a member cannot
/// flood the bus.
pub const MIN_HEARTBEAT: Duration = Duration::from_millis(10);

/// Longest interval of any kind (**mqgate**): one day, 86,400 s.
pub const MAX_INTERVAL: Duration = Duration::from_secs(86_400);

/// Checks `name` as a fault tolerance group name: a reusable name
/// ("Reusable Names": subject syntax, no wildcard, no reserved first
/// element) of at most [`MAX_GROUP_BYTES`] bytes.
///
/// Errors: [`FtError::Group`], [`FtError::GroupTooLong`].
pub fn check_group(name: &str) -> Result<(), FtError> {
    check_reusable_name(name, NameKind::FtGroup).map_err(|error| FtError::Group {
        name: name.to_string(),
        error,
    })?;
    if name.len() > MAX_GROUP_BYTES {
        return Err(FtError::GroupTooLong { len: name.len() });
    }
    Ok(())
}

/// `seconds` as an interval: finite, not negative, at most
/// [`MAX_INTERVAL`]; a lost interval must be positive.
///
/// Errors: [`FtError::Interval`].
pub fn interval(which: IntervalName, seconds: f64) -> Result<Duration, FtError> {
    let refused = |why| FtError::Interval {
        which,
        seconds,
        why,
    };
    if !seconds.is_finite() {
        return Err(refused("is not a finite number of seconds"));
    }
    if seconds < 0.0 {
        return Err(refused("is negative"));
    }
    let d = Duration::try_from_secs_f64(seconds).map_err(|_| refused("is out of range"))?;
    if d > MAX_INTERVAL {
        return Err(refused("is longer than one day (86400 s)"));
    }
    if which == IntervalName::Lost && d.is_zero() {
        return Err(refused("must be positive"));
    }
    Ok(d)
}

/// What a member joins with (TIBCO Rendezvous C Reference,
/// "tibrvftMember_Create()"): `weight`, `activeGoal` and the three
/// intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FtParams {
    /// The member's weight, 1 to 65535 (0 is given only to a member
    /// mqgate disables); the highest weight ranks first.
    pub weight: u16,
    /// How many members should be active, at least 1.
    pub active_goal: u16,
    /// How often the member heartbeats.
    pub heartbeat: Duration,
    /// How long the silence of a member ranked above the ranking inactive
    /// member lasts before it gets PREPARE_TO_ACTIVATE; zero: no prepare
    /// hint.
    pub preparation: Duration,
    /// How long a member may be silent before it is lost (and the ranking
    /// inactive member activates in its place).
    pub activation: Duration,
}

impl FtParams {
    /// The parameters from seconds, checked ([`FtParams::check`]).
    ///
    /// Errors: [`FtError`] naming the first parameter at fault.
    pub fn from_seconds(
        weight: u16,
        active_goal: u16,
        heartbeat: f64,
        preparation: f64,
        activation: f64,
    ) -> Result<FtParams, FtError> {
        let p = FtParams {
            weight,
            active_goal,
            heartbeat: interval(IntervalName::Heartbeat, heartbeat)?,
            preparation: interval(IntervalName::Preparation, preparation)?,
            activation: interval(IntervalName::Activation, activation)?,
        };
        p.check()?;
        Ok(p)
    }

    /// Checks the rules: weight and active goal at least 1, heartbeat at
    /// least [`MIN_HEARTBEAT`], heartbeat < activation, and preparation 0
    /// or heartbeat < preparation < activation.
    ///
    /// Errors: [`FtError`] naming the first rule broken.
    pub fn check(&self) -> Result<(), FtError> {
        if self.weight == 0 {
            return Err(FtError::WeightZero);
        }
        if self.active_goal == 0 {
            return Err(FtError::ActiveGoalZero);
        }
        for (which, d) in [
            (IntervalName::Heartbeat, self.heartbeat),
            (IntervalName::Preparation, self.preparation),
            (IntervalName::Activation, self.activation),
        ] {
            if d > MAX_INTERVAL {
                return Err(FtError::Interval {
                    which,
                    seconds: d.as_secs_f64(),
                    why: "is longer than one day (86400 s)",
                });
            }
        }
        if self.heartbeat < MIN_HEARTBEAT {
            return Err(FtError::Interval {
                which: IntervalName::Heartbeat,
                seconds: self.heartbeat.as_secs_f64(),
                why: "is shorter than 0.01 s, the shortest heartbeat interval",
            });
        }
        if self.heartbeat >= self.activation {
            return Err(FtError::HeartbeatNotBelowActivation {
                heartbeat: self.heartbeat.as_secs_f64(),
                activation: self.activation.as_secs_f64(),
            });
        }
        if !self.preparation.is_zero()
            && (self.preparation <= self.heartbeat || self.preparation >= self.activation)
        {
            return Err(FtError::PreparationOutOfRange {
                heartbeat: self.heartbeat.as_secs_f64(),
                preparation: self.preparation.as_secs_f64(),
                activation: self.activation.as_secs_f64(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(w: u16, g: u16, hb: f64, prep: f64, act: f64) -> Result<FtParams, FtError> {
        FtParams::from_seconds(w, g, hb, prep, act)
    }

    #[test]
    fn the_interval_rules_of_tibrvftmember_create() {
        // C Reference "tibrvftMember_Create()": heartbeat < activation;
        // preparation 0, or heartbeat < preparation < activation.
        assert!(secs(20, 1, 0.2, 0.0, 1.0).is_ok());
        assert!(secs(20, 1, 0.2, 0.5, 1.0).is_ok());
        assert_eq!(
            secs(20, 1, 1.0, 0.0, 1.0).unwrap_err(),
            FtError::HeartbeatNotBelowActivation {
                heartbeat: 1.0,
                activation: 1.0
            }
        );
        for prep in [0.1, 0.2, 1.0, 2.0] {
            let e = secs(20, 1, 0.2, prep, 1.0).unwrap_err();
            assert_eq!(
                e,
                FtError::PreparationOutOfRange {
                    heartbeat: 0.2,
                    preparation: prep,
                    activation: 1.0
                }
            );
            assert_eq!(e.field(), Some("preparation_interval"));
        }
        assert_eq!(
            secs(20, 1, 0.2, 0.1, 1.0).unwrap_err().to_string(),
            "the preparation interval (0.1 s) must be 0 (no prepare hint) or greater than the heartbeat interval (0.2 s) and less than the activation interval (1 s)"
        );
        assert_eq!(
            secs(20, 1, 2.0, 0.0, 1.0).unwrap_err().to_string(),
            "the heartbeat interval (2 s) must be less than the activation interval (1 s)"
        );
    }

    #[test]
    fn weight_zero_and_goal_zero_are_refused() {
        // "Rank and Weight": weight 0 is reserved; programs assign weights
        // greater than zero.
        assert_eq!(secs(0, 1, 0.2, 0.0, 1.0), Err(FtError::WeightZero));
        assert_eq!(secs(1, 0, 0.2, 0.0, 1.0), Err(FtError::ActiveGoalZero));
        assert_eq!(
            FtError::WeightZero.status(),
            mqgate_codecs::rv::status::TibrvStatus::INVALID_ARG
        );
    }

    #[test]
    fn intervals_that_are_no_duration() {
        for (hb, why) in [
            (-1.0, "is negative"),
            (f64::NAN, "is not a finite number of seconds"),
            (f64::INFINITY, "is not a finite number of seconds"),
            (86_401.0, "is longer than one day (86400 s)"),
            (
                0.005,
                "is shorter than 0.01 s, the shortest heartbeat interval",
            ),
        ] {
            match secs(1, 1, hb, 0.0, 1.0) {
                Err(FtError::Interval {
                    which: IntervalName::Heartbeat,
                    why: w,
                    ..
                }) => assert_eq!(w, why, "{hb}"),
                other => panic!("{hb}: {other:?}"),
            }
        }
        assert!(matches!(
            interval(IntervalName::Lost, 0.0),
            Err(FtError::Interval {
                why: "must be positive",
                ..
            })
        ));
    }

    #[test]
    fn group_names_are_reusable_names() {
        // "Reusable Names" / "tibrvftMember_Create()": legal subject syntax,
        // no wildcards, no reserved first element.
        assert_eq!(check_group("Acme.FT.Group"), Ok(()));
        for (name, element) in [
            ("A..B", Some(2)),
            ("A.*", Some(2)),
            ("A.>", Some(2)),
            ("_RVFT.X", Some(1)),
            ("", None),
        ] {
            let e = check_group(name).unwrap_err();
            assert!(matches!(e, FtError::Group { .. }), "{name}: {e:?}");
            assert_eq!(e.element(), element, "{name}");
            assert_eq!(
                e.status(),
                mqgate_codecs::rv::status::TibrvStatus::INVALID_SUBJECT
            );
        }
        // Elements are at most 127 bytes: two of 100 and 89 make 190.
        let longest = format!("{}.{}", "G".repeat(100), "G".repeat(89));
        assert_eq!(check_group(&longest), Ok(()));
        assert_eq!(
            check_group(&format!("{longest}G")),
            Err(FtError::GroupTooLong { len: 191 })
        );
    }
}
