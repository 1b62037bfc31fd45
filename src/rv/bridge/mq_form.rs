//! A Rendezvous message as an MQ message and back (docs/rendezvous.md
//! "Bridge to MQ queues"). Pure: the tasks of `to_queue` and `from_queue`
//! do the puts and gets.
//!
//! Subject to queue, `body: rfh2`: MQMD Format `MQHRF2`, Encoding 546,
//! CodedCharSetId 1208; an MQRFH2 (NameValueCCSID 1208) with the folder
//! `<rv>` (`Subject`, `ReplySubject`) and the folder `<usr>` holding every
//! field but the data as a property (IBM MQ "NameValueData (MQCHARn)"),
//! then the data: the first field named `Data` of type opaque, xml or
//! string (RFH2 Format `MQSTR` for a string, blank otherwise).
//! `body: json`: MQMD Format `MQSTR`, CodedCharSetId 1208, the JSON form.
//!
//! Queue to subject: a field `MQMD` (a nested message of the MQMD's fields,
//! by their MQ names), then the fields of the body (an MQRFH2's `<usr>`
//! properties, or the JSON form's fields), then `Data`: the data after the
//! headers, a string when its Format is `MQSTR` in CCSID 1208, else opaque.

use bytes::Bytes;
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::constants::{enc, fmt, per};
use mqgate_codecs::mq::properties::{
    Property, PropertyError, PropertyValue, parse_folder, write_folder,
};
use mqgate_codecs::mq::rfh2::{Mqrfh2, parse_rfh2, write_rfh2};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};

use super::config::BodyForm;
use crate::mqi::{GetResult, Outgoing};

/// The name of the field that holds an MQ message's data.
pub const DATA_FIELD: &str = "Data";
/// The name of the nested message of MQMD fields.
pub const MQMD_FIELD: &str = "MQMD";
/// The MQRFH2 folder of the Rendezvous subjects.
pub const RV_FOLDER: &str = "rv";
/// UTF-8, the CCSID of what the bridges write.
const UTF8: i32 = 1208;

/// Why a message could not be turned into the other form: the MQRC the
/// dead-letter header carries and a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormError {
    /// The reason (MQDLH Reason).
    pub mqrc: Mqrc,
    /// What was wrong.
    pub message: String,
}

impl From<PropertyError> for FormError {
    fn from(e: PropertyError) -> Self {
        FormError {
            mqrc: e.mqrc(),
            message: e.to_string(),
        }
    }
}

/// MQMD Persistence for a rule's `persistent`.
pub fn persistence(persistent: Option<bool>) -> i32 {
    match persistent {
        Some(true) => per::PERSISTENT,
        Some(false) => per::NOT_PERSISTENT,
        None => per::PERSISTENCE_AS_Q_DEF,
    }
}

/// An MQMD of Format `format`, Encoding 546, CodedCharSetId 1208.
fn md(format: &[u8; 8], persistence: i32) -> Mqmd {
    Mqmd {
        format: CharField(*format),
        encoding: enc::REVERSED,
        coded_char_set_id: UTF8,
        persistence,
        ..Mqmd::default()
    }
}

/// The message put for `env` (whose JSON form is `json`) in `form`.
///
/// Errors (`rfh2` only): a field the `<usr>` folder cannot hold: a field
/// without a name, a name MQ refuses as a property (2442
/// MQRC_PROPERTY_NAME_ERROR), a name used twice (2335).
pub fn to_mq(
    env: &Envelope,
    json: &str,
    form: BodyForm,
    persistence: i32,
) -> Result<Outgoing, FormError> {
    let (md, data) = match form {
        BodyForm::Json => (
            md(fmt::STRING, persistence),
            Bytes::copy_from_slice(json.as_bytes()),
        ),
        BodyForm::Rfh2 => (
            md(fmt::RF_HEADER_2, persistence),
            Bytes::from(rfh2_body(env)?),
        ),
    };
    Ok(Outgoing {
        md,
        charset: Charset::Ascii,
        data,
    })
}

