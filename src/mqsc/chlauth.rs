//! SET CHLAUTH (IBM MQ "SET CHLAUTH (create or modify a channel
//! authentication record)") to and from `security.chlauth` rules
//! (docs/security.md "Channel authentication rules"; docs/operations.md
//! "mqgate mqsc").
//!
//! - TYPE(ADDRESSMAP) ADDRESS(a): a rule with `address`;
//! - TYPE(SSLPEERMAP) SSLPEER(dn) [ADDRESS(a)]: a rule with `dn`;
//! - TYPE(QMGRMAP) QMNAME(q) [ADDRESS(a)]: a rule with `qmgr`;
//! - TYPE(BLOCKADDR) ADDRLIST(a, ...): one blocking rule per address, for
//!   channel `*`;
//! - TYPE(USERMAP) CLNTUSER(u) [ADDRESS(a)]: a rule with `client_user`;
//! - TYPE(BLOCKUSER) USERLIST(u, ...): one blocking rule per user id, with
//!   `client_user` (`*MQADMIN` has no mqgate equivalent: noted);
//! - USERSRC(CHANNEL) is `action: allow`, USERSRC(MAP) MCAUSER(u) `action:
//!   allow` with `mcauser: u`, USERSRC(NOACCESS) `action: block`; WARN(YES)
//!   `warn: true`; DESCR `description`;
//! - ACTION(ADD) and ACTION(REPLACE) add the rule or replace the one of the
//!   same channel profile, type and address, DN or queue manager;
//!   ACTION(REMOVE) removes it; ACTION(REMOVEALL) removes the profile's
//!   rules of that type.
//!
//! Not carried over, each with a note: CHCKCLNT, SSLCERTI, CUSTOM. IBM MQ applies the most specific matching record; mqgate the
//! first, so the order of the imported rules is the script's and wants a
//! review (a note says so).

use super::Note;
use crate::security::chlauth::{Action, AddressPattern, RuleConfig};
use mqgate_codecs::mqsc::{Command, Param, quote};
use std::net::IpAddr;

/// One rule read from a SET CHLAUTH, and what identifies it for REPLACE and
/// REMOVE: profile, type, and its address, DN or queue manager.
pub struct Imported {
    /// `PROFILE TYPE CRITERION`.
    pub key: String,
    /// The rule.
    pub rule: RuleConfig,
}

/// What a SET CHLAUTH does to the list of rules.
pub enum Change {
    /// Add these rules, replacing those of the same key.
    Set(Vec<Imported>),
    /// Remove the rules of these keys.
    Remove(Vec<String>),
    /// Remove every rule whose key starts with this `PROFILE TYPE `.
    RemoveAll(String),
    /// Nothing (the command was not carried over; the notes say why).
    Nothing,
}

fn note(line: usize, what: String, message: &str, invalid: bool) -> Note {
    Note {
        line,
        subject: what,
        message: message.to_string(),
        invalid,
    }
}

