//! The one place where the queue interface checks authorities
//! (docs/security.md "Authorities"): a front end that authenticated its
//! caller asks [`Mqi::authorize`] before it opens, puts, gets or inquires,
//! naming the object as the caller named it.

use super::Mqi;
use crate::qmgr::QmError;
use crate::security::chlauth::{Attempt, ChannelRules, Decision};
use crate::security::credentials::CurrentCredentials;
use crate::security::limits::Limits;
use crate::security::{Authority, ObjectType, Principal};
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// What the channel authentication rules decided about an MQ client
/// connection at its INITIAL_DATA ([`Mqi::client_channel_access`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientAccess {
    /// Decided: let in, as the principal a rule maps (if any).
    Decided(Option<Principal>),
    /// A rule naming a client user id may decide: ask again at MQCONN.
    AtConnect,
}

/// Blocked connection attempts, per channel, rule and peer address.
static BLOCKED: crate::log_limit::Repeats = crate::log_limit::Repeats::per_minute();

impl Mqi {
    /// The same queue interface, checking the grants of `authorities` in
    /// [`Mqi::authorize`] (without, every call is allowed: no security is
    /// configured).
    pub fn with_authorities(mut self, authorities: Arc<CurrentCredentials>) -> Mqi {
        self.authorities = Some(authorities);
        self
    }

    /// The same queue interface, checking the channel authentication rules
    /// `rules` in [`Mqi::channel_access`].
    pub fn with_channel_rules(mut self, rules: Arc<ChannelRules>) -> Mqi {
        self.channel_rules = Some(rules);
        self
    }

    /// Whether the channel authentication rules (`security.chlauth`,
    /// docs/security.md "Channel authentication rules") let connection
    /// attempt `a` in: the first rule matching decides. Returns the
    /// principal a matching `allow` rule maps (IBM MQ USERSRC(MAP)
    /// MCAUSER), if any. Errors: 2035 MQRC_NOT_AUTHORIZED when a blocking
    /// rule matched, logged at WARN (one line a minute per channel, rule
    /// and peer address, src/log_limit.rs) with the rule's index and text
    /// and the peer; a blocking rule with `warn: true` is logged the same
    /// way and lets the attempt in.
    pub fn channel_access(&self, a: &Attempt<'_>) -> Result<Option<Principal>, QmError> {
        let Some(rules) = &self.channel_rules else {
            return Ok(None);
        };
        self.decided(a, rules.check(a))
    }

    /// [`Mqi::channel_access`] for an MQ client at its INITIAL_DATA, whose
    /// user id is not known yet: [`ClientAccess::AtConnect`] when a rule
    /// naming a client user id could decide (ask
    /// [`Mqi::channel_access`] again at MQCONN, with the user id in the
    /// attempt). Errors as [`Mqi::channel_access`].
    pub fn client_channel_access(&self, a: &Attempt<'_>) -> Result<ClientAccess, QmError> {
        let Some(rules) = &self.channel_rules else {
            return Ok(ClientAccess::Decided(None));
        };
        match rules.check_client(a) {
            None => Ok(ClientAccess::AtConnect),
            Some(d) => self.decided(a, d).map(ClientAccess::Decided),
        }
    }

    /// Acts on decision `d` about attempt `a`: logs, counts, and the
    /// principal or the 2035 refusal.
    fn decided(&self, a: &Attempt<'_>, d: Decision) -> Result<Option<Principal>, QmError> {
        match d {
            Decision::Allowed { mcauser, .. } => Ok(mcauser),
            Decision::Warned { rule, text } => {
                if let Some(suppressed) = BLOCKED.admit(&format!("{} {rule} {}", a.channel, a.addr))
                {
                    tracing::warn!(channel = %crate::qmgr::names::shown(a.channel), peer = %a.addr,
                        qmgr = a.qmgr.unwrap_or(""), dn = a.dn.unwrap_or(""), user = %crate::qmgr::names::shown(a.user.unwrap_or("")),
                        rule, rule_text = %text, suppressed, "channel authentication rule would block the connection (warn: true); let in");
                }
                Ok(None)
            }
            Decision::Blocked { rule, text } => {
                if let Some(suppressed) = BLOCKED.admit(&format!("{} {rule} {}", a.channel, a.addr))
                {
                    tracing::warn!(channel = %crate::qmgr::names::shown(a.channel), peer = %a.addr,
                        qmgr = a.qmgr.unwrap_or(""), dn = a.dn.unwrap_or(""), user = %crate::qmgr::names::shown(a.user.unwrap_or("")),
                        rule, rule_text = %text, suppressed, "channel authentication rule blocked the connection: 2035 MQRC_NOT_AUTHORIZED");
                }
                crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Chlauth);
                Err(QmError::new(
                    Mqrc::NOT_AUTHORIZED,
                    format!(
                        "channel authentication rule security.chlauth[{rule}] ({text}) blocks this connection"
                    ),
                ))
            }
        }
    }

    /// The same queue interface, its front ends counting connections and
    /// held memory against `limits` (docs/security.md "Limits").
    pub fn with_limits(mut self, limits: Arc<Limits>) -> Mqi {
        self.limits = limits;
        self
    }

    /// The limits front ends count connections and held memory against;
    /// without [`Mqi::with_limits`] the defaults of
    /// [`crate::security::limits::LimitsConfig`].
    pub fn limits(&self) -> &Arc<Limits> {
        &self.limits
    }

    /// True when authorities are checked.
    pub fn checks_authorities(&self) -> bool {
        self.authorities.is_some()
    }

    /// Whether `principal` may use `authority` on object `name` of type
    /// `object_type` (IBM MQ "setmqaut (grant or revoke authority)"),
    /// against the grants the principal carries (those that went with the
    /// token that authenticated it, src/security/credentials.rs), else
    /// those in force now. Allowed when no security is configured. Errors: 2035
    /// MQRC_NOT_AUTHORIZED naming principal, authority and object; also
    /// when security is configured and the caller has no principal.
    pub fn authorize(
        &self,
        principal: Option<&Principal>,
        object_type: ObjectType,
        name: &str,
        authority: Authority,
    ) -> Result<(), QmError> {
        let Some(a) = &self.authorities else {
            return Ok(());
        };
        let Some(p) = principal else {
            return Err(QmError::new(
                Mqrc::NOT_AUTHORIZED,
                "the call has no authenticated principal",
            ));
        };
        let now;
        let grants = match p.granted() {
            Some(g) => g,
            None => {
                now = a.get();
                &now.authorities
            }
        };
        grants.check(p, object_type, name, authority).map_err(|r| {
            // Names quoted and cut (they come from the request).
            tracing::info!(
                principal = p.name(),
                object = %crate::qmgr::names::shown(name),
                authority = authority.name(),
                "refused: {}",
                r.0
            );
            QmError::new(Mqrc::NOT_AUTHORIZED, r.0)
        })
    }

    /// [`Mqi::authorize`] for queue `queue` of device queue manager
    /// `device`, whose local name is `DEVICE/QUEUE` (docs/security.md
    /// "Device principals"). The names are joined as given, before any
    /// check of their syntax, so a name holding `/` never reaches another
    /// device's queue.
    pub fn authorize_device(
        &self,
        principal: Option<&Principal>,
        device: &str,
        queue: &str,
        authority: Authority,
    ) -> Result<(), QmError> {
        self.authorize(
            principal,
            ObjectType::Queue,
            &format!("{device}/{queue}"),
            authority,
        )
    }
}
