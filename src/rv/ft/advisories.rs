//! Fault tolerance advisories, `_RV.<class>.RVFT.<name>.<group>` (TIBCO
//! Rendezvous Concepts, "PARAM_MISMATCH", "TOO_MANY_ACTIVE",
//! "TOO_FEW_ACTIVE", "DISABLING_MEMBER"; docs/rendezvous.md "Fault
//! tolerance advisories").
//!
//! Each carries mqgate's advisory fields (`ADV_CLASS`, `ADV_SOURCE`,
//! `ADV_NAME`, `ADV_DESC`), then `RVADV_DESC` (the description, under the
//! name TIBCO's RVFT pages give it; absent where TIBCO's is NULL), `group`
//! and `member` (the member that presents it), and the fields of each
//! advisory below.

use mqgate_codecs::rv::msg::Value;

use crate::rv::advisory::{Advisory, AdvisoryClass, SOURCE_RVFT};

/// A parameter another member of the group does not share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mismatch {
    /// ERROR "Active goal differs".
    ActiveGoal,
    /// ERROR "Activation interval differs".
    Activation,
    /// WARN "Heartbeat interval differs".
    Heartbeat,
    /// WARN "Other prepares before this member's heartbeat": the other
    /// member's preparation interval is not 0 and at most this member's
    /// heartbeat interval, so it gets false PREPARE_TO_ACTIVATE hints.
    PreparesBeforeHeartbeat,
}

impl Mismatch {
    /// The `RVADV_DESC` text of "PARAM_MISMATCH".
    pub fn description(self) -> &'static str {
        match self {
            Mismatch::ActiveGoal => "Active goal differs",
            Mismatch::Activation => "Activation interval differs",
            Mismatch::Heartbeat => "Heartbeat interval differs",
            Mismatch::PreparesBeforeHeartbeat => "Other prepares before this member's heartbeat",
        }
    }

    /// ERROR for the active goal and activation interval, WARN for the
    /// others.
    pub fn class(self) -> AdvisoryClass {
        match self {
            Mismatch::ActiveGoal | Mismatch::Activation => AdvisoryClass::Error,
            Mismatch::Heartbeat | Mismatch::PreparesBeforeHeartbeat => AdvisoryClass::Warn,
        }
    }

    /// A bit of its own, for sets of mismatches.
    pub(crate) fn bit(self) -> u8 {
        match self {
            Mismatch::ActiveGoal => 1,
            Mismatch::Activation => 2,
            Mismatch::Heartbeat => 4,
            Mismatch::PreparesBeforeHeartbeat => 8,
        }
    }
}

fn base(
    class: AdvisoryClass,
    name: &str,
    group: &str,
    member: &str,
    description: Option<&str>,
) -> Advisory {
    let mut a = Advisory::new(class, SOURCE_RVFT, format!("{name}.{group}"));
    if let Some(d) = description {
        a = a
            .with_description(d)
            .with_field("RVADV_DESC", Value::String(d.into()));
    }
    a.with_field("group", Value::String(group.into()))
        .with_field("member", Value::String(member.into()))
}

/// `_RV.ERROR.RVFT.PARAM_MISMATCH.<group>` or
/// `_RV.WARN.RVFT.PARAM_MISMATCH.<group>` ("PARAM_MISMATCH"): member
/// `other` uses a parameter unlike `member`'s. Field `other_member`.
pub fn param_mismatch(group: &str, member: &str, other: &str, what: Mismatch) -> Advisory {
    base(
        what.class(),
        "PARAM_MISMATCH",
        group,
        member,
        Some(what.description()),
    )
    .with_field("other_member", Value::String(other.into()))
}

