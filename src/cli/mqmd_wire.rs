//! The MQMD as `mqmd_base64` carries it over the HTTP API (docs/http-api.md:
//! the structure byte for byte, integers little-endian), and as a dmpmqmsg
//! file holds it (character fields in ASCII, IBM MQ "dmpmqmsg (queue load and
//! unload)").

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::mq::md::{parse_md, write_md};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd};

/// The byte order of `mqmd_base64` (docs/http-api.md).
const ORDER: ByteOrder = ByteOrder::Little;

/// The MQMD of an answer's `mqmd_base64`, its character fields in ASCII.
/// Errors name what was wrong with the text.
pub fn from_base64(text: &str) -> Result<Mqmd, String> {
    let bytes = BASE64
        .decode(text.as_bytes())
        .map_err(|e| format!("mqmd_base64 is not base64: {e}"))?;
    let (mut md, cs) = parse_md(&bytes, ORDER).map_err(|e| format!("mqmd_base64: {e}"))?;
    if cs == Charset::Ebcdic {
        to_ascii(&mut md);
    }
    Ok(md)
}

/// `md` (character fields in ASCII) as `mqmd_base64` for a put.
pub fn to_base64(md: &Mqmd) -> String {
    let mut out = Vec::with_capacity(md.wire_len());
    write_md(md, ORDER, Charset::Ascii, &mut out);
    BASE64.encode(out)
}

/// Rewrites the character fields of an MD read in EBCDIC into ASCII, as a
/// queue manager converts them for dmpmqmsg (NUL stays NUL; a byte with no
/// ASCII counterpart becomes `?`).
fn to_ascii(md: &mut Mqmd) {
    fn field<const N: usize>(f: &mut CharField<N>) {
        for b in f.0.iter_mut() {
            *b = match *b {
                0 => 0,
                e => u8::try_from(Charset::Ebcdic.decode_byte(e))
                    .ok()
                    .filter(u8::is_ascii)
                    .unwrap_or(b'?'),
            };
        }
    }
    field(&mut md.format);
    field(&mut md.reply_to_q);
    field(&mut md.reply_to_q_mgr);
    field(&mut md.user_identifier);
    field(&mut md.appl_identity_data);
    field(&mut md.put_appl_name);
    field(&mut md.put_date);
    field(&mut md.put_time);
    field(&mut md.appl_origin_data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ebcdic_md_reads_as_ascii_and_an_ascii_one_round_trips() {
        // IBM MQ "MQMD - Message descriptor": 364 bytes for version 2.
        let md = Mqmd {
            format: CharField(*b"MQSTR   "),
            put_appl_name: CharField(*b"amqsput\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"),
            ..Mqmd::default()
        };
        let text = to_base64(&md);
        assert_eq!(BASE64.decode(&text).unwrap().len(), 364);
        assert_eq!(from_base64(&text).unwrap(), md);
        // The same MD in EBCDIC (CCSID 500: "MQSTR" is D4 D8 E2 E3 D9, blank 40).
        let mut e = md.clone();
        e.format = CharField([0xD4, 0xD8, 0xE2, 0xE3, 0xD9, 0x40, 0x40, 0x40]);
        e.put_appl_name = md.put_appl_name;
        e.put_appl_name.0[..7].copy_from_slice(&[0x81, 0x94, 0x98, 0xA2, 0x97, 0xA4, 0xA3]);
        for f in [&mut e.reply_to_q.0[..], &mut e.reply_to_q_mgr.0[..]] {
            f.fill(0x40);
        }
        e.user_identifier.0.fill(0x40);
        e.appl_identity_data.0.fill(0x40);
        e.put_date.0.fill(0x40);
        e.put_time.0.fill(0x40);
        e.appl_origin_data.0.fill(0x40);
        let mut raw = Vec::new();
        write_md(&e, ORDER, Charset::Ebcdic, &mut raw);
        assert_eq!(from_base64(&BASE64.encode(raw)).unwrap(), md);
        assert!(
            from_base64("not base64!")
                .unwrap_err()
                .contains("not base64")
        );
        assert!(from_base64("AAAA").unwrap_err().contains("mqmd_base64"));
    }
}