/// Reads one SET CHLAUTH; notes are added to `notes`.
pub fn import(c: &Command, notes: &mut Vec<Note>) -> Change {
    let profile = c.name().unwrap_or("").to_string();
    let subject = format!("CHLAUTH({})", quote(&profile));
    let single = |p: &Param| p.single().map(str::to_string);
    let ty = c.param("TYPE").and_then(single).unwrap_or_default();
    let mut rule = RuleConfig {
        channel: profile.clone(),
        ..RuleConfig::default()
    };
    let mut addrlist: Vec<String> = Vec::new();
    let mut userlist: Vec<String> = Vec::new();
    let mut action = "ADD".to_string();
    let mut usersrc = "MAP".to_string();
    match ty.as_str() {
        "ADDRESSMAP" | "SSLPEERMAP" | "QMGRMAP" | "BLOCKADDR" | "BLOCKUSER" | "USERMAP" => {}
        other => {
            notes.push(note(c.line,
                format!("{subject} TYPE({other})"),
                "expected ADDRESSMAP, SSLPEERMAP, QMGRMAP, BLOCKADDR, BLOCKUSER or USERMAP; not imported",
                true,
            ));
            return Change::Nothing;
        }
    }
    for p in &c.params {
        let value = p.single().map(str::to_string);
        match p.keyword.as_str() {
            "TYPE" => {}
            "ADDRESS" => rule.address = value,
            "SSLPEER" => rule.dn = value,
            "QMNAME" => rule.qmgr = value,
            "ADDRLIST" => addrlist = p.value.clone().unwrap_or_default(),
            "USERLIST" => userlist = p.value.clone().unwrap_or_default(),
            "CLNTUSER" => rule.client_user = value,
            "USERSRC" => usersrc = value.unwrap_or_default(),
            "MCAUSER" => rule.mcauser = value.filter(|v| !v.trim().is_empty()),
            "WARN" => rule.warn = value.as_deref() == Some("YES"),
            "DESCR" => rule.description = value.filter(|v| !v.trim().is_empty()),
            "ACTION" => action = value.unwrap_or_default(),
            k => notes.push(note(
                p.line,
                format!("{subject} {k}"),
                "no mqgate equivalent; not imported",
                false,
            )),
        }
    }
    let criterion = |r: &RuleConfig| {
        let v = match ty.as_str() {
            "SSLPEERMAP" => r.dn.clone(),
            "QMGRMAP" => r.qmgr.clone(),
            "USERMAP" | "BLOCKUSER" => r.client_user.clone(),
            _ => r.address.clone(),
        };
        format!("{profile} {ty} {}", v.unwrap_or_default())
    };
    match action.as_str() {
        "REMOVEALL" => return Change::RemoveAll(format!("{profile} {ty} ")),
        "REMOVE" if ty == "BLOCKADDR" => {
            return Change::Remove(
                addrlist
                    .iter()
                    .map(|a| format!("{profile} {ty} {a}"))
                    .collect(),
            );
        }
        "REMOVE" if ty == "BLOCKUSER" => {
            return Change::Remove(
                userlist
                    .iter()
                    .map(|u| format!("{profile} {ty} {u}"))
                    .collect(),
            );
        }
        "REMOVE" => return Change::Remove(vec![criterion(&rule)]),
        "ADD" | "REPLACE" => {}
        other => {
            notes.push(note(
                c.line,
                format!("{subject} ACTION({other})"),
                "expected ADD, REPLACE, REMOVE or REMOVEALL; not imported",
                true,
            ));
            return Change::Nothing;
        }
    }
    if ty == "BLOCKADDR" {
        rule.action = Action::Block;
        let rules = addrlist
            .iter()
            .map(|a| RuleConfig {
                address: Some(a.clone()),
                ..rule.clone()
            })
            .filter_map(|r| checked(c, &subject, r, notes))
            .map(|r| Imported {
                key: criterion(&r),
                rule: r,
            })
            .collect();
        return Change::Set(rules);
    }
    if ty == "BLOCKUSER" {
        rule.action = Action::Block;
        let mut rules = Vec::new();
        for u in &userlist {
            if u.eq_ignore_ascii_case("*MQADMIN") {
                notes.push(note(
                    c.line,
                    format!("{subject} USERLIST(*MQADMIN)"),
                    "mqgate has no administrative user group; not imported",
                    false,
                ));
                continue;
            }
            let r = RuleConfig {
                client_user: Some(u.clone()),
                ..rule.clone()
            };
            if let Some(r) = checked(c, &subject, r, notes) {
                rules.push(Imported {
                    key: criterion(&r),
                    rule: r,
                });
            }
        }
        return Change::Set(rules);
    }
    rule.action = match usersrc.as_str() {
        "NOACCESS" => Action::Block,
        "CHANNEL" => {
            rule.mcauser = None;
            Action::Allow
        }
        "MAP" => Action::Allow,
        other => {
            notes.push(note(
                c.line,
                format!("{subject} USERSRC({other})"),
                "expected MAP, NOACCESS or CHANNEL; not imported",
                true,
            ));
            return Change::Nothing;
        }
    };
    if rule.action == Action::Block {
        rule.mcauser = None;
    } else {
        rule.warn = false;
    }
    match checked(c, &subject, rule, notes) {
        Some(r) => Change::Set(vec![Imported {
            key: criterion(&r),
            rule: r,
        }]),
        None => Change::Nothing,
    }
}

