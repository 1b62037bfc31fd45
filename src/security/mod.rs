//! Principals and authorities (docs/security.md): who a request comes from
//! (a principal authenticated by a bearer token, [`tokens`]) and what it may
//! do to which objects, in the spirit of IBM MQ's object authority manager
//! ("setmqaut (grant or revoke authority)", "Generic profiles"). The queue
//! interface asks [`Authorities::check`] before every call it is given a
//! principal for (src/mqi/authority.rs).

pub mod chlauth;
pub mod config;
pub mod credentials;
pub mod current;
pub mod limits;
pub mod profile;
pub mod subject_profile;
pub mod tls;
pub mod tokens;

pub use config::{ObjectType, SecurityConfig};

use std::cmp::Ordering;
use std::sync::Arc;

/// What a principal name starts with when it is a device queue manager.
pub const DEVICE_PREFIX: &str = "device:";

/// What a principal name starts with when it is a receiver channel's own
/// (docs/security.md "Principals of each front end").
pub const CHANNEL_PREFIX: &str = "channel:";

/// The principal a message channel's puts are checked as
/// (docs/security.md "Message channels"): `mcauser`, the one a channel
/// authentication rule mapped (IBM MQ's MCAUSER), else the channel's own
/// `channel:NAME`. `None` when `NAME` makes no valid principal (such a
/// channel's puts are refused once authorities are checked).
pub fn channel_principal(name: &str, mcauser: Option<Principal>) -> Option<Principal> {
    mcauser.or_else(|| Principal::new(&format!("{CHANNEL_PREFIX}{name}")).ok())
}

/// An authenticated principal: a name, and for `device:QMGR` the device
/// queue manager whose own queues are all it may read. One authenticated
/// by a bearer token also carries the grants in force with that token
/// ([`Principal::granted`], src/security/credentials.rs). Principals are
/// equal when their names are.
#[derive(Clone)]
pub struct Principal {
    name: String,
    granted: Option<Arc<Authorities>>,
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Principal {}

impl std::fmt::Debug for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("name", &self.name)
            .finish()
    }
}

/// Checks a principal name: 1 to 64 characters of letters, digits and
/// `. _ - @ :`; `device:QMGR` names a valid queue manager; `channel:NAME`
/// may hold a channel name's `/` and `%` too.
pub fn check_principal(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "a principal is 1 to 64 characters, not {}",
            name.len()
        ));
    }
    let channel = name.starts_with(CHANNEL_PREFIX);
    if let Some(c) = name.chars().find(|c| {
        !(c.is_ascii_alphanumeric()
            || matches!(c, '.' | '_' | '-' | '@' | ':')
            || (channel && matches!(c, '/' | '%')))
    }) {
        return Err(format!(
            "principal {name:?}: character {c:?} is not allowed"
        ));
    }
    if let Some(d) = name.strip_prefix(DEVICE_PREFIX) {
        crate::route::DeviceQueueManagers::check_name(d)
            .map_err(|e| format!("principal {name:?}: {}", e.message))?;
    }
    Ok(())
}

impl Principal {
    /// A principal named `name`. Errors: as [`check_principal`].
    pub fn new(name: &str) -> Result<Principal, String> {
        check_principal(name)?;
        Ok(Principal {
            name: name.to_string(),
            granted: None,
        })
    }

    /// The same principal holding `grants`, those in force with the
    /// credentials that authenticated it: its authority checks use them
    /// rather than those in force at the time of the check.
    pub fn with_grants(self, grants: Arc<Authorities>) -> Principal {
        Principal {
            granted: Some(grants),
            ..self
        }
    }

    /// The grants of [`Principal::with_grants`], if any.
    pub fn granted(&self) -> Option<&Arc<Authorities>> {
        self.granted.as_ref()
    }

    /// The principal's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device queue manager of a `device:QMGR` principal.
    pub fn device(&self) -> Option<&str> {
        self.name.strip_prefix(DEVICE_PREFIX)
    }
}

