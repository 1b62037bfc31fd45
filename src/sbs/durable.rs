//! Durable registrations (`messageq.durable_registrations`,
//! docs/messageq.md "Durable registrations"): the registrations no
//! attachment owns, kept as one state record of the store so that they
//! survive a restart. MessageQ itself keeps them in memory only ("stored in
//! memory by each SBS Server and is volatile"); this is mqgate's option.
//!
//! The record (mqgate's own layout, big-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | `MQGSBSR1` |
//! | 4 | count of registrations |
//! | per registration: 2 | reg_id |
//! | 1 | gap notice: 0 none, 1 SBS_SEQUENCE_GAP, 2 SBS_BS_SEQGAP |
//! | 1 | byte order of the registration: 0 little, 1 big |
//! | 4 | length n of the request |
//! | n | the registration as an SBS_REGISTER_REQ in that byte order (MOT, distribution queue, `auto_dereg`, conjunction, rules) |
//!
//! Pure: bytes in, registrations out.

use super::registry::{GapNotice, Registration};
use mqgate_codecs::pams::Endian;
use mqgate_codecs::pams::sbs::register::RegisterReq;

/// The state record's name in the store.
pub const RECORD: &str = "sbs.registrations";
const MAGIC: &[u8; 8] = b"MQGSBSR1";
/// The longest SBS_REGISTER_REQ (`p_msg.h`: 36-byte head, 256 rules of 16).
const MAX_REQUEST: usize = 4132;

/// Writes `regs` as the record. A registration whose rules cannot be
/// written as an SBS_REGISTER_REQ is left out and named in the second value.
pub fn encode<'a>(regs: impl Iterator<Item = &'a Registration>) -> (Vec<u8>, Vec<String>) {
    let mut body = Vec::new();
    let mut count: u32 = 0;
    let mut skipped = Vec::new();
    for r in regs {
        let mut req = RegisterReq::new(r.mot, r.queue);
        req.seq_gap_notify = i32::from(r.gap_notice.is_some());
        req.auto_dereg = i32::from(r.auto_dereg);
        req.rule_conjunct = r.conjunction.value();
        req.rules = r.rules.clone();
        let bytes = match req.encode(r.order) {
            Ok(b) => b,
            Err(e) => {
                skipped.push(format!("registration {}: {e}", r.reg_id));
                continue;
            }
        };
        body.extend_from_slice(&r.reg_id.to_be_bytes());
        body.push(match r.gap_notice {
            None => 0,
            Some(GapNotice::SequenceGap) => 1,
            Some(GapNotice::BsSeqgap) => 2,
        });
        body.push(u8::from(r.order == Endian::Big));
        body.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        body.extend_from_slice(&bytes);
        count += 1;
    }
    let mut out = Vec::with_capacity(12 + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&body);
    (out, skipped)
}

/// Reads the record back.
///
/// Errors: what is wrong and at which byte offset (a wrong magic, a length
/// past the end or above 4132, a request that does not decode).
pub fn decode(b: &[u8]) -> Result<Vec<Registration>, String> {
    if b.len() < 12 || &b[..8] != MAGIC {
        return Err("offset 0: not an mqgate registrations record (MQGSBSR1)".into());
    }
    let count = u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as usize;
    // Each registration takes at least 8 bytes: bound the count first.
    if count > (b.len() - 12) / 8 {
        return Err(format!(
            "offset 8: count {count} does not fit the record's {} bytes",
            b.len()
        ));
    }
    let mut out = Vec::with_capacity(count);
    let mut at = 12;
    for i in 0..count {
        let head = b
            .get(at..at + 8)
            .ok_or_else(|| format!("offset {at}: registration {i} is truncated"))?;
        let reg_id = u16::from_be_bytes([head[0], head[1]]);
        let gap_notice = match head[2] {
            0 => None,
            1 => Some(GapNotice::SequenceGap),
            2 => Some(GapNotice::BsSeqgap),
            n => return Err(format!("offset {}: gap notice kind {n} is not 0-2", at + 2)),
        };
        let order = match head[3] {
            0 => Endian::Little,
            1 => Endian::Big,
            n => return Err(format!("offset {}: byte order {n} is not 0 or 1", at + 3)),
        };
        let len = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
        if len > MAX_REQUEST {
            return Err(format!(
                "offset {}: request length {len} is above {MAX_REQUEST}",
                at + 4
            ));
        }
        at += 8;
        let body = b
            .get(at..at + len)
            .ok_or_else(|| format!("offset {at}: registration {i} is truncated"))?;
        let req = RegisterReq::decode(body, order).map_err(|e| format!("offset {at}: {e}"))?;
        let mot = req
            .as_mot()
            .ok_or_else(|| format!("offset {at}: {} is not a MOT", req.mot))?;
        out.push(Registration {
            reg_id,
            mot,
            queue: req.distribution_q,
            order,
            conjunction: req.conjunction(),
            rules: req.rules,
            gap_notice,
            auto_dereg: req.auto_dereg != 0,
            owner: None,
        });
        at += len;
    }
    if at != b.len() {
        return Err(format!(
            "offset {at}: {} bytes after the last registration",
            b.len() - at
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::pams::{
        Conjunction, Mot, OperandLength, Operator, QAddress, SelectionRule, Selector,
    };

    fn reg(id: u16, order: Endian, rules: Vec<SelectionRule>) -> Registration {
        Registration {
            reg_id: id,
            mot: Mot::new(5110).unwrap(),
            queue: QAddress::new(10, 30),
            order,
            conjunction: Conjunction::Any,
            rules,
            gap_notice: Some(GapNotice::BsSeqgap),
            auto_dereg: false,
            owner: None,
        }
    }

    #[test]
    fn round_trip_in_both_byte_orders() {
        let rule = SelectionRule::new(
            Selector::from_offset(0).unwrap(),
            Operator::Eq,
            OperandLength::One,
            73,
        );
        let regs = vec![
            reg(7, Endian::Big, vec![rule, rule]),
            reg(65535, Endian::Little, vec![rule]),
        ];
        let (bytes, skipped) = encode(regs.iter());
        assert!(skipped.is_empty());
        // 12-byte head; each entry 8 + a 36-byte SBS_REGISTER_REQ head + 16
        // bytes per rule (p_msg.h).
        assert_eq!(bytes.len(), 12 + (8 + 36 + 32) + (8 + 36 + 16));
        assert_eq!(decode(&bytes).unwrap(), regs);
    }

    #[test]
    fn damaged_records_name_the_offset() {
        let (bytes, _) = encode([reg(1, Endian::Big, vec![])].iter());
        assert_eq!(
            decode(&bytes[..bytes.len() - 1]).unwrap_err(),
            "offset 20: registration 0 is truncated"
        );
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(
            decode(&huge)
                .unwrap_err()
                .starts_with("offset 8: count 4294967295")
        );
        assert!(
            decode(b"MQGSBSR0\0\0\0\0")
                .unwrap_err()
                .starts_with("offset 0")
        );
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            decode(&long).unwrap_err(),
            "offset 56: 1 bytes after the last registration"
        );
    }
}