/// `_RV.WARN.RVFT.TOO_MANY_ACTIVE.<group>` ("TOO_MANY_ACTIVE"): `member`
/// is active and stays so, yet more than the active goal are active.
/// Fields `active` (u32, active members heard, this one included) and
/// `active_goal` (u16).
pub fn too_many_active(group: &str, member: &str, active: usize, goal: u16) -> Advisory {
    base(
        AdvisoryClass::Warn,
        "TOO_MANY_ACTIVE",
        group,
        member,
        Some("More members are active than the active goal"),
    )
    .with_field("active", Value::U32(count(active)))
    .with_field("active_goal", Value::U16(goal))
}

/// `_RV.WARN.RVFT.TOO_FEW_ACTIVE.<group>` ("TOO_FEW_ACTIVE"): `member` is
/// inactive and stays so, yet fewer than the active goal are active.
/// Fields `active` (u32) and `active_goal` (u16).
pub fn too_few_active(group: &str, member: &str, active: usize, goal: u16) -> Advisory {
    base(
        AdvisoryClass::Warn,
        "TOO_FEW_ACTIVE",
        group,
        member,
        Some("Fewer members are active than the active goal"),
    )
    .with_field("active", Value::U32(count(active)))
    .with_field("active_goal", Value::U16(goal))
}

/// `_RV.ERROR.RVFT.DISABLING_MEMBER.<group>` ("DISABLING_MEMBER"): mqgate
/// could not keep `member` working (its heartbeat could not be published)
/// and set its weight to 0. Only that member presents it; no description
/// (TIBCO's RVADV_DESC is always NULL).
pub fn disabling_member(group: &str, member: &str) -> Advisory {
    base(
        AdvisoryClass::Error,
        "DISABLING_MEMBER",
        group,
        member,
        None,
    )
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(a: &Advisory, field: &str) -> Option<String> {
        let env = a.clone().into_envelope();
        match env.message.get(field).map(|f| &f.value) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    }

    #[test]
    fn param_mismatch_subjects_and_descriptions() {
        // "PARAM_MISMATCH": _RV.ERROR.RVFT.PARAM_MISMATCH.group for the
        // active goal and activation interval, _RV.WARN.... for the
        // heartbeat interval, with these RVADV_DESC texts.
        for (what, subject, desc) in [
            (
                Mismatch::ActiveGoal,
                "_RV.ERROR.RVFT.PARAM_MISMATCH.Acme.FT.Group",
                "Active goal differs",
            ),
            (
                Mismatch::Activation,
                "_RV.ERROR.RVFT.PARAM_MISMATCH.Acme.FT.Group",
                "Activation interval differs",
            ),
            (
                Mismatch::Heartbeat,
                "_RV.WARN.RVFT.PARAM_MISMATCH.Acme.FT.Group",
                "Heartbeat interval differs",
            ),
        ] {
            let a = param_mismatch("Acme.FT.Group", "A", "B", what);
            assert_eq!(a.subject(), subject);
            assert_eq!(text(&a, "RVADV_DESC").as_deref(), Some(desc));
            assert_eq!(text(&a, "ADV_DESC").as_deref(), Some(desc));
            assert_eq!(text(&a, "other_member").as_deref(), Some("B"));
        }
    }

    #[test]
    fn the_other_advisories() {
        // "TOO_MANY_ACTIVE", "TOO_FEW_ACTIVE" (WARN) and "DISABLING_MEMBER"
        // (ERROR, RVADV_DESC always NULL).
        assert_eq!(
            too_many_active("G", "A", 2, 1).subject(),
            "_RV.WARN.RVFT.TOO_MANY_ACTIVE.G"
        );
        assert_eq!(
            too_few_active("G", "A", 0, 1).subject(),
            "_RV.WARN.RVFT.TOO_FEW_ACTIVE.G"
        );
        let d = disabling_member("G", "A");
        assert_eq!(d.subject(), "_RV.ERROR.RVFT.DISABLING_MEMBER.G");
        assert_eq!(text(&d, "RVADV_DESC"), None);
        assert_eq!(text(&d, "member").as_deref(), Some("A"));
    }
}
