//! tperrno, QME and TPQCTL tests. Expected values: Oracle Tuxedo "tperrno(5)" and
//! "tpenqueue(3c)" (names), with the numbers of Tuxedo's `atmi.h` (as in fuxedo
//! `atmidefs.h`); TPQCTL offsets are the C layout gcc gives that structure.

use mqgate_codecs::tux::codes::{Qme, TpError, Tperrno};
use mqgate_codecs::tux::tpqctl::{
    Abi, Endian, TMQNAMELEN_LONG, TpFlags, TpqFlags, TpqQos, Tpqctl, TpqctlError, TpqctlLayout,
    parse_flag_names,
};

#[test]
fn tperrno_values_match_the_sheet() {
    // tperrno(5), values of `atmi.h`, every one.
    let expected: &[(&str, i32)] = &[
        ("TPMINVAL", 0),
        ("TPEABORT", 1),
        ("TPEBADDESC", 2),
        ("TPEBLOCK", 3),
        ("TPEINVAL", 4),
        ("TPELIMIT", 5),
        ("TPENOENT", 6),
        ("TPEOS", 7),
        ("TPEPERM", 8),
        ("TPEPROTO", 9),
        ("TPESVCERR", 10),
        ("TPESVCFAIL", 11),
        ("TPESYSTEM", 12),
        ("TPETIME", 13),
        ("TPETRAN", 14),
        ("TPGOTSIG", 15),
        ("TPERMERR", 16),
        ("TPEITYPE", 17),
        ("TPEOTYPE", 18),
        ("TPERELEASE", 19),
        ("TPEHAZARD", 20),
        ("TPEHEURISTIC", 21),
        ("TPEEVENT", 22),
        ("TPEMATCH", 23),
        ("TPEDIAGNOSTIC", 24),
        ("TPEMIB", 25),
    ];
    assert_eq!(Tperrno::ALL.len(), expected.len());
    for &(name, value) in expected {
        assert_eq!(Tperrno::from_name(name), Some(Tperrno(value)), "{name}");
        assert_eq!(Tperrno(value).name(), Some(name));
    }
    // `atmi.h`: TPMAXVAL 26 in Tuxedo.
    assert_eq!(Tperrno::TPMAXVAL, 26);
}

#[test]
fn unknown_tperrno_survives() {
    // Enduro/X `xatmi.h` TPINITFAIL = 30 is not a Tuxedo value; it is carried as is.
    let t = Tperrno(30);
    assert_eq!(t.name(), None);
    assert_eq!(t.0, 30);
    assert_eq!(t.to_string(), "30");
    assert_eq!(Tperrno::TPEDIAGNOSTIC.to_string(), "TPEDIAGNOSTIC (24)");
}

#[test]
fn qme_values_match_the_sheet() {
    // tpenqueue(3c) diagnostics, values of `atmi.h`, every one.
    let expected: &[(&str, i64)] = &[
        ("QMEINVAL", -1),
        ("QMEBADRMID", -2),
        ("QMENOTOPEN", -3),
        ("QMETRAN", -4),
        ("QMEBADMSGID", -5),
        ("QMESYSTEM", -6),
        ("QMEOS", -7),
        ("QMEABORTED", -8),
        ("QMEPROTO", -9),
        ("QMEBADQUEUE", -10),
        ("QMENOMSG", -11),
        ("QMEINUSE", -12),
        ("QMENOSPACE", -13),
        ("QMERELEASE", -14),
        ("QMEINVHANDLE", -15),
        ("QMESHARE", -16),
    ];
    assert_eq!(Qme::ALL.len(), expected.len());
    for &(name, value) in expected {
        assert_eq!(Qme::from_name(name), Some(Qme(value)), "{name}");
        assert_eq!(Qme(value).name(), Some(name));
    }
    // `atmi.h`: QMEABORTED (= QMENOTA) -8.
    assert_eq!(Qme::from_name_or_alias("QMENOTA"), Some(Qme(-8)));
    assert_eq!(Qme(-99).name(), None);
}

#[test]
fn tp_error_display_names_both_values() {
    let e = TpError::diagnostic(Qme::QMEINVAL);
    assert_eq!(e.tperrno, Tperrno(24));
    assert_eq!(
        e.to_string(),
        "tperrno TPEDIAGNOSTIC (24), diagnostic QMEINVAL (-1)"
    );
    assert_eq!(TpError::tperrno(Tperrno::TPENOENT).diagnostic, None);
}