/// `r` when mqgate accepts it, else a note naming the problem.
fn checked(c: &Command, subject: &str, r: RuleConfig, notes: &mut Vec<Note>) -> Option<RuleConfig> {
    match r.problems().into_iter().next() {
        None => Some(r),
        Some((k, e)) => {
            notes.push(note(
                c.line,
                format!("{subject} ({k})"),
                &format!("{e}; not imported"),
                true,
            ));
            None
        }
    }
}

/// An address pattern as IBM MQ's generic form, or `None` when it has none
/// (a CIDR prefix that does not end on an octet, an IPv6 prefix).
fn mq_address(text: &str) -> Option<String> {
    match AddressPattern::parse(text).ok()? {
        AddressPattern::Any | AddressPattern::Generic(_) => Some(text.trim().to_string()),
        AddressPattern::Cidr(ip, bits) => match ip {
            IpAddr::V4(v4) if bits % 8 == 0 => {
                let o = v4.octets();
                let n = usize::from(bits / 8);
                if n == 0 {
                    return Some("*".into());
                }
                let mut parts: Vec<String> = o[..n].iter().map(u8::to_string).collect();
                if n < 4 {
                    parts.push("*".into());
                }
                Some(parts.join("."))
            }
            IpAddr::V6(v6) if bits == 128 => Some(v6.to_string()),
            _ => None,
        },
    }
}

