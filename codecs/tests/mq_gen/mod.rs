//! proptest generators for every MQ structure (shared by the round-trip tests).

#![allow(dead_code)]

use std::borrow::Cow;

use mqgate_codecs::mq::rfh::name_value_string;
use mqgate_codecs::mq::{
    ByteOrder, CharField, Charset, Header, Mqdlh, Mqmd, Mqmde, Mqrfh, Mqrfh2, Mqxqh, OpaqueHeader,
    Structure,
};
use proptest::prelude::*;

pub fn order() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Big), Just(ByteOrder::Little)]
}

pub fn charset() -> impl Strategy<Value = Charset> {
    prop_oneof![Just(Charset::Ascii), Just(Charset::Ebcdic)]
}

pub fn bytes<const N: usize>() -> impl Strategy<Value = [u8; N]> {
    prop::collection::vec(any::<u8>(), N).prop_map(|v| v.try_into().expect("N bytes"))
}

/// A character field as real senders fill them: a name padded with blanks, a
/// name padded with NULs (real MQ clients send NUL-filled character fields, as
/// seen in captured client traffic), or arbitrary bytes.
pub fn char_field<const N: usize>() -> impl Strategy<Value = CharField<N>> {
    let name = "[A-Za-z0-9./_%]{0,12}";
    prop_oneof![
        (name, charset()).prop_map(|(s, cs)| {
            let s: String = s.chars().take(N).collect();
            CharField::new(&s, cs).expect("invariant characters")
        }),
        name.prop_map(|s| {
            let mut f = [0u8; N];
            for (d, b) in f.iter_mut().zip(s.bytes()) {
                *d = b;
            }
            CharField(f)
        }),
        bytes::<N>().prop_map(CharField),
    ]
}

pub fn md(version: i32) -> BoxedStrategy<Mqmd> {
    (
        (
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
        ),
        (
            char_field::<8>(),
            any::<i32>(),
            any::<i32>(),
            bytes::<24>(),
            bytes::<24>(),
        ),
        (
            any::<i32>(),
            char_field::<48>(),
            char_field::<48>(),
            char_field::<12>(),
        ),
        (
            bytes::<32>(),
            char_field::<32>(),
            any::<i32>(),
            char_field::<28>(),
        ),
        (char_field::<8>(), char_field::<8>(), char_field::<4>()),
        (
            bytes::<24>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
        ),
    )
        .prop_map(move |(a, b, c, d, e, f)| {
            let mut m = Mqmd {
                version,
                report: a.0,
                msg_type: a.1,
                expiry: a.2,
                feedback: a.3,
                encoding: a.4,
                coded_char_set_id: a.5,
                format: b.0,
                priority: b.1,
                persistence: b.2,
                msg_id: b.3,
                correl_id: b.4,
                backout_count: c.0,
                reply_to_q: c.1,
                reply_to_q_mgr: c.2,
                user_identifier: c.3,
                accounting_token: d.0,
                appl_identity_data: d.1,
                put_appl_type: d.2,
                put_appl_name: d.3,
                put_date: e.0,
                put_time: e.1,
                appl_origin_data: e.2,
                ..Mqmd::default()
            };
            if version == 2 {
                m.group_id = f.0;
                m.msg_seq_number = f.1;
                m.offset = f.2;
                m.msg_flags = f.3;
                m.original_length = f.4;
            }
            m
        })
        .boxed()
}

pub fn any_md() -> BoxedStrategy<Mqmd> {
    prop_oneof![md(1), md(2)].boxed()
}

pub fn xqh() -> BoxedStrategy<Mqxqh> {
    (char_field::<48>(), char_field::<48>(), md(1))
        .prop_map(|(q, qm, m)| Mqxqh {
            version: 1,
            remote_q_name: q,
            remote_q_mgr_name: qm,
            msg_desc: m,
        })
        .boxed()
}

pub fn mde() -> BoxedStrategy<Mqmde> {
    (
        (any::<i32>(), any::<i32>(), char_field::<8>(), any::<i32>()),
        (
            bytes::<24>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
            any::<i32>(),
        ),
    )
        .prop_map(|(a, b)| Mqmde {
            version: 2,
            encoding: a.0,
            coded_char_set_id: a.1,
            format: a.2,
            flags: a.3,
            group_id: b.0,
            msg_seq_number: b.1,
            offset: b.2,
            msg_flags: b.3,
            original_length: b.4,
        })
        .boxed()
}

pub fn dlh() -> BoxedStrategy<Mqdlh> {
    (
        (
            any::<i32>(),
            char_field::<48>(),
            char_field::<48>(),
            any::<i32>(),
            any::<i32>(),
        ),
        (
            char_field::<8>(),
            any::<i32>(),
            char_field::<28>(),
            char_field::<8>(),
            char_field::<8>(),
        ),
    )
        .prop_map(|(a, b)| Mqdlh {
            version: 1,
            reason: a.0,
            dest_q_name: a.1,
            dest_q_mgr_name: a.2,
            encoding: a.3,
            coded_char_set_id: a.4,
            format: b.0,
            put_appl_type: b.1,
            put_appl_name: b.2,
            put_date: b.3,
            put_time: b.4,
        })
        .boxed()
}

