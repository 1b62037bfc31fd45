//! SSLPEER filters: which peer certificates a channel accepts, matched
//! against the subject DN as IBM MQ "IBM MQ rules for SSLPEER values" and
//! "Distinguished Names" describe (docs/security.md "SSLPEER").

use super::dn::{Ava, canonical_attribute, parse_avas};
use std::fmt;

/// The longest SSLPEER value, in bytes (IBM MQ "SSLPEER (SSL Peer)": 1024
/// on platforms other than z/OS).
pub const MAX_LEN: usize = 1024;

/// A parsed SSLPEER filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SslPeer {
    text: String,
    items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Item {
    /// The canonical attribute name ([`canonical_attribute`]).
    attr: &'static str,
    pattern: Pattern,
}

/// A value with optional generic `*` at its start and end, compared
/// without regard to case.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pattern {
    core: String,
    any_start: bool,
    any_end: bool,
}

impl Pattern {
    fn of(a: &Ava) -> Pattern {
        let mut core = a.value.as_str();
        if a.star_start {
            core = &core[1..];
        }
        if a.star_end {
            core = &core[..core.len() - 1];
        }
        Pattern {
            core: core.to_lowercase(),
            any_start: a.star_start,
            any_end: a.star_end,
        }
    }

    fn matches(&self, value: &str) -> bool {
        let v = value.trim().to_lowercase();
        let c = self.core.as_str();
        match (self.any_start, self.any_end) {
            (true, true) => v.contains(c),
            (true, false) => v.ends_with(c),
            (false, true) => v.starts_with(c),
            (false, false) => v == c,
        }
    }
}

/// Attributes a DN may hold several of; the filter's are matched in order
/// (IBM MQ "Distinguished Names").
fn repeatable(attr: &str) -> bool {
    matches!(attr, "OU" | "DC")
}

impl SslPeer {
    /// Parses a filter such as `CN=gw2,O=Example` or `CN=QMGR.*, OU=IBM,
    /// OU=WEBSPHERE`. Errors name what is wrong: empty or longer than 1024
    /// bytes, a syntax error with its offset, an attribute type outside
    /// IBM MQ's table, an attribute other than OU and DC given twice, or a
    /// `*` that is neither first nor last in its value.
    pub fn parse(text: &str) -> Result<SslPeer, String> {
        if text.trim().is_empty() {
            return Err("an SSLPEER filter names at least one attribute".into());
        }
        if text.len() > MAX_LEN {
            return Err(format!(
                "an SSLPEER filter is at most {MAX_LEN} bytes, not {}",
                text.len()
            ));
        }
        let avas = parse_avas(text).map_err(|at| {
            format!("SSLPEER {text:?}: syntax error at offset {at}: expected TYPE=value items separated by , or ;")
        })?;
        let mut items: Vec<Item> = Vec::new();
        for a in &avas {
            let Some(attr) = canonical_attribute(&a.attr) else {
                return Err(format!(
                    "SSLPEER {text:?}: unknown attribute type {:?} (SERIALNUMBER, MAIL, E, UID, USERID, CN, T, OU, DC, O, STREET, L, ST, SP, S, PC, C, UNSTRUCTUREDNAME, UNSTRUCTUREDADDRESS, DNQ)",
                    a.attr
                ));
            };
            if a.star_inside {
                return Err(format!(
                    "SSLPEER {text:?}: in {}={}, an asterisk may only begin or end a value",
                    a.attr, a.value
                ));
            }
            if !repeatable(attr) && items.iter().any(|i| i.attr == attr) {
                return Err(format!(
                    "SSLPEER {text:?}: {attr} is given twice (only OU and DC may repeat)"
                ));
            }
            items.push(Item {
                attr,
                pattern: Pattern::of(a),
            });
        }
        Ok(SslPeer {
            text: text.to_string(),
            items,
        })
    }