#[test]
fn tpq_flag_values_match_the_sheet() {
    // TPQ* flags of tpenqueue(3c), values of `atmi.h`, every one.
    let expected: &[(&str, i64)] = &[
        ("TPNOFLAGS", 0x00000),
        ("TPQCORRID", 0x00001),
        ("TPQFAILUREQ", 0x00002),
        ("TPQBEFOREMSGID", 0x00004),
        ("TPQGETBYMSGIDOLD", 0x00008),
        ("TPQMSGID", 0x00010),
        ("TPQPRIORITY", 0x00020),
        ("TPQTOP", 0x00040),
        ("TPQWAIT", 0x00080),
        ("TPQREPLYQ", 0x00100),
        ("TPQTIME_ABS", 0x00200),
        ("TPQTIME_REL", 0x00400),
        ("TPQGETBYCORRIDOLD", 0x00800),
        ("TPQPEEK", 0x01000),
        ("TPQDELIVERYQOS", 0x02000),
        ("TPQREPLYQOS", 0x04000),
        ("TPQEXPTIME_ABS", 0x08000),
        ("TPQEXPTIME_REL", 0x10000),
        ("TPQEXPTIME_NONE", 0x20000),
        ("TPQGETBYMSGID", 0x40008),
        ("TPQGETBYCORRID", 0x80800),
        ("TPQASYNC", 0x100000),
    ];
    assert_eq!(TpqFlags::all_named().count(), expected.len());
    for &(name, value) in expected {
        assert_eq!(TpqFlags::from_name(name), Some(TpqFlags(value)), "{name}");
    }
    assert_eq!(TpqFlags::TPQTIME_REL.0, 0x400);
    assert_eq!(TpqFlags::TPQGETBYMSGID.0, 0x40008);
    // BEA Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway" writes TPQEXPTIME_NEVER
    // for the header's TPQEXPTIME_NONE.
    assert_eq!(
        TpqFlags::from_name("TPQEXPTIME_NEVER"),
        Some(TpqFlags(0x20000))
    );
}

#[test]
fn qos_values_match_the_sheet() {
    // `atmi.h`: TPQQOSDEFAULTPERSIST 0x1, TPQQOSPERSISTENT 0x2,
    // TPQQOSNONPERSISTENT 0x4, also spelt TPQOS* on the TEDG page.
    assert_eq!(TpqQos::from_name("TPQQOSDEFAULTPERSIST"), Some(TpqQos(1)));
    assert_eq!(TpqQos::from_name("TPQOSDEFAULTPERSIST"), Some(TpqQos(1)));
    assert_eq!(TpqQos::from_name("TPQOSPERSISTENT"), Some(TpqQos(2)));
    assert_eq!(TpqQos::from_name("TPQQOSNONPERSISTENT"), Some(TpqQos(4)));
    assert_eq!(TpqQos::from_name("TPQOS"), None);
}

#[test]
fn call_flag_values_match_the_sheet() {
    // tpenqueue(3c) call flags, values of `atmi.h`.
    let expected: &[(&str, i64)] = &[
        ("TPNOBLOCK", 0x1),
        ("TPSIGRSTRT", 0x2),
        ("TPNOREPLY", 0x4),
        ("TPNOTRAN", 0x8),
        ("TPTRAN", 0x10),
        ("TPNOTIME", 0x20),
        ("TPABSOLUTE", 0x40),
        ("TPGETANY", 0x80),
        ("TPNOCHANGE", 0x100),
        ("TPCONV", 0x400),
        ("TPSENDONLY", 0x800),
        ("TPRECVONLY", 0x1000),
        ("TPACK", 0x2000),
    ];
    for &(name, value) in expected {
        assert_eq!(TpFlags::from_name(name), Some(TpFlags(value)), "{name}");
    }
    // tpenqueue(3c) accepts TPNOTRAN, TPNOBLOCK, TPNOTIME, TPSIGRSTRT.
    assert_eq!(TpFlags::TPENQUEUE_ALLOWED.0, 0x8 | 0x1 | 0x20 | 0x2);
}

#[test]
fn flag_names_parse_into_their_kinds() {
    let f = parse_flag_names(["TPQTIME_REL", "TPQMSGID", "TPNOTRAN", "TPQOSPERSISTENT"]).unwrap();
    assert_eq!(f.ctl, TpqFlags(0x400 | 0x10));
    assert_eq!(f.call, TpFlags(0x8));
    assert_eq!(f.qos, vec!["TPQOSPERSISTENT"]);
}

#[test]
fn unknown_flag_names_are_all_named() {
    let e = parse_flag_names(["TPQTIME_REL", "TPQBOGUS", "tpqmsgid"]).unwrap_err();
    assert_eq!(e.0, vec!["TPQBOGUS".to_owned(), "tpqmsgid".to_owned()]);
    assert_eq!(
        e.to_string(),
        "unknown tpenqueue flag name(s): TPQBOGUS, tpqmsgid"
    );
}

#[test]
fn flags_display_by_name() {
    assert_eq!(TpqFlags(0x410).to_string(), "TPQMSGID|TPQTIME_REL");
    assert_eq!(TpqFlags(0).to_string(), "TPNOFLAGS");
    assert_eq!(
        TpqFlags(0x400 | 0x800_0000).to_string(),
        "TPQTIME_REL|0x8000000"
    );
}

fn offsets_of(layout: TpqctlLayout) -> [usize; 15] {
    let o = layout.offsets();
    [
        o.flags,
        o.deq_time,
        o.priority,
        o.diagnostic,
        o.msgid,
        o.corrid,
        o.replyqueue,
        o.failurequeue,
        o.cltid,
        o.urcode,
        o.appkey,
        o.delivery_qos,
        o.reply_qos,
        o.exp_time,
        o.size,
    ]
}