/// IBM MQ's authority names (setmqaut's `+put`, `+get`, ...), the subset
/// mqgate checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authority {
    /// MQPUT to a queue, or to a queue manager (`rqmname`).
    Put,
    /// Destructive MQGET, and acknowledging or backing out its lease.
    Get,
    /// MQGET with a browse option.
    Browse,
    /// MQINQ: queue depth, queue list, status.
    Inq,
    /// MQSET.
    Set,
    /// Display an object's attributes.
    Dsp,
    /// Change an object's attributes.
    Chg,
    /// Start and stop a channel.
    Ctrl,
    /// Put a message with all its context given by the putter (IBM MQ
    /// MQOO_SET_ALL_CONTEXT): a receiver channel keeping the sender's
    /// context, an HTTP put of a whole MQMD (`mqmd_base64`).
    SetAll,
    /// Publish on a Rendezvous subject (IBM MQ topic security's +pub).
    Pub,
    /// Listen on a Rendezvous subject pattern (IBM MQ topic security's
    /// +sub).
    Sub,
}

impl Authority {
    /// Every authority, which `all` grants.
    pub const ALL: [Authority; 11] = [
        Authority::Put,
        Authority::Get,
        Authority::Browse,
        Authority::Inq,
        Authority::Set,
        Authority::Dsp,
        Authority::Chg,
        Authority::Ctrl,
        Authority::SetAll,
        Authority::Pub,
        Authority::Sub,
    ];

    /// The name in a grant (setmqaut's without the `+`).
    pub fn name(self) -> &'static str {
        match self {
            Authority::Put => "put",
            Authority::Get => "get",
            Authority::Browse => "browse",
            Authority::Inq => "inq",
            Authority::Set => "set",
            Authority::Dsp => "dsp",
            Authority::Chg => "chg",
            Authority::Ctrl => "ctrl",
            Authority::SetAll => "setall",
            Authority::Pub => "pub",
            Authority::Sub => "sub",
        }
    }

    /// The authorities an item of a grant's list names: one, or every one
    /// for `all`; a leading `+` is allowed. Errors name the unknown item.
    pub fn parse_list_item(text: &str) -> Result<Vec<Authority>, String> {
        let t = text.strip_prefix('+').unwrap_or(text);
        if t == "all" {
            return Ok(Authority::ALL.to_vec());
        }
        Authority::ALL
            .into_iter()
            .find(|a| a.name() == t)
            .map(|a| vec![a])
            .ok_or_else(|| {
                format!(
                    "unknown authority {text:?}: expected put, get, browse, inq, set, dsp, chg, ctrl, setall, pub, sub or all"
                )
            })
    }
}

/// One grant, parsed.
#[derive(Clone, Debug)]
struct Grant {
    principal: String,
    profile: String,
    object_type: ObjectType,
    authorities: Vec<Authority>,
}

/// The grants of the `security:` section. A configuration reload replaces
/// them, with the tokens, in one step (src/security/credentials.rs).
#[derive(Debug, Default)]
pub struct Authorities {
    grants: std::sync::RwLock<Vec<Grant>>,
}

