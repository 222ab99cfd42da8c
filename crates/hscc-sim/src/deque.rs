//! One rule for the engine's FIFOs (`VecDeque`s).

use std::collections::VecDeque;

/// Start an emptied deque again at the front of its buffer. A ring buffer's
/// head otherwise walks its whole capacity, however few items it holds at a
/// time: a line that once held thousands of packets (a slow-start burst) and
/// now holds one or two would touch a new cache line with nearly every packet,
/// where rewound it keeps to its first few.
#[inline]
pub(crate) fn rewind_if_empty<T>(d: &mut VecDeque<T>) {
    if d.is_empty() {
        d.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// The buffer slots that 100 cycles of one push and one pop write to.
    fn slots_written(rewind: bool) -> usize {
        let mut d: VecDeque<u64> = VecDeque::with_capacity(1024);
        let mut slots = HashSet::new();
        for i in 0..100 {
            d.push_back(i);
            slots.insert(std::ptr::from_ref(d.back().unwrap()));
            d.pop_front();
            if rewind {
                rewind_if_empty(&mut d);
            }
        }
        slots.len()
    }

    #[test]
    fn a_deque_that_empties_writes_its_next_item_where_it_wrote_the_last() {
        assert_eq!(slots_written(true), 1);
        assert_eq!(
            slots_written(false),
            100,
            "without the rewind the head walks"
        );
    }
}
