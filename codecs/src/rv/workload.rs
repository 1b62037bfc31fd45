//! A reproducible subject workload for measuring subject matching
//! (docs/performance.md "Rendezvous subjects"): the same subscriptions and
//! lookup subjects in every run, shared by the interest index's criterion
//! benchmark and `mqgate bench rv --matching`, so that their figures are
//! of the same mix.
//!
//! The subject space is market data, `MD.<region>.<venue>.<symbol>.<field>`:
//! 10 regions × 100 venues × 10,000 symbols × 10 fields. Subscriptions are
//! drawn as:
//! - 80 % literal: `MD.R3.V41.S5077.F2`;
//! - 5 % `MD.R3.*.S5077.F2` and 5 % `MD.R3.V41.S5077.*`;
//! - 9 % `MD.R3.V41.S5077.>` and 1 % `MD.R3.V41.>` (a venue's whole feed).
//!
//! Every text is a valid subject in listen mode (subscriptions) or send
//! mode (lookup subjects), in Rendezvous and in NATS syntax alike.

/// The generator's fixed seed.
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// The market-data mix: a fixed-seed generator of subscription patterns
/// and lookup subjects. Two generators made with [`MarketDataMix::new`]
/// give the same sequence.
#[derive(Clone, Debug)]
pub struct MarketDataMix {
    /// xorshift64 state; never zero.
    state: u64,
}

impl Default for MarketDataMix {
    fn default() -> Self {
        MarketDataMix::new()
    }
}

impl MarketDataMix {
    /// A generator at the start of the fixed sequence.
    pub fn new() -> Self {
        MarketDataMix { state: SEED }
    }

    /// A number below `n` (`n` at least 1), the next of the sequence.
    fn below(&mut self, n: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state % n.max(1)
    }

    /// Region, venue, symbol and field of a subject.
    fn coordinates(&mut self) -> (u64, u64, u64, u64) {
        (
            self.below(10),
            self.below(100),
            self.below(10_000),
            self.below(10),
        )
    }

    /// The next subscription pattern of the mix.
    pub fn pattern(&mut self) -> String {
        let (r, v, s, f) = self.coordinates();
        match self.below(100) {
            0..5 => format!("MD.R{r}.*.S{s}.F{f}"),
            5..10 => format!("MD.R{r}.V{v}.S{s}.*"),
            10..19 => format!("MD.R{r}.V{v}.S{s}.>"),
            19 => format!("MD.R{r}.V{v}.>"),
            _ => format!("MD.R{r}.V{v}.S{s}.F{f}"),
        }
    }

    /// `count` subscription patterns, the next of the sequence.
    pub fn patterns(&mut self, count: usize) -> Vec<String> {
        (0..count).map(|_| self.pattern()).collect()
    }

    /// `count` literal subjects to look up among `patterns`: every other
    /// one the subject of a literal subscription in `patterns` (the first
    /// is), the others drawn from the whole space. With no literal
    /// subscription in `patterns`, all are drawn from the space.
    pub fn lookup_subjects(&mut self, patterns: &[String], count: usize) -> Vec<String> {
        let literal: Vec<&String> = patterns
            .iter()
            .filter(|p| !p.contains(['*', '>']))
            .collect();
        (0..count)
            .map(|i| {
                if i % 2 == 0 && !literal.is_empty() {
                    literal[self.below(literal.len() as u64) as usize].clone()
                } else {
                    let (r, v, s, f) = self.coordinates();
                    format!("MD.R{r}.V{v}.S{s}.F{f}")
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::MarketDataMix;
    use crate::rv::{Mode, Subject};

    #[test]
    fn the_mix_has_its_documented_shares() {
        // The shares of the module documentation (docs/performance.md
        // "Rendezvous subjects"): 80 % literal, 5 % + 5 % `*`, 9 % + 1 % `>`,
        // within 1 % of 100,000 draws.
        let patterns = MarketDataMix::new().patterns(100_000);
        let share = |f: &dyn Fn(&str) -> bool| {
            patterns.iter().filter(|p| f(p)).count() as f64 / patterns.len() as f64
        };
        let literal = share(&|p| !p.contains(['*', '>']));
        let star_venue = share(&|p| p.split('.').nth(2) == Some("*"));
        let star_field = share(&|p| p.ends_with(".*"));
        let full_symbol = share(&|p| p.ends_with(".>") && p.split('.').count() == 5);
        let full_venue = share(&|p| p.ends_with(".>") && p.split('.').count() == 4);
        for (got, want) in [
            (literal, 0.80),
            (star_venue, 0.05),
            (star_field, 0.05),
            (full_symbol, 0.09),
            (full_venue, 0.01),
        ] {
            assert!((got - want).abs() < 0.01, "{got} vs {want}");
        }
    }

    #[test]
    fn the_sequence_is_fixed_and_every_text_is_valid() {
        let mut a = MarketDataMix::new();
        let mut b = MarketDataMix::new();
        let patterns = a.patterns(1000);
        assert_eq!(patterns, b.patterns(1000));
        let subjects = a.lookup_subjects(&patterns, 100);
        assert_eq!(subjects, b.lookup_subjects(&patterns, 100));
        for p in &patterns {
            assert!(Subject::parse(p, Mode::Listen).is_ok(), "{p}");
        }
        for s in &subjects {
            assert!(Subject::parse(s, Mode::Send).is_ok(), "{s}");
        }
        // Every other lookup subject is a literal subscription's.
        for s in subjects.iter().step_by(2) {
            assert!(patterns.contains(s), "{s}");
        }
    }
}
