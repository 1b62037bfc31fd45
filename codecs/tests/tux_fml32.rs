//! FML32 ids, buffers and field tables (Tuxedo `fml32.h`, Oracle Tuxedo
//! "field_tables(5)"; the buffer encoding is mqgate's, docs/tuxedo.md "FML32").

use mqgate_codecs::tux::fieldtbl::{FieldTable, FieldTableErrorKind};
use mqgate_codecs::tux::fml32::{
    F_MAGIC32, Ferror32, FieldId, FieldType, FieldValue, Fml32Buffer, Fml32ErrorKind,
    index_stripped_size,
};

fn id(t: FieldType, n: u32) -> FieldId {
    FieldId::new(t, n).unwrap()
}

#[test]
fn field_id_is_type_shifted_25_or_number() {
    // `fml32.h`: fldid = (type << 25) | number; number 1..=0x1FFFFFF.
    assert_eq!(id(FieldType::Char, 11).0, 67_108_875);
    assert_eq!(id(FieldType::Fml32, 31).0, 335_544_351);
    let f = FieldId(201_326_698);
    assert_eq!((f.field_type(), f.number()), (Some(FieldType::Carray), 106));
    assert_eq!(FieldId::new(FieldType::Long, 0), None, "0 is BADFLDID");
    assert_eq!(FieldId::new(FieldType::Long, 0x200_0000), None);
    assert!(FieldId::new(FieldType::Long, 0x1FF_FFFF).is_some());
}

#[test]
fn field_type_codes_match_the_sheet() {
    // FLD_* type codes of `fml32.h`.
    let expected = [
        ("FLD_SHORT", 0),
        ("FLD_LONG", 1),
        ("FLD_CHAR", 2),
        ("FLD_FLOAT", 3),
        ("FLD_DOUBLE", 4),
        ("FLD_STRING", 5),
        ("FLD_CARRAY", 6),
        ("FLD_INT", 7),
        ("FLD_DECIMAL", 8),
        ("FLD_PTR", 9),
        ("FLD_FML32", 10),
        ("FLD_VIEW32", 11),
        ("FLD_MBSTRING", 12),
        ("FLD_FML", 13),
    ];
    for (name, code) in expected {
        let t = FieldType::from_code(code).unwrap();
        assert_eq!((t.c_name(), t.code()), (name, code));
    }
    assert_eq!(FieldType::from_code(14), None);
}

#[test]
fn ferror32_names_match_the_sheet() {
    // Ferror32 values of `fml32.h` (FNOTFLD 2, FFTSYNTAX 12, FMAXVAL 21).
    assert_eq!(Ferror32(2).name(), Some("FNOTFLD"));
    assert_eq!(Ferror32::FFTSYNTAX.0, 12);
    assert_eq!(Ferror32(21).name(), Some("FMAXVAL"));
    assert_eq!(Ferror32(22).name(), None);
}

/// A buffer with one field of each scalar and byte type, and its bytes written
/// out by hand from mqgate's encoding (docs/tuxedo.md "FML32").
fn sample() -> (Fml32Buffer, Vec<u8>) {
    let mut b = Fml32Buffer::new();
    b.add(
        id(FieldType::String, 235),
        FieldValue::String(b"AB".to_vec()),
    )
    .unwrap();
    b.add(id(FieldType::Short, 100), FieldValue::Short(-2))
        .unwrap();
    b.add(
        id(FieldType::Carray, 106),
        FieldValue::Carray(vec![1, 2, 3, 4, 5]),
    )
    .unwrap();
    b.add(id(FieldType::Long, 21), FieldValue::Long(70_000))
        .unwrap();
    b.add(id(FieldType::Char, 11), FieldValue::Char(b'Z'))
        .unwrap();
    b.add(id(FieldType::Double, 103), FieldValue::Double(1.5))
        .unwrap();
    b.add(id(FieldType::Float, 104), FieldValue::Float(-0.25))
        .unwrap();

    let mut fields = Vec::new();
    let be = |v: i32| v.to_be_bytes();
    // Sorted by field id: LONG 21 (0x2000015), CHAR 11 (0x400000B), SHORT 100,
    // DOUBLE 103 (0x8000067), FLOAT 104 (0x6000068), STRING 235, CARRAY 106.
    let mut push = |fid: FieldId, value: &[u8]| {
        fields.extend_from_slice(&fid.0.to_be_bytes());
        fields.extend_from_slice(value);
    };
    push(id(FieldType::Short, 100), &be(-2)); // short → int32
    push(id(FieldType::Long, 21), &be(70_000)); // long → int32
    push(id(FieldType::Char, 11), &be(i32::from(b'Z'))); // char → int32
    push(
        id(FieldType::Float, 104),
        &(-0.25f32).to_bits().to_be_bytes(),
    );
    push(id(FieldType::Double, 103), &1.5f64.to_bits().to_be_bytes());
    // string: int32 (len+1+8), int32 (len+1), bytes + NUL, pad to 4
    push(
        id(FieldType::String, 235),
        &[&be(11)[..], &be(3), b"AB\0\0"].concat(),
    );
    // carray: int32 (len+8), int32 len, bytes, pad to 4
    push(
        id(FieldType::Carray, 106),
        &[&be(13)[..], &be(5), &[1, 2, 3, 4, 5, 0, 0, 0]].concat(),
    );
    let len = 24 + fields.len() as i32;
    let mut bytes = Vec::new();
    for v in [F_MAGIC32, len, len, 7, 0, 16] {
        bytes.extend_from_slice(&v.to_be_bytes());
    }
    bytes.extend_from_slice(&fields);
    (b, bytes)
}

