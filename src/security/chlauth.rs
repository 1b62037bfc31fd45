//! Channel authentication rules in the spirit of IBM MQ's channel
//! authentication records (IBM MQ "Channel authentication records", "SET
//! CHLAUTH"): per channel name (a generic profile), allow or block a
//! connection by the peer's address, its certificate's subject DN
//! (SSLPEERMAP), the sending queue manager's name (QMGRMAP) or an MQ
//! client's user id (USERMAP, BLOCKUSER), and name the principal an allowed
//! connection runs as (USERSRC(MAP) MCAUSER).
//!
//! Unlike IBM MQ, which picks the most specific record, mqgate reads the
//! rules in the order they are configured and the **first** rule that
//! matches decides (docs/security.md "Channel authentication rules"). No
//! rule matching: the connection is allowed. An MQ client's user id is
//! known at its MQCONN, after the channel name and address: when a rule
//! with `client_user` could come first, the decision waits for it
//! ([`ChannelRules::check_client`]).
//!
//! Patterns:
//! - channel and queue manager names: `*` stands for any characters, in any
//!   position (IBM MQ "SET CHLAUTH": "one or more asterisks, in any
//!   position"); other characters match themselves, case-sensitively;
//! - addresses ([`AddressPattern`]): `*`, an IPv4 or IPv6 address, CIDR
//!   (`10.0.0.0/8`, `2001:db8::/32`), or IBM MQ's generic IPv4 forms
//!   (IBM MQ "Generic IP addresses for channel authentication records":
//!   `192.0.2.*`, `192.0.*`, `192.*.2`, `192.0.2.1-8`);
//! - subject DNs ([`DnPattern`]): SSLPEER style, `CN=gw2,O=Example`: every
//!   attribute given must be in the peer's DN with a matching value (names
//!   and values compared without regard to case; `*` at the start or end of
//!   a value is generic).

use super::Principal;
use serde::Deserialize;
use std::net::IpAddr;

/// One connection attempt, as the listener knows it when the channel name is
/// known (message channel: at HELLO; SVRCONN: at INITIAL_DATA).
#[derive(Clone, Copy, Debug)]
pub struct Attempt<'a> {
    /// The channel the peer names.
    pub channel: &'a str,
    /// The peer's IP address.
    pub addr: IpAddr,
    /// The subject DN of the peer's certificate (TLS with a client
    /// certificate); `None` without one.
    pub dn: Option<&'a str>,
    /// The sending queue manager (message channels); `None` for a client
    /// connection or a sender that gave none.
    pub qmgr: Option<&'a str>,
    /// The user id an MQ client connects with (its MQCSP's, else its
    /// USERID_DATA's), once known at MQCONN; `None` before, and for
    /// message channels.
    pub user: Option<&'a str>,
}

/// What a rule does with a connection it matches.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Let it in (IBM MQ USERSRC(CHANNEL), or USERSRC(MAP) with `mcauser`).
    #[default]
    Allow,
    /// Refuse it with 2035 MQRC_NOT_AUTHORIZED (USERSRC(NOACCESS)).
    Block,
}

/// One rule of `security.chlauth` as written in the configuration.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// Generic channel profile (`*` any characters).
    pub channel: String,
    /// Peer address pattern ([`AddressPattern`]); absent: any address.
    #[serde(default)]
    pub address: Option<String>,
    /// Subject DN pattern ([`DnPattern`]); a rule with one matches only
    /// connections that presented a certificate.
    #[serde(default)]
    pub dn: Option<String>,
    /// Generic sending queue manager name; a rule with one matches only
    /// message channels whose sender named its queue manager.
    #[serde(default)]
    pub qmgr: Option<String>,
    /// Generic user id of an MQ client (`*` any characters; IBM MQ
    /// USERMAP's CLNTUSER, BLOCKUSER's USERLIST); a rule with one matches
    /// only MQ client connections, at their MQCONN.
    #[serde(default)]
    pub client_user: Option<String>,
    /// `allow` (default) or `block`.
    #[serde(default)]
    pub action: Action,
    /// With `allow`: the principal the connection runs as (IBM MQ MCAUSER
    /// set by USERSRC(MAP)), whose authorities its puts and gets need.
    #[serde(default)]
    pub mcauser: Option<String>,
    /// With `block`: log the match at WARN and let the connection in (IBM MQ
    /// WARN(YES)).
    #[serde(default)]
    pub warn: bool,
    /// Free text (MQSC DESCR).
    #[serde(default)]
    pub description: Option<String>,
}

