//! The MQMD as MQTT 5.0 properties (docs/mqtt.md "Message descriptor"):
//! what a device receives with a message, and what a device's PUBLISH
//! sets in the MQMD of the message it puts. The payload is the message
//! data byte for byte either way.
//!
//! To the device: Payload Format Indicator 1 for Format MQSTR data in
//! CodedCharSetId 1208 that is UTF-8 (5.0 3.3.2.3.2), Message Expiry
//! Interval from the Expiry left (3.3.2.3.3), Content Type the Format
//! (3.3.2.3.9), Response Topic `ReplyToQ@ReplyToQMgr` (3.3.2.3.5),
//! Correlation Data the CorrelId (3.3.2.3.6), and one User Property per
//! MQMD field by its MQ name (3.3.2.3.7) as `mqgate get --json` shows it.
//! MQTT 3.1.1 has no properties: the device gets the data only.

use crate::mqi::Outgoing;
use crate::mqjson::{FieldValue, md_fields};
use bytes::Bytes;
use mqgate_codecs::mq::constants::md::EI_UNLIMITED;
use mqgate_codecs::mq::constants::{ccsi, len, mt, per};
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use mqgate_codecs::mqtt::{Properties, Property, QoS};

/// CodedCharSetId of UTF-8 (IBM MQ "CodedCharSetId (MQLONG)": 1208).
const UTF8: i32 = 1208;

/// The PUBLISH properties that carry `md` (character fields in `charset`)
/// and describe `data`.
pub fn properties(md: &Mqmd, charset: Charset, data: &[u8]) -> Properties {
    let mut p = Properties::new();
    let format = md.format.text(charset);
    let format = format.trim_end();
    if format == "MQSTR" && md.coded_char_set_id == UTF8 && std::str::from_utf8(data).is_ok() {
        p.push(Property::PayloadFormatIndicator(1));
    }
    if md.expiry > 0 {
        // Tenths of a second left, rounded up to whole seconds.
        p.push(Property::MessageExpiryInterval(
            (md.expiry as u32).div_ceil(10),
        ));
    }
    if !format.is_empty() {
        p.push(Property::ContentType(format.to_string()));
    }
    let reply_q = md.reply_to_q.text(charset);
    let reply_q = reply_q.trim_end();
    if !reply_q.is_empty() {
        let reply_q_mgr = md.reply_to_q_mgr.text(charset);
        let reply_q_mgr = reply_q_mgr.trim_end();
        p.push(Property::ResponseTopic(if reply_q_mgr.is_empty() {
            reply_q.to_string()
        } else {
            format!("{reply_q}@{reply_q_mgr}")
        }));
    }
    if md.correl_id != ID_NONE {
        p.push(Property::CorrelationData(Bytes::copy_from_slice(
            &md.correl_id,
        )));
    }
    for (name, value) in md_fields(md, charset) {
        if name == "StrucId" {
            continue;
        }
        let text = match value {
            FieldValue::Int(v) => v.to_string(),
            FieldValue::Bytes(b) => hex::encode_upper(b),
            FieldValue::Char(s) => s.trim_end_matches(' ').to_string(),
            FieldValue::Struct(_) => continue,
        };
        p.push(Property::UserProperty(name.to_string(), text));
    }
    p
}

/// Why a device's PUBLISH cannot become an MQMD: the property and what is
/// wrong with it (PUBACK 0x83 Implementation specific error with this as
/// its Reason String; docs/mqtt.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MdError(pub String);