#[test]
fn lp64_offsets_match_the_sheet() {
    // The TPQCTL of tpenqueue(3c) as gcc lays it out on LP64 (size 200).
    assert_eq!(
        offsets_of(TpqctlLayout::lp64(Endian::Little)),
        [
            0, 8, 16, 24, 32, 64, 96, 112, 128, 160, 168, 176, 184, 192, 200
        ]
    );
}

#[test]
fn ilp32_offsets_match_the_sheet() {
    // The TPQCTL of tpenqueue(3c) as gcc lays it out on ILP32 (size 148).
    assert_eq!(
        offsets_of(TpqctlLayout::ilp32(Endian::Big)),
        [
            0, 4, 8, 12, 16, 48, 80, 96, 112, 128, 132, 136, 140, 144, 148
        ]
    );
}

#[test]
fn long_queue_names_shift_the_tail() {
    // fuxedo `atmidefs.h`: TMQNAMELEN 127 → 128-byte arrays; the C rules give
    // replyqueue 96, failurequeue 224, cltid 352, size 352 + 4*8 + 5*8 = 424.
    let l = TpqctlLayout {
        abi: Abi::Lp64,
        endian: Endian::Little,
        qname_len: TMQNAMELEN_LONG,
    };
    let o = l.offsets();
    assert_eq!(
        (o.replyqueue, o.failurequeue, o.cltid, o.size),
        (96, 224, 352, 424)
    );
}

#[test]
fn decode_lp64_big_endian_reads_members_at_their_offsets() {
    // Offsets: the LP64 TPQCTL layout (gcc).
    let layout = TpqctlLayout::lp64(Endian::Big);
    let mut b = vec![0u8; 200];
    b[0..8].copy_from_slice(&0x410i64.to_be_bytes()); // flags
    b[8..16].copy_from_slice(&60i64.to_be_bytes()); // deq_time
    b[24..32].copy_from_slice(&(-13i64).to_be_bytes()); // diagnostic
    b[32] = 0xAB; // msgid[0]
    b[96..99].copy_from_slice(b"RPQ"); // replyqueue
    b[120] = b'X'; // failurequeue[8], after a NUL
    b[136..144].copy_from_slice(&7i64.to_be_bytes()); // cltid[1]
    b[192..200].copy_from_slice(&(-1i64).to_be_bytes()); // exp_time
    let c = Tpqctl::decode(&b, &layout).unwrap();
    assert_eq!(c.flags, TpqFlags(0x410));
    assert_eq!(c.deq_time, 60);
    assert_eq!(c.diagnostic, Qme::QMENOSPACE);
    assert_eq!(c.msgid[0], 0xAB);
    assert_eq!(c.replyqueue_name(), b"RPQ");
    assert_eq!(c.failurequeue_name(), b"");
    assert_eq!(c.cltid, [0, 7, 0, 0]);
    assert_eq!(c.exp_time, -1);
    let mut out = Vec::new();
    c.encode(&layout, &mut out).unwrap();
    assert_eq!(out, b, "byte fidelity, including bytes after a NUL");
}

#[test]
fn decode_ilp32_little_endian_sign_extends() {
    // Offsets: the ILP32 TPQCTL layout (gcc; deq_time 4, urcode 128).
    let layout = TpqctlLayout::ilp32(Endian::Little);
    let mut b = vec![0u8; 148];
    b[4..8].copy_from_slice(&(-5i32).to_le_bytes());
    b[128..132].copy_from_slice(&99i32.to_le_bytes());
    let c = Tpqctl::decode(&b, &layout).unwrap();
    assert_eq!(c.deq_time, -5);
    assert_eq!(c.urcode, 99);
}

#[test]
fn short_input_is_refused_before_reading() {
    let e = Tpqctl::decode(&[0u8; 199], &TpqctlLayout::lp64(Endian::Little)).unwrap_err();
    assert_eq!(
        e,
        TpqctlError::TooShort {
            needed: 200,
            got: 199
        }
    );
    assert_eq!(e.tp_error().tperrno, Tperrno::TPEINVAL);
}

#[test]
fn ilp32_encode_refuses_values_wider_than_32_bits() {
    let layout = TpqctlLayout::ilp32(Endian::Big);
    let mut c = Tpqctl::new(&layout);
    c.deq_time = 1 << 40;
    let mut out = Vec::new();
    let e = c.encode(&layout, &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            TpqctlError::Member {
                member: "deq_time",
                offset: 4,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(out.is_empty());
}

#[test]
fn encode_refuses_arrays_of_the_wrong_layout() {
    let c = Tpqctl::new(&TpqctlLayout::lp64(Endian::Big));
    let long = TpqctlLayout {
        qname_len: TMQNAMELEN_LONG,
        ..TpqctlLayout::lp64(Endian::Big)
    };
    let e = c.encode(&long, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(
            e,
            TpqctlError::Member {
                member: "replyqueue",
                offset: 96,
                ..
            }
        ),
        "{e:?}"
    );
}
