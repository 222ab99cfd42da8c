//! The event queue's store: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan
//! 1990) of distinct nonzero `u128` keys, popped smallest first.
//!
//! A heap's pop walks from the root to a leaf, so its cost grows with the log
//! of the pending events: at 10 000 flows each flow's timers and the head of
//! each of its links' delay lines are pending, some 24 000 events against 40
//! at 10 flows. A radix heap puts each key in the bucket of the highest bit,
//! from bit `SHIFT` up, in which it differs from the last key popped, or in
//! bucket 0 if none. Every key of a lower bucket is smaller than every key of
//! a higher one, so the smallest key is in the lowest bucket holding any (a
//! bit mask finds it, a scan of that bucket the key); popping it from bucket
//! b > 0 moves the rest of that bucket down, each key to a lower bucket, so a
//! key moves at most once per bit from `SHIFT` up and mostly never, and a push
//! is a bit count and an append. It needs what a simulation gives: no key
//! pushed below the last one popped (nothing is scheduled in the past). A key
//! that is (after a renumbering, or `push_first` at the current time) has
//! every pending key sorted again, so the order is the keys' always.

/// Keys are bucketed by their bits from this one up (an event queue's: the
/// time in units of 2^20 ps, about a microsecond): keys that agree on those
/// share bucket 0, and the smallest of a bucket is found by a scan.
const SHIFT: u32 = 84;
/// Buckets: bucket 0, then one per bit from `SHIFT` up a key can first differ
/// in from the last key popped.
const BUCKETS: usize = 129 - SHIFT as usize;

/// Distinct nonzero `u128` keys, smallest first.
#[derive(Debug)]
pub(super) struct RadixHeap {
    /// The last key popped (0 before any): every pending key is above it.
    last: u128,
    /// `buckets[0]`: the keys that agree with `last` from bit `SHIFT` up;
    /// `buckets[b]`: those whose highest bit differing from it is `SHIFT + b - 1`.
    buckets: Vec<Vec<u128>>,
    /// Bit `b` set: `buckets[b]` holds keys.
    occupied: u64,
    len: usize,
    /// The smallest key (0: not known), once found and until a pop removes it
    /// (a push of a smaller key replaces it), and its bucket and place in it:
    /// the run loop peeks at each event and then pops it, and one scan of a
    /// bucket serves both.
    least: u128,
    least_at: (u32, u32),
}

impl Default for RadixHeap {
    fn default() -> Self {
        RadixHeap {
            last: 0,
            buckets: vec![Vec::new(); BUCKETS],
            occupied: 0,
            len: 0,
            least: 0,
            least_at: (0, 0),
        }
    }
}

/// The bucket of `key` (`key > last`).
#[inline]
fn bucket(key: u128, last: u128) -> usize {
    (128 - ((key ^ last) >> SHIFT).leading_zeros()) as usize
}

impl RadixHeap {
    /// Add `key`, which is not 0 and no pending key equals.
    #[inline(always)]
    pub fn push(&mut self, key: u128) {
        debug_assert_ne!(key, 0, "keys are nonzero");
        if key <= self.last {
            self.rebase();
        }
        let b = bucket(key, self.last);
        self.buckets[b].push(key);
        self.occupied |= 1 << b;
        self.len += 1;
        // Never while the least is not known (0).
        if key < self.least {
            self.least = key;
            self.least_at = (b as u32, self.buckets[b].len() as u32 - 1);
        }
    }

    /// The smallest key, with its bucket and place in it.
    #[inline]
    fn least(&mut self) -> Option<(u128, usize, usize)> {
        if self.least == 0 && self.occupied != 0 {
            let b = self.occupied.trailing_zeros() as usize;
            let (i, &key) = self.buckets[b]
                .iter()
                .enumerate()
                .min_by_key(|&(_, k)| k)
                .expect("an occupied bucket holds a key");
            self.least = key;
            self.least_at = (b as u32, i as u32);
        }
        let (b, i) = self.least_at;
        (self.least != 0).then_some((self.least, b as usize, i as usize))
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&mut self) -> Option<u128> {
        self.least().map(|(key, _, _)| key)
    }

    /// Remove and return the smallest key; the rest of its bucket moves down
    /// (bucket 0's stays: it agrees with the new last key as with the old).
    #[inline]
    pub fn pop(&mut self) -> Option<u128> {
        let (key, b, i) = self.least()?;
        self.least = 0;
        self.last = key;
        self.len -= 1;
        if b == 0 {
            let keys = &mut self.buckets[0];
            keys.swap_remove(i);
            if keys.is_empty() {
                self.occupied &= !1;
            }
            return Some(key);
        }
        let mut rest = std::mem::take(&mut self.buckets[b]);
        rest.swap_remove(i);
        self.occupied &= !(1 << b);
        for k in rest.drain(..) {
            let to = bucket(k, key);
            self.buckets[to].push(k);
            self.occupied |= 1 << to;
        }
        self.buckets[b] = rest; // empty, its capacity kept
        Some(key)
    }

    /// Number of pending keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Remove and return every pending key, in no particular order; any key
    /// may be pushed after.
    pub fn take_all(&mut self) -> Vec<u128> {
        let mut all = Vec::with_capacity(self.len);
        for keys in &mut self.buckets {
            all.append(keys);
        }
        self.occupied = 0;
        self.len = 0;
        self.last = 0;
        self.least = 0;
        all
    }

    /// Sort every pending key again above 0 (no key is 0): for a key pushed at
    /// or below the last one popped.
    #[cold]
    fn rebase(&mut self) {
        for key in self.take_all() {
            self.push(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Pops come smallest first, against a sorted set, whether keys are
        /// pushed above the last one popped (as a simulation does) or below it,
        /// and peeks (which keep the least key) come between pushes and pops.
        #[test]
        fn pops_come_smallest_first(
            ops in proptest::collection::vec((0u8..5, 1u128..u128::MAX, proptest::bool::ANY), 1..400)
        ) {
            let mut heap = RadixHeap::default();
            let mut model = std::collections::BTreeSet::new();
            let mut last = 0u128;
            for (op, x, above) in ops {
                if op < 3 {
                    // Above the last popped key mostly; anywhere sometimes.
                    let key = if above { last.saturating_add(x % (1 << 70)).max(1) } else { x };
                    if model.insert(key) {
                        heap.push(key);
                    }
                } else if op == 3 {
                    proptest::prop_assert_eq!(heap.peek(), model.first().copied());
                } else {
                    let want = model.pop_first();
                    proptest::prop_assert_eq!(heap.peek(), want);
                    proptest::prop_assert_eq!(heap.pop(), want);
                    last = want.unwrap_or(last);
                }
                proptest::prop_assert_eq!(heap.len(), model.len());
            }
            while let Some(want) = model.pop_first() {
                proptest::prop_assert_eq!(heap.pop(), Some(want));
            }
            proptest::prop_assert_eq!(heap.pop(), None);
        }
    }

    #[test]
    fn keys_far_apart_and_close_together_pop_in_order() {
        let mut heap = RadixHeap::default();
        let keys = [u128::MAX, 1, 2, 3, 1 << 64, (1 << 64) + 1, 1 << 100, 7];
        for k in keys {
            heap.push(k);
        }
        heap.push(5);
        let mut sorted = keys.to_vec();
        sorted.push(5);
        sorted.sort_unstable();
        let popped: Vec<_> = std::iter::from_fn(|| heap.pop()).collect();
        assert_eq!(popped, sorted);
    }
}
