//! The segment layout: many records of one store transaction kept in one
//! value, so that a group commit of hundreds of messages writes one large
//! value instead of hundreds of B-tree entries (docs/performance.md "Message
//! channels" has the measurements that led to it).
//!
//! A segment is a sequence of entries, each: key (u64, big-endian), record
//! length L (u32, big-endian), then L record bytes. Pure: no I/O.

/// Bytes of an entry before its record: key (8) and length (4).
pub const ENTRY_HEADER: usize = 12;

/// Bytes one entry of a `record_len`-byte record takes.
pub fn entry_len(record_len: usize) -> usize {
    ENTRY_HEADER + record_len
}

/// Writes one entry at the start of `out` and returns the bytes after it,
/// or `None` (nothing written) when `out` is shorter than the entry. Records
/// longer than u32::MAX bytes are never segmented (the store keeps them as
/// single records).
pub fn write_entry<'a>(out: &'a mut [u8], key: u64, record: &[u8]) -> Option<&'a mut [u8]> {
    if out.len() < entry_len(record.len()) {
        return None;
    }
    let (entry, rest) = out.split_at_mut(entry_len(record.len()));
    entry[..8].copy_from_slice(&key.to_be_bytes());
    entry[8..ENTRY_HEADER].copy_from_slice(&(record.len() as u32).to_be_bytes());
    entry[ENTRY_HEADER..].copy_from_slice(record);
    Some(rest)
}

/// Why a stored segment cannot be read: the byte offset of the bad entry and
/// what is wrong with it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry at byte {offset}: {what}")]
pub struct SegmentError {
    pub offset: usize,
    pub what: String,
}

/// The entries of `segment` in order, as (key, record) slices. Every length
/// is checked against the bytes left before anything is read.
pub fn entries(segment: &[u8]) -> Result<Vec<(u64, &[u8])>, SegmentError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < segment.len() {
        let left = segment.len() - at;
        let Some(header) = segment.get(at..at + ENTRY_HEADER) else {
            return Err(SegmentError {
                offset: at,
                what: format!("{left} bytes left, an entry header needs {ENTRY_HEADER}"),
            });
        };
        let mut key = [0u8; 8];
        key.copy_from_slice(&header[..8]);
        let mut len = [0u8; 4];
        len.copy_from_slice(&header[8..]);
        let len = u32::from_be_bytes(len) as usize;
        let start = at + ENTRY_HEADER;
        let Some(record) = segment.get(start..start + len) else {
            return Err(SegmentError {
                offset: at,
                what: format!(
                    "record length {len} exceeds the {} bytes left",
                    left - ENTRY_HEADER
                ),
            });
        };
        out.push((u64::from_be_bytes(key), record));
        at = start + len;
    }
    Ok(out)
}

/// How many entries `segment` holds, reading their headers only. Errors
/// as [`entries`].
pub fn count(segment: &[u8]) -> Result<usize, SegmentError> {
    let mut n = 0;
    let mut at = 0;
    while at < segment.len() {
        let left = segment.len() - at;
        let Some(header) = segment.get(at..at + ENTRY_HEADER) else {
            return Err(SegmentError {
                offset: at,
                what: format!("{left} bytes left, an entry header needs {ENTRY_HEADER}"),
            });
        };
        let mut len = [0u8; 4];
        len.copy_from_slice(&header[8..]);
        let len = u32::from_be_bytes(len) as usize;
        if len > left - ENTRY_HEADER {
            return Err(SegmentError {
                offset: at,
                what: format!(
                    "record length {len} exceeds the {} bytes left",
                    left - ENTRY_HEADER
                ),
            });
        }
        at += ENTRY_HEADER + len;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(out: &mut Vec<u8>, key: u64, record: &[u8]) {
        let at = out.len();
        out.resize(at + entry_len(record.len()), 0);
        assert!(write_entry(&mut out[at..], key, record).is_some_and(|r| r.is_empty()));
    }

    #[test]
    fn an_entry_does_not_fit_a_short_buffer() {
        let mut out = [0u8; 14];
        assert!(write_entry(&mut out, 1, b"abc").is_none());
        assert_eq!(out, [0u8; 14]);
    }

    #[test]
    fn entries_come_back_in_order_with_their_keys() {
        let mut s = Vec::new();
        push(&mut s, 7, b"seven");
        push(&mut s, 9, b"");
        push(&mut s, 12, b"twelve");
        // 3 headers of 12 bytes + 11 record bytes.
        assert_eq!(s.len(), 3 * 12 + 11);
        assert_eq!(
            entries(&s).unwrap(),
            vec![(7, &b"seven"[..]), (9, &b""[..]), (12, &b"twelve"[..])]
        );
        assert_eq!(entries(&[]).unwrap(), vec![]);
        assert_eq!(count(&s), Ok(3));
        assert_eq!(count(&[]), Ok(0));
    }

    #[test]
    fn truncated_or_overlong_entries_are_errors_naming_the_offset() {
        let mut s = Vec::new();
        push(&mut s, 1, b"abc");
        push(&mut s, 2, b"defg");
        // Cut inside the second entry's record: its header is at byte 15.
        let e = entries(&s[..s.len() - 1]).unwrap_err();
        assert_eq!(e.offset, 15);
        assert_eq!(e.what, "record length 4 exceeds the 3 bytes left");
        // Cut inside the second header.
        let e = entries(&s[..20]).unwrap_err();
        assert_eq!(e.offset, 15);
        assert_eq!(e.what, "5 bytes left, an entry header needs 12");
        assert_eq!(count(&s[..20]), Err(e));
        let e = entries(&s[..s.len() - 1]).unwrap_err();
        assert_eq!(count(&s[..s.len() - 1]), Err(e));
        // A length field of u32::MAX is refused before anything is read.
        let mut bad = 5u64.to_be_bytes().to_vec();
        bad.extend_from_slice(&u32::MAX.to_be_bytes());
        let e = entries(&bad).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.what.starts_with("record length 4294967295"), "{}", e.what);
    }
}
