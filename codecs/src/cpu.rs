//! Which vector kernels this CPU runs, found at run time (docs/performance.md
//! "Kernels and the CPU"): the CCSID converters and the MQ header editors
//! each have a scalar form that runs everywhere and faster forms for x86_64
//! CPUs with AVX2 or AVX-512. Detection reads std's cached CPUID results;
//! nothing here is stored.

/// A set of kernels, from the plainest to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Byte-at-a-time loops, on every CPU.
    Scalar,
    /// x86_64 with AVX2 and POPCNT.
    Avx2,
    /// x86_64 with AVX-512 F, BW, VBMI, VBMI2, BMI2 and POPCNT (the
    /// `#[target_feature]` set of every AVX-512 kernel).
    Avx512,
}

/// The kernels this CPU runs. Only made here, by checking the CPU, so
/// holding one at a vector level is what makes that level's `unsafe`
/// calls sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernels(Level);

impl Kernels {
    /// The widest kernels the CPU has (a few loads of std's cached flags).
    #[inline]
    pub(crate) fn detect() -> Kernels {
        Kernels::at_most(Level::Avx512)
    }

    /// The widest kernels the CPU has, but not above `max` (the tests run
    /// every lower level this way).
    #[inline]
    pub(crate) fn at_most(max: Level) -> Kernels {
        #[cfg(target_arch = "x86_64")]
        {
            if max >= Level::Avx512 && has_avx512() {
                return Kernels(Level::Avx512);
            }
            if max >= Level::Avx2 && has_avx2() {
                return Kernels(Level::Avx2);
            }
        }
        let _ = max;
        Kernels(Level::Scalar)
    }

    /// Which level these are.
    #[inline]
    pub(crate) fn level(self) -> Level {
        self.0
    }
}

/// Whether the CPU has the [`Level::Avx2`] features.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
}

/// Whether the CPU has the [`Level::Avx512`] features.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vbmi")
        && std::is_x86_feature_detected!("avx512vbmi2")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
}

/// Every level of kernels this CPU runs, each once (scalar always).
#[cfg(test)]
pub(crate) fn levels() -> Vec<Kernels> {
    let mut v: Vec<Kernels> = [Level::Scalar, Level::Avx2, Level::Avx512]
        .into_iter()
        .map(Kernels::at_most)
        .collect();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn levels_follow_the_cpu_and_the_cap() {
        // The CPU's own flags (std's CPUID reading) decide the top level;
        // a cap lowers it, never raises it.
        let top = Kernels::detect().level();
        assert_eq!(top == Level::Avx512, has_avx512());
        assert_eq!(top >= Level::Avx2, has_avx2());
        assert_eq!(Kernels::at_most(Level::Scalar).level(), Level::Scalar);
        assert_eq!(
            Kernels::at_most(Level::Avx2).level(),
            if has_avx2() {
                Level::Avx2
            } else {
                Level::Scalar
            }
        );
        assert_eq!(levels().last().map(|k| k.level()), Some(top));
    }
}
