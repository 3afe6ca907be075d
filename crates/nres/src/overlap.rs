//! Payloads that share bytes. NRes allows it (two entries may point at one
//! payload), but every writer gives each entry its own copy, so a file of
//! many entries on one payload grows by that payload once per entry when it
//! is written again. Found from the directory alone, before any payload is
//! copied.

use crate::raw::RawEntry;
use std::ops::Range;

/// Two entries whose payloads share at least one byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The entry whose payload starts first (its directory index) and its
    /// byte range in the file.
    pub first: (usize, Range<u64>),
    /// An entry whose payload starts inside the first's, and its range.
    pub second: (usize, Range<u64>),
}

impl Overlap {
    /// The bytes the two share: the second's start up to the nearer end.
    pub fn shared(&self) -> Range<u64> {
        self.second.1.start..self.first.1.end.min(self.second.1.end)
    }
}

/// An entry's payload as the directory gives it: a byte range of the file
/// (not checked against the file's length).
pub fn payload_range(entry: &RawEntry) -> Range<u64> {
    let start = u64::from(entry.data_offset.get());
    start..start + u64::from(entry.size.get())
}

/// The first two payloads, in file order, that share a byte, among
/// `payloads` (directory index and byte range). Empty payloads hold no
/// bytes and share none, wherever they point. Sorts one index and range per
/// payload: O(n log n) time, O(n) memory, whatever the ranges claim.
///
/// ```
/// use nres::first_overlap;
///
/// assert_eq!(first_overlap([(0, 16..24), (1, 24..32), (2, 20..20)]), None);
/// let o = first_overlap([(0, 16..24), (1, 40..48), (2, 16..24)]).unwrap();
/// assert_eq!((o.first.0, o.second.0, o.shared()), (0, 2, 16..24));
/// ```
pub fn first_overlap(payloads: impl IntoIterator<Item = (usize, Range<u64>)>) -> Option<Overlap> {
    let mut filled: Vec<(usize, Range<u64>)> = payloads
        .into_iter()
        .filter(|(_, r)| !r.is_empty())
        .collect();
    filled.sort_unstable_by_key(|(i, r)| (r.start, r.end, *i));
    // The payload reaching furthest so far: a later start before its end
    // shares its bytes.
    let mut furthest: Option<&(usize, Range<u64>)> = None;
    for next in &filled {
        if let Some(reach) = furthest {
            if next.1.start < reach.1.end {
                return Some(Overlap {
                    first: reach.clone(),
                    second: next.clone(),
                });
            }
        }
        if furthest.is_none_or(|reach| next.1.end > reach.1.end) {
            furthest = Some(next);
        }
    }
    None
}

/// [`first_overlap`] over every entry of a directory.
pub fn first_overlap_of(entries: &[RawEntry]) -> Option<Overlap> {
    first_overlap(entries.iter().map(payload_range).enumerate())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two ranges share a byte, by their definition.
    fn share(a: &Range<u64>, b: &Range<u64>) -> bool {
        (a.start..a.end).any(|x| b.contains(&x))
    }

    #[test]
    fn agrees_with_a_pairwise_comparison() {
        // Every set of three ranges over 0..6 (empty ones included).
        let ranges: Vec<Range<u64>> = (0..6).flat_map(|s| (s..6).map(move |e| s..e)).collect();
        for a in &ranges {
            for b in &ranges {
                for c in &ranges {
                    let set = [a.clone(), b.clone(), c.clone()];
                    let pairwise = (0..3).any(|i| (i + 1..3).any(|j| share(&set[i], &set[j])));
                    let found = first_overlap(set.iter().cloned().enumerate());
                    assert_eq!(found.is_some(), pairwise, "{set:?}");
                    if let Some(o) = found {
                        assert!(share(&o.first.1, &o.second.1), "{set:?}: {o:?}");
                        assert_eq!(set[o.first.0], o.first.1);
                        assert_eq!(set[o.second.0], o.second.1);
                        assert!(!o.shared().is_empty());
                    }
                }
            }
        }
    }

    #[test]
    fn shared_payloads_name_both_entries() {
        let o = first_overlap([(3, 100..200), (0, 16..100), (7, 100..200)]).unwrap();
        assert_eq!(o.first, (3, 100..200));
        assert_eq!(o.second, (7, 100..200));
        assert_eq!(o.shared(), 100..200);
        let o = first_overlap([(0, 16..116), (1, 50..60)]).unwrap();
        assert_eq!(o.shared(), 50..60);
    }
}
