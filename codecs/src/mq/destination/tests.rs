//! The destination split at every kernel level this CPU has, against the
//! article's example and against the scalar form: every byte value at every
//! position of RemoteQName around separators at every position, both
//! charsets, short and longest prefixes, buffers at every alignment, and
//! random fields.

use super::*;
use crate::cpu::levels;
use crate::mq::xqh::{Mqxqh, write_xqh};
use crate::mq::{CharField, Mqmd};
use proptest::prelude::*;

/// An MQXQH (Version 1, MD v1, `order`, `cs`) whose RemoteQName bytes are
/// `q` and RemoteQMgrName `GATEWAY`, then 100 bytes of body.
fn message(q: [u8; 48], order: ByteOrder, cs: Charset) -> Vec<u8> {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField(q),
        remote_q_mgr_name: CharField::new("GATEWAY", cs).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            ..Mqmd::default()
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, order, cs, &mut v);
    v.extend((0..100u8).map(|b| b.wrapping_mul(37)));
    v
}

/// `text` (ASCII) in `cs`, blank padded to 48.
fn field(text: &str, cs: Charset) -> [u8; 48] {
    CharField::<48>::new(text, cs).unwrap().0
}

/// Applies `split` to `msg` at every level; all must give the same outcome
/// and bytes, bytes outside the two names must stay, and nothing may change
/// unless rewritten. Returns the outcome and the bytes.
fn check(split: &DestinationSplit, msg: &[u8]) -> (RewriteOutcome, Vec<u8>) {
    let mut results = levels().into_iter().map(|k| {
        let mut buf = msg.to_vec();
        (split.apply_with(k, &mut buf), buf, k)
    });
    let (outcome, bytes, _) = results.next().unwrap();
    for (o, b, k) in results {
        assert_eq!((o, &b), (outcome, &bytes), "{k:?} against the scalar form");
    }
    if outcome == RewriteOutcome::Rewritten {
        assert_eq!(bytes[..8], msg[..8]);
        assert_eq!(bytes[104..], msg[104..]);
    } else {
        assert_eq!(bytes, msg);
    }
    (outcome, bytes)
}

#[test]
fn the_articles_example_in_both_charsets_and_byte_orders() {
    // The WebSphere MQ Everyplace gateway article: RemoteQName `INBOX%DEV0001`
    // becomes RemoteQName `INBOX`, RemoteQMgrName `DEV0001`; with the prefix
    // `DEV` (docs/exits.md), `INBOX%0001` becomes the same. IBM MQ "MQXQH -
    // Transmission-queue header": RemoteQName @8, RemoteQMgrName @56, 48
    // bytes each, blank padded.
    for cs in [Charset::Ascii, Charset::Ebcdic] {
        for order in [ByteOrder::Big, ByteOrder::Little] {
            for (prefix, name) in [("", "INBOX%DEV0001"), ("DEV", "INBOX%0001")] {
                let split = DestinationSplit::new(b'%', prefix.as_bytes()).unwrap();
                let msg = message(field(name, cs), order, cs);
                let (outcome, bytes) = check(&split, &msg);
                assert_eq!(outcome, RewriteOutcome::Rewritten);
                assert_eq!(bytes[8..56], field("INBOX", cs));
                assert_eq!(bytes[56..104], field("DEV0001", cs));
            }
        }
    }
}

