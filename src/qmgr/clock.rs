//! Wall-clock helpers: epoch milliseconds and MQ's PutDate/PutTime (GMT).

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

/// PutDate `YYYYMMDD` and PutTime `HHMMSSTH` (hundredths) in GMT for `ms`
/// since the epoch (spec: mq-structures.md §4).
pub fn put_date_time(ms: u64) -> ([u8; 8], [u8; 8]) {
    let days = (ms / 86_400_000) as i64;
    let in_day = ms % 86_400_000;
    let (y, m, d) = civil_from_days(days);
    let date = format!("{y:04}{m:02}{d:02}");
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, hundredths) = (rest / 1000, (rest % 1000) / 10);
    let time = format!("{h:02}{min:02}{s:02}{hundredths:02}");
    let mut out = ([b'0'; 8], [b'0'; 8]);
    out.0.copy_from_slice(&date.as_bytes()[..8]);
    out.1.copy_from_slice(&time.as_bytes()[..8]);
    out
}

/// Gregorian (year, month, day) of a day count since 1970-01-01
/// (H. Hinnant's civil_from_days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_date_and_time_are_gmt_with_hundredths() {
        // 1700000000 s = 2023-11-14T22:13:20Z (POSIX `date -u -d @1700000000`).
        assert_eq!(
            put_date_time(1_700_000_000_000),
            (*b"20231114", *b"22132000")
        );
        assert_eq!(put_date_time(0), (*b"19700101", *b"00000000"));
        // 951782400 s = 2000-02-29T00:00:00Z (leap day); +23:59:59.994.
        assert_eq!(
            put_date_time(951_782_400_000 + 86_399_994),
            (*b"20000229", *b"23595999")
        );
    }
}