    /// The filter as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the subject DN `dn` (a string as [`super::dn::subject_dn`]
    /// makes) passes: every attribute of the filter is in the DN with a
    /// matching value; the filter's OUs (and DCs) match the DN's first OUs
    /// (DCs) in order. Attributes of the DN the filter does not name are
    /// not checked. A DN that cannot be parsed never passes.
    pub fn matches(&self, dn: &str) -> bool {
        let Ok(avas) = parse_avas(dn) else {
            return false;
        };
        let of = |attr: &str| -> Vec<&str> {
            avas.iter()
                .filter(|a| canonical_attribute(&a.attr) == Some(attr))
                .map(|a| a.value.as_str())
                .collect()
        };
        let mut seen_repeated: Vec<(&str, usize)> = Vec::new();
        self.items.iter().all(|item| {
            let values = of(item.attr);
            if repeatable(item.attr) {
                let n = match seen_repeated.iter_mut().find(|(a, _)| *a == item.attr) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        seen_repeated.push((item.attr, 0));
                        0
                    }
                };
                values.get(n).is_some_and(|v| item.pattern.matches(v))
            } else {
                values.first().is_some_and(|v| item.pattern.matches(v))
            }
        })
    }
}

impl fmt::Display for SslPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for SslPeer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Parsed inside the visitor, while the deserializer is still at the
        // value: serde_yaml then places an error at `sslpeer`'s value, not at
        // the entry that holds it.
        struct Filter;
        impl serde::de::Visitor<'_> for Filter {
            type Value = SslPeer;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an SSLPEER filter string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<SslPeer, E> {
                SslPeer::parse(s).map_err(E::custom)
            }
        }
        d.deserialize_str(Filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(f: &str) -> SslPeer {
        SslPeer::parse(f).unwrap()
    }

    #[test]
    fn ibm_examples() {
        // IBM MQ "Using the Distinguished Name of the queue manager":
        // `CN=QMGR.*, OU=IBM, OU=WEBSPHERE` accepts a common name beginning
        // QMGR. and at least two OUs, the first IBM, the second WEBSPHERE.
        let f = peer("CN=QMGR.*, OU=IBM, OU=WEBSPHERE");
        assert!(f.matches("CN=QMGR.GW2,OU=IBM,OU=WebSphere,O=Example,C=GB"));
        assert!(f.matches("CN=qmgr.x,OU=IBM,OU=WEBSPHERE,OU=Extra"));
        assert!(!f.matches("CN=QMGR.GW2,OU=WEBSPHERE,OU=IBM"));
        assert!(!f.matches("CN=QMGR.GW2,OU=IBM"));
        assert!(!f.matches("CN=GW2.QMGR,OU=IBM,OU=WEBSPHERE"));
        // "IBM MQ rules for SSLPEER values": blanks around separators,
        // `;` as a separator, case-insensitive values.
        let f = peer("CN=John Smith, O=IBM ;OU=Test , C=GB");
        assert!(f.matches("CN=john smith,OU=test,O=ibm,C=gb"));
        assert!(!f.matches("CN=John Smith,OU=Test,O=IBM,C=US"));
    }

    #[test]
    fn generic_values_synonyms_and_missing_attributes() {
        assert!(peer("CN=*gw2").matches("CN=eu.gw2,O=Example"));
        assert!(peer("CN=*gw*").matches("CN=eu.gw2.x"));
        assert!(peer("CN=*").matches("CN=anything"));
        assert!(!peer("CN=gw*").matches("CN=xgw2"));
        // ST, SP and S name one attribute; names in any case.
        assert!(peer("sp=Hampshire").matches("CN=a,ST=HAMPSHIRE"));
        // The filter's attribute must be present.
        assert!(!peer("CN=gw2,L=Winchester").matches("CN=gw2,O=Example"));
        // Quoted: the separator is part of the value.
        assert!(peer("O=\"Example, Ltd\"").matches("CN=a,O=Example\\, Ltd"));
    }

    #[test]
    fn bad_filters_are_refused_with_a_reason() {
        let e = SslPeer::parse("CN=gw2,XX=1").unwrap_err();
        assert!(e.contains("unknown attribute type \"XX\""), "{e}");
        let e = SslPeer::parse("CN=g*w").unwrap_err();
        assert!(
            e.contains("an asterisk may only begin or end a value"),
            "{e}"
        );
        let e = SslPeer::parse("CN=a,CN=b").unwrap_err();
        assert!(e.contains("CN is given twice"), "{e}");
        assert!(SslPeer::parse("OU=a,OU=b").is_ok());
        let e = SslPeer::parse(&format!("CN={}", "x".repeat(1024))).unwrap_err();
        assert!(e.contains("at most 1024 bytes, not 1027"), "{e}");
        assert!(SslPeer::parse(" ").is_err());
    }
}