#[test]
fn errors_name_the_part_the_offset_and_the_byte() {
    // Offsets count from the buffer's start: RemoteQName begins at 8.
    let split = DestinationSplit::new(b'%', b"DEV").unwrap();
    let cases: [(&[u8], RewriteOutcome); 8] = [
        (b"INBOX", RewriteOutcome::NoSeparator),
        (b"IN\0BOX%Q", RewriteOutcome::NoSeparator),
        (
            b"%QM",
            RewriteOutcome::Invalid {
                part: NamePart::Queue,
                problem: NameProblem::Empty,
            },
        ),
        (
            b"IN-BOX%QM",
            RewriteOutcome::Invalid {
                part: NamePart::Queue,
                problem: NameProblem::BadCharacter {
                    offset: 10,
                    byte: b'-',
                },
            },
        ),
        (
            b"INBOX%QM X",
            RewriteOutcome::Invalid {
                part: NamePart::QueueManager,
                problem: NameProblem::BadCharacter {
                    offset: 16,
                    byte: b' ',
                },
            },
        ),
        (
            b"INBOX%",
            RewriteOutcome::Invalid {
                part: NamePart::QueueManager,
                problem: NameProblem::Empty,
            },
        ),
        // A blank right after the separator is embedded in the name (a
        // name character follows it), as in `QM X`.
        (
            b"INBOX% QM",
            RewriteOutcome::Invalid {
                part: NamePart::QueueManager,
                problem: NameProblem::BadCharacter {
                    offset: 14,
                    byte: b' ',
                },
            },
        ),
        (
            b"I%Q-M",
            RewriteOutcome::Invalid {
                part: NamePart::QueueManager,
                problem: NameProblem::BadCharacter {
                    offset: 11,
                    byte: b'-',
                },
            },
        ),
    ];
    for (name, want) in cases {
        let mut q = [b' '; 48];
        q[..name.len()].copy_from_slice(name);
        let msg = message(q, ByteOrder::Little, Charset::Ascii);
        assert_eq!(
            check(&split, &msg).0,
            want,
            "{}",
            String::from_utf8_lossy(name)
        );
    }
    // 3 + 46 characters: one more than the field holds.
    let long = format!("Q%{}", "M".repeat(46));
    let msg = message(field(&long, Charset::Ascii), ByteOrder::Big, Charset::Ascii);
    assert_eq!(
        check(&split, &msg).0,
        RewriteOutcome::Invalid {
            part: NamePart::QueueManager,
            problem: NameProblem::TooLong { len: 49 },
        }
    );
    // Not an XQH: too short, other StrucId, Version 2.
    let good = message(field("A%B", Charset::Ascii), ByteOrder::Big, Charset::Ascii);
    let mut v2 = good.clone();
    v2[4..8].copy_from_slice(&2i32.to_be_bytes());
    for bad in [&good[..427], &good[1..], &v2[..]] {
        assert_eq!(check(&split, bad).0, RewriteOutcome::NotXqh);
    }
}

/// RemoteQName templates: separators and NULs at the edges and inside,
/// blank and NUL padding, parts of every interesting length.
fn templates(cs: Charset) -> Vec<[u8; 48]> {
    let mut v = Vec::new();
    for text in [
        "A%B",
        "%",
        "INBOX%DEV0001",
        "Q",
        "QUEUE.NAME%QMGR",
        &format!("{}%B", "A".repeat(46)),
        &format!("A%{}", "B".repeat(46)),
        &format!("A%{}", "B".repeat(44)),
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv",
        "Q%M%N",
    ] {
        let f = field(text, cs);
        v.push(f);
        // NUL padded instead of blank padded.
        let mut n = f;
        n[text.len()..].fill(0);
        v.push(n);
    }
    v
}

#[test]
fn every_byte_value_at_every_position_matches_the_scalar_form() {
    // The vector form reads the field as masks; the scalar form scans it.
    // Every byte value at every position of each template, in each charset,
    // with a short prefix and the longest.
    for cs in [Charset::Ascii, Charset::Ebcdic] {
        for prefix in [&b"DEV"[..], &[b'P'; 47]] {
            let split = DestinationSplit::new(b'%', prefix).unwrap();
            for t in templates(cs) {
                for j in 0..48 {
                    for b in 0..=255u8 {
                        let mut q = t;
                        q[j] = b;
                        check(&split, &message(q, ByteOrder::Little, cs));
                    }
                }
            }
        }
    }
}

