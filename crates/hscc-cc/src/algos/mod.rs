//! One file per algorithm, named as Linux names it.

pub mod reno;
