//! PackMime-HTTP's distributions and constants (ns-2.35
//! `packmime/packmime_ranvar.cc` and `packmime_HTTP.cc`; Cao et al., INFOCOM
//! 2004). docs/links-and-web.md §5 gives each one's source.

use std::f64::consts::LN_2;

use rand::Rng as _;
use rand_distr::{Distribution, Gamma, StandardNormal, Weibull};

use crate::rng::Rng;
use crate::time::{Time, SEC};

pub use hscc_model::web::{Sessions, SizeDist, WebConfig, WebModel};

/// `P_1PAGE`: probability that a persistent connection has one page.
pub const P_ONE_PAGE: f64 = 0.82;
/// `SHAPE_NPAGE`, `SCALE_NPAGE`: pages − 1 of a multi-page connection ~ Weibull.
pub const PAGES_WEIBULL: (f64, f64) = (1.0, 0.417);
/// `P_1TRANSFER`: probability that a page of a multi-page connection has one object.
pub const P_ONE_OBJECT: f64 = 0.69;
/// `SHAPE_NTRANSFER`, `SCALE_NTRANSFER`: objects − 1 of a page ~ Weibull.
pub const OBJECTS_WEIBULL: (f64, f64) = (1.0, 1.578);
/// `SERVER_DELAY_SHAPE`, `SERVER_DELAY_SCALE`: the server delay is 1/max(W, 10) s.
pub const SERVER_DELAY_WEIBULL: (f64, f64) = (0.63, 305.0);
/// `FSIZE_CACHE_CUTOFF`: a first response up to this size (a cache
/// validation) is repeated for every object of a persistent connection.
pub const CACHE_CUTOFF: u64 = 275;
/// Time between pages: 2^(loc + √scale² · N(0, 1) · √V_ERROR_B) s, with
/// loc ~ N(M_LOC_B, V_LOC_B) and scale² ~ Gamma(SHAPE_SCALE2_B, 1/RATE_SCALE2_B)
/// drawn once per run: (M_LOC_B, V_LOC_B, SHAPE_SCALE2_B, RATE_SCALE2_B, V_ERROR_B).
pub const BETWEEN_PAGES: [f64; 5] = [3.22, 0.73, 1.85, 1.85, 1.21];
/// Time between the objects of a page, likewise (…_W).
pub const WITHIN_PAGE: [f64; 5] = [-4.15, 3.12, 2.35, 2.35, 1.57];
/// Later responses of a persistent connection: 2^(loc + √scale · N(0, 1) ·
/// √V_ERROR) bytes, loc ~ N(M_LOC, V_LOC), scale ~ Gamma(SHAPE_SCALE2,
/// 1/RATE_SCALE2) per connection: (M_LOC, V_LOC, SHAPE_SCALE2, RATE_SCALE2, V_ERROR).
pub const PERSIST_RESPONSE: [f64; 5] = [10.62, 0.94, 3.22, 3.22, 2.43];
/// Run lengths of the response-size states, ⌈Weibull⌉ with shape
/// logit⁻¹(a + b·log2(rate)) and scale c: cache validations (0.718, 0.357,
/// 0.775), downloads (1.293, 0.316, 3.11).
pub const RUNS: [(f64, f64, f64); 2] = [(0.718, 0.357, 0.775), (1.293, 0.316, 3.11)];
/// `FSIZE1_PROB_A`: share of requests drawn from the body table.
pub const REQUEST_BODY_SHARE: f64 = 0.5;

