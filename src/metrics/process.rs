//! Process and build information for `GET /metrics`, read from Linux's
//! /proc at each fetch (proc(5): /proc/self/stat, /proc/self/status,
//! /proc/self/fd, /proc/stat), named as the Prometheus client libraries
//! name them ("Writing client libraries", "Standard and runtime
//! collectors"): `process_start_time_seconds`,
//! `process_resident_memory_bytes`, `process_open_fds`.

use std::path::Path;

/// What the process collector reports; a field is `None` where /proc does
/// not give it (another operating system, a restricted /proc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcessSample {
    /// Seconds since the Unix epoch at which the process started.
    pub start_time_s: Option<f64>,
    /// VmRSS of /proc/self/status, in bytes.
    pub resident_bytes: Option<u64>,
    /// Entries of /proc/self/fd.
    pub open_fds: Option<u64>,
    /// RLIMIT_NOFILE's soft limit (the "Max open files" line of
    /// /proc/self/limits).
    pub max_fds: Option<u64>,
}

/// Reads the process sample now.
pub fn sample() -> ProcessSample {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    ProcessSample {
        start_time_s: start_time(
            read("/proc/self/stat").as_deref(),
            read("/proc/stat").as_deref(),
            clock_ticks(),
        ),
        resident_bytes: read("/proc/self/status")
            .as_deref()
            .and_then(resident_bytes),
        open_fds: count_entries(Path::new("/proc/self/fd")),
        max_fds: read("/proc/self/limits")
            .as_deref()
            .and_then(max_open_files),
    }
}

/// The clock ticks per second that /proc/self/stat's times count in.
fn clock_ticks() -> Option<u64> {
    // SAFETY: sysconf reads a constant of the C library; it takes no
    // pointer and may be called from any thread.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0)
}

/// The start time from `stat` (/proc/self/stat: field 22, `starttime`, in
/// clock ticks after boot) and `proc_stat` (/proc/stat: the `btime` line,
/// boot time in seconds since the epoch).
fn start_time(stat: Option<&str>, proc_stat: Option<&str>, ticks: Option<u64>) -> Option<f64> {
    // The command name (field 2) is in parentheses and may hold spaces:
    // the fields after it start after the last ')'.
    let after_name = &stat?[stat?.rfind(')')? + 1..];
    // Field 3 (state) is the first after the name; starttime is field 22.
    let start_ticks: u64 = after_name.split_whitespace().nth(22 - 3)?.parse().ok()?;
    let btime: u64 = proc_stat?
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    Some(btime as f64 + start_ticks as f64 / ticks? as f64)
}

/// VmRSS of /proc/self/status (`VmRSS:   1234 kB`), in bytes.
fn resident_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().next()?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The soft limit of the `Max open files` line of /proc/self/limits.
fn max_open_files(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse().ok()
}

fn count_entries(dir: &Path) -> Option<u64> {
    Some(std::fs::read_dir(dir).ok()?.count() as u64)
}

/// The `version` and `commit` labels of `mqgate_build_info`: the crate's
/// version, and the git commit `MQGATE_GIT_COMMIT` named when the binary was
/// built (empty when it was not set).
pub fn build_labels() -> [(&'static str, &'static str); 2] {
    [
        ("version", env!("CARGO_PKG_VERSION")),
        ("commit", option_env!("MQGATE_GIT_COMMIT").unwrap_or("")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_from_stat_and_btime() {
        // proc(5) /proc/pid/stat: field 22 starttime in clock ticks since
        // boot. A command name with a space and a ')' in it, 250 ticks at
        // 100 per second, booted at 1700000000.
        let stat =
            "4242 (my) prog) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 250 1000000 300";
        let proc_stat = "cpu  1 2 3\nbtime 1700000000\nprocesses 7\n";
        assert_eq!(
            start_time(Some(stat), Some(proc_stat), Some(100)),
            Some(1_700_000_002.5)
        );
        assert_eq!(
            start_time(Some("garbage"), Some(proc_stat), Some(100)),
            None
        );
        assert_eq!(start_time(Some(stat), Some("cpu 1\n"), Some(100)), None);
    }

    #[test]
    fn resident_memory_and_fd_limit() {
        // proc(5) /proc/pid/status: "VmRSS: Resident set size", in kB.
        let status = "Name:\tmqgate\nVmPeak:\t  9000 kB\nVmRSS:\t    2048 kB\n";
        assert_eq!(resident_bytes(status), Some(2048 * 1024));
        assert_eq!(resident_bytes("Name:\tx\n"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 524288               files     \n";
        assert_eq!(max_open_files(limits), Some(1024));
    }

    #[test]
    fn this_process_reads_on_linux() {
        let s = sample();
        // The test process holds at least stdin, stdout and stderr.
        assert!(s.open_fds.is_some_and(|n| n >= 3), "{s:?}");
        assert!(s.resident_bytes.is_some_and(|b| b > 0), "{s:?}");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            s.start_time_s
                .is_some_and(|t| t <= now + 1.0 && t > now - 86_400.0 * 365.0),
            "{s:?}"
        );
    }
}
