//! The flag mapping table and the error table of BEA Tuxedo "Using the BEA Tuxedo TOP END
//! Domain Gateway" (the RTQ side as mqgate defines it: docs/tuxedo.md). One test per row;
//! expected values are the tables' own.

use mqgate_codecs::tux::buftype::{BufferType, check_buffer_type, check_message_size};
use mqgate_codecs::tux::codes::{Qme, TpError, Tperrno};
use mqgate_codecs::tux::fml32::{FieldId, FieldType, FieldValue, Fml32Buffer};
use mqgate_codecs::tux::rtq::{RelativeTime, RequestId, RtqStatus, ScheduleTime};
use mqgate_codecs::tux::tedg::{TedgFailure, map_flags, map_named_flags, rtq_status_error};
use mqgate_codecs::tux::tpqctl::{TpFlags, TpqFlags, parse_flag_names};

const QMEINVAL: TpError = TpError::diagnostic(Qme::QMEINVAL);

fn rel(s: &str) -> ScheduleTime {
    ScheduleTime::Relative(s.parse().unwrap())
}

// ---- flag mapping table (the TEDG guide's "BEA Tuxedo Client Flag Mapping") ----

#[test]
fn flag_row_tpqtime_abs_passes_an_absolute_unix_time() {
    // TEDG guide: TPQTIME_ABS: deq_time is a UNIX time passed to RTQ as an absolute time.
    let p = map_flags(TpqFlags::TPQTIME_ABS, 1_767_225_600, TpFlags(0)).unwrap();
    assert_eq!(p.schedule, ScheduleTime::Absolute(1_767_225_600));
    // mqgate (docs/tuxedo.md): text form is decimal digits; a past time means now.
    assert_eq!(p.schedule.to_string(), "1767225600");
    assert_eq!(ScheduleTime::Absolute(10).due_at(1000), 1000);
    assert_eq!(ScheduleTime::Absolute(5000).due_at(1000), 5000);
}

#[test]
fn flag_row_tpqtime_rel_maps_to_r_hh_mm() {
    // TEDG guide: TPQTIME_REL → RTQ schedule_time in R:HH:MM format.
    let p = map_flags(TpqFlags::TPQTIME_REL, 5400, TpFlags(0)).unwrap();
    assert_eq!(p.schedule, rel("R:01:30"));
    assert_eq!(p.schedule.to_string(), "R:01:30");
    assert_eq!(p.schedule.due_at(1000), 1000 + 5400);
}

#[test]
fn flag_row_tpnotran_puts_outside_the_caller_transaction() {
    // TEDG guide: TPNOTRAN is preserved: the request is outside the client transaction.
    let p = map_flags(TpqFlags(0), 0, TpFlags::TPNOTRAN).unwrap();
    assert!(!p.in_caller_transaction);
    let p = map_flags(TpqFlags(0), 0, TpFlags(0)).unwrap();
    assert!(
        p.in_caller_transaction,
        "without TPNOTRAN the put joins the caller's transaction"
    );
    assert_eq!(p.schedule, ScheduleTime::Immediate);
}

#[test]
fn flag_row_tpqmsgid_returns_the_request_id() {
    // TEDG guide: TPQMSGID: the RTQ request_id is stored in TPQCTL msgid on success.
    let p = map_flags(TpqFlags::TPQMSGID, 0, TpFlags(0)).unwrap();
    assert!(p.return_request_id);
    assert!(
        !map_flags(TpqFlags(0), 0, TpFlags(0))
            .unwrap()
            .return_request_id
    );
    // mqgate (docs/tuxedo.md): id in msgid bytes 0-15, bytes 16-31 zero, text 32
    // lower-case hex digits.
    let id = RequestId([0xAB; 16]);
    let m = id.to_msgid();
    assert_eq!(&m[..16], &[0xAB; 16]);
    assert_eq!(&m[16..], &[0; 16]);
    assert_eq!(id.to_string(), "ab".repeat(16));
    assert_eq!(RequestId::from_msgid(&m), Some(id));
    assert_eq!(id.to_string().parse::<RequestId>().unwrap(), id);
}

