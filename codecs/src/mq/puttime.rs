//! PutDate / PutTime values (IBM MQ "PutDate (MQCHAR8)", "PutTime (MQCHAR8)":
//! PutDate `YYYYMMDD`, PutTime `HHMMSSTH`, GMT, hundredths of a second). Pure:
//! the caller passes the instant; nothing here reads a clock.

use super::field::{CharField, Charset};

/// A GMT instant with hundredth-of-a-second resolution, as MQ stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PutTimestamp {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    hundredths: u8,
}

impl PutTimestamp {
    /// A timestamp from its parts; `None` unless year 0-9999, a real calendar
    /// date, hour 0-23, minute 0-59, second 0-59 and hundredths 0-99.
    pub fn new(
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        hundredths: u8,
    ) -> Option<PutTimestamp> {
        let ok = year <= 9999
            && (1..=12).contains(&month)
            && day >= 1
            && u32::from(day) <= crate::calendar::days_in_month(i64::from(year), u32::from(month))
            && hour < 24
            && minute < 60
            && second < 60
            && hundredths < 100;
        ok.then_some(PutTimestamp {
            year,
            month,
            day,
            hour,
            minute,
            second,
            hundredths,
        })
    }

    /// The GMT timestamp `secs` seconds and `nanos` nanoseconds after
    /// 1970-01-01 00:00:00 (e.g. from `SystemTime::duration_since(UNIX_EPOCH)`),
    /// hundredths truncated. `None` outside years 0-9999 or for nanos ≥ 10⁹.
    pub fn from_unix(secs: i64, nanos: u32) -> Option<PutTimestamp> {
        if nanos >= 1_000_000_000 {
            return None;
        }
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = crate::calendar::civil_from_days(days);
        let year = u16::try_from(y).ok()?;
        // civil_from_days gives months 1-12 and days 1-31.
        PutTimestamp::new(
            year,
            m as u8,
            d as u8,
            (sod / 3600) as u8,
            (sod / 60 % 60) as u8,
            (sod % 60) as u8,
            (nanos / 10_000_000) as u8,
        )
    }

    /// PutDate digits `YYYYMMDD`.
    pub fn put_date_digits(&self) -> [u8; 8] {
        let mut out = [0u8; 8];
        digits(&mut out[0..4], u32::from(self.year));
        digits(&mut out[4..6], u32::from(self.month));
        digits(&mut out[6..8], u32::from(self.day));
        out
    }

    /// PutTime digits `HHMMSSTH`.
    pub fn put_time_digits(&self) -> [u8; 8] {
        let mut out = [0u8; 8];
        digits(&mut out[0..2], u32::from(self.hour));
        digits(&mut out[2..4], u32::from(self.minute));
        digits(&mut out[4..6], u32::from(self.second));
        digits(&mut out[6..8], u32::from(self.hundredths));
        out
    }

    /// The timestamp in a PutDate and a PutTime field whose digits are in
    /// `cs` (EBCDIC digits F0-F9). `None` when either field holds anything
    /// but eight digits (a blank field: the putter set none) or the digits
    /// are no real date and time ([`PutTimestamp::new`]).
    pub fn from_fields(date: &CharField<8>, time: &CharField<8>, cs: Charset) -> Option<Self> {
        let d = decimal_digits(&date.0, cs)?;
        let t = decimal_digits(&time.0, cs)?;
        let num = |s: &[u8]| s.iter().fold(0u32, |acc, &v| acc * 10 + u32::from(v));
        PutTimestamp::new(
            u16::try_from(num(&d[0..4])).ok()?,
            num(&d[4..6]) as u8,
            num(&d[6..8]) as u8,
            num(&t[0..2]) as u8,
            num(&t[2..4]) as u8,
            num(&t[4..6]) as u8,
            num(&t[6..8]) as u8,
        )
    }

    /// Milliseconds since 1970-01-01 00:00:00 GMT (negative before it),
    /// the inverse of [`PutTimestamp::from_unix`] to the hundredth.
    pub fn unix_millis(&self) -> i64 {
        let days = crate::calendar::days_from_civil(
            i64::from(self.year),
            u32::from(self.month),
            u32::from(self.day),
        );
        let secs = days * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second);
        secs * 1000 + i64::from(self.hundredths) * 10
    }

    /// The PutDate field in `cs`.
    pub fn put_date(&self, cs: Charset) -> CharField<8> {
        CharField(self.put_date_digits().map(|d| encode_digit(d, cs)))
    }

    /// The PutTime field in `cs`.
    pub fn put_time(&self, cs: Charset) -> CharField<8> {
        CharField(self.put_time_digits().map(|d| encode_digit(d, cs)))
    }
}