impl RuleConfig {
    /// The rule as one line of text for the log: its criteria and action,
    /// e.g. `channel=TO.GW address=10.0.0.0/8 action=block`.
    pub fn text(&self) -> String {
        let mut t = format!("channel={}", self.channel);
        for (k, v) in [
            ("address", &self.address),
            ("dn", &self.dn),
            ("qmgr", &self.qmgr),
            ("client_user", &self.client_user),
        ] {
            if let Some(v) = v {
                t.push_str(&format!(" {k}={v:?}"));
            }
        }
        t.push_str(match self.action {
            Action::Allow => " action=allow",
            Action::Block => " action=block",
        });
        if let Some(u) = &self.mcauser {
            t.push_str(&format!(" mcauser={u}"));
        }
        if self.warn {
            t.push_str(" warn=true");
        }
        t
    }

    /// The problems of the rule: (key, message).
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if self.channel.is_empty() || self.channel.len() > 20 {
            out.push((
                "channel",
                "a channel profile is 1 to 20 characters (MQ channel names)".to_string(),
            ));
        }
        if let Some(a) = &self.address
            && let Err(e) = AddressPattern::parse(a)
        {
            out.push(("address", e));
        }
        if let Some(d) = &self.dn
            && let Err(e) = DnPattern::parse(d)
        {
            out.push(("dn", e));
        }
        if let Some(q) = &self.qmgr
            && (q.is_empty() || q.len() > 48)
        {
            out.push((
                "qmgr",
                "a queue manager profile is 1 to 48 characters".to_string(),
            ));
        }
        if let Some(u) = &self.client_user {
            if u.is_empty() || u.chars().count() > 64 {
                out.push((
                    "client_user",
                    "a client user id profile is 1 to 64 characters".to_string(),
                ));
            } else if self.qmgr.is_some() {
                out.push((
                    "client_user",
                    "client_user matches MQ client connections, qmgr message channels: a rule cannot have both".to_string(),
                ));
            }
        }
        if let Some(u) = &self.mcauser {
            if self.action == Action::Block {
                out.push((
                    "mcauser",
                    "a blocking rule maps no principal; use action: allow".to_string(),
                ));
            } else if let Err(e) = super::check_principal(u) {
                out.push(("mcauser", e));
            }
        }
        if self.warn && self.action == Action::Allow {
            out.push((
                "warn",
                "warn applies to blocking rules (IBM MQ WARN(YES)); this rule allows".to_string(),
            ));
        }
        out
    }
}

/// A peer address pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressPattern {
    /// `*`: any address.
    Any,
    /// An address and the number of leading bits that must match (an
    /// address alone: all of them).
    Cidr(IpAddr, u8),
    /// IBM MQ's generic IPv4 form, part by part.
    Generic(Vec<Part>),
}

/// One part of a generic IPv4 pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `n-m`: a number in this range (`n` alone: `n-n`).
    Range(u8, u8),
    /// `*`: one or more whole parts.
    Star,
}

impl AddressPattern {
    /// Reads a pattern. Errors say what is wrong (IBM MQ's rules: a pattern
    /// with fewer than four parts needs a `*`; `*` is a whole part and never
    /// next to another; a range's lower number is below its upper one).
    pub fn parse(text: &str) -> Result<AddressPattern, String> {
        let t = text.trim();
        if t == "*" {
            return Ok(AddressPattern::Any);
        }
        if let Some((addr, bits)) = t.split_once('/') {
            let ip: IpAddr = addr
                .parse()
                .map_err(|_| format!("address {t:?}: {addr:?} is not an IP address"))?;
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let n: u8 = bits.parse().ok().filter(|n| *n <= max).ok_or_else(|| {
                format!("address {t:?}: prefix length {bits:?} is not 0 to {max}")
            })?;
            return Ok(AddressPattern::Cidr(ip, n));
        }
        if let Ok(ip) = t.parse::<IpAddr>() {
            let bits = if ip.is_ipv4() { 32 } else { 128 };
            return Ok(AddressPattern::Cidr(ip, bits));
        }
        if t.contains(':') {
            return Err(format!(
                "address {t:?}: IPv6 patterns are an address, `*` or CIDR (ADDR/BITS)"
            ));
        }
        let mut parts = Vec::new();
        for p in t.split('.') {
            let part = if p == "*" {
                if parts.last() == Some(&Part::Star) {
                    return Err(format!("address {t:?}: `*` next to another `*`"));
                }
                Part::Star
            } else {
                let (lo, hi) = p.split_once('-').unwrap_or((p, p));
                let num = |s: &str| {
                    s.parse::<u8>().map_err(|_| {
                        format!("address {t:?}: part {p:?} is not 0 to 255, `*` or a range n-m")
                    })
                };
                let (lo, hi) = (num(lo)?, num(hi)?);
                if p.contains('-') && lo >= hi {
                    return Err(format!(
                        "address {t:?}: range {p:?} must go from a lower to a higher number"
                    ));
                }
                Part::Range(lo, hi)
            };
            parts.push(part);
        }
        let numbers = parts.iter().filter(|p| **p != Part::Star).count();
        let stars = parts.len() - numbers;
        if numbers > 4 || (stars == 0 && numbers != 4) || (stars > 0 && numbers + stars > 4) {
            return Err(format!(
                "address {t:?}: an IPv4 pattern has four parts, or fewer with `*` standing for the rest"
            ));
        }
        Ok(AddressPattern::Generic(parts))
    }