/// The MQRFH2 (`<rv>`, `<usr>`) and the data of `env`.
fn rfh2_body(env: &Envelope) -> Result<Vec<u8>, FormError> {
    let data_at = env.message.fields.iter().position(|f| {
        f.name.as_deref() == Some(DATA_FIELD)
            && matches!(
                f.value,
                RvValue::Opaque(_) | RvValue::Xml(_) | RvValue::String(_)
            )
    });
    let mut props: Vec<Property> = Vec::with_capacity(env.message.fields.len());
    for (i, f) in env.message.fields.iter().enumerate() {
        if Some(i) == data_at {
            continue;
        }
        let Some(name) = &f.name else {
            return Err(FormError {
                mqrc: Mqrc::PROPERTY_NAME_ERROR,
                message: format!(
                    "field {} has no name, and an MQRFH2 property needs one",
                    i + 1
                ),
            });
        };
        if props.iter().any(|p| &p.name == name) {
            return Err(FormError {
                mqrc: Mqrc::RFH_STRING_ERROR,
                message: format!(
                    "field {name:?} is in the message twice; a <usr> property occurs once"
                ),
            });
        }
        props.push(Property::new(name.clone(), property_value(&f.value)));
    }
    let (format, data): (&[u8; 8], &[u8]) = match data_at.map(|i| &env.message.fields[i].value) {
        Some(RvValue::String(s)) => (fmt::STRING, s.as_bytes()),
        Some(RvValue::Opaque(b) | RvValue::Xml(b)) => (fmt::NONE, b),
        _ => (fmt::NONE, &[]),
    };
    let mut subjects = vec![Property::new(
        "Subject",
        PropertyValue::String(env.subject.clone()),
    )];
    if let Some(r) = &env.reply_subject {
        subjects.push(Property::new(
            "ReplySubject",
            PropertyValue::String(r.clone()),
        ));
    }
    let next = Descriptor {
        encoding: enc::REVERSED,
        coded_char_set_id: UTF8,
        format: CharField(*format),
        charset: Charset::Ascii,
    };
    let mut rfh2 = Mqrfh2::new(&next, UTF8);
    let order = ByteOrder::Little;
    let folder_error = |e: mqgate_codecs::mq::DecodeError| FormError {
        mqrc: e.mqrc(),
        message: e.to_string(),
    };
    rfh2.push_folder(&write_folder(RV_FOLDER, &subjects)?, order)
        .map_err(folder_error)?;
    if !props.is_empty() {
        rfh2.push_folder(&write_folder("usr", &props)?, order)
            .map_err(folder_error)?;
    }
    let mut out = Vec::with_capacity(rfh2.struc_length() + data.len());
    write_rfh2(&rfh2, order, Charset::Ascii, &mut out);
    out.extend_from_slice(data);
    Ok(out)
}

/// The property of a field value: the types MQ has (`dt` i1-i8, r4, r8,
/// boolean, bin.hex, string), the rest as text (docs/rendezvous.md "Bridge
/// to MQ queues", table of types).
fn property_value(v: &RvValue) -> PropertyValue {
    match v {
        RvValue::String(s) => PropertyValue::String(s.clone()),
        RvValue::Bool(b) => PropertyValue::Boolean(*b),
        RvValue::I8(x) => PropertyValue::I1(*x),
        RvValue::U8(x) => PropertyValue::I2(i16::from(*x)),
        RvValue::I16(x) => PropertyValue::I2(*x),
        RvValue::U16(x) | RvValue::IpPort16(x) => PropertyValue::I4(i32::from(*x)),
        RvValue::I32(x) => PropertyValue::I4(*x),
        RvValue::U32(x) => PropertyValue::I8(i64::from(*x)),
        RvValue::I64(x) => PropertyValue::I8(*x),
        RvValue::U64(x) => match i64::try_from(*x) {
            Ok(v) => PropertyValue::I8(v),
            Err(_) => PropertyValue::String(x.to_string()),
        },
        RvValue::F32(x) => PropertyValue::R4(*x),
        RvValue::F64(x) => PropertyValue::R8(*x),
        RvValue::Opaque(b) | RvValue::Xml(b) => PropertyValue::BinHex(b.clone()),
        RvValue::User { data, .. } => PropertyValue::BinHex(data.clone()),
        RvValue::IpAddr32(a) => PropertyValue::String(a.to_string()),
        RvValue::DateTime(d) => PropertyValue::String(
            d.to_rfc3339()
                .unwrap_or_else(|| crate::rv::json::value_to_json(v).to_string()),
        ),
        other => PropertyValue::String(crate::rv::json::value_to_json(other).to_string()),
    }
}

/// The field of a property; `None` for a null, which Rendezvous has no
/// value for.
fn field_value(v: PropertyValue) -> Option<RvValue> {
    Some(match v {
        PropertyValue::String(s) => RvValue::String(s),
        PropertyValue::Boolean(b) => RvValue::Bool(b),
        PropertyValue::BinHex(b) => RvValue::Opaque(b),
        PropertyValue::I1(x) => RvValue::I8(x),
        PropertyValue::I2(x) => RvValue::I16(x),
        PropertyValue::I4(x) => RvValue::I32(x),
        PropertyValue::I8(x) => RvValue::I64(x),
        PropertyValue::R4(x) => RvValue::F32(x),
        PropertyValue::R8(x) => RvValue::F64(x),
        PropertyValue::Null => return None,
    })
}

