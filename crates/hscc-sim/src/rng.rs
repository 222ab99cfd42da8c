//! Per-component random sources.
//!
//! Every random source (a link's loss and jitter, a traffic generator) is
//! seeded from the run seed and its own component id, so adding a flow or a
//! link does not change the random numbers any other component draws.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The generator used everywhere in the simulator.
pub type Rng = Pcg64Mcg;

/// Kinds of component that own a random source.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Component {
    /// A unidirectional link (loss, jitter).
    Link = 1,
    /// A flow's sender (processing jitter).
    Sender = 2,
    /// A traffic generator.
    Traffic = 3,
    /// A link's queue discipline (RED's and PIE's drops, FQ-CoDel's hash), apart
    /// from the link's own stream so that a discipline leaves loss draws as they were.
    Queue = 4,
    /// Packet captures' initial sequence numbers (drawn apart from every
    /// stream the simulation uses, so a capture never changes a run).
    Capture = 5,
    /// A flow's congestion control, for what Linux draws at random (BBR's
    /// gain-cycle phase): apart from the sender's stream, so that an algorithm
    /// that draws leaves host timing as it was.
    Algorithm = 6,
    /// The random offset of a flow's receiver's timestamp clock (Linux's
    /// `tsoffset`): drawn apart, so that it changes no other draw.
    Timestamps = 7,
    /// A TCP flow's start time drawn from a distribution: apart, so that a
    /// fixed start draws nothing and a drawn one changes no other draw.
    Start = 8,
    /// A UDP flow's or VoIP call's start time drawn from a distribution.
    UdpStart = 9,
}

/// SplitMix64 finaliser: a good 64-bit mix for deriving seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random source of component `(kind, id)` in a run seeded with `seed`.
pub fn component_rng(seed: u64, kind: Component, id: u64) -> Rng {
    Rng::seed_from_u64(component_seed(seed, kind, id))
}

/// The seed of component `(kind, id)` in a run seeded with `seed`.
pub fn component_seed(seed: u64, kind: Component, id: u64) -> u64 {
    mix(mix(mix(seed) ^ kind as u64) ^ id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn streams_depend_on_seed_and_component_only() {
        let a: u64 = component_rng(7, Component::Link, 3).random();
        let b: u64 = component_rng(7, Component::Link, 3).random();
        let c: u64 = component_rng(7, Component::Link, 4).random();
        let d: u64 = component_rng(8, Component::Link, 3).random();
        let e: u64 = component_rng(7, Component::Sender, 3).random();
        assert_eq!(a, b);
        assert!(a != c && a != d && a != e);
    }
}
