//! One file per algorithm, named as Linux names it.

pub mod africa;
pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod cdg;
pub mod ctcp;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod fit;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod ledbat;
pub mod lp;
pub mod multcp;
pub mod nv;
pub mod reno;
pub mod scalable;
pub mod sync;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod yeah;
