//! Wall-clock helpers: epoch milliseconds and MQ's PutDate/PutTime (GMT).

use mqgate_codecs::mq::PutTimestamp;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since 1970-01-01T00:00:00Z.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Microseconds since 1970-01-01T00:00:00Z.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// The PutDate/PutTime timestamp (GMT, hundredths) of `ms` since the epoch;
/// `None` only outside years 0-9999.
pub fn put_timestamp(ms: u64) -> Option<PutTimestamp> {
    let secs = i64::try_from(ms / 1000).ok()?;
    PutTimestamp::from_unix(secs, (ms % 1000) as u32 * 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_date_and_time_are_gmt_with_hundredths() {
        // 1700000000 s = 2023-11-14T22:13:20Z (`date -u -d @1700000000`); IBM MQ "PutDate
        // (MQCHAR8)", "PutTime (MQCHAR8)": PutDate YYYYMMDD, PutTime HHMMSSTH.
        let t = put_timestamp(1_700_000_000_000).unwrap();
        assert_eq!(
            (t.put_date_digits(), t.put_time_digits()),
            (*b"20231114", *b"22132000")
        );
        // 951782400 s = 2000-02-29T00:00:00Z (leap day); + 23:59:59.994.
        let t = put_timestamp(951_782_400_000 + 86_399_994).unwrap();
        assert_eq!(
            (t.put_date_digits(), t.put_time_digits()),
            (*b"20000229", *b"23595999")
        );
    }
}
