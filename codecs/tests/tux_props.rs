//! Property tests: FML32 and TPQCTL round trips; no panic on any input into
//! each tux parser (mqgate's rule: bad input never panics).

use mqgate_codecs::tux::buftype::check_buffer_type;
use mqgate_codecs::tux::cfgtext::ConfigText;
use mqgate_codecs::tux::dmconfig::DmConfig;
use mqgate_codecs::tux::fieldtbl::FieldTable;
use mqgate_codecs::tux::fml32::{FieldId, FieldType, FieldValue, Fml32Buffer, index_stripped_size};
use mqgate_codecs::tux::rtq::RelativeTime;
use mqgate_codecs::tux::tedg::map_flags;
use mqgate_codecs::tux::tpqctl::{
    Abi, Endian, TMQNAMELEN, TMQNAMELEN_LONG, TpFlags, TpqFlags, Tpqctl, TpqctlLayout,
    parse_flag_names,
};
use proptest::prelude::*;

fn scalar_field() -> impl Strategy<Value = (FieldId, FieldValue)> {
    let num = 1u32..2000;
    prop_oneof![
        (num.clone(), any::<i16>()).prop_map(|(n, v)| (
            FieldId::new(FieldType::Short, n).unwrap(),
            FieldValue::Short(v)
        )),
        (num.clone(), any::<i32>()).prop_map(|(n, v)| (
            FieldId::new(FieldType::Long, n).unwrap(),
            FieldValue::Long(v.into())
        )),
        (num.clone(), any::<u8>()).prop_map(|(n, v)| (
            FieldId::new(FieldType::Char, n).unwrap(),
            FieldValue::Char(v)
        )),
        (num.clone(), any::<u32>()).prop_map(|(n, v)| (
            FieldId::new(FieldType::Float, n).unwrap(),
            FieldValue::Float(f32::from_bits(v))
        )),
        (num.clone(), any::<u64>()).prop_map(|(n, v)| (
            FieldId::new(FieldType::Double, n).unwrap(),
            FieldValue::Double(f64::from_bits(v))
        )),
        (num.clone(), proptest::collection::vec(1u8..=255, 0..40)).prop_map(|(n, v)| (
            FieldId::new(FieldType::String, n).unwrap(),
            FieldValue::String(v)
        )),
        (num.clone(), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(n, v)| (
            FieldId::new(FieldType::Carray, n).unwrap(),
            FieldValue::Carray(v)
        )),
        (num.clone(), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(n, v)| (
            FieldId::new(FieldType::Mbstring, n).unwrap(),
            FieldValue::Mbstring(v)
        )),
        (
            num,
            proptest::collection::vec(any::<u8>(), 0..9),
            proptest::collection::vec(any::<u8>(), 0..20)
        )
            .prop_map(|(n, name, data)| (
                FieldId::new(FieldType::View32, n).unwrap(),
                FieldValue::View32 { name, data }
            )),
    ]
}

fn buffer() -> impl Strategy<Value = Fml32Buffer> {
    let flat = proptest::collection::vec(scalar_field(), 0..12).prop_map(|fields| {
        let mut b = Fml32Buffer::new();
        for (id, v) in fields {
            b.add(id, v).unwrap();
        }
        b
    });
    flat.prop_recursive(3, 40, 4, |inner| {
        (
            proptest::collection::vec(scalar_field(), 0..4),
            proptest::collection::vec((1u32..50, inner), 0..3),
        )
            .prop_map(|(fields, nested)| {
                let mut b = Fml32Buffer::new();
                for (id, v) in fields {
                    b.add(id, v).unwrap();
                }
                for (n, sub) in nested {
                    b.add(
                        FieldId::new(FieldType::Fml32, n).unwrap(),
                        FieldValue::Fml32(sub),
                    )
                    .unwrap();
                }
                b
            })
    })
}

fn layout() -> impl Strategy<Value = TpqctlLayout> {
    (
        prop_oneof![Just(Abi::Lp64), Just(Abi::Ilp32)],
        prop_oneof![Just(Endian::Big), Just(Endian::Little)],
        prop_oneof![Just(TMQNAMELEN), Just(TMQNAMELEN_LONG)],
    )
        .prop_map(|(abi, endian, qname_len)| TpqctlLayout {
            abi,
            endian,
            qname_len,
        })
}

