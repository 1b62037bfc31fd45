//! destination-rewrite against docs/exits.md "`destination-rewrite`" (the
//! WebSphere MQ Everyplace gateway article's receive exit). Every test compares
//! the whole buffer before and after.

use bytes::BytesMut;
use mqgate_codecs::mq::xqh::{Mqxqh, parse_xqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
use mqgate_exits::builtin::destination_rewrite::{
    DestinationRewrite, NamePart, NameProblem, RewriteOutcome,
};
use mqgate_exits::{ExitPoint, ExitRegistry, ExitsConfig, Verdict};

/// A transmission message: MQXQH (RemoteQName `q`, RemoteQMgrName `qm`) with
/// an MD v1 in `order`/`cs`, followed by 300 bytes of every byte value.
fn xmit_message(q: &str, qm: &str, order: ByteOrder, cs: Charset) -> Vec<u8> {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(q, cs).unwrap(),
        remote_q_mgr_name: CharField::new(qm, cs).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            encoding: order.encoding(),
            coded_char_set_id: if cs == Charset::Ebcdic { 500 } else { 819 },
            format: CharField::new("MQSTR", cs).unwrap(),
            msg_id: *b"AMQ GATEWAY 0123456789ab",
            persistence: 1,
            priority: 5,
            reply_to_q: CharField::new("REPLY.Q", cs).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, order, cs, &mut v);
    v.extend((0..300u32).map(|i| (i * 7 % 256) as u8));
    v
}

/// `buf` with the 48-byte field at `offset` replaced by `raw`, blank padded.
fn with_field(buf: &[u8], offset: usize, raw: &[u8], blank: u8) -> Vec<u8> {
    let mut v = buf.to_vec();
    v[offset..offset + 48].fill(blank);
    v[offset..offset + raw.len()].copy_from_slice(raw);
    v
}

fn rewrite(data: &str) -> DestinationRewrite {
    DestinationRewrite::from_exit_data(data).unwrap()
}

#[test]
fn percent_separator_ascii_big_and_little_endian() {
    // docs/exits.md: RemoteQName `INBOX%DEV0001`, RemoteQMgrName `GATEWAY` ->
    // `INBOX` / `DEV0001`, every other byte unchanged.
    // IBM MQ "MQXQH - Transmission-queue header": RemoteQName @8, RemoteQMgrName @56, 48 bytes, blank padded.
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let before = xmit_message("INBOX%DEV0001", "GATEWAY", order, Charset::Ascii);
        let want = with_field(&before, 8, b"INBOX", b' ');
        let want = with_field(&want, 56, b"DEV0001", b' ');
        let mut buf = before.clone();
        assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::Rewritten);
        assert_eq!(buf, want, "{order:?}");
        let (x, cs) = parse_xqh(&buf, order).unwrap();
        assert_eq!(cs, Charset::Ascii);
        assert_eq!(x.remote_q_name.text(cs), "INBOX");
        assert_eq!(x.remote_q_mgr_name.text(cs), "DEV0001");
    }
}

#[test]
fn percent_separator_ebcdic_header() {
    // IBM MQ "StrucId (MQCHAR4)": XQH StrucId in EBCDIC is E7 D8 C8 40; blank 0x40.
    // EBCDIC (CCSID 500/037 invariant) code points: I=C9 N=D5 B=C2 O=D6 X=E7,
    // D=C4 E=C5 V=E5, 0=F0 1=F1, %=6C.
    let before = xmit_message("INBOX%DEV0001", "GATEWAY", ByteOrder::Big, Charset::Ebcdic);
    assert_eq!(&before[..4], &[0xE7, 0xD8, 0xC8, 0x40]);
    assert_eq!(
        &before[8..21],
        &[
            0xC9, 0xD5, 0xC2, 0xD6, 0xE7, 0x6C, 0xC4, 0xC5, 0xE5, 0xF0, 0xF0, 0xF0, 0xF1
        ]
    );
    let want = with_field(&before, 8, &[0xC9, 0xD5, 0xC2, 0xD6, 0xE7], 0x40);
    let want = with_field(&want, 56, &[0xC4, 0xC5, 0xE5, 0xF0, 0xF0, 0xF0, 0xF1], 0x40);
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let before = xmit_message("INBOX%DEV0001", "GATEWAY", order, Charset::Ebcdic);
        let want_here = {
            let mut w = before.clone();
            w[8..104].copy_from_slice(&want[8..104]);
            w
        };
        let mut buf = before.clone();
        assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::Rewritten);
        assert_eq!(buf, want_here, "{order:?}");
    }
}

