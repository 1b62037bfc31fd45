//! Packets captured from real clients (mosquitto_sub and mosquitto_pub
//! 2.0.11 against a recording stub), decoded field by field and written back
//! byte for byte; bad input with the reason code each fault gets.

use super::*;
use bytes::Bytes;

fn hex(s: &str) -> Bytes {
    Bytes::from(hex::decode(s).unwrap())
}

/// Decodes `h` at `level` (None: the first packet), checks that
/// `frame_len` finds its end and that it writes back byte for byte.
fn round_trip(h: &str, level: Option<Level>) -> Packet {
    let b = hex(h);
    assert_eq!(frame_len(&b, 1 << 20), Ok(Some(b.len())));
    assert_eq!(frame_len(&b[..b.len() - 1], 1 << 20), Ok(None));
    let p = decode(b.clone(), level).unwrap();
    let at = match &p {
        Packet::Connect(c) => c.level,
        _ => level.unwrap(),
    };
    let mut out = Vec::new();
    encode(&p, at, &mut out);
    assert_eq!(hex::encode(&out), h);
    assert_eq!(encoded_len(&p, at), out.len());
    p
}

#[test]
fn mosquitto_sub_3_1_1_persistent_session() {
    // mosquitto_sub -V mqttv311 -i DEV0001 -t INBOX -q 1 -c -k 60
    let Packet::Connect(c) = round_trip("101300044d5154540400003c000744455630303031", None) else {
        panic!()
    };
    assert_eq!(c.level, Level::V311);
    assert!(!c.clean_start, "-c asks for a persistent session");
    assert_eq!(c.keep_alive, 60);
    assert_eq!(c.client_id, "DEV0001");
    assert_eq!((c.will, c.user_name, c.password), (None, None, None));
    let Packet::Subscribe(s) = round_trip("820a00010005494e424f5801", Some(Level::V311)) else {
        panic!()
    };
    assert_eq!(s.packet_id, 1);
    assert_eq!(
        s.filters,
        vec![(
            "INBOX".to_string(),
            SubscriptionOptions::qos(QoS::AtLeastOnce)
        )]
    );
    assert_eq!(
        round_trip("e000", Some(Level::V311)),
        Packet::Disconnect(Disconnect::new(ReasonCode::SUCCESS, Properties::new()))
    );
}

#[test]
fn mosquitto_sub_5_0_with_session_expiry() {
    // mosquitto_sub -V mqttv5 -i DEV0001 -t INBOX -q 1 -c -x 3600 -C 1
    let Packet::Connect(c) = round_trip(
        "101c00044d5154540500003c081100000e10210001000744455630303031",
        None,
    ) else {
        panic!()
    };
    assert_eq!(c.level, Level::V5);
    assert!(!c.clean_start);
    assert_eq!(
        c.properties.0,
        vec![
            Property::SessionExpiryInterval(3600),
            Property::ReceiveMaximum(1)
        ]
    );
    let Packet::Subscribe(s) = round_trip("820b0001000005494e424f5801", Some(Level::V5)) else {
        panic!()
    };
    assert!(s.properties.is_empty());
    assert_eq!(s.filters[0].1.qos, QoS::AtLeastOnce);
    // Its DISCONNECT on -W's timeout: 0x04 Disconnect with Will Message.
    let Packet::Disconnect(d) = round_trip("e00104", Some(Level::V5)) else {
        panic!()
    };
    assert_eq!(d.reason_code(), ReasonCode::DISCONNECT_WITH_WILL);
}

#[test]
fn mosquitto_pub_5_0_publish_with_properties() {
    // mosquitto_pub -V mqttv5 -i DEV0001 -t APP.IN@MQGATE -q 1 -m hello
    //   -D publish user-property Priority 5 -D publish correlation-data abc
    //   -D publish response-topic REPLY@DEV0001 -D publish content-type MQSTR
    //   -D publish message-expiry-interval 60
    let Packet::Connect(c) = round_trip("101700044d5154540502003c03210014000744455630303031", None)
    else {
        panic!()
    };
    assert!(c.clean_start);
    assert_eq!(c.properties.0, vec![Property::ReceiveMaximum(20)]);
    let Packet::Publish(p) = round_trip(
        "3248000d4150502e494e404d51474154450001312600085072696f7269747900013509000361626308000d5245504c5940444556303030310300054d51535452020000003c68656c6c6f",
        Some(Level::V5),
    ) else {
        panic!()
    };
    assert_eq!((p.qos, p.dup, p.retain), (QoS::AtLeastOnce, false, false));
    assert_eq!(p.topic, "APP.IN@MQGATE");
    assert_eq!(p.packet_id, Some(1));
    assert_eq!(&p.payload[..], b"hello");
    assert_eq!(
        p.properties.0,
        vec![
            Property::UserProperty("Priority".into(), "5".into()),
            Property::CorrelationData(Bytes::from_static(b"abc")),
            Property::ResponseTopic("REPLY@DEV0001".into()),
            Property::ContentType("MQSTR".into()),
            Property::MessageExpiryInterval(60),
        ]
    );
}