#[test]
fn flag_row_all_others_are_qmeinval_each_named() {
    // TEDG guide: every flag in this list is "not supported" → TPEDIAGNOSTIC/QMEINVAL.
    for name in [
        "TPQTOP",
        "TPQBEFOREMSGID",
        "TPQPRIORITY",
        "TPQREPLYQ",
        "TPQFAILUREQ",
        "TPQCORRID",
        "TPQDELIVERYQOS",
        "TPQREPLYQOS",
        "TPQEXPTIME_ABS",
        "TPQEXPTIME_REL",
        "TPQEXPTIME_NEVER",
    ] {
        let flag = TpqFlags::from_name(name).unwrap();
        let e = map_flags(flag.union(TpqFlags::TPQMSGID), 0, TpFlags(0)).unwrap_err();
        assert_eq!(e.tp_error(), QMEINVAL, "{name}");
        let shown = if name == "TPQEXPTIME_NEVER" {
            "TPQEXPTIME_NONE"
        } else {
            name
        };
        assert!(e.to_string().contains(shown), "{name}: {e}");
    }
    // "All other tpenqueue() option flags" include the dequeue-only ones and unknown bits.
    for flag in [
        TpqFlags::TPQWAIT,
        TpqFlags::TPQPEEK,
        TpqFlags::TPQGETBYMSGID,
        TpqFlags(0x0100_0000),
    ] {
        assert_eq!(
            map_flags(flag, 0, TpFlags(0)).unwrap_err().tp_error(),
            QMEINVAL,
            "{flag:?}"
        );
    }
}

#[test]
fn flag_row_qos_values_are_qmeinval() {
    // TEDG guide: TPQOSDEFAULTPERSIST, TPQOSPERSISTENT, TPQOSNONPERSISTENT are on the
    // unsupported list.
    for name in [
        "TPQOSDEFAULTPERSIST",
        "TPQOSPERSISTENT",
        "TPQOSNONPERSISTENT",
    ] {
        let named = parse_flag_names(["TPQMSGID", name]).unwrap();
        let e = map_named_flags(&named, 0).unwrap_err();
        assert_eq!(e.tp_error(), QMEINVAL, "{name}");
        assert!(e.to_string().contains(name), "{e}");
    }
    let named = parse_flag_names(["TPQTOP", "TPQOSPERSISTENT"]).unwrap();
    let e = map_named_flags(&named, 0).unwrap_err();
    assert_eq!(
        e,
        TedgFailure::UnsupportedFlags {
            names: vec!["TPQTOP", "TPQOSPERSISTENT"],
            unknown_bits: 0
        }
    );
}

#[test]
fn urcode_is_ignored_not_an_error() {
    // TEDG guide: "The urcode field in TPQCTL is also not supported" — there is
    // no flag for it, so it is simply not carried.
    let named = parse_flag_names(["TPQTIME_REL", "TPQMSGID", "TPNOTRAN"]).unwrap();
    let p = map_named_flags(&named, 60).unwrap();
    assert_eq!(p.schedule, rel("R:00:01"));
    assert!(p.return_request_id && !p.in_caller_transaction);
}

#[test]
fn accepted_call_flags_are_carried_others_are_tpeinval() {
    // Oracle Tuxedo "tpenqueue(3c)" accepts TPNOTRAN, TPNOBLOCK, TPNOTIME, TPSIGRSTRT.
    let p = map_flags(TpqFlags(0), 0, TpFlags(0x1 | 0x2 | 0x20)).unwrap();
    assert!(p.no_block && p.sig_restart && p.no_time && p.in_caller_transaction);
    for f in [TpFlags::TPNOREPLY, TpFlags::TPCONV, TpFlags::TPGETANY] {
        let e = map_flags(TpqFlags(0), 0, f).unwrap_err();
        assert_eq!(e.tp_error(), TpError::tperrno(Tperrno::TPEINVAL), "{f:?}");
    }
}

#[test]
fn both_time_flags_are_qmeinval() {
    let e = map_flags(TpqFlags(0x600), 60, TpFlags(0)).unwrap_err();
    assert_eq!(e, TedgFailure::ConflictingTimeFlags);
    assert_eq!(e.tp_error(), QMEINVAL);
}

// ---- R:HH:MM (mqgate, docs/tuxedo.md: minutes = ceil(seconds / 60), max R:24:00) ----

#[test]
fn relative_time_rounds_seconds_up_to_minutes() {
    // docs/tuxedo.md: minutes = ceil(seconds / 60), so delivery is never earlier than
    // asked.
    for (seconds, text) in [
        (0, "R:00:00"),
        (1, "R:00:01"),
        (59, "R:00:01"),
        (60, "R:00:01"),
        (61, "R:00:02"),
        (3599, "R:01:00"),
        (3600, "R:01:00"),
        (86_399, "R:24:00"),
        (86_400, "R:24:00"),
    ] {
        let p = map_flags(TpqFlags::TPQTIME_REL, seconds, TpFlags(0)).unwrap();
        assert_eq!(p.schedule.to_string(), text, "{seconds} s");
        assert_eq!(
            RelativeTime::from_seconds(seconds).unwrap().to_string(),
            text
        );
    }
}

