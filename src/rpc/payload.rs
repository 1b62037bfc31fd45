//! Message bodies of RPC calls (EntireX "Mapping RPC Data to the MQ Message Buffer",
//! Software AG EntireX "EntireX WebSphere MQ RPC Server", "Support for the MQRFH Header"):
//! the non-dynamic parameters as fixed-position text or XML, converted to the
//! payload CCSID, MQFMT_STRING; with MQ_RFH_* parameters one MQRFH v1 in
//! front, the MQMD Format then `MQHRF   `.

use super::error::{RpcError, RpcErrorKind};
use super::xml;
use crate::config::RpcPayload;
use mqgate_codecs::ccsid::{self, Ccsid, Family, Options};
use mqgate_codecs::idl::{BridgeProgram, Record, TextLayout};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::constants::{ccsi, fmt};
use mqgate_codecs::mq::rfh::{Mqrfh, parse_rfh, write_rfh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqrc};

/// A message body ready to put.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The bytes (MQRFH first when there is one).
    pub data: Vec<u8>,
    /// MQMD Format: `MQSTR   `, or `MQHRF   ` with an MQRFH.
    pub format: CharField<8>,
    /// MQMD CodedCharSetId: the payload CCSID (also the MQRFH's).
    pub ccsid: i32,
}

/// The charset MQ header character fields take in `ccsid` (EBCDIC code pages
/// → EBCDIC invariant characters, every other set → ASCII).
pub fn header_charset(ccsid: Ccsid) -> Charset {
    if ccsid.family() == Family::Ebcdic {
        Charset::Ebcdic
    } else {
        Charset::Ascii
    }
}

/// Builds the body of a put: `values` laid out by `program.request` as text
/// (or XML), encoded in `ccsid`; with `rfh_pairs` (the program has MQ_RFH_*
/// parameters) behind one MQRFH v1 whose integers follow `encoding`.
///
/// Errors: BAD_PARAMETERS for values that do not fit the layout, characters
/// the CCSID lacks (MQRC 2119), or MQRFH names/values MQ cannot carry.
pub fn build(
    program: &BridgeProgram,
    mode: RpcPayload,
    ccsid: Ccsid,
    encoding: i32,
    values: &Record,
    rfh_pairs: Option<&[(String, String)]>,
) -> Result<Body, RpcError> {
    let text = match mode {
        RpcPayload::Text => program
            .request
            .marshal(values)
            .map_err(|e| RpcError::bad(e.to_string()))?,
        RpcPayload::Xml => xml::write(&program.program, &program.request, values),
    };
    let payload = ccsid::encode(&text, ccsid, &Options::default()).map_err(|e| {
        RpcError::with_mqrc(
            RpcErrorKind::BadParameters,
            e.mqrc(),
            format!("payload in CCSID {}: {e}", ccsid.number()),
        )
    })?;
    let number = i32::from(ccsid.number());
    let Some(pairs) = rfh_pairs else {
        return Ok(Body {
            data: payload.bytes,
            format: CharField(*fmt::STRING),
            ccsid: number,
        });
    };
    let cs = header_charset(ccsid);
    let next = Descriptor {
        encoding,
        coded_char_set_id: number,
        format: CharField::new("MQSTR", cs).map_err(|e| RpcError::bad(e.to_string()))?,
        charset: cs,
    };
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let rfh = Mqrfh::from_pairs(&next, &refs, cs).map_err(|e| {
        RpcError::with_mqrc(
            RpcErrorKind::BadParameters,
            Mqrc::RFH_STRING_ERROR,
            format!("MQ_RFH_ parameters cannot form an MQRFH NameValueString: {e}"),
        )
    })?;
    let mut data = Vec::with_capacity(rfh.struc_length() + payload.bytes.len());
    write_rfh(&rfh, ByteOrder::from_encoding(encoding), cs, &mut data);
    data.extend_from_slice(&payload.bytes);
    Ok(Body {
        data,
        format: CharField::new("MQHRF", Charset::Ascii)
            .map_err(|e| RpcError::bad(e.to_string()))?,
        ccsid: number,
    })
}