#[test]
fn mosquitto_pub_3_1_1_will_user_and_password() {
    // mosquitto_pub -V mqttv311 -i DEV0002 -u dev -P secret --will-topic WILLS
    //   --will-payload gone --will-qos 1 -t APP.IN -q 0 -m hi
    let Packet::Connect(c) = round_trip(
        "102d00044d51545404ce003c000744455630303032000557494c4c530004676f6e6500036465760006736563726574",
        None,
    ) else {
        panic!()
    };
    assert!(c.clean_start);
    let w = c.will.unwrap();
    assert_eq!(
        (w.topic.as_str(), &w.payload[..], w.qos, w.retain),
        ("WILLS", &b"gone"[..], QoS::AtLeastOnce, false)
    );
    assert_eq!(c.user_name.as_deref(), Some("dev"));
    assert_eq!(c.password.as_deref(), Some(&b"secret"[..]));
    let Packet::Publish(p) = round_trip("300a00064150502e494e6869", Some(Level::V311)) else {
        panic!()
    };
    assert_eq!(
        (p.qos, p.packet_id, &p.payload[..]),
        (QoS::AtMostOnce, None, &b"hi"[..])
    );
}

#[test]
fn server_packets_in_both_levels() {
    // CONNACK: 3.1.1 3.2 (2 bytes), 5.0 3.2 with properties.
    let mut props = Properties::new();
    props.push(Property::MaximumQos(1));
    props.push(Property::RetainAvailable(0));
    let ack = Packet::Connack(Connack {
        session_present: true,
        code: ReasonCode::SUCCESS,
        properties: props,
    });
    let mut out = Vec::new();
    encode(&ack, Level::V311, &mut out);
    assert_eq!(hex::encode(&out), "20020100");
    out.clear();
    encode(&ack, Level::V5, &mut out);
    assert_eq!(hex::encode(&out), "2007010004240125 00".replace(' ', ""));
    assert_eq!(decode(Bytes::from(out), Some(Level::V5)).unwrap(), ack);
    // A refused 3.1.1 CONNECT: return code 0x02 identifier rejected.
    let refuse = Packet::Connack(Connack {
        session_present: false,
        code: ReasonCode(ReasonCode::CLIENT_IDENTIFIER_NOT_VALID.connack_v3()),
        properties: Properties::new(),
    });
    let mut out = Vec::new();
    encode(&refuse, Level::V311, &mut out);
    assert_eq!(out, [0x20, 0x02, 0x00, 0x02]);
    // SUBACK with a 5.0 failure code is 0x80 in 3.1.1 (3.9.3).
    let sub = Packet::Suback(Suback {
        packet_id: 7,
        properties: Properties::new(),
        codes: vec![ReasonCode::GRANTED_QOS_1, ReasonCode::NOT_AUTHORIZED],
    });
    let mut out = Vec::new();
    encode(&sub, Level::V311, &mut out);
    assert_eq!(out, [0x90, 0x04, 0x00, 0x07, 0x01, 0x80]);
    out.clear();
    encode(&sub, Level::V5, &mut out);
    assert_eq!(out, [0x90, 0x05, 0x00, 0x07, 0x00, 0x01, 0x87]);
    // 3.1.1 UNSUBACK has no payload (3.11.3).
    let unsub = Packet::Unsuback(Suback {
        packet_id: 2,
        properties: Properties::new(),
        codes: vec![ReasonCode::SUCCESS],
    });
    out.clear();
    encode(&unsub, Level::V311, &mut out);
    assert_eq!(out, [0xB0, 0x02, 0x00, 0x02]);
    // A redelivered QoS 1 PUBLISH: DUP (bit 3) and QoS 1 (bits 2-1): 0x3A.
    let p = Packet::Publish(Publish {
        dup: true,
        qos: QoS::AtLeastOnce,
        retain: false,
        topic: "INBOX".into(),
        packet_id: Some(1),
        properties: Properties::new(),
        payload: Bytes::from_static(b"x"),
    });
    out.clear();
    encode(&p, Level::V311, &mut out);
    assert_eq!(
        hex::encode(&out),
        "3a0a0005494e424f580001 78".replace(' ', "")
    );
    // PUBACK 0x00 with no properties is 2 bytes in 5.0 too (3.4.2.1).
    out.clear();
    encode(
        &Packet::Puback(Ack::new(1, ReasonCode::SUCCESS, Properties::new())),
        Level::V5,
        &mut out,
    );
    assert_eq!(out, [0x40, 0x02, 0x00, 0x01]);
    out.clear();
    encode(
        &Packet::Puback(Ack::new(1, ReasonCode::QUOTA_EXCEEDED, Properties::new())),
        Level::V5,
        &mut out,
    );
    assert_eq!(out, [0x40, 0x03, 0x00, 0x01, 0x97]);
    out.clear();
    encode(
        &Packet::Disconnect(Disconnect::new(
            ReasonCode::SERVER_SHUTTING_DOWN,
            Properties::new(),
        )),
        Level::V5,
        &mut out,
    );
    assert_eq!(out, [0xE0, 0x01, 0x8B]);
}

