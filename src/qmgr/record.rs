//! How a message is kept in the durable store.
//!
//! Layout (little-endian): record version (u8 = 1), expiry time in ms since the
//! epoch (u64, 0 = never), queue-name length (u8) and name (ASCII), the MQMD as
//! MQ writes it (Encoding 546, 324 or 364 bytes, via `mq::md::write_md`), then
//! the message data. Every length is checked before it is used.

use super::message::Message;
use bytes::Bytes;
use mqgate_codecs::mq::md::{parse_md, write_md};
use mqgate_codecs::mq::{ByteOrder, Mqmd};

const VERSION: u8 = 1;
const HEADER: usize = 1 + 8 + 1;

/// Encodes `msg` on `queue` as a store record.
pub fn encode(queue: &str, msg: &Message) -> Vec<u8> {
    let name = queue.as_bytes();
    let name_len = name.len().min(u8::MAX as usize);
    let mut out = Vec::with_capacity(HEADER + name_len + msg.md.wire_len() + msg.data.len());
    out.push(VERSION);
    out.extend_from_slice(&msg.expires_at_ms.unwrap_or(0).to_le_bytes());
    out.push(name_len as u8);
    out.extend_from_slice(&name[..name_len]);
    write_md(&msg.md, ByteOrder::Little, msg.charset, &mut out);
    out.extend_from_slice(&msg.data);
    out
}

/// Decodes a record into its queue name and message. Errors name what is wrong
/// and at which offset.
pub fn decode(record: &[u8]) -> Result<(String, Message), String> {
    if record.len() < HEADER {
        return Err(format!(
            "record of {} bytes is shorter than its {HEADER}-byte header",
            record.len()
        ));
    }
    if record[0] != VERSION {
        return Err(format!(
            "record version {} at offset 0 is not {VERSION}",
            record[0]
        ));
    }
    let mut at = [0u8; 8];
    at.copy_from_slice(&record[1..9]);
    let expires = u64::from_le_bytes(at);
    let name_len = usize::from(record[9]);
    let md_start = HEADER + name_len;
    if record.len() < md_start {
        return Err(format!(
            "queue name of {name_len} bytes at offset {HEADER} runs past the record's {} bytes",
            record.len()
        ));
    }
    let queue = std::str::from_utf8(&record[HEADER..md_start])
        .map_err(|_| format!("queue name at offset {HEADER} is not ASCII"))?
        .to_string();
    let (md, charset): (Mqmd, _) = parse_md(&record[md_start..], ByteOrder::Little)
        .map_err(|e| format!("MQMD at offset {md_start}: {e}"))?;
    let data = Bytes::copy_from_slice(&record[md_start + md.wire_len()..]);
    Ok((
        queue,
        Message {
            md,
            charset,
            data,
            expires_at_ms: (expires != 0).then_some(expires),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::mq::{CharField, Charset};

    #[test]
    fn a_record_round_trips_the_md_and_data() {
        let md = Mqmd {
            msg_id: [7; 24],
            correl_id: [9; 24],
            priority: 4,
            persistence: 1,
            format: CharField(*b"MQSTR   "),
            ..Mqmd::default()
        };
        let msg = Message {
            md,
            charset: Charset::Ascii,
            data: Bytes::from_static(b"hello"),
            expires_at_ms: Some(1234),
        };
        let rec = encode("APP.IN", &msg);
        // 10-byte header + 6-byte name + MQMD v2 364 bytes (IBM MQ "MQMD - Message
        // descriptor") + 5.
        assert_eq!(rec.len(), 10 + 6 + 364 + 5);
        assert_eq!(&rec[16..20], b"MD  ");
        assert_eq!(decode(&rec), Ok(("APP.IN".to_string(), msg)));
    }

    #[test]
    fn damaged_records_are_refused_with_the_offset() {
        assert!(decode(&[1, 0, 0]).unwrap_err().contains("shorter"));
        let mut rec = encode(
            "Q",
            &Message {
                md: Mqmd::default(),
                charset: Charset::Ascii,
                data: Bytes::new(),
                expires_at_ms: None,
            },
        );
        rec[11] = b'X';
        assert!(
            decode(&rec).unwrap_err().contains("MQMD at offset 11"),
            "{:?}",
            decode(&rec)
        );
        rec.truncate(100);
        rec[9] = 200;
        assert!(decode(&rec).unwrap_err().contains("runs past"));
    }
}