/// A text payload shorter than a layout without a variable-length tail is
/// read as if blank padded: senders often drop trailing blanks of A fields.
/// A numeric field that gets blanks this way is still an error.
fn pad_short(layout: &TextLayout, mut text: String) -> String {
    if !layout.variable_tail {
        let have = text.chars().count();
        if have < layout.fixed_length {
            text.extend(std::iter::repeat_n(' ', layout.fixed_length - have));
        }
    }
    text
}

/// A received message read as a program's reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The OUT (and IN OUT) data parameters.
    pub values: Record,
    /// The pairs of the message's MQRFH v1, if it had one.
    pub rfh_pairs: Vec<(String, String)>,
}

fn payload_error(mqrc: Mqrc, message: String) -> RpcError {
    RpcError::with_mqrc(RpcErrorKind::PayloadError, mqrc, message)
}

/// The MQMD fields that describe a received body.
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    /// MQMD Format.
    pub format: &'a CharField<8>,
    /// The charset of the MQMD's character fields.
    pub charset: Charset,
    /// MQMD Encoding.
    pub encoding: i32,
    /// MQMD CodedCharSetId (0 = the queue manager's: `default_ccsid`).
    pub ccsid: i32,
}

/// Reads a received body by `layout`: an MQRFH v1 first when the Format is
/// `MQHRF   `; the rest must be MQFMT_STRING (or MQFMT_NONE) text in its
/// CCSID (`default_ccsid` when 0 or inherited), laid out as text or XML.
///
/// Errors (PAYLOAD_ERROR): a bad MQRFH (2334/2335), another Format (2110),
/// bytes not valid in the CCSID (2119), or text that does not fit the layout
/// (2110), each naming what and where.
pub fn read(
    layout: &TextLayout,
    mode: RpcPayload,
    md: Described<'_>,
    data: &[u8],
    default_ccsid: i32,
) -> Result<Reply, RpcError> {
    let effective = |c: i32| {
        if c == ccsi::Q_MGR || c == ccsi::INHERIT {
            default_ccsid
        } else {
            c
        }
    };
    let mut body = data;
    let mut format = md.format.text(md.charset);
    let mut ccsid_number = effective(md.ccsid);
    let mut encoding = md.encoding;
    let mut rfh_pairs = Vec::new();
    if format == "MQHRF" {
        let (rfh, cs) = parse_rfh(data, ByteOrder::from_encoding(md.encoding))
            .map_err(|e| payload_error(e.mqrc(), format!("MQRFH: {e}")))?;
        let header_ccsid =
            Ccsid::new(ccsid_number).map_err(|e| payload_error(e.mqrc(), format!("MQRFH: {e}")))?;
        let pairs = rfh
            .pairs(cs)
            .map_err(|e| payload_error(e.mqrc(), format!("MQRFH: {e}")))?;
        for (n, v) in pairs {
            let text = |t: &[u8]| {
                ccsid::decode(t, header_ccsid, &Options::default())
                    .map(|d| d.text)
                    .map_err(|e| payload_error(e.mqrc(), format!("MQRFH NameValueString: {e}")))
            };
            rfh_pairs.push((text(&n)?, text(&v)?));
        }
        body = &data[rfh.struc_length().min(data.len())..];
        format = rfh.format.text(cs);
        ccsid_number = effective(rfh.coded_char_set_id);
        encoding = rfh.encoding;
    }
    if !(format.is_empty() || format == "MQSTR") {
        return Err(payload_error(
            Mqrc::FORMAT_ERROR,
            format!("the body has Format '{format}'; an RPC reply must be MQSTR text"),
        ));
    }
    let ccsid = Ccsid::with_encoding(ccsid_number, encoding)
        .map_err(|e| payload_error(e.mqrc(), format!("body: {e}")))?;
    let text = ccsid::decode(body, ccsid, &Options::default())
        .map_err(|e| payload_error(e.mqrc(), format!("body in CCSID {ccsid_number}: {e}")))?
        .text;
    let values = match mode {
        RpcPayload::Text => layout
            .unmarshal(&pad_short(layout, text))
            .map_err(|e| payload_error(Mqrc::FORMAT_ERROR, format!("body: {e}")))?,
        RpcPayload::Xml => xml::read(layout, &text)?,
    };
    Ok(Reply { values, rfh_pairs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::idl::{Value, parse};
    use mqgate_codecs::mq::constants::enc;

    const IDL: &str = "LIBRARY 'L' IS
PROGRAM 'P' IS
  DEFINE DATA PARAMETER
  1 MQ_RFH_H1 (A20) IN OUT
  1 MQ_RFH_H2 (A20) IN OUT
  1 TEXT (A5) IN OUT
  END-DEFINE
";

    fn program() -> BridgeProgram {
        BridgeProgram::bind(&parse(IDL).unwrap(), "L", "P").unwrap()
    }

    #[test]
    fn rfh_pairs_are_quoted_as_mq_does() {
        let p = program();
        let mut values = Record::new();
        values.set("TEXT", Value::Text("abc".into()));
        let pairs = vec![
            ("H1".to_string(), "a b".to_string()),
            ("H2".to_string(), "say \"hi\"".to_string()),
        ];
        let ccsid = Ccsid::new(1208).unwrap();
        let body = build(
            &p,
            RpcPayload::Text,
            ccsid,
            enc::REVERSED,
            &values,
            Some(&pairs),
        )
        .unwrap();
        assert_eq!(&body.format.0, b"MQHRF   ");
        // IBM MQ "2335 (091F) (RC2335): MQRC_RFH_STRING_ERROR" rules, as mqgate builds
        // them (docs/rpc.md) — quote a token with a blank or a quote, double
        // inner quotes, one blank between tokens, pad to a multiple of 4.
        let nvs = b"H1 \"a b\" H2 \"say \"\"hi\"\"\"";
        assert_eq!(nvs.len() % 4, 0, "24 bytes: no padding needed");
        assert_eq!(&body.data[32..32 + nvs.len()], nvs);
        assert_eq!(&body.data[32 + nvs.len()..], b"abc  ");
        let md_format = body.format;
        let reply = read(
            &p.reply,
            RpcPayload::Text,
            Described {
                format: &md_format,
                charset: Charset::Ascii,
                encoding: enc::REVERSED,
                ccsid: 1208,
            },
            &body.data,
            1208,
        )
        .unwrap();
        assert_eq!(reply.rfh_pairs, pairs);
        assert_eq!(reply.values.get("TEXT"), Some(&Value::Text("abc".into())));
    }

    #[test]
    fn text_is_converted_to_the_payload_ccsid() {
        let p = program();
        let mut values = Record::new();
        values.set("TEXT", Value::Text("AB".into()));
        // CCSID 500 (EBCDIC international): A = 0xC1, B = 0xC2, blank = 0x40
        // (ICU ibm-500_P100-1995).
        let body = build(
            &p,
            RpcPayload::Text,
            Ccsid::new(500).unwrap(),
            enc::NORMAL,
            &values,
            None,
        )
        .unwrap();
        assert_eq!(body.data, [0xC1, 0xC2, 0x40, 0x40, 0x40]);
        assert_eq!(body.ccsid, 500);
    }

    #[test]
    fn another_format_is_2110() {
        let p = program();
        let f = CharField(*b"MQADMIN ");
        let e = read(
            &p.reply,
            RpcPayload::Text,
            Described {
                format: &f,
                charset: Charset::Ascii,
                encoding: 546,
                ccsid: 1208,
            },
            b"abc  ",
            1208,
        )
        .unwrap_err();
        assert_eq!(e.mqrc, Mqrc::FORMAT_ERROR);
    }
}