fn err(h: &str, level: Option<Level>) -> MqttError {
    decode(hex(h), level).unwrap_err()
}

#[test]
fn bad_packets_get_the_reason_codes_the_specification_gives() {
    let v5 = Some(Level::V5);
    let v3 = Some(Level::V311);
    // Protocol level 3 ("MQIsdp", MQTT 3.1): 0x84 / 3.1.1 return code 0x01.
    let e = err("100f00064d514973647003020000000141", None);
    assert_eq!(e.reason_code(), ReasonCode::UNSUPPORTED_PROTOCOL_VERSION);
    assert_eq!(e.reason_code().connack_v3(), 1);
    // Level 6 of "MQTT".
    let e = err("100d00044d51545406020000000141", None);
    assert_eq!(
        e.kind,
        ErrorKind::UnsupportedProtocol {
            name: "MQTT".into(),
            level: 6
        }
    );
    // CONNECT reserved flag (bit 0): Malformed [MQTT-3.1.2-3], at offset 9.
    let e = err("100d00044d51545405030000000141", None);
    assert_eq!(
        (e.offset, e.reason_code()),
        (9, ReasonCode::MALFORMED_PACKET)
    );
    // A PUBLISH before CONNECT, and a second CONNECT.
    assert_eq!(err("3003000141", None).kind, ErrorKind::NotConnect);
    assert_eq!(
        err("101300044d5154540400003c000744455630303031", v3).reason_code(),
        ReasonCode::PROTOCOL_ERROR
    );
    // PUBLISH QoS 3 (flags 0x6): Malformed [MQTT-3.3.1-4].
    assert_eq!(err("36050001410001", v5).kind, ErrorKind::InvalidQos(3));
    // DUP on QoS 0.
    assert_eq!(
        err("38030001 41".replace(' ', "").as_str(), v3).kind,
        ErrorKind::DupWithQos0
    );
    // Packet Identifier 0.
    assert_eq!(
        err("32050001410000", v3).reason_code(),
        ReasonCode::PROTOCOL_ERROR
    );
    // SUBSCRIBE with flags 0 instead of 2: Malformed [MQTT-3.8.1-1].
    assert_eq!(
        err("800a00010005494e424f5801", v3).kind,
        ErrorKind::Flags {
            got: 0,
            expected: 2
        }
    );
    // SUBSCRIBE with no filter.
    assert_eq!(err("8203000100", v5).kind, ErrorKind::NoTopicFilter);
    // A 3.1.1 SUBACK return code 0x81 (reserved, 3.1.1 3.9.3
    // [MQTT-3.9.3-2]): refused where it stands, not read as 0x80 Failure
    // (a packet read is written back byte for byte). The same byte in a
    // 5.0 SUBACK is a reason code (0x81 Malformed Packet).
    let e = err("900400010081", v3);
    assert_eq!(
        (e.offset, e.reason_code(), e.kind),
        (
            5,
            ReasonCode::MALFORMED_PACKET,
            ErrorKind::ReservedReturnCode { code: 0x81 }
        )
    );
    round_trip("90050001000081", v5);
    // 3.1.1 SUBSCRIBE options byte with reserved bits (0x05).
    assert_eq!(
        err("820a00010005494e424f5805", v3).kind,
        ErrorKind::SubscriptionOptions { byte: 5 }
    );
    // 5.0 Retain Handling 3 (0x31): Protocol Error.
    assert_eq!(
        err("820b0001000005494e424f5831", v5).reason_code(),
        ReasonCode::PROTOCOL_ERROR
    );
    // A topic that is not UTF-8, and one with U+0000.
    assert_eq!(err("30050002ff4178", v3).kind, ErrorKind::InvalidUtf8);
    assert_eq!(err("300400024100", v3).kind, ErrorKind::NullCharacter);
    // A string running past the packet.
    let e = err("300400054142", v3);
    assert_eq!(
        (e.offset, e.kind),
        (
            2,
            ErrorKind::Truncated {
                needed: 5,
                available: 2
            }
        )
    );
    // PINGREQ with a body; AUTH in 3.1.1; packet type 0.
    assert_eq!(
        err("c00100", v3).kind,
        ErrorKind::TrailingBytes { count: 1 }
    );
    assert_eq!(err("f000", v3).kind, ErrorKind::ReservedPacketType);
    assert_eq!(err("0000", v5).kind, ErrorKind::ReservedPacketType);
    // Properties: Session Expiry twice (Protocol Error, 3.1.2.11.2), a
    // PUBLISH-only property in CONNECT (Malformed, 2.2.2.2), an unknown
    // identifier, Receive Maximum 0 (Protocol Error, 3.1.2.11.3).
    let connect = |props: &str| {
        let body = format!("00044d5154540502003c{:02x}{props}00014b", props.len() / 2);
        format!("10{:02x}{body}", body.len() / 2)
    };
    assert_eq!(
        err(&connect("11000000011100000002"), None).kind,
        ErrorKind::DuplicateProperty { id: 0x11 }
    );
    assert_eq!(
        err(&connect("0101"), None).kind,
        ErrorKind::PropertyNotAllowed { id: 0x01 }
    );
    assert_eq!(
        err(&connect("0501"), None).kind,
        ErrorKind::UnknownProperty { id: 0x05 }
    );
    assert_eq!(
        err(&connect("210000"), None).reason_code(),
        ReasonCode::PROTOCOL_ERROR
    );
    // User Properties may repeat.
    assert!(decode(hex(&connect("2600016100016226000161000163")), None).is_ok());
    // 3.1.1 password without user name [MQTT-3.1.2-22].
    assert_eq!(
        err("101000044d51545404420000000141000178", None).kind,
        ErrorKind::PasswordWithoutUserName
    );
    // Will QoS without the Will Flag.
    assert_eq!(
        err("100d00044d51545404080000000141", None).kind,
        ErrorKind::WillFlags { flags: 0x08 }
    );
}