#[test]
fn slash_separator_with_dev_prefix() {
    // docs/exits.md: separator `/`, prefix `DEV`, RemoteQName `INBOX/0001` -> RemoteQMgrName `DEV0001`
    // (the WebSphere MQ Everyplace gateway article: sample code uses '/'; prefix added in the exit).
    let before = xmit_message("INBOX/0001", "GATEWAY", ByteOrder::Little, Charset::Ascii);
    let want = with_field(&before, 8, b"INBOX", b' ');
    let want = with_field(&want, 56, b"DEV0001", b' ');
    let mut buf = before.clone();
    let r = rewrite("separator=/ prefix=DEV");
    assert_eq!(r.rewrite(&mut buf), RewriteOutcome::Rewritten);
    assert_eq!(buf, want);
}

#[test]
fn fifty_character_queue_manager_name_is_never_truncated() {
    // docs/exits.md: `Q%` + 40-character qmgr + 10-character prefix = 50 > 48.
    let qm40 = "ABCDEFGHIJ".repeat(4);
    let q = format!("Q%{qm40}");
    let before = xmit_message(&q, "GATEWAY", ByteOrder::Big, Charset::Ascii);
    let mut buf = before.clone();
    let r = rewrite("prefix=PREFIX.ABC");
    assert_eq!(
        r.rewrite(&mut buf),
        RewriteOutcome::Invalid {
            part: NamePart::QueueManager,
            problem: NameProblem::TooLong { len: 50 }
        }
    );
    assert_eq!(buf, before);

    // Through a chain: policy `suppress` (default) -> 2058 MQRC_Q_MGR_NAME_ERROR
    // (IBM MQ "Constants" MQRC table; the reason the HTTP API gives for a bad
    // q_mgr), buffer unchanged; policy `pass` -> unchanged, continue.
    for (data, want) in [
        (
            "prefix=PREFIX.ABC",
            Verdict::Suppress {
                reason: Mqrc(2058),
                exit: "destination-rewrite".into(),
                failure: None,
            },
        ),
        ("prefix=PREFIX.ABC invalid=pass", Verdict::Continue),
    ] {
        let yaml = format!(
            "channels:\n  TO.GW:\n    receive:\n      - exit: destination-rewrite\n        data: \"{data}\"\n"
        );
        let cfg = ExitsConfig::from_yaml_str(&yaml).unwrap();
        let mut chain = ExitRegistry::with_builtins()
            .build_chain(&cfg, ExitPoint::Receive, "TO.GW", "GW")
            .unwrap();
        let mut b = BytesMut::from(&before[..]);
        assert_eq!(chain.run_buffer(&mut b), want, "{data}");
        assert_eq!(&b[..], &before[..]);
    }
}

#[test]
fn characters_outside_mq_name_rules_apply_the_policy() {
    // IBM MQ "Rules for naming IBM MQ objects": names use A-Z a-z 0-9 . / _ % only.
    let base = xmit_message("X", "GATEWAY", ByteOrder::Little, Charset::Ascii);
    let cases: [(&[u8], NamePart, NameProblem); 4] = [
        (
            b"INBOX%DEV#001",
            NamePart::QueueManager,
            NameProblem::BadCharacter {
                offset: 8 + 9,
                byte: b'#',
            },
        ),
        (
            b"IN BOX%DEV1",
            NamePart::Queue,
            NameProblem::BadCharacter {
                offset: 8 + 2,
                byte: b' ',
            },
        ),
        (b"%DEV0001", NamePart::Queue, NameProblem::Empty),
        (b"INBOX%", NamePart::QueueManager, NameProblem::Empty),
    ];
    for (raw, part, problem) in cases {
        let before = with_field(&base, 8, raw, b' ');
        let mut buf = before.clone();
        assert_eq!(
            rewrite("").rewrite(&mut buf),
            RewriteOutcome::Invalid { part, problem },
            "{}",
            String::from_utf8_lossy(raw)
        );
        assert_eq!(buf, before);
    }
    // The reasons (IBM MQ "API reason codes"): 2152 MQRC_OBJECT_NAME_ERROR
    // for the queue part, as the HTTP API answers for the same queue name
    // (docs/http-api.md "Errors"); 2058 MQRC_Q_MGR_NAME_ERROR for the qmgr
    // part, as the HTTP API answers for the same `q_mgr`.
    assert_eq!(NamePart::Queue.mqrc(), Mqrc(2152));
    assert_eq!(NamePart::QueueManager.mqrc(), Mqrc(2058));
}