#[test]
fn separators_at_every_position_and_prefixes_of_every_length() {
    for cs in [Charset::Ascii, Charset::Ebcdic] {
        for sep in [b'%', b'/', b'Q'] {
            for prefix_len in 0..48 {
                let split = DestinationSplit::new(sep, &vec![b'D'; prefix_len]).unwrap();
                for at in 0..48 {
                    for end in at + 1..=48 {
                        let mut text = vec![b'A'; end];
                        text[at] = sep;
                        let text = String::from_utf8(text).unwrap();
                        check(&split, &message(field(&text, cs), ByteOrder::Big, cs));
                    }
                }
            }
        }
    }
}

#[test]
fn buffers_at_every_alignment() {
    // The vector loads and stores are unaligned: the header may start at
    // any address.
    let split = DestinationSplit::new(b'%', b"DEV").unwrap();
    for cs in [Charset::Ascii, Charset::Ebcdic] {
        let msg = message(field("INBOX%0001", cs), ByteOrder::Little, cs);
        for k in levels() {
            for align in 0..64 {
                let mut big = vec![0xA5u8; 64 + msg.len()];
                big[align..align + msg.len()].copy_from_slice(&msg);
                let buf = &mut big[align..align + msg.len()];
                assert_eq!(split.apply_with(k, buf), RewriteOutcome::Rewritten);
                assert_eq!(buf[56..104], field("DEV0001", cs));
                assert!(big[..align].iter().all(|&b| b == 0xA5));
                assert!(big[align + msg.len()..].iter().all(|&b| b == 0xA5));
            }
        }
    }
}

#[test]
fn separator_and_prefix_are_checked() {
    assert_eq!(
        DestinationSplit::new(b'-', b""),
        Err(SplitError::Separator(b'-'))
    );
    assert_eq!(
        DestinationSplit::new(b'%', &[b'A'; 48]),
        Err(SplitError::PrefixTooLong { len: 48 })
    );
    assert_eq!(
        DestinationSplit::new(b'%', b"DE V"),
        Err(SplitError::PrefixCharacter {
            position: 2,
            byte: b' '
        })
    );
    // EBCDIC `%` is 0x6C (IBM CCSID 037 and 500 alike: an invariant character).
    assert_eq!(
        DestinationSplit::default(),
        DestinationSplit::new(b'%', b"").unwrap()
    );
    assert_eq!(DestinationSplit::default().separator, [b'%', 0x6C]);
    let s = DestinationSplit::new(b'/', b"DEV").unwrap();
    assert_eq!((s.separator(), s.prefix()), (b'/', &b"DEV"[..]));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_vector_form_runs_where_the_cpu_has_it() {
    // So the comparisons above test it: on an AVX-512 CPU the top level is
    // the vector form.
    assert_eq!(
        levels().last().map(|k| k.level()) == Some(Level::Avx512),
        crate::cpu::has_avx512()
    );
}

/// Bytes a RemoteQName is made of in the random fields: name characters,
/// the separator, blanks and NULs in the header's charset, and others.
fn name_byte(cs: Charset) -> impl Strategy<Value = u8> {
    let e = |c: u8| cs.encode_invariant_byte(c).unwrap();
    prop_oneof![
        6 => prop::sample::select(vec![e(b'A'), e(b'z'), e(b'0'), e(b'.'), e(b'_')]),
        2 => Just(e(b'%')),
        2 => Just(cs.blank()),
        1 => Just(0u8),
        1 => any::<u8>(),
    ]
}

fn random_case() -> impl Strategy<Value = (Charset, [u8; 48], usize)> {
    prop_oneof![Just(Charset::Ascii), Just(Charset::Ebcdic)].prop_flat_map(|cs| {
        (
            Just(cs),
            proptest::collection::vec(name_byte(cs), 48)
                .prop_map(|v| <[u8; 48]>::try_from(v).unwrap()),
            0usize..48,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]
    #[test]
    fn random_fields_match_the_scalar_form((cs, q, prefix_len) in random_case()) {
        let split = DestinationSplit::new(b'%', &vec![b'P'; prefix_len]).unwrap();
        check(&split, &message(q, ByteOrder::Little, cs));
    }
}
