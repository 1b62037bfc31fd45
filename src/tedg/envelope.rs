//! How an RTQ request is kept on its queue-manager queue: MQMD Format
//! `MQGRTQ`, data = 4-byte big-endian header length, the request header as
//! JSON, then the client's buffer byte for byte (mqgate's own layout; the
//! TOP END wire form is not public).

use serde::{Deserialize, Serialize};

/// MQMD Format of an RTQ request.
pub const FORMAT: &str = "MQGRTQ";

/// Largest header mqgate writes or reads, in bytes.
pub const MAX_HEADER: usize = 4096;

/// What RTQ knows about a request besides the buffer (BEA Tuxedo "Using the BEA Tuxedo TOP END
/// Domain Gateway": the QNAME entry's TE_PRODUCT, TE_FUNCTION, TE_TARGET, TE_QUALIFIER; the
/// schedule; the client id, which is the TEDG local domain id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestHeader {
    /// RTQ request_id, 32 lower-case hex digits (mqgate's form, docs/tuxedo.md).
    pub request_id: String,
    /// The tpenqueue qspace.
    pub qspace: String,
    /// The tpenqueue qname.
    pub qname: String,
    /// TE_PRODUCT.
    pub product: String,
    /// TE_FUNCTION.
    pub function: String,
    /// TE_TARGET of the QNAME entry.
    pub target: Option<String>,
    /// TE_QUALIFIER.
    pub qualifier: i64,
    /// TE_TARGET of the QSPACE entry (the RTQ queue's MSR target).
    pub queue_target: Option<String>,
    /// RTQ schedule_time text: empty (immediate), UNIX seconds, or `R:HH:MM`.
    pub schedule_time: String,
    /// UNIX seconds at which the request becomes available.
    pub due_at: i64,
    /// UNIX seconds of the put.
    pub put_time: i64,
    /// FML32, CARRAY or X_OCTET.
    pub buftype: String,
    /// The client id: the TEDG local domain id (the TEDG guide).
    pub client_id: String,
}

/// Why stored data is not an RTQ request.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    /// Shorter than its length fields say.
    #[error("RTQ request of {len} bytes is truncated: the header needs {needed} bytes")]
    Truncated {
        /// Bytes present.
        len: usize,
        /// Bytes the header length asks for.
        needed: usize,
    },
    /// Header length above [`MAX_HEADER`].
    #[error("RTQ request header length {0} is above {MAX_HEADER}")]
    HeaderTooLong(usize),
    /// Header not the JSON mqgate writes.
    #[error("RTQ request header at offset 4 is not valid: {0}")]
    Json(String),
}

/// The stored form of a request.
pub fn encode(h: &RequestHeader, data: &[u8]) -> Vec<u8> {
    // Serialising a struct of strings and integers cannot fail.
    let json = serde_json::to_vec(h).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + json.len() + data.len());
    out.extend_from_slice(&(json.len() as u32).to_be_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(data);
    out
}

/// Splits stored data into the header and the client's buffer. The length
/// is checked before anything is read.
pub fn decode(stored: &[u8]) -> Result<(RequestHeader, &[u8]), EnvelopeError> {
    let Some(len) = stored.get(..4) else {
        return Err(EnvelopeError::Truncated {
            len: stored.len(),
            needed: 4,
        });
    };
    let hlen = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if hlen > MAX_HEADER {
        return Err(EnvelopeError::HeaderTooLong(hlen));
    }
    let Some(json) = stored.get(4..4 + hlen) else {
        return Err(EnvelopeError::Truncated {
            len: stored.len(),
            needed: 4 + hlen,
        });
    };
    let h = serde_json::from_slice(json).map_err(|e| EnvelopeError::Json(e.to_string()))?;
    Ok((h, &stored[4 + hlen..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RequestHeader {
        RequestHeader {
            request_id: "00112233445566778899aabbccddeeff".into(),
            qspace: "ORDERS".into(),
            qname: "NEWORDER".into(),
            product: "ORDERAPP".into(),
            function: "NEWORD".into(),
            target: Some("T1".into()),
            qualifier: 7,
            queue_target: Some("T1".into()),
            schedule_time: "R:00:01".into(),
            due_at: 1_700_000_060,
            put_time: 1_700_000_000,
            buftype: "CARRAY".into(),
            client_id: "TEDG1".into(),
        }
    }

    #[test]
    fn round_trip_keeps_the_buffer_bytes() {
        let data = [0u8, 1, 2, 255];
        let stored = encode(&header(), &data);
        let (h, d) = decode(&stored).unwrap();
        assert_eq!(h, header());
        assert_eq!(d, &data);
    }

    #[test]
    fn bad_lengths_are_errors_not_panics() {
        assert!(matches!(
            decode(&[0, 0]),
            Err(EnvelopeError::Truncated { needed: 4, .. })
        ));
        assert!(matches!(
            decode(&[0, 0, 0x10, 1]),
            Err(EnvelopeError::HeaderTooLong(4097))
        ));
        assert!(matches!(
            decode(&[0, 0, 0, 9, b'{']),
            Err(EnvelopeError::Truncated { needed: 13, .. })
        ));
    }
}
