//! Prints the CPU the benchmark runs on (model name, family, model and
//! stepping from /proc/cpuinfo, and the vector features the kernels
//! dispatch on), so figures can be recorded per CPU model in
//! docs/performance.md. Shared by the codecs and exits benchmarks
//! (`#[path]` include).

/// One line: `CPU: <model name> (family F model M stepping S); <features>`.
pub fn describe() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_string())
            })
            .unwrap_or_else(|| "?".to_string())
    };
    let flags = field("flags");
    let has: Vec<&str> = [
        "avx2",
        "bmi2",
        "avx512f",
        "avx512bw",
        "avx512vbmi",
        "avx512_vbmi2",
        "erms",
        "fsrm",
    ]
    .into_iter()
    .filter(|f| flags.split_whitespace().any(|x| x == *f))
    .collect();
    format!(
        "CPU: {} (family {} model {} stepping {}); {}",
        field("model name"),
        field("cpu family"),
        field("model"),
        field("stepping"),
        has.join(" ")
    )
}