#[test]
fn relative_time_above_86400_is_qmeinval() {
    // TEDG guide's error table: TPQTIME_REL with deq_time > 86400 →
    // TPEDIAGNOSTIC/QMEINVAL.
    let e = map_flags(TpqFlags::TPQTIME_REL, 86_401, TpFlags(0)).unwrap_err();
    assert_eq!(e, TedgFailure::RelativeTimeOutOfRange { deq_time: 86_401 });
    assert_eq!(e.tp_error(), QMEINVAL);
    // mqgate: negative seconds cannot be expressed in R:HH:MM either.
    let e = map_flags(TpqFlags::TPQTIME_REL, -1, TpFlags(0)).unwrap_err();
    assert_eq!(e.tp_error(), QMEINVAL);
    // Under TPQTIME_ABS the same value is just a (past) UNIX time.
    assert!(map_flags(TpqFlags::TPQTIME_ABS, 86_401, TpFlags(0)).is_ok());
}

#[test]
fn relative_time_text_parses_only_r_hh_mm_up_to_24_00() {
    // mqgate (docs/tuxedo.md): HH 00-24, MM 00-59, max R:24:00.
    let t: RelativeTime = "R:23:59".parse().unwrap();
    assert_eq!((t.hours(), t.minutes(), t.seconds()), (23, 59, 86_340));
    for bad in [
        "R:24:01", "R:25:00", "R:00:60", "R:1:00", "r:00:01", "R:00:01 ", "",
    ] {
        assert!(bad.parse::<RelativeTime>().is_err(), "{bad:?}");
    }
    assert_eq!(RelativeTime::MAX.to_string(), "R:24:00");
}

// ---- error table (the TEDG guide's "Error Values Returned to a BEA Tuxedo Client") ----

#[test]
fn error_row_no_qspace_is_tpenoent() {
    let e = TedgFailure::NoQspace {
        qspace: "QS".into(),
    };
    assert_eq!(e.tp_error(), TpError::tperrno(Tperrno::TPENOENT));
}

#[test]
fn error_row_tp_service_is_tpenoent() {
    assert_eq!(
        rtq_status_error(RtqStatus::Service),
        TpError::tperrno(Tperrno::TPENOENT)
    );
    assert_eq!(
        TedgFailure::Rtq(RtqStatus::Service).tp_error().tperrno,
        Tperrno(6)
    );
}

#[test]
fn error_row_on_demand_connection_is_tpenoent() {
    let e = TedgFailure::OnDemandConnection {
        reason: "refused".into(),
    };
    assert_eq!(e.tp_error(), TpError::tperrno(Tperrno::TPENOENT));
}

#[test]
fn error_row_decryption_is_tpesystem() {
    assert_eq!(
        TedgFailure::Decryption.tp_error(),
        TpError::tperrno(Tperrno::TPESYSTEM)
    );
}

#[test]
fn error_row_signature_is_tpesystem() {
    assert_eq!(
        TedgFailure::Signature.tp_error(),
        TpError::tperrno(Tperrno::TPESYSTEM)
    );
}

#[test]
fn error_row_no_qname_is_qmebadqueue() {
    let e = TedgFailure::NoQname { qname: "QN".into() }.tp_error();
    assert_eq!(e, TpError::diagnostic(Qme::QMEBADQUEUE));
    assert_eq!((e.tperrno.0, e.diagnostic.unwrap().0), (24, -10));
}

#[test]
fn error_row_unsupported_flag_is_qmeinval() {
    let e = map_flags(TpqFlags::TPQPRIORITY, 0, TpFlags(0)).unwrap_err();
    assert_eq!(e.tp_error(), QMEINVAL);
}

#[test]
fn error_row_buffer_type_is_qmeinval() {
    // TEDG guide: FML32, CARRAY and X_OCTET are supported.
    assert_eq!(check_buffer_type("FML32", None).unwrap(), BufferType::Fml32);
    assert_eq!(
        check_buffer_type("CARRAY", None).unwrap(),
        BufferType::Carray
    );
    assert_eq!(
        check_buffer_type("X_OCTET", Some("X_OCTET")).unwrap(),
        BufferType::XOctet
    );
    // Not a type the TEDG supports.
    for t in ["STRING", "VIEW32", "XML", "fml32", ""] {
        assert_eq!(
            check_buffer_type(t, None).unwrap_err().tp_error(),
            QMEINVAL,
            "{t:?}"
        );
    }
    // Does not match the QNAME's INBUFTYPE.
    let e = check_buffer_type("CARRAY", Some("FML32")).unwrap_err();
    assert_eq!(e.tp_error(), QMEINVAL);
    assert!(e.to_string().contains("INBUFTYPE is \"FML32\""), "{e}");
}