/// `rules` as SET CHLAUTH commands; settings without an MQSC form are noted
/// by YAML path.
pub fn export(rules: &[RuleConfig], out: &mut String, notes: &mut Vec<Note>) {
    let mut note = |i: usize, k: &str, m: &str| {
        notes.push(Note {
            line: 0,
            subject: format!("security.chlauth[{i}]{k}"),
            message: m.to_string(),
            invalid: false,
        })
    };
    if !rules.is_empty() {
        note(
            0,
            "",
            "mqgate applies the first matching rule, IBM MQ the most specific record: the written order may not decide in MQ",
        );
    }
    for (i, r) in rules.iter().enumerate() {
        if r.qmgr.is_some() && r.dn.is_some() {
            note(
                i,
                "",
                "a rule with both dn and qmgr has no single CHLAUTH TYPE; not exported",
            );
            continue;
        }
        if r.client_user.is_some() && r.dn.is_some() {
            note(
                i,
                "",
                "a rule with both dn and client_user has no single CHLAUTH TYPE; not exported",
            );
            continue;
        }
        let address = match r.address.as_deref().map(|a| (a, mq_address(a))) {
            Some((_, Some(a))) => Some(a),
            Some((a, None)) => {
                note(
                    i,
                    ".address",
                    &format!("{a:?} has no IBM MQ generic address form; not exported"),
                );
                continue;
            }
            None => None,
        };
        let mut attrs: Vec<String> = Vec::new();
        let ty = if let Some(u) = &r.client_user {
            if r.action == Action::Block && address.is_none() {
                attrs.push(format!("USERLIST({})", quote(u)));
                "BLOCKUSER"
            } else {
                attrs.push(format!("CLNTUSER({})", quote(u)));
                "USERMAP"
            }
        } else if let Some(q) = &r.qmgr {
            attrs.push(format!("QMNAME({})", quote(q)));
            "QMGRMAP"
        } else if let Some(d) = &r.dn {
            attrs.push(format!("SSLPEER({})", quote(d)));
            "SSLPEERMAP"
        } else {
            "ADDRESSMAP"
        };
        match (&address, ty) {
            (Some(a), _) => attrs.push(format!("ADDRESS({})", quote(a))),
            (None, "ADDRESSMAP") => attrs.push("ADDRESS('*')".into()),
            _ => {}
        }
        match (r.action, &r.mcauser) {
            // BLOCKUSER blocks; it takes no USERSRC.
            _ if ty == "BLOCKUSER" => {}
            (Action::Block, _) => attrs.push("USERSRC(NOACCESS)".into()),
            (Action::Allow, Some(u)) => {
                attrs.push("USERSRC(MAP)".into());
                attrs.push(format!("MCAUSER({})", quote(u)));
            }
            (Action::Allow, None) => attrs.push("USERSRC(CHANNEL)".into()),
        }
        if let Some(d) = &r.description {
            attrs.push(format!("DESCR({})", quote(d)));
        }
        if r.warn {
            attrs.push("WARN(YES)".into());
        }
        attrs.push("ACTION(REPLACE)".into());
        out.push_str(&format!("SET CHLAUTH({}) TYPE({ty})", quote(&r.channel)));
        for a in attrs {
            out.push_str(" +\n   ");
            out.push_str(&a);
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(script: &str) -> (serde_yaml::Value, Vec<String>) {
        let im = crate::mqsc::import::import(script).unwrap();
        let notes = im.notes.iter().map(|n| n.to_string()).collect();
        (im.yaml["security"]["chlauth"].clone(), notes)
    }

    #[test]
    fn each_record_type_imports_as_documented() {
        // IBM MQ "SET CHLAUTH": each TYPE, USERSRC and ACTION.
        let (r, notes) = rules(
            "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('192.0.2.*','198.51.100.7') ACTION(REPLACE)\n\
             SET CHLAUTH('QM2.TO.GW') TYPE(QMGRMAP) QMNAME('QM2') ADDRESS('10.*') USERSRC(MAP) MCAUSER('qm2mca')\n\
             SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) WARN(YES)\n\
             SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('nobody')\n\
             SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('198.51.100.7') ACTION(REMOVE)\n\
             SET CHLAUTH('X') TYPE(SSLPEERMAP) SSLPEER('CN=x') SSLCERTI('CN=ca') USERSRC(CHANNEL)\n\
             SET CHLAUTH('APP.*') TYPE(USERMAP) CLNTUSER('alice') ADDRESS('192.0.2.*') USERSRC(MAP) MCAUSER('reader')\n\
             SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('mallory','*MQADMIN','eve')\n\
             SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST('eve') ACTION(REMOVE)\n",
        );
        let yaml: serde_yaml::Value = serde_yaml::from_str(
            r#"
- { channel: "*", address: "192.0.2.*", action: block }
- { channel: QM2.TO.GW, address: "10.*", qmgr: QM2, mcauser: qm2mca }
- { channel: APP.*, address: "*", action: block, warn: true }
- { channel: APP.*, client_user: nobody, action: block }
- { channel: X, dn: "CN=x" }
- { channel: APP.*, address: "192.0.2.*", client_user: alice, mcauser: reader }
- { channel: APP.*, client_user: mallory, action: block }
"#,
        )
        .unwrap();
        assert_eq!(r, yaml);
        assert!(
            notes.iter().any(|n| n.starts_with(
                "line 8: CHLAUTH('APP.*') USERLIST(*MQADMIN): mqgate has no administrative user group"
            )),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("line 6: CHLAUTH('X') SSLCERTI: no mqgate equivalent")),
            "{notes:?}"
        );
    }

    #[test]
    fn export_writes_set_chlauth_and_notes_what_has_no_form() {
        let r: Vec<RuleConfig> = serde_yaml::from_str(
            r#"
- { channel: "TO.GW", address: "10.0.0.0/8", action: block }
- { channel: "TO.*", qmgr: "QM2", mcauser: m }
- { channel: "A", address: "192.0.2.128/25" }
"#,
        )
        .unwrap();
        let mut out = String::new();
        let mut notes = Vec::new();
        export(&r, &mut out, &mut notes);
        assert_eq!(
            out,
            "SET CHLAUTH('TO.GW') TYPE(ADDRESSMAP) +\n   ADDRESS('10.*') +\n   USERSRC(NOACCESS) +\n   ACTION(REPLACE)\n\
             SET CHLAUTH('TO.*') TYPE(QMGRMAP) +\n   QMNAME('QM2') +\n   USERSRC(MAP) +\n   MCAUSER('m') +\n   ACTION(REPLACE)\n"
        );
        let notes: Vec<String> = notes.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            notes[1],
            "security.chlauth[2].address: \"192.0.2.128/25\" has no IBM MQ generic address form; not exported"
        );
    }

    #[test]
    fn cidr_prefixes_on_octets_have_ibm_forms() {
        // IBM MQ "Generic IP addresses for channel authentication records".
        assert_eq!(mq_address("10.0.0.0/8").as_deref(), Some("10.*"));
        assert_eq!(mq_address("192.0.2.0/24").as_deref(), Some("192.0.2.*"));
        assert_eq!(mq_address("192.0.2.7/32").as_deref(), Some("192.0.2.7"));
        assert_eq!(mq_address("0.0.0.0/0").as_deref(), Some("*"));
        assert_eq!(mq_address("192.0.2.1-8").as_deref(), Some("192.0.2.1-8"));
        assert_eq!(mq_address("192.0.2.128/25"), None);
        assert_eq!(mq_address("2001:db8::/32"), None);
    }

    #[test]
    fn client_user_rules_export_as_blockuser_and_usermap() {
        // IBM MQ "SET CHLAUTH": BLOCKUSER takes USERLIST and no USERSRC;
        // USERMAP takes CLNTUSER, an optional ADDRESS and USERSRC.
        let r: Vec<RuleConfig> = serde_yaml::from_str(
            r#"
- { channel: "APP.*", client_user: "mallory", action: block, description: "left" }
- { channel: "APP.*", client_user: "alice", address: "192.0.2.*", mcauser: reader }
- { channel: "APP.*", client_user: "bob", address: "10.*", action: block }
- { channel: "APP.*", client_user: "x", dn: "CN=x" }
"#,
        )
        .unwrap();
        let mut out = String::new();
        let mut notes = Vec::new();
        export(&r, &mut out, &mut notes);
        assert_eq!(
            out,
            "SET CHLAUTH('APP.*') TYPE(BLOCKUSER) +\n   USERLIST('mallory') +\n   DESCR('left') +\n   ACTION(REPLACE)\n\
             SET CHLAUTH('APP.*') TYPE(USERMAP) +\n   CLNTUSER('alice') +\n   ADDRESS('192.0.2.*') +\n   USERSRC(MAP) +\n   MCAUSER('reader') +\n   ACTION(REPLACE)\n\
             SET CHLAUTH('APP.*') TYPE(USERMAP) +\n   CLNTUSER('bob') +\n   ADDRESS('10.*') +\n   USERSRC(NOACCESS) +\n   ACTION(REPLACE)\n"
        );
        let notes: Vec<String> = notes.iter().map(|n| n.to_string()).collect();
        assert!(
            notes.iter().any(|n| n.contains("security.chlauth[3]")
                && n.contains("both dn and client_user")),
            "{notes:?}"
        );
        // Imported again, the script gives the same rules.
        let (back, _) = rules(&out);
        let back: Vec<RuleConfig> = serde_yaml::from_value(back).unwrap();
        assert_eq!(back, r[..3]);
    }
}