    /// True when `addr` matches (an IPv4-mapped IPv6 address is matched as
    /// its IPv4 address).
    pub fn matches(&self, addr: IpAddr) -> bool {
        let addr = match addr {
            IpAddr::V6(v6) => v6
                .to_ipv4_mapped()
                .map(IpAddr::V4)
                .unwrap_or(IpAddr::V6(v6)),
            v4 => v4,
        };
        match (self, addr) {
            (AddressPattern::Any, _) => true,
            (AddressPattern::Cidr(IpAddr::V4(p), n), IpAddr::V4(a)) => {
                prefix_eq(&p.octets(), &a.octets(), *n)
            }
            (AddressPattern::Cidr(IpAddr::V6(p), n), IpAddr::V6(a)) => {
                prefix_eq(&p.octets(), &a.octets(), *n)
            }
            (AddressPattern::Generic(parts), IpAddr::V4(a)) => parts_match(parts, &a.octets()),
            _ => false,
        }
    }
}

fn prefix_eq(p: &[u8], a: &[u8], bits: u8) -> bool {
    let full = usize::from(bits / 8);
    let rest = bits % 8;
    if p[..full] != a[..full] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xFFu8 << (8 - rest);
    (p[full] & mask) == (a[full] & mask)
}

fn parts_match(parts: &[Part], octets: &[u8]) -> bool {
    match parts.split_first() {
        None => octets.is_empty(),
        Some((Part::Star, rest)) => (1..=octets.len()).any(|n| parts_match(rest, &octets[n..])),
        Some((Part::Range(lo, hi), rest)) => match octets.split_first() {
            Some((o, more)) => (lo..=hi).contains(&o) && parts_match(rest, more),
            None => false,
        },
    }
}

/// An SSLPEER-style subject DN pattern: attribute type and value pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DnPattern {
    attributes: Vec<(String, String)>,
}

/// `CN=a, O=b` as (TYPE, value) pairs, types upper-cased; `\,` escapes a
/// comma in a value. Errors name the part that is no `TYPE=value`.
fn dn_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' | ';' => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    parts.push(cur);
    parts
        .into_iter()
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("{:?} is not TYPE=value", p.trim()))?;
            let k = k.trim();
            if k.is_empty() {
                return Err(format!("{:?} has no attribute type", p.trim()));
            }
            Ok((k.to_ascii_uppercase(), v.trim().to_string()))
        })
        .collect()
}

impl DnPattern {
    /// Reads `CN=gw2,O=Example` (`,` or `;` between attributes). Errors:
    /// a part that is no `TYPE=value`.
    pub fn parse(text: &str) -> Result<DnPattern, String> {
        let attributes = dn_pairs(text).map_err(|e| format!("dn {text:?}: {e}"))?;
        Ok(DnPattern { attributes })
    }

    /// True when every attribute of the pattern is in subject DN `dn` with
    /// a matching value (a repeated type, `OU=a,OU=b`, needs each value).
    pub fn matches(&self, dn: &str) -> bool {
        let Ok(have) = dn_pairs(dn) else {
            return false;
        };
        self.attributes.iter().all(|(k, want)| {
            have.iter()
                .any(|(hk, hv)| hk == k && value_matches(want, hv))
        })
    }
}

/// A DN value against a pattern value: without regard to case, `*` at the
/// start or end standing for any characters.
fn value_matches(pattern: &str, value: &str) -> bool {
    let p = pattern.to_lowercase();
    let v = value.to_lowercase();
    generic_match(&p, &v)
}