#[test]
fn error_row_size_over_30000_is_qmeinval() {
    // TEDG guide: RTQ messages are limited to 30,000 bytes.
    assert!(check_message_size(30_000).is_ok());
    let e = check_message_size(30_001).unwrap_err();
    assert_eq!(e, TedgFailure::TooLarge { size: 30_001 });
    assert_eq!(e.tp_error(), QMEINVAL);
}

#[test]
fn error_row_size_counts_fml32_after_index_stripping() {
    // TEDG guide: for FML32 the limit applies after the index is stripped; the encoded
    // form has no index, so its length is what counts.
    let id = FieldId::new(FieldType::Carray, 106).unwrap();
    let mut b = Fml32Buffer::new();
    // 24 header + 4 id + 8 lengths + 29,964 data = 30,000 bytes.
    b.add(id, FieldValue::Carray(vec![1; 29_964])).unwrap();
    assert_eq!(b.encoded_len(), 30_000);
    assert!(check_message_size(b.encoded_len()).is_ok());
    b.add(id, FieldValue::Carray(Vec::new())).unwrap();
    assert_eq!(
        check_message_size(b.encoded_len()).unwrap_err().tp_error(),
        QMEINVAL
    );
}

#[test]
fn error_row_relative_time_over_a_day_is_qmeinval() {
    let e = map_flags(TpqFlags::TPQTIME_REL, 86_401, TpFlags(0)).unwrap_err();
    assert_eq!(e.tp_error(), QMEINVAL);
}

#[test]
fn error_row_rtq_eof_and_no_space_are_qmenospace() {
    for s in [RtqStatus::RtqEof, RtqStatus::RtqNoSpace] {
        assert_eq!(
            rtq_status_error(s),
            TpError::diagnostic(Qme::QMENOSPACE),
            "{s}"
        );
        assert_eq!(TedgFailure::Rtq(s).tp_error().diagnostic, Some(Qme(-13)));
    }
}

#[test]
fn error_row_rtq_error_memerr_qdisabled_are_qmesystem() {
    for s in [
        RtqStatus::RtqError,
        RtqStatus::RtqMemErr,
        RtqStatus::RtqQDisabled,
    ] {
        assert_eq!(
            rtq_status_error(s),
            TpError::diagnostic(Qme::QMESYSTEM),
            "{s}"
        );
    }
}

#[test]
fn error_row_tp_reset_is_qmesystem() {
    assert_eq!(
        rtq_status_error(RtqStatus::Reset),
        TpError::diagnostic(Qme::QMESYSTEM)
    );
    assert_eq!(
        TedgFailure::Rtq(RtqStatus::Reset).tp_error().diagnostic,
        Some(Qme(-6))
    );
}

#[test]
fn rtq_status_names_are_the_sheet_names() {
    // The TOP END codes the TEDG guide's error table names (docs/tuxedo.md).
    let names: Vec<&str> = RtqStatus::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "TP_RTQ_EOF",
            "TP_RTQ_NO_SPACE",
            "TP_RTQ_ERROR",
            "TP_RTQ_MEMERR",
            "TP_RTQ_QDISABLED",
            "TP_SERVICE",
            "TP_RESET"
        ]
    );
    for s in RtqStatus::ALL {
        assert_eq!(RtqStatus::from_name(s.name()), Some(s));
    }
    assert_eq!(RtqStatus::from_name("TP_OK"), None);
}

// ---- the whole request against DMCONFIG (fixtures/tuxedo/tedg_valid.dmconfig) ----

mod plan {
    use super::*;
    use mqgate_codecs::tux::dmconfig::DmConfig;
    use mqgate_codecs::tux::enqueue::{EnqueueRequest, RtqQueue, complete_ctl, plan_enqueue};
    use mqgate_codecs::tux::tpqctl::{Endian, NamedFlags, Tpqctl, TpqctlLayout};

    fn cfg() -> DmConfig {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/tuxedo/tedg_valid.dmconfig"
        );
        DmConfig::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn fml32_bytes() -> Vec<u8> {
        let mut b = Fml32Buffer::new();
        b.add(
            FieldId::new(FieldType::String, 235).unwrap(),
            FieldValue::String(b"Smith".to_vec()),
        )
        .unwrap();
        let mut out = Vec::new();
        b.encode(&mut out).unwrap();
        out
    }