#[test]
fn encode_writes_the_sheet_layout() {
    let (b, bytes) = sample();
    // Field ids sort by (type << 25 | number): short(0) < long(1) < char(2) < float(3) <
    // double(4) < string(5) < carray(6).
    let order: Vec<FieldType> = b
        .fields()
        .iter()
        .map(|(f, _)| f.field_type().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            FieldType::Short,
            FieldType::Long,
            FieldType::Char,
            FieldType::Float,
            FieldType::Double,
            FieldType::String,
            FieldType::Carray
        ]
    );
    let mut out = Vec::new();
    b.encode(&mut out).unwrap();
    assert_eq!(out, bytes);
    assert_eq!(&out[..4], &[0xFF, 0xFF, 0xD8, 0xF0], "F_MAGIC32 = -10000");
    assert_eq!(b.encoded_len(), bytes.len());
}

#[test]
fn decode_round_trips_byte_for_byte() {
    let (b, bytes) = sample();
    let (d, used) = Fml32Buffer::decode(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(d, b);
    assert_eq!(
        d.get(id(FieldType::String, 235), 0),
        Some(&FieldValue::String(b"AB".to_vec()))
    );
    let mut out = Vec::new();
    d.encode(&mut out).unwrap();
    assert_eq!(out, bytes);
}

#[test]
fn occurrences_keep_their_order() {
    let f = id(FieldType::Long, 21);
    let mut b = Fml32Buffer::new();
    for v in [3, 1, 2] {
        b.add(f, FieldValue::Long(v)).unwrap();
    }
    let got: Vec<_> = b.occurrences(f).cloned().collect();
    assert_eq!(
        got,
        [
            FieldValue::Long(3),
            FieldValue::Long(1),
            FieldValue::Long(2)
        ]
    );
    assert_eq!(b.get(f, 3), None);
}

#[test]
fn embedded_fml32_round_trips() {
    let mut inner = Fml32Buffer::new();
    inner
        .add(
            id(FieldType::String, 208),
            FieldValue::String(b"v".to_vec()),
        )
        .unwrap();
    let mut outer = Fml32Buffer::new();
    outer
        .add(id(FieldType::Fml32, 207), FieldValue::Fml32(inner.clone()))
        .unwrap();
    outer
        .add(
            id(FieldType::Mbstring, 5),
            FieldValue::Mbstring(b"\x01xyz".to_vec()),
        )
        .unwrap();
    outer
        .add(
            id(FieldType::View32, 9),
            FieldValue::View32 {
                name: b"order".to_vec(),
                data: vec![9; 6],
            },
        )
        .unwrap();
    let mut bytes = Vec::new();
    outer.encode(&mut bytes).unwrap();
    assert_eq!(bytes.len(), outer.encoded_len());
    let (d, _) = Fml32Buffer::decode(&bytes).unwrap();
    assert_eq!(d, outer);
}

#[test]
fn stale_index_values_in_the_header_are_ignored_but_kept() {
    // Tuxedo strips the index before a buffer travels (FML reference Funindex32), so an
    // index count/interval left in the header must be ignored; the size that counts is
    // the encoded (index-free) length.
    let (_, mut bytes) = sample();
    bytes[16..20].copy_from_slice(&5i32.to_be_bytes()); // nie
    bytes[20..24].copy_from_slice(&32i32.to_be_bytes()); // indxintvl
    assert_eq!(index_stripped_size(&bytes).unwrap(), bytes.len());
    let (d, _) = Fml32Buffer::decode(&bytes).unwrap();
    let mut out = Vec::new();
    d.encode(&mut out).unwrap();
    assert_eq!(out, bytes);
}

#[test]
fn trailing_bytes_after_len_are_not_read() {
    let (_, mut bytes) = sample();
    let len = bytes.len();
    bytes[8..12].copy_from_slice(&(len as i32 + 100).to_be_bytes()); // maxlen
    bytes.extend_from_slice(&[0xEE; 100]);
    let (_, used) = Fml32Buffer::decode(&bytes).unwrap();
    assert_eq!(used, len);
}

fn kind(bytes: &[u8]) -> (usize, Fml32ErrorKind) {
    let e = Fml32Buffer::decode(bytes).unwrap_err();
    (e.offset, e.kind)
}

#[test]
fn bad_buffers_are_named_with_their_offset() {
    let (_, good) = sample();
    // The 24-byte header (docs/tuxedo.md "FML32") cut at 10 bytes: named at
    // its start, counted from there.
    assert_eq!(
        kind(&good[..10]),
        (
            0,
            Fml32ErrorKind::Truncated {
                needed: 24,
                available: 10
            }
        )
    );
    let mut b = good.clone();
    b[0] = 0;
    assert!(matches!(kind(&b), (0, Fml32ErrorKind::BadMagic(_))));
    // len claims more than the input.
    let mut b = good.clone();
    b[4..8].copy_from_slice(&1_000_000i32.to_be_bytes());
    assert!(matches!(
        kind(&b).1,
        Fml32ErrorKind::Truncated {
            needed: 1_000_000,
            ..
        }
    ));
    // nfields disagrees.
    let mut b = good.clone();
    b[12..16].copy_from_slice(&8i32.to_be_bytes());
    assert!(matches!(kind(&b).1, Fml32ErrorKind::BadHeader(_)));
    // A string length that is negative: offset of the length field, first field at 24.
    let s = good.len() - 16 - 12 - 4; // string record: id at this offset
    let mut b = good.clone();
    b[s + 4..s + 8].copy_from_slice(&(-1i32).to_be_bytes());
    let (off, k) = kind(&b);
    assert_eq!(off, s + 4);
    assert!(
        matches!(k, Fml32ErrorKind::BadValue(ref m) if m.contains("negative")),
        "{k:?}"
    );
    // Fields out of order: swap the first two records (short 100, long 21), 8 bytes each.
    let mut b = good.clone();
    let (first, second) = (good[24..32].to_vec(), good[32..40].to_vec());
    b[24..32].copy_from_slice(&second);
    b[32..40].copy_from_slice(&first);
    assert!(matches!(kind(&b), (32, Fml32ErrorKind::OutOfOrder { .. })));
    let e = Fml32Buffer::decode(&b).unwrap_err();
    assert_eq!(e.ferror(), Ferror32::FBADFLD);
}

#[test]
fn pointer_fields_are_refused() {
    let p = id(FieldType::Ptr, 1);
    let e = Fml32Buffer::new().add(p, FieldValue::Long(0)).unwrap_err();
    assert_eq!(e.kind, Fml32ErrorKind::UnsupportedType(FieldType::Ptr));
    let e = Fml32Buffer::new()
        .add(id(FieldType::Long, 1), FieldValue::Short(1))
        .unwrap_err();
    assert_eq!(e.ferror(), Ferror32::FTYPERR);
}

#[test]
fn long_values_must_fit_the_32_bit_wire_form() {
    let mut b = Fml32Buffer::new();
    b.add(id(FieldType::Long, 1), FieldValue::Long(1 << 40))
        .unwrap();
    let mut out = Vec::new();
    let e = b.encode(&mut out).unwrap_err();
    assert_eq!(e.offset, 24);
    assert!(out.is_empty());
}

#[test]
fn deep_nesting_is_refused() {
    let mut b = Fml32Buffer::new();
    for _ in 0..20 {
        let mut outer = Fml32Buffer::new();
        outer
            .add(id(FieldType::Fml32, 1), FieldValue::Fml32(b))
            .unwrap();
        b = outer;
    }
    let mut bytes = Vec::new();
    b.encode(&mut bytes).unwrap();
    assert_eq!(
        Fml32Buffer::decode(&bytes).unwrap_err().kind,
        Fml32ErrorKind::TooDeep
    );
}

// ---- field tables (Oracle Tuxedo "field_tables(5)") ----

fn shared_fixture(name: &str) -> Option<String> {
    let path = format!(
        "{}/../../shared/fixtures/tuxedo/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(_) => {
            missing(&format!("{path} not found (../shared absent)"));
            None
        }
    }
}