/// The `MQMD` field of `md` (character fields in `cs`, trailing blanks
/// removed).
pub fn mqmd_field(md: &Mqmd, cs: Charset) -> Field {
    let s = |name: &str, text: String| Field::new(name, RvValue::String(text));
    let i = |name: &str, v: i32| Field::new(name, RvValue::I32(v));
    let fields = vec![
        Field::new("MsgId", RvValue::Opaque(md.msg_id.to_vec())),
        Field::new("CorrelId", RvValue::Opaque(md.correl_id.to_vec())),
        s("Format", md.format.text(cs)),
        i("Encoding", md.encoding),
        i("CodedCharSetId", md.coded_char_set_id),
        i("Persistence", md.persistence),
        i("Priority", md.priority),
        i("Expiry", md.expiry),
        i("MsgType", md.msg_type),
        i("Feedback", md.feedback),
        i("Report", md.report),
        i("BackoutCount", md.backout_count),
        s("ReplyToQ", md.reply_to_q.text(cs)),
        s("ReplyToQMgr", md.reply_to_q_mgr.text(cs)),
        s("UserIdentifier", md.user_identifier.text(cs)),
        i("PutApplType", md.put_appl_type),
        s("PutApplName", md.put_appl_name.text(cs)),
        s("PutDate", md.put_date.text(cs)),
        s("PutTime", md.put_time.text(cs)),
    ];
    Field::new(MQMD_FIELD, RvValue::Msg(Message::new(fields)))
}

/// The `Data` field of `data` in Format `format` and CCSID `ccsid`; `None`
/// for no data.
fn data_field(data: &[u8], format: &str, ccsid: i32) -> Option<Field> {
    if data.is_empty() {
        return None;
    }
    let text = (format == "MQSTR" && matches!(ccsid, UTF8 | 0))
        .then(|| std::str::from_utf8(data).ok())
        .flatten()
        .filter(|t| !t.contains('\0'));
    Some(Field::new(
        DATA_FIELD,
        match text {
            Some(t) => RvValue::String(t.to_string()),
            None => RvValue::Opaque(data.to_vec()),
        },
    ))
}

/// The envelope published on `subject` for the message `got` read in
/// `form`.
///
/// Errors: an MQRFH2 that cannot be read (its MQRC, 2334), a `<usr>`
/// folder that cannot (2335), a `json` body that is not the JSON form of
/// a message (2110 MQRC_FORMAT_ERROR).
pub fn from_mq(got: &GetResult, form: BodyForm, subject: &str) -> Result<Envelope, FormError> {
    let md = &got.md;
    let mut fields = vec![mqmd_field(md, got.charset)];
    let mut reply_subject = None;
    let format = md.format.text(got.charset);
    match form {
        BodyForm::Json => {
            let env = json_body(&got.data, subject)?;
            reply_subject = env.reply_subject;
            fields.extend(env.message.fields);
        }
        BodyForm::Rfh2 if format == "MQHRF2" => {
            let order = ByteOrder::from_encoding(md.encoding);
            let (r, _) = parse_rfh2(&got.data, order).map_err(|e| FormError {
                mqrc: e.mqrc(),
                message: e.to_string(),
            })?;
            for folder in &r.folders {
                let text = folder
                    .text(r.name_value_ccsid, order)
                    .map_err(|e| FormError {
                        mqrc: e.mqrc(),
                        message: e.to_string(),
                    })?;
                let at = |e: PropertyError| PropertyError {
                    offset: e.offset + folder.offset,
                    ..e
                };
                let name = text.trim_start().trim_start_matches('<');
                if name.starts_with("usr>") || name.starts_with("usr ") {
                    let (_, props) = parse_folder(&text).map_err(at)?;
                    fields.extend(
                        props
                            .into_iter()
                            .filter_map(|p| field_value(p.value).map(|v| Field::new(p.name, v))),
                    );
                } else if name.starts_with("rv>") {
                    let (_, props) = parse_folder(&text).map_err(at)?;
                    reply_subject = props.into_iter().find_map(|p| match p {
                        Property {
                            name,
                            value: PropertyValue::String(s),
                        } if name == "ReplySubject" => Some(s),
                        _ => None,
                    });
                }
            }
            let len = r.struc_length();
            let rest = got.data.get(len..).unwrap_or_default();
            let next_format = r.format.text(Charset::Ascii);
            fields.extend(data_field(rest, &next_format, r.coded_char_set_id));
        }
        BodyForm::Rfh2 => fields.extend(data_field(&got.data, &format, md.coded_char_set_id)),
    }
    Ok(Envelope {
        subject: subject.to_string(),
        reply_subject,
        cm: None,
        message: Message::new(fields),
    })
}

/// The envelope of a `json` body, on `subject` whatever its own subject.
fn json_body(data: &[u8], subject: &str) -> Result<Envelope, FormError> {
    let bad = |why: String| FormError {
        mqrc: Mqrc::FORMAT_ERROR,
        message: format!("the body is not the JSON form of a message: {why}"),
    };
    let mut v: serde_json::Value = serde_json::from_slice(data).map_err(|e| bad(e.to_string()))?;
    let o = v
        .as_object_mut()
        .ok_or_else(|| bad("not a JSON object".into()))?;
    o.insert("subject".into(), serde_json::Value::from(subject));
    o.remove("cm");
    crate::rv::json::envelope_from_json(&v).map_err(|e| bad(e.to_string()))
}