/// Text made mostly of the characters the config and table parsers care about.
fn config_like_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("*"),
            Just("\""),
            Just("="),
            Just("#"),
            Just("\n"),
            Just("\t"),
            Just(" "),
            Just("\\"),
            Just("DM_REMOTE_SERVICES"),
            Just("DM_LOCAL_DOMAINS"),
            Just("TYPE"),
            Just("QSPACE"),
            Just("QNAME"),
            Just("TE_RTQGROUP"),
            Just("TE_FUNCTION"),
            Just("DEFAULT:"),
            Just("RESOURCES"),
            Just("base"),
            Just("1"),
            Just("long"),
            Just("$"),
            Just("x"),
            Just("é"),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn fml32_round_trips(b in buffer()) {
        let mut bytes = Vec::new();
        b.encode(&mut bytes).unwrap();
        prop_assert_eq!(bytes.len(), b.encoded_len());
        let (d, used) = Fml32Buffer::decode(&bytes).unwrap();
        prop_assert_eq!(used, bytes.len());
        let mut again = Vec::new();
        d.encode(&mut again).unwrap();
        prop_assert_eq!(&again, &bytes);
        prop_assert_eq!(index_stripped_size(&bytes).unwrap(), bytes.len());
    }

    #[test]
    fn fml32_mutations_never_panic(b in buffer(), at in any::<prop::sample::Index>(), v in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let mut bytes = Vec::new();
        b.encode(&mut bytes).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = v;
        let n = cut.index(bytes.len() + 1);
        if let Ok((d, used)) = Fml32Buffer::decode(&bytes[..n]) {
            // Whatever decodes must encode back to the bytes it came from.
            let mut again = Vec::new();
            d.encode(&mut again).unwrap();
            prop_assert_eq!(&again[..], &bytes[..used]);
        }
    }

    #[test]
    fn fml32_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = Fml32Buffer::decode(&bytes);
        let mut with_magic = (-10000i32).to_be_bytes().to_vec();
        with_magic.extend_from_slice(&bytes);
        let _ = index_stripped_size(&with_magic);
    }

    #[test]
    fn tpqctl_bytes_round_trip(l in layout(), seed in proptest::collection::vec(any::<u8>(), 424)) {
        let size = l.offsets().size;
        let bytes = &seed[..size];
        let c = Tpqctl::decode(bytes, &l).unwrap();
        let mut out = Vec::new();
        c.encode(&l, &mut out).unwrap();
        prop_assert_eq!(&out[..], bytes);
    }

    #[test]
    fn tpqctl_struct_round_trips(l in layout(), flags in any::<i32>(), deq in any::<i32>(), msgid in any::<[u8; 32]>(), cltid in any::<[i32; 4]>(), exp in any::<i32>()) {
        let mut c = Tpqctl::new(&l);
        c.flags = TpqFlags(flags.into());
        c.deq_time = deq.into();
        c.msgid = msgid;
        c.cltid = cltid.map(i64::from);
        c.exp_time = exp.into();
        c.replyqueue[0] = b'R';
        let mut out = Vec::new();
        c.encode(&l, &mut out).unwrap();
        prop_assert_eq!(out.len(), l.offsets().size);
        prop_assert_eq!(Tpqctl::decode(&out, &l).unwrap(), c);
    }

    #[test]
    fn tpqctl_short_input_never_panics(l in layout(), bytes in proptest::collection::vec(any::<u8>(), 0..424)) {
        let _ = Tpqctl::decode(&bytes, &l);
    }

    #[test]
    fn text_parsers_never_panic(text in config_like_text()) {
        let _ = ConfigText::parse(&text);
        let _ = DmConfig::parse(&text);
        let _ = FieldTable::parse(&text);
    }

    #[test]
    fn any_string_never_panics(text in any::<String>()) {
        let _ = ConfigText::parse(&text);
        let _ = DmConfig::parse(&text);
        let _ = FieldTable::parse(&text);
        let _ = text.parse::<RelativeTime>();
        let _ = parse_flag_names(text.split(','));
        let _ = check_buffer_type(&text, Some(&text));
    }

    #[test]
    fn flag_mapping_is_total(ctl in any::<i64>(), deq in any::<i64>(), call in any::<i64>()) {
        match map_flags(TpqFlags(ctl), deq, TpFlags(call)) {
            Ok(p) => {
                // Only the supported bits can succeed (the TEDG guide's Client Flag
                // Mapping).
                prop_assert_eq!(ctl & !0x610, 0);
                prop_assert_eq!(call & !0x2B, 0);
                prop_assert_eq!(p.return_request_id, ctl & 0x10 != 0);
            }
            Err(e) => {
                let t = e.tp_error();
                prop_assert!(t.tperrno.0 == 4 || t.tperrno.0 == 24);
            }
        }
    }
}
