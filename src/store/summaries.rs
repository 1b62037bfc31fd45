//! The summaries a start loads ([`super::Store::load_index`]), kept in one
//! block of bytes: a million summaries are two allocations instead of a
//! million (docs/performance.md "Devices at scale").

/// What [`super::Store::load_index_parts`] hands over.
#[derive(Debug)]
pub enum IndexPart {
    /// How many keys the parts will hold in all (sent first).
    Expect(usize),
    /// Some of the keys with their summaries.
    Summaries(Summaries),
}

/// Every live key with its summary, in ascending key order once
/// [`Summaries::sort`] ran: the keys with where each summary lies in one
/// shared buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summaries {
    bytes: Vec<u8>,
    /// (key, start, end): the summary is `bytes[start..end]`.
    keys: Vec<(u64, usize, usize)>,
}

impl Summaries {
    /// Room for `keys` summaries of `bytes` bytes in all.
    pub fn with_capacity(keys: usize, bytes: usize) -> Summaries {
        Summaries {
            bytes: Vec::with_capacity(bytes),
            keys: Vec::with_capacity(keys),
        }
    }

    /// Adds `summary` under `key` (empty: the key has none).
    pub fn push(&mut self, key: u64, summary: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(summary);
        self.keys.push((key, start, self.bytes.len()));
    }

    /// Puts the keys in ascending order (the bytes stay where they are).
    pub fn sort(&mut self) {
        self.keys.sort_unstable_by_key(|&(k, _, _)| k);
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there is no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The highest key, whatever the order.
    pub fn max_key(&self) -> Option<u64> {
        self.keys.iter().map(|&(k, _, _)| k).max()
    }

    /// Each key with its summary, in the order they are kept.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (u64, &[u8])> {
        self.keys
            .iter()
            .map(|&(k, start, end)| (k, self.bytes.get(start..end).unwrap_or_default()))
    }

    /// Each key with a copy of its summary, in the order they are kept.
    pub fn to_vec(&self) -> Vec<(u64, Vec<u8>)> {
        self.iter().map(|(k, s)| (k, s.to_vec())).collect()
    }
}

impl<'a> FromIterator<(u64, &'a [u8])> for Summaries {
    fn from_iter<I: IntoIterator<Item = (u64, &'a [u8])>>(iter: I) -> Summaries {
        let mut out = Summaries::default();
        for (k, s) in iter {
            out.push(k, s);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_keep_their_bytes_and_sort_by_key() {
        let mut s = Summaries::with_capacity(3, 8);
        s.push(9, b"nine");
        s.push(2, b"");
        s.push(5, b"five");
        assert_eq!(s.len(), 3);
        assert_eq!(s.max_key(), Some(9));
        s.sort();
        assert_eq!(
            s.to_vec(),
            vec![(2, vec![]), (5, b"five".to_vec()), (9, b"nine".to_vec())]
        );
        let again: Summaries = s.iter().collect();
        assert_eq!(again.to_vec(), s.to_vec());
        assert!(Summaries::default().is_empty());
        assert_eq!(Summaries::default().max_key(), None);
    }
}
