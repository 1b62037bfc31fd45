//! A criterion measurement of the benchmark thread's CPU time
//! (CLOCK_THREAD_CPUTIME_ID) instead of wall time: the build machine is
//! shared, and time the thread spends preempted is not the code's. Values are
//! nanoseconds; throughputs MiB/s. Shared by the codecs and exits benchmarks
//! (`#[path]` include).

use criterion::Throughput;
use criterion::measurement::{Measurement, ValueFormatter};

/// Thread CPU time in nanoseconds.
pub struct ThreadCpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self
    }
}

impl ValueFormatter for ThreadCpuTime {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ns (cpu)"
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let bytes = match *t {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) | Throughput::Elements(b) => {
                b as f64
            }
        };
        values
            .iter_mut()
            .for_each(|v| *v = bytes / (*v / 1e9) / (1024.0 * 1024.0));
        "MiB/s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