/// `*` in `pattern` stands for any characters (none included), anywhere;
/// everything else matches itself.
pub fn generic_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Classic two-pointer match with one backtrack point per `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// A compiled rule.
#[derive(Clone, Debug)]
struct Rule {
    config: RuleConfig,
    address: Option<AddressPattern>,
    dn: Option<DnPattern>,
    mcauser: Option<Principal>,
}

impl Rule {
    /// Whether every criterion but the client user id matches.
    fn matches_connection(&self, a: &Attempt<'_>) -> bool {
        generic_match(&self.config.channel, a.channel)
            && self.address.as_ref().is_none_or(|p| p.matches(a.addr))
            && self
                .dn
                .as_ref()
                .is_none_or(|p| a.dn.is_some_and(|d| p.matches(d)))
            && self
                .config
                .qmgr
                .as_ref()
                .is_none_or(|p| a.qmgr.is_some_and(|q| generic_match(p, q)))
    }

    fn matches(&self, a: &Attempt<'_>) -> bool {
        self.matches_connection(a)
            && self
                .config
                .client_user
                .as_ref()
                .is_none_or(|p| a.user.is_some_and(|u| generic_match(p, u)))
    }
}

/// The rules of `security.chlauth`, in order. A configuration reload
/// replaces them all at once ([`ChannelRules::replace`]).
#[derive(Debug, Default)]
pub struct ChannelRules {
    rules: std::sync::RwLock<Vec<Rule>>,
}

/// What the rules decided about an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Let in.
    Allowed {
        /// The index of the rule that matched; `None`: no rule matched.
        rule: Option<usize>,
        /// The principal that rule maps (`mcauser`).
        mcauser: Option<Principal>,
    },
    /// A blocking rule with `warn: true` matched: let in, logged at WARN.
    Warned {
        /// The rule's 0-based index in `security.chlauth`.
        rule: usize,
        /// The rule as [`RuleConfig::text`] writes it.
        text: String,
    },
    /// Refused with 2035 MQRC_NOT_AUTHORIZED.
    Blocked {
        /// The rule's 0-based index in `security.chlauth`.
        rule: usize,
        /// The rule as [`RuleConfig::text`] writes it.
        text: String,
    },
}

impl ChannelRules {
    /// The rules of `rules`. Errors: the first problem of a rule
    /// ([`RuleConfig::problems`]), as `security.chlauth[I].KEY: message`.
    pub fn new(rules: &[RuleConfig]) -> Result<ChannelRules, String> {
        let mut out = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if let Some((k, e)) = r.problems().into_iter().next() {
                return Err(format!("security.chlauth[{i}].{k}: {e}"));
            }
            out.push(Rule {
                config: r.clone(),
                address: r
                    .address
                    .as_deref()
                    .map(AddressPattern::parse)
                    .transpose()?,
                dn: r.dn.as_deref().map(DnPattern::parse).transpose()?,
                mcauser: r.mcauser.as_deref().map(Principal::new).transpose()?,
            });
        }
        Ok(ChannelRules {
            rules: std::sync::RwLock::new(out),
        })
    }

    fn rules(&self) -> std::sync::RwLockReadGuard<'_, Vec<Rule>> {
        self.rules.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts the rules of `other` in force instead of these, all at once,
    /// for every later connection attempt (docs/operations.md "Reloading
    /// the configuration"); connections already let in stay.
    pub fn replace(&self, other: ChannelRules) {
        let new = other.rules.into_inner().unwrap_or_else(|p| p.into_inner());
        *self.rules.write().unwrap_or_else(|p| p.into_inner()) = new;
    }

    /// True when no rule is configured.
    pub fn is_empty(&self) -> bool {
        self.rules().is_empty()
    }

    /// The first rule matching `a` decides ([`Decision`]). A rule with
    /// `client_user` matches only when `a.user` is known.
    pub fn check(&self, a: &Attempt<'_>) -> Decision {
        let rules = self.rules();
        let Some((i, r)) = rules.iter().enumerate().find(|(_, r)| r.matches(a)) else {
            return Decision::Allowed {
                rule: None,
                mcauser: None,
            };
        };
        decision(i, r)
    }

    /// The decision about an MQ client connection at its INITIAL_DATA,
    /// before its user id is known: `None` when a rule with `client_user`
    /// whose other criteria match comes before every rule that matches
    /// without one (check again with the user id, at MQCONN); else
    /// [`ChannelRules::check`]'s.
    pub fn check_client(&self, a: &Attempt<'_>) -> Option<Decision> {
        let rules = self.rules();
        for (i, r) in rules.iter().enumerate() {
            if !r.matches_connection(a) {
                continue;
            }
            if r.config.client_user.is_some() {
                return None;
            }
            return Some(decision(i, r));
        }
        Some(Decision::Allowed {
            rule: None,
            mcauser: None,
        })
    }
}

/// What rule `r`, index `i`, decides about a connection it matches.
fn decision(i: usize, r: &Rule) -> Decision {
    match (r.config.action, r.config.warn) {
        (Action::Allow, _) => Decision::Allowed {
            rule: Some(i),
            mcauser: r.mcauser.clone(),
        },
        (Action::Block, true) => Decision::Warned {
            rule: i,
            text: r.config.text(),
        },
        (Action::Block, false) => Decision::Blocked {
            rule: i,
            text: r.config.text(),
        },
    }
}

#[cfg(test)]
mod tests;