#[test]
fn frame_len_refuses_oversize_packets_from_the_fixed_header() {
    // A PUBLISH announcing 2,097,152 bytes: refused with 0x95 before any
    // of its body is there.
    let e = frame_len(&[0x30, 0x80, 0x80, 0x80, 0x01], 65_536).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::TooLarge {
            size: 2_097_157,
            max: 65_536
        }
    );
    assert_eq!(e.reason_code(), ReasonCode::PACKET_TOO_LARGE);
    // Five length bytes: Malformed (1.5.5).
    let e = frame_len(&[0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], 1 << 30).unwrap_err();
    assert_eq!((e.offset, e.kind), (1, ErrorKind::VarintTooLong));
    assert_eq!(frame_len(&[0x30], 10), Ok(None));
    assert_eq!(frame_len(&[], 10), Ok(None));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn publish() -> impl Strategy<Value = Publish> {
        (
            "[A-Z./]{1,20}",
            any::<bool>(),
            0u8..3,
            1u16..,
            proptest::collection::vec(any::<u8>(), 0..300),
            proptest::collection::vec(("[a-zA-Z]{0,8}", "[ -~]{0,12}"), 0..4),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..24)),
        )
            .prop_map(|(topic, retain, q, id, payload, user, correl)| {
                let qos = QoS::from_bits(q).unwrap();
                let mut properties = Properties::new();
                for (k, v) in user {
                    properties.push(Property::UserProperty(k, v));
                }
                if let Some(c) = correl {
                    properties.push(Property::CorrelationData(Bytes::from(c)));
                }
                Publish {
                    dup: qos != QoS::AtMostOnce && retain,
                    qos,
                    retain,
                    topic,
                    packet_id: (qos != QoS::AtMostOnce).then_some(id),
                    properties,
                    payload: Bytes::from(payload),
                }
            })
    }

    proptest! {
        #[test]
        fn publish_round_trips(p in publish()) {
            for level in [Level::V311, Level::V5] {
                let mut p = p.clone();
                if level == Level::V311 {
                    p.properties = Properties::new();
                }
                let packet = Packet::Publish(p);
                let mut out = Vec::new();
                encode(&packet, level, &mut out);
                prop_assert_eq!(frame_len(&out, usize::MAX).unwrap(), Some(out.len()));
                prop_assert_eq!(encoded_len(&packet, level), out.len());
                prop_assert_eq!(decode(Bytes::from(out), Some(level)).unwrap(), packet);
            }
        }

        #[test]
        fn no_input_panics(b in proptest::collection::vec(any::<u8>(), 0..64), v5 in any::<bool>(), first in any::<bool>()) {
            let level = if first { None } else if v5 { Some(Level::V5) } else { Some(Level::V311) };
            let _ = frame_len(&b, 1 << 20);
            if let Ok(p) = decode(Bytes::from(b.clone()), level) {
                let at = match &p { Packet::Connect(c) => c.level, _ => level.unwrap() };
                let mut out = Vec::new();
                encode(&p, at, &mut out);
                prop_assert_eq!(out, b);
            }
        }
    }
}