#[test]
fn fuxedo_field_table_check_values() {
    let Some(text) = shared_fixture("fuxedo__tests__fields.fml") else {
        return;
    };
    let t = FieldTable::parse(&text).unwrap();
    // Check values for fuxedo's tests/fields (fuxedo/fuxedo), computed as (type << 25) |
    // (base + number) with mkfldhdr.
    for (name, fldid) in [
        ("FCHAR", 67_108_875),
        ("FLONG", 33_554_453),
        ("FFML32", 335_544_351),
        ("NAME", 167_772_395),
        ("fld_carray", 201_326_698),
    ] {
        assert_eq!(t.by_name(name).map(|f| f.id.0), Some(fldid), "{name}");
    }
    // fuxedo's tests/fields: EMPID 200 under base 30 gives 230.
    assert_eq!(t.by_name("EMPID").unwrap().number, 230);
    // fld_short 0 under *base 100 gives 100.
    assert_eq!(t.by_name("fld_short").unwrap().number, 100);
    assert_eq!(t.by_id(FieldId(201_326_698)).unwrap().name, "fld_carray");
    let flong = t.by_name("FLONG").unwrap();
    assert_eq!(flong.flag.as_deref(), Some("-"));
    assert_eq!(flong.comment.as_deref(), Some("Some comments"));
    // The file has two "$" lines, both empty after the "$".
    assert_eq!(t.header_lines(), ["", ""]);
    assert_eq!(t.fields().len(), 19);
}