    fn req<'a>(
        qspace: &'a str,
        qname: &'a str,
        flags: &'a NamedFlags,
        buftype: &'a str,
        data: &'a [u8],
    ) -> EnqueueRequest<'a> {
        EnqueueRequest {
            qspace,
            qname,
            flags,
            deq_time: 60,
            buftype,
            data,
        }
    }

    #[test]
    fn accepted_request_becomes_the_rtq_put() {
        let cfg = cfg();
        let flags = parse_flag_names(["TPQTIME_REL", "TPQMSGID"]).unwrap();
        let data = fml32_bytes();
        let put = plan_enqueue(&cfg, &req("ORDERS", "NEWORDER", &flags, "FML32", &data)).unwrap();
        // TEDG guide: queue from the QSPACE entry, service from the QNAME entry.
        assert_eq!(
            put.queue,
            RtqQueue {
                group: "ORDGRP".into(),
                name: "ORDQ".into(),
                target: Some("T1".into())
            }
        );
        assert_eq!(
            (
                put.service.product.as_str(),
                put.service.function.as_str(),
                put.service.qualifier
            ),
            ("ORDERAPP", "NEWORD", 7)
        );
        assert_eq!(put.params.schedule, rel("R:00:01"));
        assert!(put.params.return_request_id && put.params.in_caller_transaction);
        assert_eq!((put.buftype, put.size), (BufferType::Fml32, data.len()));
    }

    #[test]
    fn each_lookup_and_check_gives_its_table_row() {
        let cfg = cfg();
        let none = NamedFlags::default();
        let fml = fml32_bytes();
        let cases: Vec<(EnqueueRequest<'_>, TpError)> = vec![
            // No QSPACE (checked first, even when the QNAME is unknown too).
            (
                req("NOSUCH", "NOSUCH", &none, "CARRAY", b"x"),
                TpError::tperrno(Tperrno::TPENOENT),
            ),
            (
                req("ORDERS", "NOSUCH", &none, "CARRAY", b"x"),
                TpError::diagnostic(Qme::QMEBADQUEUE),
            ),
            // NEWORDER has INBUFTYPE="FML32".
            (req("ORDERS", "NEWORDER", &none, "CARRAY", b"x"), QMEINVAL),
            (req("ORDERS", "INVOICE", &none, "STRING", b"x"), QMEINVAL),
            (
                req("ORDERS", "INVOICE", &none, "X_OCTET", &[0; 30_001]),
                QMEINVAL,
            ),
            (
                req("ORDERS", "NEWORDER", &none, "FML32", &fml[..fml.len() - 1]),
                QMEINVAL,
            ),
        ];
        for (r, want) in cases {
            let e = plan_enqueue(&cfg, &r).unwrap_err();
            assert_eq!(e.tp_error(), want, "{r:?}: {e}");
        }
        let top = parse_flag_names(["TPQTOP"]).unwrap();
        let e = plan_enqueue(&cfg, &req("ORDERS", "INVOICE", &top, "CARRAY", b"x")).unwrap_err();
        assert_eq!(e.tp_error(), QMEINVAL);
        // INVOICE has no INBUFTYPE: any of the three types, up to 30,000 bytes.
        let put = plan_enqueue(
            &cfg,
            &req("BILLING", "INVOICE", &none, "X_OCTET", &[0; 30_000]),
        )
        .unwrap();
        assert_eq!(put.queue.target, None);
        assert_eq!(put.params.schedule, ScheduleTime::Immediate);
    }

    #[test]
    fn outcome_is_written_into_the_tpqctl() {
        let layout = TpqctlLayout::lp64(Endian::Little);
        let mut ctl = Tpqctl::new(&layout);
        let id = RequestId([7; 16]);
        assert_eq!(complete_ctl(&mut ctl, Ok(id), true), None);
        assert_eq!(ctl.msgid, id.to_msgid());
        let mut ctl = Tpqctl::new(&layout);
        assert_eq!(complete_ctl(&mut ctl, Ok(id), false), None);
        assert_eq!(ctl.msgid, [0; 32], "msgid only with TPQMSGID");
        let e = rtq_status_error(RtqStatus::RtqQDisabled);
        assert_eq!(complete_ctl(&mut ctl, Err(e), true), Some(e));
        assert_eq!(ctl.diagnostic, Qme::QMESYSTEM);
    }
}
