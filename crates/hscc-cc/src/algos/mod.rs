//! One file per algorithm, named as Linux names it.

pub mod reno;
pub mod highspeed;
pub mod scalable;
pub mod bic;
pub mod cubic;
pub mod htcp;
pub mod multcp;
pub mod ctcp;
pub mod fit;
pub mod sync;
pub mod africa;
pub mod vegas;
pub mod fast;
pub mod illinois;
pub mod westwood;
pub mod veno;