/// A predicate on a field table error kind.
type KindCheck = fn(&FieldTableErrorKind) -> bool;

#[test]
fn field_table_errors_name_the_line() {
    let cases: &[(&str, usize, KindCheck)] = &[
        (
            "*base 10\nA 1 char\nB 2 chars\n",
            3,
            |k| matches!(k, FieldTableErrorKind::UnknownType(t) if t == "chars"),
        ),
        ("# c\n*base x\n", 2, |k| {
            matches!(k, FieldTableErrorKind::BadBase(_))
        }),
        ("*bass 10\n", 1, |k| {
            matches!(k, FieldTableErrorKind::UnknownDirective(_))
        }),
        ("A 1\n", 1, |k| {
            matches!(k, FieldTableErrorKind::MissingColumn("type"))
        }),
        ("A\n", 1, |k| {
            matches!(k, FieldTableErrorKind::MissingColumn("number"))
        }),
        ("A -1 long\n", 1, |k| {
            matches!(k, FieldTableErrorKind::BadNumber(_))
        }),
        ("A 0 long\n", 1, |k| {
            matches!(k, FieldTableErrorKind::NumberOutOfRange(0))
        }),
        ("*base 33554431\nA 1 long\n", 2, |k| {
            matches!(k, FieldTableErrorKind::NumberOutOfRange(33_554_432))
        }),
        ("A 1 long\n\nA 2 long\n", 3, |k| {
            matches!(k, FieldTableErrorKind::DuplicateName { first_line: 1, .. })
        }),
        ("A 1 long\nB 1 long\n", 2, |k| {
            matches!(k, FieldTableErrorKind::DuplicateId { first_line: 1, .. })
        }),
        ("1A 1 long\n", 1, |k| {
            matches!(k, FieldTableErrorKind::BadName(_))
        }),
        ("A_NAME_THAT_IS_LONGER_THAN_30_CH 1 long\n", 1, |k| {
            matches!(k, FieldTableErrorKind::BadName(_))
        }),
        ("A 1 int\n", 1, |k| {
            matches!(k, FieldTableErrorKind::UnknownType(_))
        }),
    ];
    for (text, line, check) in cases {
        let e = FieldTable::parse(text).unwrap_err();
        assert_eq!(e.line, *line, "{text:?}: {e}");
        assert!(check(&e.kind), "{text:?}: {e:?}");
        assert!(
            e.to_string()
                .starts_with(&format!("field table line {line}: "))
        );
        assert_eq!(e.ferror(), Ferror32::FFTSYNTAX);
    }
    // Same pair, different ids in different tables is fine; same name with different type too.
    let t = FieldTable::parse("A 1 long\nB 1 short\n").unwrap();
    assert_eq!(t.by_name("B").unwrap().id.0, 1);
}

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool and clones ../shared beside the repository"
    );
    println!("SKIP: {what}");
}

