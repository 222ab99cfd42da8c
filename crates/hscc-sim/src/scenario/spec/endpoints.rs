//! The fields that name an entry's hosts in its topology's own terms, written
//! once for every entry that has them (TCP flows, UDP flows, VoIP calls).
//! serde's `flatten` would share a struct, but a flattened entry can no longer
//! refuse unknown fields, so the fields are spliced in by a macro instead.

/// `pub struct $name { pair, long, cross, src, dst, $body }`: the five endpoint
/// fields first (`src` and `dst` with the docs given), then the entry's own.
macro_rules! with_endpoints {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            src: $src:literal,
            dst: $dst:literal,
            $($body:tt)*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            /// Dumbbell: index of the host pair.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub pair: Option<usize>,
            /// Parking lot: index of the long (end-to-end) host pair.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub long: Option<usize>,
            /// Parking lot: [bottleneck, index] of a cross host pair.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cross: Option<(usize, usize)>,
            #[doc = $src]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub src: Option<String>,
            #[doc = $dst]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub dst: Option<String>,
            $($body)*
        }
    };
}
pub(super) use with_endpoints;