#[test]
fn queue_part_rule_break_suppresses_with_2152() {
    let base = xmit_message("X", "GATEWAY", ByteOrder::Little, Charset::Ascii);
    let before = with_field(&base, 8, b"%DEV0001", b' ');
    let cfg = ExitsConfig::from_yaml_str("global:\n  receive:\n    - exit: destination-rewrite\n")
        .unwrap();
    let mut chain = ExitRegistry::with_builtins()
        .build_chain(&cfg, ExitPoint::Receive, "ANY", "GW")
        .unwrap();
    let mut b = BytesMut::from(&before[..]);
    assert!(matches!(
        chain.run_buffer(&mut b),
        Verdict::Suppress {
            reason: Mqrc(2152),
            ..
        }
    ));
    assert_eq!(&b[..], &before[..]);
}

#[test]
fn without_separator_or_xqh_the_message_passes_unchanged() {
    let before = xmit_message("INBOX", "DEV0001", ByteOrder::Big, Charset::Ascii);
    let mut buf = before.clone();
    assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::NoSeparator);
    assert_eq!(buf, before);
    // A '/' is not the default separator.
    let before = xmit_message("INBOX/DEV0001", "GW", ByteOrder::Big, Charset::Ascii);
    let mut buf = before.clone();
    assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::NoSeparator);
    assert_eq!(buf, before);
    // Separator after a NUL is not part of the name (IBM MQ "Rules for naming IBM MQ objects").
    let nul = with_field(&before, 8, b"INBOX\0%DEV1", b' ');
    let mut buf = nul.clone();
    assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::NoSeparator);
    assert_eq!(buf, nul);
    // Not an MQXQH: too short, wrong StrucId, Version 3.
    let mut short = before[..427].to_vec();
    assert_eq!(rewrite("").rewrite(&mut short), RewriteOutcome::NotXqh);
    let mut md_first = before.clone();
    md_first[..4].copy_from_slice(b"MD  ");
    let copy = md_first.clone();
    assert_eq!(rewrite("").rewrite(&mut md_first), RewriteOutcome::NotXqh);
    assert_eq!(md_first, copy);
    let mut v3 = before.clone();
    v3[4..8].copy_from_slice(&[0, 0, 0, 3]);
    assert_eq!(rewrite("").rewrite(&mut v3), RewriteOutcome::NotXqh);
}

#[test]
fn nul_padded_names_are_read_to_the_nul() {
    // IBM MQ "Rules for naming IBM MQ objects": a NUL ends the significant data (mq-golang pads with NULs).
    let base = xmit_message("X", "GATEWAY", ByteOrder::Little, Charset::Ascii);
    let mut raw = [0u8; 48];
    raw[..13].copy_from_slice(b"INBOX%DEV0001");
    let before = with_field(&base, 8, &raw, b' ');
    let want = with_field(&before, 8, b"INBOX", b' ');
    let want = with_field(&want, 56, b"DEV0001", b' ');
    let mut buf = before.clone();
    assert_eq!(rewrite("").rewrite(&mut buf), RewriteOutcome::Rewritten);
    assert_eq!(buf, want);
}

#[test]
fn exit_data_is_checked_when_the_chain_is_built() {
    let reg = ExitRegistry::with_builtins();
    for (data, needle) in [
        ("separator=-", "separator"),
        ("separator=ab", "separator"),
        ("prefix=A-B", "prefix"),
        ("invalid=drop", "invalid"),
        ("colour=red", "unknown key"),
    ] {
        let yaml = format!(
            "global:\n  receive:\n    - exit: destination-rewrite\n      data: \"{data}\"\n"
        );
        let cfg = ExitsConfig::from_yaml_str(&yaml).unwrap();
        let errs = reg.check(&cfg);
        assert_eq!(errs.len(), 1, "{data}");
        assert!(errs[0].to_string().contains(needle), "{}", errs[0]);
    }
    // Only at channel points.
    let cfg = ExitsConfig::from_yaml_str(
        "queues:\n  Q:\n    before_put:\n      - exit: destination-rewrite\n",
    )
    .unwrap();
    let errs = reg.check(&cfg);
    assert!(
        errs[0].to_string().contains("receive, send or message"),
        "{}",
        errs[0]
    );
    let cfg =
        ExitsConfig::from_yaml_str("global:\n  receive:\n    - exit: no-such-exit\n").unwrap();
    assert!(
        reg.check(&cfg)[0]
            .to_string()
            .contains("destination-rewrite")
    );
}
