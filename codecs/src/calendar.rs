//! Proleptic Gregorian calendar arithmetic on day counts from 1970-01-01,
//! shared by the MQMD PutDate/PutTime text (`mq::puttime`) and Rendezvous
//! datetimes (`rv::datetime`). The day-count conversions are H. Hinnant's
//! `days_from_civil` / `civil_from_days` ("chrono-Compatible Low-Level Date
//! Algorithms"): 400-year eras of 146,097 days with years starting on
//! 1 March, so the leap day is the last day of a year; 0000-03-01 is
//! 719,468 days before 1970-01-01.

/// True for a leap year.
pub(crate) fn is_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

/// Days in `month` (1-12) of `year`.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to `year`-`month`-`day` (month 1-12).
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month (1-12) and day of a day count from 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days_and_round_trips() {
        // 2000-03-01 is day 11017 after 1970-01-01; 1969-12-31 is day -1.
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert!(is_leap(2000) && !is_leap(1900) && is_leap(2024) && !is_leap(2023));
        assert_eq!(days_in_month(2024, 2), 29);
        for d in (-800_000..800_000).step_by(997) {
            let (y, m, day) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, day), d);
        }
    }
}