/// Knots (p, bytes) of the cache-validation response sizes' inverse CDF
/// (`FSIZE0_INVCDF_A`, 100 points; these 12 follow it within 2 bytes).
#[allow(
    clippy::approx_constant,
    reason = "0.7071 is a knot of the table, not 1/√2"
)]
pub const VALIDATION_KNOTS: [(f64, f64); 12] = [
    (0.0001, 4.645),
    (0.0203, 40.8041),
    (0.0405, 61.468),
    (0.1011, 74.8092),
    (0.1415, 97.6514),
    (0.2021, 112.752),
    (0.6566, 157.294),
    (0.7071, 172.7),
    (0.7576, 200.636),
    (0.8283, 221.925),
    (0.9394, 264.471),
    (0.99999, 272.234),
];
/// Knots (log2(1 − p), log2 bytes) of the download response sizes' inverse
/// CDF (`FSIZE0_INVCDF_B`, 100 points; these 12 follow it within 0.03 in log2).
pub const DOWNLOAD_KNOTS: [(f64, f64); 12] = [
    (-18.1793, 25.8765),
    (-5.51014, 15.6026),
    (-4.95931, 15.3003),
    (-4.22486, 15.0978),
    (-3.85764, 14.8675),
    (-2.93959, 13.9248),
    (-2.20514, 13.3444),
    (-1.83792, 12.9005),
    (-1.47069, 12.2512),
    (-1.10347, 11.4133),
    (-0.73625, 10.4104),
    (-0.0018, 8.10797),
];
/// Knots (p, bytes) of the body of request sizes (`FSIZE1_INVCDF_A`; within 2 bytes).
pub const REQUEST_BODY_KNOTS: [(f64, f64); 12] = [
    (3e-05, 50.9777),
    (0.01013, 93.8217),
    (0.02023, 123.301),
    (0.04043, 168.813),
    (0.05053, 184.263),
    (0.07074, 200.037),
    (0.10104, 217.623),
    (0.14144, 253.057),
    (0.18184, 273.754),
    (0.37376, 327.782),
    (0.57577, 362.17),
    (1.0, 421.788),
];
/// Knots (log2(1 − p), log2 bytes) of the tail of request sizes (`FSIZE1_INVCDF_B`; within 0.03).
pub const REQUEST_TAIL_KNOTS: [(f64, f64); 7] = [
    (-17.7791, 19.7578),
    (-3.41883, 10.1034),
    (-2.88032, 9.87896),
    (-1.9828, 9.64712),
    (-0.90578, 8.95525),
    (-0.18777, 8.75459),
    (-0.00827, 8.72795),
];

pub use hscc_model::web::packmime::{
    DOWNLOAD_MEAN, DOWNLOAD_SHARE_LIMIT, REQUEST_MEAN, VALIDATION_MEAN,
};

/// ns-2's `FX::LinearInterpolate`: piecewise linear, the end segments extended.
pub fn interpolate(knots: &[(f64, f64)], x: f64) -> f64 {
    let n = knots.len();
    let i = knots[1..n - 1]
        .iter()
        .position(|k| x < k.0)
        .unwrap_or(n - 2);
    let ((x0, y0), (x1, y1)) = (knots[i], knots[i + 1]);
    y0 + (y1 - y0) / (x1 - x0) * (x - x0)
}

/// A size from a log-scale tail table: 2^f(log2(1 − U)).
fn log_table(knots: &[(f64, f64)], rng: &mut Rng) -> f64 {
    let u: f64 = rng.random();
    interpolate(knots, (1.0 - u).log2()).exp2()
}

/// ns-2 truncates sizes to whole bytes and turns 0 into 1.
fn bytes(v: f64) -> u64 {
    (v.min(1e15) as u64).max(1)
}

/// One response of state `download` (PackMime's `rfsize0`).
pub fn response(download: bool, rng: &mut Rng) -> u64 {
    if download {
        bytes(log_table(&DOWNLOAD_KNOTS, rng))
    } else {
        bytes(interpolate(&VALIDATION_KNOTS, rng.random()))
    }
}

/// One request (PackMime's `qfsize1`, without its long-range dependence).
pub fn request(rng: &mut Rng) -> u64 {
    let p: f64 = rng.random();
    if p <= REQUEST_BODY_SHARE {
        bytes(interpolate(&REQUEST_BODY_KNOTS, p / REQUEST_BODY_SHARE))
    } else {
        let q = (p - REQUEST_BODY_SHARE) / (1.0 - REQUEST_BODY_SHARE);
        bytes(interpolate(&REQUEST_TAIL_KNOTS, (1.0 - q).log2()).exp2())
    }
}

