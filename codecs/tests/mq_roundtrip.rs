//! Property tests: write(parse(b)) == b and parse(write(x)) == x for every MQ
//! structure and for whole chains, both byte orders, ASCII and EBCDIC StrucIds,
//! NUL-padded fields kept (mqgate's byte-fidelity rule).

mod mq_gen;

use mq_gen::*;
use mqgate_codecs::mq::dlh::{parse_dlh, write_dlh};
use mqgate_codecs::mq::md::{parse_md, write_md};
use mqgate_codecs::mq::mde::{parse_mde, write_mde};
use mqgate_codecs::mq::opaque::{parse_opaque, write_opaque};
use mqgate_codecs::mq::rfh::{parse_rfh, write_rfh};
use mqgate_codecs::mq::rfh2::{parse_rfh2, write_rfh2};
use mqgate_codecs::mq::xqh::{parse_xqh, write_xqh};
use mqgate_codecs::mq::{
    ByteOrder, ChainOptions, CharField, Charset, Header, Mqmd, Structure, parse_chain, write_chain,
};
use proptest::prelude::*;

macro_rules! round_trip {
    ($value:expr, $order:expr, $cs:expr, $write:path, $parse:expr) => {{
        let mut bytes = Vec::new();
        $write(&$value, $order, $cs, &mut bytes);
        let (back, cs) = $parse(&bytes[..], $order).expect("parses what was written");
        prop_assert_eq!(cs, $cs);
        prop_assert_eq!(&back, &$value);
        let mut again = Vec::new();
        $write(&back, $order, cs, &mut again);
        prop_assert_eq!(again, bytes);
    }};
}

proptest! {
    #[test]
    fn md_round_trips(m in any_md(), o in order(), cs in charset()) {
        round_trip!(m, o, cs, write_md, parse_md);
    }

    #[test]
    fn xqh_round_trips(x in xqh(), o in order(), cs in charset()) {
        round_trip!(x, o, cs, write_xqh, parse_xqh);
    }

    #[test]
    fn mde_round_trips(m in mde(), o in order(), cs in charset()) {
        round_trip!(m, o, cs, write_mde, parse_mde);
    }

    #[test]
    fn dlh_round_trips(d in dlh(), o in order(), cs in charset()) {
        round_trip!(d, o, cs, write_dlh, parse_dlh);
    }

    #[test]
    fn rfh_round_trips(
        (cs, r) in charset().prop_flat_map(|cs| (Just(cs), rfh(cs))),
        o in order(),
    ) {
        round_trip!(r, o, cs, write_rfh, parse_rfh);
    }

    #[test]
    fn rfh2_round_trips(r in rfh2(), o in order(), cs in charset()) {
        let mut bytes = Vec::new();
        write_rfh2(&r, o, cs, &mut bytes);
        let (back, back_cs) = parse_rfh2(&bytes, o).expect("parses what was written");
        prop_assert_eq!(back_cs, cs);
        // Parsed folders know their offsets; compare the data.
        let data = |x: &mqgate_codecs::mq::Mqrfh2<'_>| {
            x.folders.iter().map(|f| f.data.to_vec()).collect::<Vec<_>>()
        };
        prop_assert_eq!(data(&back), data(&r));
        prop_assert_eq!(back.struc_length(), bytes.len());
        let mut again = Vec::new();
        write_rfh2(&back, o, cs, &mut again);
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn opaque_round_trips(h in opaque(), o in order(), cs in charset()) {
        let mut bytes = Vec::new();
        write_opaque(&h, o, cs, &mut bytes);
        let (back, back_cs) = parse_opaque(h.structure, &bytes, o).expect("parses");
        prop_assert_eq!(back_cs, cs);
        prop_assert_eq!(&back, &h);
        let mut again = Vec::new();
        write_opaque(&back, o, cs, &mut again);
        prop_assert_eq!(again, bytes);
    }

    /// A whole message: an optional MQMD, 0-5 chained headers each in its
    /// own byte order and charset, Formats sometimes NUL padded, then a body.
    #[test]
    fn chains_round_trip(
        first_md in prop::option::of((any_md(), order(), charset())),
        links in prop::collection::vec(
            (order(), charset(), any::<bool>())
                .prop_flat_map(|(o, cs, nul)| (Just(o), Just(cs), Just(nul), chained_header(cs))),
            0..6,
        ),
        body in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        // Each structure's next Encoding/Format names the following one.
        let mut headers: Vec<(Header<'static>, ByteOrder, Charset)> = Vec::new();
        let has_md = first_md.is_some();
        if let Some((m, o, cs)) = first_md {
            headers.push((Header::Md(Box::new(m)), o, cs));
        }
        for (o, cs, _, h) in &links {
            headers.push((h.clone(), *o, *cs));
        }
        prop_assume!(!headers.is_empty());
        // What follows an MQIIH or MQCIH is in its own encoding (IBM MQ "Encoding
        // (MQLONG) for MQIIH", "MQCIH - CICS bridge header": their Encoding field is
        // reserved), so the structure after one is written in its byte order.
        for i in 1..headers.len() {
            if headers[i - 1].0.structure().inherits_descriptor() {
                headers[i].1 = headers[i - 1].1;
            }
        }
        for i in 0..headers.len() {
            let cs = headers[i].2;
            let (encoding, format) = match headers.get(i + 1) {
                Some((h, o, _)) => {
                    let nul = links[i + 1 - usize::from(has_md)].2;
                    (o.encoding(), format_of(h.structure(), cs, nul))
                }
                None => (546, CharField::new("MQSTR", cs).expect("invariant")),
            };
            set_next(&mut headers[i].0, encoding, 1208, format);
        }
        let mut msg = Vec::new();
        for (h, o, cs) in &headers {
            h.write(*o, *cs, &mut msg);
        }
        msg.extend_from_slice(&body);

        // The first structure is recognised by its StrucId; its byte order by
        // its Version unless the caller says.
        let opts = ChainOptions { encoding: Some(headers[0].1.encoding()), ..ChainOptions::default() };
        for opts in [ChainOptions::default(), opts] {
            let chain = parse_chain(&msg, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let got: Vec<Structure> = chain.links.iter().map(|l| l.structure).collect();
            let want: Vec<Structure> = headers.iter().map(|(h, _, _)| h.structure()).collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(chain.body(), &body[..]);
            let decoded = chain.decode().expect("decodes");
            let mut out = Vec::new();
            write_chain(&decoded, &mut out);
            prop_assert_eq!(&out, &msg);
        }
    }
}

#[test]
fn nul_padded_fields_are_kept_not_normalised() {
    // Real MQ clients send NUL-filled UserIdentifier, PutApplName, PutDate,
    // PutTime; mqgate keeps them as they were.
    let mut m = Mqmd {
        version: 1,
        ..Mqmd::default()
    };
    m.user_identifier = CharField(*b"app\0\0\0\0\0\0\0\0\0");
    m.put_appl_name = CharField([0; 28]);
    m.put_date = CharField([0; 8]);
    let mut out = Vec::new();
    write_md(&m, ByteOrder::Little, Charset::Ascii, &mut out);
    let (back, _) = parse_md(&out, ByteOrder::Little).unwrap();
    assert_eq!(back.user_identifier.text(Charset::Ascii), "app");
    assert_eq!(&out[196..208], b"app\0\0\0\0\0\0\0\0\0");
    let mut again = Vec::new();
    write_md(&back, ByteOrder::Little, Charset::Ascii, &mut again);
    assert_eq!(again, out);
}