/// The message a device's PUBLISH puts: QoS 1 and 2 persistent, QoS 0 not
/// (docs/mqtt.md "Publishing into MQ"); Format MQSTR and CodedCharSetId
/// 1208 for a Payload Format Indicator 1; Content Type (up to 8
/// characters; a longer one, a MIME type, is not kept) the Format; Message Expiry Interval the Expiry; Response
/// Topic `QUEUE[@QMGR]` the ReplyToQ and ReplyToQMgr, with MsgType
/// MQMT_REQUEST; Correlation Data (up to 24 bytes) the CorrelId; and the
/// User Properties named like MQMD fields (`MsgId`, `CorrelId`,
/// `Format`, `CodedCharSetId`, `Encoding`, `Priority`, `MsgType`,
/// `Expiry`, `Report`, `Feedback`, `ReplyToQ`, `ReplyToQMgr`,
/// `ApplIdentityData`) set them; other User Properties are not kept.
/// UserIdentifier is the device (its first 12 characters).
pub fn outgoing(
    qos: QoS,
    props: &Properties,
    payload: Bytes,
    device: &str,
) -> Result<Outgoing, MdError> {
    let cs = Charset::Ascii;
    let mut md = Mqmd {
        persistence: if qos == QoS::AtMostOnce {
            per::NOT_PERSISTENT
        } else {
            per::PERSISTENT
        },
        coded_char_set_id: ccsi::Q_MGR,
        ..Mqmd::default()
    };
    let user: String = device.chars().take(len::USER_ID).collect();
    md.user_identifier = char_field(&user, "UserIdentifier")?;
    for p in props.iter() {
        match p {
            Property::PayloadFormatIndicator(1) => {
                md.format = char_field("MQSTR", "Payload Format Indicator")?;
                md.coded_char_set_id = UTF8;
            }
            // A longer Content Type (a MIME type) names no MQ Format.
            Property::ContentType(t) if t.len() <= len::FORMAT => {
                md.format = char_field(t, "Content Type (the Format)")?
            }
            Property::MessageExpiryInterval(s) => {
                md.expiry = i32::try_from(u64::from(*s) * 10).unwrap_or(i32::MAX).max(1);
            }
            Property::ResponseTopic(t) => {
                let (q, m) = t.split_once('@').unwrap_or((t.as_str(), ""));
                md.reply_to_q = char_field(q, "Response Topic (the ReplyToQ)")?;
                md.reply_to_q_mgr = char_field(m, "Response Topic (the ReplyToQMgr)")?;
                md.msg_type = mt::REQUEST;
            }
            Property::CorrelationData(c) => {
                if c.len() > len::CORREL_ID {
                    return Err(MdError(format!(
                        "Correlation Data of {} bytes is longer than a CorrelId (24 bytes)",
                        c.len()
                    )));
                }
                md.correl_id = ID_NONE;
                md.correl_id[..c.len()].copy_from_slice(c);
            }
            Property::UserProperty(k, v) => user_property(&mut md, k, v)?,
            _ => {}
        }
    }
    if md.expiry == 0 {
        md.expiry = EI_UNLIMITED;
    }
    Ok(Outgoing {
        md,
        charset: cs,
        data: payload,
    })
}

fn char_field<const N: usize>(text: &str, what: &str) -> Result<CharField<N>, MdError> {
    CharField::new(text, Charset::Ascii)
        .map_err(|e| MdError(format!("{what} {text:?} does not fit: {e}")))
}

fn int(k: &str, v: &str) -> Result<i32, MdError> {
    v.trim()
        .parse()
        .map_err(|_| MdError(format!("User Property {k} {v:?} is not an MQLONG")))
}

fn id(k: &str, v: &str) -> Result<[u8; 24], MdError> {
    let b = hex::decode(v.trim())
        .ok()
        .filter(|b| b.len() == len::MSG_ID)
        .ok_or_else(|| MdError(format!("User Property {k} {v:?} is not 48 hex digits")))?;
    let mut out = [0u8; 24];
    out.copy_from_slice(&b);
    Ok(out)
}