/// The values 0-9 of eight digit characters in `cs`; `None` when one is
/// not a digit.
fn decimal_digits(field: &[u8; 8], cs: Charset) -> Option<[u8; 8]> {
    let mut out = [0u8; 8];
    for (o, &b) in out.iter_mut().zip(field) {
        *o = match cs {
            Charset::Ascii => b.checked_sub(b'0').filter(|v| *v <= 9)?,
            Charset::Ebcdic => b.checked_sub(0xF0).filter(|v| *v <= 9)?,
        };
    }
    Some(out)
}

fn encode_digit(d: u8, cs: Charset) -> u8 {
    match cs {
        Charset::Ascii => d,
        // EBCDIC digits are F0-F9 in every EBCDIC CCSID.
        Charset::Ebcdic => d - b'0' + 0xF0,
    }
}

fn digits(out: &mut [u8], mut v: u32) {
    for o in out.iter_mut().rev() {
        *o = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_example_2020_12_31() {
        // IBM MQ "PutTime (MQCHAR8)": put at 2020-12-31 01:02:03.44 → PutDate 20201231,
        // PutTime 01020344.
        let t = PutTimestamp::new(2020, 12, 31, 1, 2, 3, 44).unwrap();
        assert_eq!(&t.put_date_digits(), b"20201231");
        assert_eq!(&t.put_time_digits(), b"01020344");
        // 2020-12-31T01:02:03Z is Unix time 1609376523.
        assert_eq!(PutTimestamp::from_unix(1_609_376_523, 440_000_000), Some(t));
        // EBCDIC digits F0-F9.
        assert_eq!(
            t.put_date(Charset::Ebcdic).0,
            [0xF2, 0xF0, 0xF2, 0xF0, 0xF1, 0xF2, 0xF3, 0xF1]
        );
    }

    #[test]
    fn calendar_edges() {
        assert_eq!(
            PutTimestamp::from_unix(0, 0),
            PutTimestamp::new(1970, 1, 1, 0, 0, 0, 0)
        );
        // 2000-02-29 23:59:59.99 = 951868799.
        assert_eq!(
            PutTimestamp::from_unix(951_868_799, 999_999_999),
            PutTimestamp::new(2000, 2, 29, 23, 59, 59, 99)
        );
        assert_eq!(PutTimestamp::new(2021, 2, 29, 0, 0, 0, 0), None);
        assert_eq!(PutTimestamp::new(2020, 1, 1, 24, 0, 0, 0), None);
        assert_eq!(PutTimestamp::from_unix(i64::MAX, 0), None);
        assert_eq!(PutTimestamp::from_unix(0, 1_000_000_000), None);
    }

    #[test]
    fn fields_read_back_to_the_instant() {
        // The IBM MQ "PutTime (MQCHAR8)" example above: 2020-12-31T01:02:03.44Z
        // is Unix time 1609376523.44.
        let t = PutTimestamp::new(2020, 12, 31, 1, 2, 3, 44).unwrap();
        for cs in [Charset::Ascii, Charset::Ebcdic] {
            let back = PutTimestamp::from_fields(&t.put_date(cs), &t.put_time(cs), cs);
            assert_eq!(back, Some(t));
        }
        assert_eq!(t.unix_millis(), 1_609_376_523_440);
        // Before the epoch: 1969-12-31T23:59:59.00Z is -1 s.
        let before = PutTimestamp::new(1969, 12, 31, 23, 59, 59, 0).unwrap();
        assert_eq!(before.unix_millis(), -1000);
        // Blank fields (no context set), letters, an impossible date.
        let blank = CharField::<8>::BLANK_ASCII;
        assert_eq!(
            PutTimestamp::from_fields(&blank, &t.put_time(Charset::Ascii), Charset::Ascii),
            None
        );
        let letters = CharField(*b"2020123A");
        assert_eq!(
            PutTimestamp::from_fields(&letters, &t.put_time(Charset::Ascii), Charset::Ascii),
            None
        );
        let feb30 = CharField(*b"20210230");
        assert_eq!(
            PutTimestamp::from_fields(&feb30, &t.put_time(Charset::Ascii), Charset::Ascii),
            None
        );
        // ASCII digits read as EBCDIC are no digits.
        assert_eq!(
            PutTimestamp::from_fields(
                &t.put_date(Charset::Ascii),
                &t.put_time(Charset::Ascii),
                Charset::Ebcdic
            ),
            None
        );
    }
}