fn logit_inverse(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Run-length Weibull shapes at `rate` connections per second.
pub fn run_shapes(rate: f64) -> [f64; 2] {
    RUNS.map(|(a, b, _)| logit_inverse(a + b * rate.log2()))
}

/// ⌈Weibull⌉ responses in a run of state `download` (at least 1).
pub fn run_length(download: bool, shapes: [f64; 2], rng: &mut Rng) -> u64 {
    let k = usize::from(download);
    let w: f64 = Weibull::new(RUNS[k].2, shapes[k])
        .expect("positive scale and shape")
        .sample(rng);
    (w.ceil() as u64).max(1)
}

/// Pages of a persistent connection (`get_num_pages`).
pub fn pages(rng: &mut Rng) -> u32 {
    if rng.random::<f64>() < P_ONE_PAGE {
        return 1;
    }
    let w: f64 = Weibull::new(PAGES_WEIBULL.1, PAGES_WEIBULL.0)
        .expect("valid")
        .sample(rng);
    ((w + 1.0).ceil().min(1e6) as u32).max(2)
}

/// Objects of one page of a connection of `pages` pages (`get_num_objs`).
pub fn objects(pages: u32, rng: &mut Rng) -> u32 {
    if pages > 1 && rng.random::<f64>() < P_ONE_OBJECT {
        return 1;
    }
    let w: f64 = Weibull::new(OBJECTS_WEIBULL.1, OBJECTS_WEIBULL.0)
        .expect("valid")
        .sample(rng);
    ((w + 1.0).ceil().min(1e6) as u32).max(2)
}

/// The server delay, ps (`PackMimeHTTPServerDelayRandomVariable`).
pub fn server_delay(rng: &mut Rng) -> Time {
    let w: f64 = Weibull::new(SERVER_DELAY_WEIBULL.1, SERVER_DELAY_WEIBULL.0)
        .expect("valid")
        .sample(rng);
    ((SEC as f64) / w.max(10.0)).round() as Time
}

/// 2^(loc + √scale² · N(0, 1) · √v_error).
fn log2_normal(loc: f64, scale2: f64, v_error: f64, rng: &mut Rng) -> f64 {
    let z: f64 = StandardNormal.sample(rng);
    (loc + scale2.sqrt() * z * v_error.sqrt()).exp2()
}

/// (loc, scale²) of a log2-normal drawn from its hyper-parameters [m, v, shape, rate, _].
fn hyper(c: [f64; 5], rng: &mut Rng) -> (f64, f64) {
    let z: f64 = StandardNormal.sample(rng);
    let scale2: f64 = Gamma::new(c[2], 1.0 / c[3]).expect("valid").sample(rng);
    (c[0] + z * c[1].sqrt(), scale2)
}

/// Per-connection parameters of later responses (`PersistRspSize`).
pub fn persist_params(rng: &mut Rng) -> (f64, f64) {
    hyper(PERSIST_RESPONSE, rng)
}

/// A later response of a persistent connection.
pub fn persist_response((loc, scale2): (f64, f64), rng: &mut Rng) -> u64 {
    bytes(log2_normal(loc, scale2, PERSIST_RESPONSE[4], rng))
}

/// The think times of one run: ns-2 draws their location and scale once,
/// when the random variables are created.
#[derive(Clone, Copy, Debug)]
pub struct Gaps {
    pages: (f64, f64),
    objects: (f64, f64),
}

impl Gaps {
    /// Draw this run's parameters.
    pub fn new(rng: &mut Rng) -> Gaps {
        Gaps {
            pages: hyper(BETWEEN_PAGES, rng),
            objects: hyper(WITHIN_PAGE, rng),
        }
    }
    /// Time from the end of a response to the next page's first request, ps.
    pub fn between_pages(&self, rng: &mut Rng) -> Time {
        seconds(log2_normal(
            self.pages.0,
            self.pages.1,
            BETWEEN_PAGES[4],
            rng,
        ))
    }
    /// Time from the end of a response to the next object of the same page, ps.
    pub fn within_page(&self, rng: &mut Rng) -> Time {
        seconds(log2_normal(
            self.objects.0,
            self.objects.1,
            WITHIN_PAGE[4],
            rng,
        ))
    }
}

/// Seconds to ps, at most a day (a log-normal tail can reach far).
fn seconds(s: f64) -> Time {
    (s.min(86_400.0) * SEC as f64).round() as Time
}

/// Mean of a think time over runs: E[2^loc] · E[2^(√scale² Z √v)] =
/// 2^m·e^{(ln2)² v_loc/2} · (1 − (ln2)² v_err/(2·rate))^(−shape).
pub fn mean_gap(c: [f64; 5]) -> f64 {
    let l2 = LN_2 * LN_2;
    c[0].exp2() * (l2 * c[1] / 2.0).exp() * (1.0 - l2 * c[4] / (2.0 * c[3])).powf(-c[2])
}

/// E⌈1 + W⌉ for W ~ Exp(mean λ) (shape 1): 1 + 1/(1 − e^{−1/λ}).
fn ceil_exp_plus_one(lambda: f64) -> f64 {
    1.0 + 1.0 / (1.0 - (-1.0 / lambda).exp())
}

/// Mean objects and mean pages of a persistent connection.
pub fn mean_objects_pages() -> (f64, f64) {
    let multi_pages = ceil_exp_plus_one(PAGES_WEIBULL.1);
    let multi_objects = ceil_exp_plus_one(OBJECTS_WEIBULL.1);
    let per_page = P_ONE_OBJECT + (1.0 - P_ONE_OBJECT) * multi_objects;
    let objects = P_ONE_PAGE * multi_objects + (1.0 - P_ONE_PAGE) * multi_pages * per_page;
    (objects, P_ONE_PAGE + (1.0 - P_ONE_PAGE) * multi_pages)
}