fn user_property(md: &mut Mqmd, k: &str, v: &str) -> Result<(), MdError> {
    match k {
        "MsgId" => md.msg_id = id(k, v)?,
        "CorrelId" => md.correl_id = id(k, v)?,
        "Format" => md.format = char_field(v, k)?,
        "CodedCharSetId" => md.coded_char_set_id = int(k, v)?,
        "Encoding" => md.encoding = int(k, v)?,
        "Priority" => md.priority = int(k, v)?,
        "MsgType" => md.msg_type = int(k, v)?,
        "Expiry" => md.expiry = int(k, v)?,
        "Report" => md.report = int(k, v)?,
        "Feedback" => md.feedback = int(k, v)?,
        "ReplyToQ" => md.reply_to_q = char_field(v, k)?,
        "ReplyToQMgr" => md.reply_to_q_mgr = char_field(v, k)?,
        "ApplIdentityData" => md.appl_identity_data = char_field(v, k)?,
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user<'a>(p: &'a Properties, k: &str) -> Option<&'a str> {
        p.user().find(|(n, _)| *n == k).map(|(_, v)| v)
    }

    #[test]
    fn an_mqmd_travels_as_properties() {
        let cs = Charset::Ascii;
        let md = Mqmd {
            format: CharField::new("MQSTR", cs).unwrap(),
            coded_char_set_id: 1208,
            encoding: 273,
            expiry: 55,
            msg_id: [0x41; 24],
            correl_id: [0x42; 24],
            reply_to_q: CharField::new("REPLY", cs).unwrap(),
            reply_to_q_mgr: CharField::new("QM1", cs).unwrap(),
            persistence: 1,
            ..Mqmd::default()
        };
        let p = properties(&md, cs, "héllo".as_bytes());
        let named: Vec<&Property> = p.iter().take(5).collect();
        assert_eq!(
            named,
            vec![
                &Property::PayloadFormatIndicator(1),
                // 55 tenths left: 6 s, rounded up.
                &Property::MessageExpiryInterval(6),
                &Property::ContentType("MQSTR".into()),
                &Property::ResponseTopic("REPLY@QM1".into()),
                &Property::CorrelationData(Bytes::from_static(&[0x42; 24])),
            ]
        );
        assert_eq!(
            user(&p, "MsgId"),
            Some("414141414141414141414141414141414141414141414141")
        );
        assert_eq!(user(&p, "Encoding"), Some("273"));
        assert_eq!(user(&p, "Format"), Some("MQSTR"));
        assert_eq!(user(&p, "Persistence"), Some("1"));
        // Not UTF-8: no Payload Format Indicator (3.3.2.3.2 would let the
        // device refuse it with 0x99).
        let p = properties(&md, cs, &[0xFF]);
        assert!(
            !p.iter()
                .any(|x| matches!(x, Property::PayloadFormatIndicator(_)))
        );
    }

    #[test]
    fn a_devices_publish_sets_the_mqmd() {
        let mut props = Properties::new();
        props.push(Property::PayloadFormatIndicator(1));
        props.push(Property::MessageExpiryInterval(60));
        props.push(Property::ResponseTopic("REPLY@DEV0001".into()));
        props.push(Property::CorrelationData(Bytes::from_static(b"abc")));
        props.push(Property::UserProperty("Priority".into(), "5".into()));
        let o = outgoing(
            QoS::AtLeastOnce,
            &props,
            Bytes::from_static(b"hi"),
            "DEV0001",
        )
        .unwrap();
        let cs = Charset::Ascii;
        assert_eq!(o.md.persistence, per::PERSISTENT);
        assert_eq!(o.md.format.text(cs).trim_end(), "MQSTR");
        assert_eq!(o.md.coded_char_set_id, 1208);
        assert_eq!(o.md.expiry, 600);
        assert_eq!(o.md.reply_to_q.text(cs).trim_end(), "REPLY");
        assert_eq!(o.md.reply_to_q_mgr.text(cs).trim_end(), "DEV0001");
        assert_eq!(o.md.msg_type, mt::REQUEST);
        assert_eq!(&o.md.correl_id[..4], b"abc\0");
        assert_eq!(o.md.priority, 5);
        assert_eq!(o.md.user_identifier.text(cs).trim_end(), "DEV0001");
        let o = outgoing(QoS::AtMostOnce, &Properties::new(), Bytes::new(), "DEV0001").unwrap();
        assert_eq!(
            (o.md.persistence, o.md.expiry),
            (per::NOT_PERSISTENT, EI_UNLIMITED)
        );
        let mut bad = Properties::new();
        bad.push(Property::UserProperty("Priority".into(), "high".into()));
        assert!(
            outgoing(QoS::AtLeastOnce, &bad, Bytes::new(), "D")
                .unwrap_err()
                .0
                .contains("Priority")
        );
        let mut mime = Properties::new();
        mime.push(Property::ContentType("application/json".into()));
        let o = outgoing(QoS::AtLeastOnce, &mime, Bytes::new(), "D").unwrap();
        assert!(o.md.format.is_blank(cs));
    }
}
