use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn pat(s: &str) -> AddressPattern {
    AddressPattern::parse(s).unwrap()
}

#[test]
fn ibm_generic_ipv4_forms_match_as_documented() {
    // IBM MQ "Generic IP addresses for channel authentication records":
    // each valid example form, and one address in and one out of it.
    let cases = [
        ("192.0.2.0", "192.0.2.0", "192.0.2.1"),
        ("192.0.2.*", "192.0.2.77", "192.0.3.77"),
        ("192.0.*", "192.0.200.1", "192.1.0.1"),
        ("192.0.*.2", "192.0.9.2", "192.0.9.3"),
        ("192.*.2", "192.7.8.2", "193.7.8.2"),
        ("192.0.2.1-8", "192.0.2.8", "192.0.2.9"),
        ("192.0.*.1-8", "192.0.44.1", "192.0.44.0"),
        ("*", "203.0.113.9", ""),
    ];
    for (p, yes, no) in cases {
        let a = pat(p);
        assert!(a.matches(ip(yes)), "{p} should match {yes}");
        if !no.is_empty() {
            assert!(!a.matches(ip(no)), "{p} should not match {no}");
        }
    }
    // The same page's invalid patterns: too few parts without `*`, `*` not
    // a whole part, `*` next to the trailing `*`; and a range whose lower
    // number is not below its upper one (MQRCCF_IPADDR_RANGE_ERROR 3346).
    for bad in [
        "192.0.2",
        "192.0*",
        "192.0.*.*",
        "192.0.2.8-1",
        "192.0.2.300",
        "1.2.3.4.5",
    ] {
        assert!(
            AddressPattern::parse(bad).is_err(),
            "{bad} should be refused"
        );
    }
}

#[test]
fn cidr_and_ipv6_addresses() {
    assert!(pat("10.0.0.0/8").matches(ip("10.200.3.4")));
    assert!(!pat("10.0.0.0/8").matches(ip("11.0.0.1")));
    assert!(pat("192.0.2.128/25").matches(ip("192.0.2.200")));
    assert!(!pat("192.0.2.128/25").matches(ip("192.0.2.127")));
    assert!(pat("2001:db8::/32").matches(ip("2001:db8:1::5")));
    assert!(!pat("2001:db8::/32").matches(ip("2001:db9::5")));
    assert!(pat("::1").matches(ip("::1")));
    // An IPv4-mapped IPv6 peer (a dual-stack listener) is its IPv4 address.
    assert!(pat("127.0.0.1").matches(ip("::ffff:127.0.0.1")));
    assert!(!pat("10.0.0.0/8").matches(ip("2001:db8::1")));
    assert!(AddressPattern::parse("10.0.0.0/33").is_err());
    assert!(AddressPattern::parse("2001:db8::*").is_err());
}

#[test]
fn generic_names_and_dns() {
    // IBM MQ "SET CHLAUTH": asterisks in any position.
    assert!(generic_match("SYSTEM.*", "SYSTEM.DEF.SVRCONN"));
    assert!(generic_match("*.SVRCONN", "APP.SVRCONN"));
    assert!(generic_match("A*B*C", "AxxBC"));
    assert!(generic_match("*", ""));
    assert!(!generic_match("SYSTEM.*", "system.def"));
    assert!(!generic_match("QM1", "QM10"));
    let d = DnPattern::parse("CN=gw2, O=Example").unwrap();
    assert!(d.matches("CN=gw2,OU=Ops,O=Example,C=GB"));
    assert!(d.matches("cn=GW2,o=example"));
    assert!(!d.matches("CN=gw3,O=Example"));
    assert!(!d.matches("CN=gw2"));
    let g = DnPattern::parse("CN=gw*,OU=a,OU=b").unwrap();
    assert!(g.matches("CN=gw9,OU=b,OU=a"));
    assert!(!g.matches("CN=gw9,OU=a"));
    assert!(DnPattern::parse("CN").is_err());
}

fn rules(yaml: &str) -> ChannelRules {
    let r: Vec<RuleConfig> = serde_yaml::from_str(yaml).unwrap();
    ChannelRules::new(&r).unwrap()
}