/// Why [`Authorities::check`] refused: a sentence naming the principal,
/// the authority and the object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Authorities {
    /// The grants of `c` (checked by [`SecurityConfig::problems`]; an
    /// unknown authority name is an error here too).
    pub fn from_config(c: &SecurityConfig) -> Result<Authorities, String> {
        let mut grants = Vec::new();
        for g in &c.authorities {
            let mut authorities = Vec::new();
            for a in &g.authorities {
                authorities.extend(Authority::parse_list_item(a)?);
            }
            grants.push(Grant {
                principal: g.principal.clone(),
                profile: g.profile.clone(),
                object_type: g.object_type,
                authorities,
            });
        }
        Ok(Authorities {
            grants: std::sync::RwLock::new(grants),
        })
    }

    /// Whether `principal` holds `authority` on object `name` of type
    /// `object_type`.
    ///
    /// A device principal (`device:QMGR`) holds get, browse and inq on its
    /// own device queues (`QMGR/QUEUE`, exactly that queue manager name, a
    /// queue name without `/`) and nothing on any other device's; its
    /// grants apply to other queues. Otherwise the most specific matching
    /// profile granted to the principal decides (IBM MQ "Profile priorities
    /// on UNIX, Linux, and Windows"); no matching profile: refused.
    pub fn check(
        &self,
        principal: &Principal,
        object_type: ObjectType,
        name: &str,
        authority: Authority,
    ) -> Result<(), Refusal> {
        let refuse = || {
            // The name comes from the request: quoted and cut.
            Refusal(format!(
                "principal {:?} has no +{} authority on {} {}",
                principal.name(),
                authority.name(),
                type_name(object_type),
                crate::qmgr::names::shown(name)
            ))
        };
        if let Some(device) = principal.device()
            && object_type == ObjectType::Queue
            && let Some(queue) = name
                .strip_prefix(device)
                .and_then(|rest| rest.strip_prefix('/'))
        {
            let own = !queue.is_empty() && !queue.contains('/');
            return if own
                && matches!(
                    authority,
                    Authority::Get | Authority::Browse | Authority::Inq
                ) {
                Ok(())
            } else {
                Err(refuse())
            };
        }
        let grants = self.grants.read().unwrap_or_else(|p| p.into_inner());
        if object_type == ObjectType::Subject {
            return if subject_held(&grants, principal.name(), name, authority) {
                Ok(())
            } else {
                Err(refuse())
            };
        }
        let mut best: Option<&str> = None;
        for g in grants.iter() {
            if g.principal == principal.name()
                && g.object_type == object_type
                && profile::matches(&g.profile, name)
                && best.is_none_or(|b| profile::more_specific(&g.profile, b) == Ordering::Greater)
            {
                best = Some(&g.profile);
            }
        }
        let Some(best) = best else {
            return Err(refuse());
        };
        // Every grant of the same principal and profile counts (as
        // repeated setmqaut commands add up).
        let held = grants.iter().any(|g| {
            g.principal == principal.name()
                && g.object_type == object_type
                && g.profile == best
                && g.authorities.contains(&authority)
        });
        if held { Ok(()) } else { Err(refuse()) }
    }
}

/// Whether `principal`'s subject grants give `authority` on subject (or
/// listen pattern) `name` (src/security/subject_profile.rs): the most
/// specific profile covering `name` grants it, and so does every more
/// specific profile that overlaps `name`.
fn subject_held(grants: &[Grant], principal: &str, name: &str, authority: Authority) -> bool {
    use subject_profile::{covers, more_specific, overlaps};
    let mine = || {
        grants
            .iter()
            .filter(move |g| g.principal == principal && g.object_type == ObjectType::Subject)
    };
    let holds =
        |profile: &str| mine().any(|g| g.profile == profile && g.authorities.contains(&authority));
    let mut best: Option<&str> = None;
    for g in mine() {
        if covers(&g.profile, name)
            && best.is_none_or(|b| more_specific(&g.profile, b) == Ordering::Greater)
        {
            best = Some(&g.profile);
        }
    }
    let Some(best) = best else {
        return false;
    };
    holds(best)
        && mine().all(|g| {
            more_specific(&g.profile, best) != Ordering::Greater
                || !overlaps(&g.profile, name)
                || holds(&g.profile)
        })
}

fn type_name(t: ObjectType) -> &'static str {
    match t {
        ObjectType::Queue => "queue",
        ObjectType::Qmgr => "queue manager",
        ObjectType::Rqmname => "remote queue manager",
        ObjectType::Channel => "channel",
        ObjectType::Subject => "subject",
    }
}

#[cfg(test)]
mod tests;
