//! A set of segment numbers kept as disjoint, non-adjacent half-open
//! intervals: the receiver's out-of-order data. The highest interval is kept
//! apart, because segments mostly arrive at the top (new data after a hole),
//! where they extend it or open a new one in O(1) plus at most one tree
//! insertion; the others live in a B-tree keyed by their start, so filling a
//! hole anywhere costs O(log n). A loss burst that leaves W/2 holes thus costs
//! O(log W) per segment instead of a linear scan and a shift of the whole list.
//!
//! Allocation: the tree allocates a node only when one fills up as holes
//! appear (amortised over the ≥ 5 entries it then holds) and keeps its root
//! when it empties, so a flow that loses a few segments now and then does
//! not allocate per loss episode.

use std::collections::BTreeMap;

use super::work;

/// Disjoint, non-adjacent intervals `[start, end)` of `u64`.
#[derive(Clone, Debug, Default)]
pub struct IntervalSet {
    /// Every interval but the highest: start → end.
    below: BTreeMap<u64, u64>,
    /// The highest interval (None only when the set is empty).
    top: Option<(u64, u64)>,
    /// Numbers covered (sum of the interval lengths).
    covered: u64,
}

impl IntervalSet {
    /// An empty set (allocates nothing).
    pub fn new() -> IntervalSet {
        IntervalSet::default()
    }

    /// Whether no number is in the set.
    pub fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    /// How many numbers are in the set.
    pub fn covered(&self) -> u64 {
        self.covered
    }

    /// Remove the lowest interval if it starts at `start`; returns its end.
    pub fn pop_first_at(&mut self, start: u64) -> Option<u64> {
        let end = if self.below.is_empty() {
            let (_, end) = self.top.filter(|&(a, _)| a == start)?;
            self.top = None;
            end
        } else {
            self.lookup();
            self.below
                .first_entry()
                .filter(|e| *e.key() == start)?
                .remove()
        };
        self.covered -= end - start;
        Some(end)
    }

    /// Add `x`, merging with the neighbouring intervals; returns the interval
    /// that now holds it, or None if `x` was already in the set.
    pub fn insert(&mut self, x: u64) -> Option<(u64, u64)> {
        let block = match self.top {
            Some((a, b)) if a <= x && x < b => return None,
            Some((a, _)) if x + 1 < a => self.insert_below(x)?,
            top => {
                let top = self.grow_top(top, x);
                self.top = Some(top);
                top
            }
        };
        self.covered += 1;
        Some(block)
    }

    /// The top interval after it takes `x`, which is next to it or above it.
    fn grow_top(&mut self, top: Option<(u64, u64)>, x: u64) -> (u64, u64) {
        match top {
            None => (x, x + 1),
            Some((a, b)) if x == b => (a, b + 1),
            Some((a, b)) if x > b => {
                // A new highest interval: the old one joins the tree.
                self.lookup();
                self.below.insert(a, b);
                (x, x + 1)
            }
            Some((_, b)) => {
                // x is just below the top, which may swallow the interval ending at x.
                self.lookup();
                match self.below.last_entry() {
                    Some(e) if *e.get() == x => (e.remove_entry().0, b),
                    _ => (x, b),
                }
            }
        }
    }

    /// Add `x`, below the top interval and not next to it, to the tree.
    fn insert_below(&mut self, x: u64) -> Option<(u64, u64)> {
        self.lookup();
        // One descent finds the interval starting right after x, if any, and the one before.
        let mut around = self.below.range_mut(..=x + 1);
        let (next_end, prev) = match around.next_back() {
            Some((&a, &mut b)) if a == x + 1 => (Some(b), around.next_back()),
            prev => (None, prev),
        };
        let end = next_end.unwrap_or(x + 1);
        let block = match prev {
            Some((_, &mut b)) if b > x => return None,
            // x extends the interval ending at x (in place), which may swallow the next.
            Some((&a, b)) if *b == x => {
                *b = end;
                (a, end)
            }
            _ => (x, end),
        };
        if next_end.is_some() {
            self.lookup();
            self.below.remove(&(x + 1));
        }
        if block.0 == x {
            self.lookup();
            self.below.insert(x, end);
        }
        Some(block)
    }

    /// The intervals in increasing order.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.below.iter().map(|(&a, &b)| (a, b)).chain(self.top)
    }

    /// Count one tree operation as the O(log n) entries it touches.
    #[inline(always)]
    fn lookup(&self) {
        work::step(u64::from(usize::BITS - self.below.len().leading_zeros()));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    /// The intervals of a plain set of numbers: the model.
    fn runs(set: &BTreeSet<u64>) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &x in set {
            match out.last_mut() {
                Some((_, b)) if *b == x => *b += 1,
                _ => out.push((x, x + 1)),
            }
        }
        out
    }

    #[test]
    fn merges_with_both_neighbours() {
        let mut s = IntervalSet::new();
        assert_eq!(s.insert(5), Some((5, 6)));
        assert_eq!(s.insert(7), Some((7, 8)));
        assert_eq!(s.insert(6), Some((5, 8)));
        assert_eq!(s.insert(4), Some((4, 8)));
        assert_eq!(s.insert(9), Some((9, 10)));
        assert_eq!(s.insert(6), None);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(4, 8), (9, 10)]);
        assert_eq!(s.covered(), 5);
        assert_eq!(s.pop_first_at(5), None);
        assert_eq!(s.pop_first_at(4), Some(8));
        assert_eq!(
            (s.iter().collect::<Vec<_>>(), s.covered()),
            (vec![(9, 10)], 1)
        );
    }

    proptest! {
        #[test]
        fn matches_a_plain_set(ops in proptest::collection::vec((0u8..4, 0u64..64), 0..200)) {
            let mut s = IntervalSet::new();
            let mut model = BTreeSet::new();
            for (op, x) in ops {
                if op < 2 {
                    let new = model.insert(x);
                    let want = runs(&model).into_iter().find(|&(a, b)| a <= x && x < b);
                    prop_assert_eq!(s.insert(x), want.filter(|_| new));
                } else {
                    // Half of the pops name the lowest interval's start.
                    let first = runs(&model).first().copied();
                    let at = if op == 3 { first.map_or(x, |(a, _)| a) } else { x };
                    let want = first.filter(|&(a, _)| a == at).map(|(_, b)| b);
                    prop_assert_eq!(s.pop_first_at(at), want);
                    if let Some(b) = want {
                        model.retain(|&y| y >= b);
                    }
                }
                prop_assert_eq!(s.iter().collect::<Vec<_>>(), runs(&model));
                prop_assert_eq!(s.covered(), model.len() as u64);
                prop_assert_eq!(s.is_empty(), model.is_empty());
            }
        }
    }
}