/// A buffer of `fields` (id, value bytes) with a header whose len is the
/// bytes given (docs/tuxedo.md "FML32": six big-endian int32, F_MAGIC32,
/// len, maxlen, nfields, nie, indxintvl).
fn raw_buffer(nfields: i32, body: &[u8]) -> Vec<u8> {
    let len = 24 + body.len() as i32;
    let mut b = Vec::new();
    for v in [F_MAGIC32, len, len, nfields, 0, 16] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    b.extend_from_slice(body);
    b
}

#[test]
fn a_truncated_item_is_named_where_it_starts_inside_the_input() {
    // Found by fuzzing (codecs/fuzz tux_fml32): F_MAGIC32 alone named offset
    // 4 of a 4-byte input. The header is the item cut short: offset 0, 24
    // bytes needed from there, 4 available.
    assert_eq!(
        kind(&F_MAGIC32.to_be_bytes()),
        (
            0,
            Fml32ErrorKind::Truncated {
                needed: 24,
                available: 4
            }
        )
    );
    // A FLD_LONG id as the buffer's last 4 bytes, no value: the field at
    // offset 24 needs 8 bytes (id + int32), 4 are there.
    let long = id(FieldType::Long, 1).0.to_be_bytes();
    let b = raw_buffer(1, &long);
    let e = Fml32Buffer::decode(&b).unwrap_err();
    assert_eq!(
        (e.offset, e.field, e.kind),
        (
            24,
            Some(id(FieldType::Long, 1).0),
            Fml32ErrorKind::Truncated {
                needed: 8,
                available: 4
            }
        )
    );
    assert!(e.offset < b.len());
    // A FLD_CARRAY of 2 bytes whose 2 padding bytes are missing at the end:
    // the field at 24 needs 4 + 8 + 4 = 16 bytes, 14 are there.
    let mut body = id(FieldType::Carray, 2).0.to_be_bytes().to_vec();
    body.extend_from_slice(&10i32.to_be_bytes());
    body.extend_from_slice(&2i32.to_be_bytes());
    body.extend_from_slice(b"ab");
    let b = raw_buffer(1, &body);
    assert_eq!(
        kind(&b),
        (
            24,
            Fml32ErrorKind::Truncated {
                needed: 16,
                available: 14
            }
        )
    );
}

#[test]
fn an_embedded_buffer_shorter_than_its_header_is_a_bad_value() {
    // A FLD_FML32 field whose embedded length is 0 (docs/tuxedo.md "FML32":
    // int32 len+8, int32 len, the buffer): no buffer fits in 0 bytes, so
    // the value at offset 28 (after the id) is bad, FEINVAL; it named the
    // end of the input before.
    let mut body = id(FieldType::Fml32, 3).0.to_be_bytes().to_vec();
    body.extend_from_slice(&8i32.to_be_bytes());
    body.extend_from_slice(&0i32.to_be_bytes());
    let b = raw_buffer(1, &body);
    let e = Fml32Buffer::decode(&b).unwrap_err();
    assert_eq!(e.offset, 28);
    assert!(
        matches!(&e.kind, Fml32ErrorKind::BadValue(m) if m.contains("24-byte header")),
        "{e}"
    );
    assert_eq!(e.ferror(), Ferror32::FEINVAL);
}
