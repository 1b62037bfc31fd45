use super::*;

fn authorities(yaml: &str) -> Authorities {
    let c: SecurityConfig = serde_yaml::from_str(yaml).unwrap();
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    Authorities::from_config(&c).unwrap()
}

const GRANTS: &str = r#"
tokens:
  - { principal: app1, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" }
authorities:
  - { principal: app1, profile: "APP.**", authorities: [put, browse] }
  - { principal: app1, profile: "APP.IN", authorities: [get] }
  - { principal: app1, profile: "AB.*", authorities: [put] }
  - { principal: app1, profile: "AB.C*", authorities: [get] }
  - { principal: ops, profile: "**", type: channel, authorities: [ctrl] }
  - { principal: "device:DEV0001", profile: "UPSTREAM", authorities: [put] }
"#;

#[test]
fn the_most_specific_profile_decides() {
    let a = authorities(GRANTS);
    let app1 = Principal::new("app1").unwrap();
    let q = ObjectType::Queue;
    assert!(a.check(&app1, q, "APP.OUT", Authority::Put).is_ok());
    assert!(a.check(&app1, q, "APP.OUT", Authority::Get).is_err());
    // APP.IN is more specific than APP.**: get only, no put.
    assert!(a.check(&app1, q, "APP.IN", Authority::Get).is_ok());
    assert!(a.check(&app1, q, "APP.IN", Authority::Put).is_err());
    // IBM MQ "Profile priorities on UNIX, Linux, and Windows": queue AB.CD
    // under AB.* (+put) and AB.C* (+get) has get authority only.
    assert!(a.check(&app1, q, "AB.CD", Authority::Get).is_ok());
    assert!(a.check(&app1, q, "AB.CD", Authority::Put).is_err());
    let e = a.check(&app1, q, "OTHER", Authority::Put).unwrap_err();
    assert_eq!(
        e.0,
        "principal \"app1\" has no +put authority on queue \"OTHER\""
    );
    // Object types are apart: the channel grant gives nothing on queues.
    let ops = Principal::new("ops").unwrap();
    assert!(
        a.check(&ops, ObjectType::Channel, "TO.GW2", Authority::Ctrl)
            .is_ok()
    );
    assert!(a.check(&ops, q, "TO.GW2", Authority::Ctrl).is_err());
}

#[test]
fn a_device_reads_only_its_own_queues() {
    let a = authorities(GRANTS);
    let d = Principal::new("device:DEV0001").unwrap();
    let q = ObjectType::Queue;
    assert!(a.check(&d, q, "DEV0001/ORDERS", Authority::Get).is_ok());
    assert!(a.check(&d, q, "DEV0001/ORDERS", Authority::Browse).is_ok());
    assert!(a.check(&d, q, "DEV0001/ORDERS", Authority::Put).is_err());
    for other in [
        "DEV0002/ORDERS",
        "dev0001/ORDERS",
        "DEV0001X/ORDERS",
        "DEV0001/../DEV0002/ORDERS",
        "DEV0001/",
        "DEV0001",
    ] {
        assert!(a.check(&d, q, other, Authority::Get).is_err(), "{other}");
    }
    assert!(a.check(&d, q, "UPSTREAM", Authority::Put).is_ok());
}

#[test]
fn problems_name_the_setting() {
    let c: SecurityConfig = serde_yaml::from_str(
        r#"
tokens:
  - { principal: "bad name", sha256: "00" }
authorities:
  - { principal: "device:DEV0001", profile: "DEV0002/*", authorities: [get] }
  - { principal: app1, profile: "A.**.**", authorities: [pet] }
"#,
    )
    .unwrap();
    let p: Vec<String> = c.problems().into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        p,
        [
            "security.tokens[0].sha256",
            "security.tokens[0].principal",
            "security.authorities[0].profile",
            "security.authorities[1].profile",
            "security.authorities[1].authorities[0]",
        ]
    );
}

#[test]
fn subject_grants_use_rendezvous_wildcards() {
    // docs/security.md "Subject authorities": profiles are Rendezvous
    // listen subjects ("Using Wildcards to Receive Related Subjects").
    let a = authorities(
        r#"
tokens:
  - { principal: app1, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" }
authorities:
  - { principal: app1, profile: "ORDERS.>", type: subject, authorities: [pub, sub] }
  - { principal: app1, profile: "ORDERS.SECRET.>", type: subject, authorities: [pub] }
  - { principal: app1, profile: "ORDERS.>", authorities: [get] }
"#,
    );
    let app1 = Principal::new("app1").unwrap();
    let s = ObjectType::Subject;
    assert!(a.check(&app1, s, "ORDERS.NEW", Authority::Pub).is_ok());
    assert!(a.check(&app1, s, "ORDERS.EU.NEW", Authority::Sub).is_ok());
    assert!(
        a.check(&app1, s, "ORDERS", Authority::Pub).is_err(),
        "`>` needs an element"
    );
    // The more specific profile withholds +sub on ORDERS.SECRET.*, so a
    // pattern reaching into it is refused as a whole.
    assert!(
        a.check(&app1, s, "ORDERS.SECRET.X", Authority::Sub)
            .is_err()
    );
    assert!(a.check(&app1, s, "ORDERS.SECRET.X", Authority::Pub).is_ok());
    assert!(a.check(&app1, s, "ORDERS.>", Authority::Sub).is_err());
    assert!(a.check(&app1, s, "ORDERS.*", Authority::Sub).is_ok());
    assert!(
        a.check(&app1, s, "*.NEW", Authority::Sub).is_err(),
        "no profile covers it"
    );
    let e = a.check(&app1, s, "PRICES.X", Authority::Pub).unwrap_err();
    assert_eq!(
        e.0,
        "principal \"app1\" has no +pub authority on subject \"PRICES.X\""
    );
    // The queue grant of the same profile text is another type.
    assert!(
        a.check(&app1, ObjectType::Queue, "ORDERS.X", Authority::Get)
            .is_err()
    );
}

#[test]
fn subject_grants_take_subject_authorities_only() {
    let c: SecurityConfig = serde_yaml::from_str(
        r#"
tokens:
  - { principal: app1, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" }
authorities:
  - { principal: app1, profile: "A.>.B", type: subject, authorities: [put] }
  - { principal: app1, profile: "APP.*", authorities: [sub] }
  - { principal: app1, profile: ">", type: subject, authorities: [all] }
"#,
    )
    .unwrap();
    let p = c.problems();
    let at: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        at,
        [
            "security.authorities[0].profile",
            "security.authorities[0].authorities[0]",
            "security.authorities[1].authorities[0]",
        ],
        "{p:?}"
    );
}