/// An MQRFH v1 whose NameValueString is valid in `cs`: built from pairs
/// (tokens with blanks and quotes get quoted), sometimes ended by a NUL with
/// arbitrary bytes after it (ignored by MQ, kept by mqgate).
pub fn rfh(cs: Charset) -> BoxedStrategy<Mqrfh<'static>> {
    let token = if cs == Charset::Ascii {
        "[A-Za-z0-9 \"._%/]{0,10}"
    } else {
        "[A-Za-z0-9._%/ ]{0,10}"
    };
    (
        (any::<i32>(), any::<i32>(), char_field::<8>(), any::<i32>()),
        prop::collection::vec((token, token), 0..4),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..7)),
    )
        .prop_map(move |(a, pairs, after_nul)| {
            let refs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (&n[..], &v[..])).collect();
            let mut s = name_value_string(&refs, cs).expect("tokens of encodable characters");
            if let Some(tail) = after_nul {
                s.push(0);
                s.extend_from_slice(&tail);
                s.resize(s.len().next_multiple_of(4), 0);
            }
            Mqrfh {
                version: 1,
                encoding: a.0,
                coded_char_set_id: a.1,
                format: a.2,
                flags: a.3,
                name_value_string: Cow::Owned(s),
            }
        })
        .boxed()
}

/// An MQRFH2 with 0-3 folders of arbitrary bytes (lengths multiples of 4).
pub fn rfh2() -> BoxedStrategy<Mqrfh2<'static>> {
    (
        (any::<i32>(), any::<i32>(), char_field::<8>(), any::<i32>()),
        prop::sample::select(vec![1208, 1200, 13488, 17584]),
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..12), 0..4),
    )
        .prop_map(|(a, nv_ccsid, folders)| {
            let mut r = Mqrfh2 {
                version: 2,
                encoding: a.0,
                coded_char_set_id: a.1,
                format: a.2,
                flags: a.3,
                name_value_ccsid: nv_ccsid,
                folders: Vec::new(),
            };
            for mut d in folders {
                d.resize(d.len().next_multiple_of(4), b' ');
                r.folders.push(mqgate_codecs::mq::rfh2::Folder {
                    offset: 0,
                    data: Cow::Owned(d),
                });
            }
            r
        })
        .boxed()
}

/// An MQIIH (84 bytes or more), MQCIH v1 (164) / v2 (180), MQWIH (120) or
/// MQRMH (108 and its strings) or MQDH (48 and its records), opaque (lengths: IBM MQ "MQIIH_*", "MQCIH_*",
/// "MQWIH_*" constants, "MQRMH - Reference message header").
pub fn opaque() -> BoxedStrategy<OpaqueHeader<'static>> {
    (
        prop::sample::select(vec![
            (Structure::Iih, 1, 84),
            (Structure::Cih, 1, 164),
            (Structure::Cih, 2, 180),
            (Structure::Wih, 1, 120),
            (Structure::Rmh, 1, 108),
            (Structure::Dh, 1, 48),
        ]),
        (any::<i32>(), any::<i32>(), char_field::<8>(), any::<i32>()),
        0usize..3,
        any::<u8>(),
    )
        .prop_map(|((s, v, len), a, extra, fill)| OpaqueHeader {
            structure: s,
            version: v,
            encoding: a.0,
            coded_char_set_id: a.1,
            format: a.2,
            flags: a.3,
            rest: Cow::Owned(vec![fill; len - 32 + 4 * extra]),
        })
        .boxed()
}

/// Any chainable header (everything but the MQMD) to be written in `cs`.
pub fn chained_header(cs: Charset) -> BoxedStrategy<Header<'static>> {
    prop_oneof![
        xqh().prop_map(|x| Header::Xqh(Box::new(x))),
        mde().prop_map(Header::Mde),
        dlh().prop_map(Header::Dlh),
        rfh(cs).prop_map(Header::Rfh),
        rfh2().prop_map(Header::Rfh2),
        opaque().prop_map(Header::Opaque),
    ]
    .boxed()
}

/// Sets what `h` says about the next item.
pub fn set_next(h: &mut Header<'_>, encoding: i32, ccsid: i32, format: CharField<8>) {
    let (e, c, f) = match h {
        Header::Md(m) => (&mut m.encoding, &mut m.coded_char_set_id, &mut m.format),
        Header::Xqh(x) => (
            &mut x.msg_desc.encoding,
            &mut x.msg_desc.coded_char_set_id,
            &mut x.msg_desc.format,
        ),
        Header::Mde(m) => (&mut m.encoding, &mut m.coded_char_set_id, &mut m.format),
        Header::Dlh(d) => (&mut d.encoding, &mut d.coded_char_set_id, &mut d.format),
        Header::Rfh(r) => (&mut r.encoding, &mut r.coded_char_set_id, &mut r.format),
        Header::Rfh2(r) => (&mut r.encoding, &mut r.coded_char_set_id, &mut r.format),
        Header::Opaque(o) => (&mut o.encoding, &mut o.coded_char_set_id, &mut o.format),
    };
    *e = encoding;
    *c = ccsid;
    *f = format;
}

/// The Format naming `s` in `cs`, its trailing blanks turned into NULs when
/// `nul_padded` (IBM MQ "Format (MQCHAR8)": compare on the padded form).
pub fn format_of(s: Structure, cs: Charset, nul_padded: bool) -> CharField<8> {
    let name = String::from_utf8_lossy(s.format().expect("a chained header"))
        .trim_end()
        .to_owned();
    let mut f = CharField::<8>::new(&name, cs).expect("format names are invariant");
    if nul_padded {
        for b in f.0.iter_mut().skip(name.len()) {
            *b = 0;
        }
    }
    f
}