#[test]
fn the_first_matching_rule_decides() {
    let r = rules(
        r#"
- { channel: "TO.GW", address: "192.0.2.7", action: block }
- { channel: "TO.*", qmgr: "QM2", action: allow, mcauser: "mca.qm2" }
- { channel: "TO.*", action: block, warn: true }
- { channel: "*", address: "10.0.0.0/8", action: block }
"#,
    );
    let at = |channel, addr, qmgr| Attempt {
        channel,
        addr: ip(addr),
        dn: None,
        qmgr,
        user: None,
    };
    assert_eq!(
        r.check(&at("TO.GW", "192.0.2.7", Some("QM2"))),
        Decision::Blocked {
            rule: 0,
            text: "channel=TO.GW address=\"192.0.2.7\" action=block".into()
        }
    );
    assert_eq!(
        r.check(&at("TO.GW", "192.0.2.8", Some("QM2"))),
        Decision::Allowed {
            rule: Some(1),
            mcauser: Some(Principal::new("mca.qm2").unwrap())
        }
    );
    // No queue manager name: a qmgr rule does not match.
    assert!(matches!(
        r.check(&at("TO.GW", "192.0.2.8", None)),
        Decision::Warned { rule: 2, .. }
    ));
    assert!(matches!(
        r.check(&at("APP.SVRCONN", "10.1.1.1", None)),
        Decision::Blocked { rule: 3, .. }
    ));
    assert_eq!(
        r.check(&at("APP.SVRCONN", "127.0.0.1", None)),
        Decision::Allowed {
            rule: None,
            mcauser: None
        }
    );
    // A DN rule needs a certificate.
    let d = rules(r#"[{ channel: "*", dn: "O=Bad", action: block }]"#);
    assert!(matches!(
        d.check(&Attempt {
            dn: Some("CN=x,O=Bad"),
            ..at("C", "127.0.0.1", None)
        }),
        Decision::Blocked { rule: 0, .. }
    ));
    assert!(matches!(
        d.check(&at("C", "127.0.0.1", None)),
        Decision::Allowed { rule: None, .. }
    ));
}

#[test]
fn bad_rules_are_named() {
    let bad: Vec<RuleConfig> = serde_yaml::from_str(
        r#"[{ channel: "A", action: block, mcauser: x }, { channel: "", address: "1.2.3" }]"#,
    )
    .unwrap();
    assert_eq!(
        bad[0].problems()[0].1,
        "a blocking rule maps no principal; use action: allow"
    );
    assert_eq!(bad[1].problems().len(), 2);
    assert!(
        ChannelRules::new(&bad)
            .unwrap_err()
            .starts_with("security.chlauth[0].mcauser:")
    );
}

#[test]
fn client_user_rules_decide_once_the_user_id_is_known() {
    // docs/security.md "Channel authentication rules": IBM MQ USERMAP
    // (CLNTUSER, USERSRC(MAP) MCAUSER) and BLOCKUSER (USERLIST) as rules
    // with `client_user`, first match deciding.
    let r = rules(
        r#"
- { channel: "APP.*", client_user: "admin*", action: block }
- { channel: "APP.*", client_user: "alice", action: allow, mcauser: "app.reader" }
- { channel: "APP.*", address: "10.0.0.0/8", action: block }
- { channel: "TO.*", client_user: "x", action: block }
"#,
    );
    let at = |channel, addr, user| Attempt {
        channel,
        addr: ip(addr),
        dn: None,
        qmgr: None,
        user,
    };
    // At INITIAL_DATA a user rule comes first: the decision waits.
    assert_eq!(r.check_client(&at("APP.SVRCONN", "10.1.1.1", None)), None);
    // At MQCONN, with the user id.
    assert!(matches!(
        r.check(&at("APP.SVRCONN", "127.0.0.1", Some("administrator"))),
        Decision::Blocked { rule: 0, .. }
    ));
    assert_eq!(
        r.check(&at("APP.SVRCONN", "10.1.1.1", Some("alice"))),
        Decision::Allowed {
            rule: Some(1),
            mcauser: Some(Principal::new("app.reader").unwrap())
        }
    );
    assert!(matches!(
        r.check(&at("APP.SVRCONN", "10.1.1.1", Some("bob"))),
        Decision::Blocked { rule: 2, .. }
    ));
    // Another channel: no user rule before the others, decided at once; a
    // message channel (no user id ever) never matches a user rule.
    assert_eq!(
        r.check_client(&at("OTHER", "10.1.1.1", None)),
        Some(Decision::Allowed {
            rule: None,
            mcauser: None
        })
    );
    assert_eq!(
        r.check(&at("TO.GW", "127.0.0.1", None)),
        Decision::Allowed {
            rule: None,
            mcauser: None
        }
    );
    let bad: Vec<RuleConfig> =
        serde_yaml::from_str(r#"[{ channel: "A", client_user: "u", qmgr: "QM2" }]"#).unwrap();
    assert_eq!(bad[0].problems()[0].0, "client_user");
}
