//! Web-like traffic: short TCP transfers arriving as a Poisson process, or
//! HTTP sessions after Cao et al. (INFOCOM 2004).
//!
//! **Transfers** (`WebModel::Transfers`): a simplification of the
//! connection-based HTTP model of Cao et al. that Sync-TCP's evaluation uses
//! (§III.C, §VI): transfers (responses) arrive as a Poisson process at a given
//! rate; each goes from a server to a client chosen uniformly at random, with
//! a size drawn from a heavy-tailed distribution, over a fresh TCP connection
//! that starts in slow start. Request packets, connection set-up and think
//! times are not modeled: the response time of a transfer is measured from its
//! start at the server to the arrival of its last byte at the client.
//!
//! **Sessions** (`WebModel::Sessions`): the model of Cao et al. as PackMime-HTTP
//! implements it in ns-2 (`packmime/packmime_HTTP.cc`, `packmime_ranvar.cc`,
//! ns-2.35; docs/links-and-web.md §5 lists every constant and what differs).
//! Sessions (PackMime's "connections") arrive as a Poisson process; a session
//! is persistent with probability `persistent` (PackMime's HTTP/1.1 mode:
//! 0.09; 0 is its default HTTP/1.0 mode, one object per session). A persistent
//! session fetches pages of objects one after another. Each object is a
//! request (client → server, a TCP transfer of the request size), a server
//! delay, then a response (server → client, a TCP transfer of the response
//! size); the next request follows the end of the response after a think time
//! (within a page or between pages). The response time of an object runs from
//! its request to the last byte of its response at the client (PackMime's
//! definition); a session's time from its arrival to the end of its last
//! response.
//!
//! Transport: an HTTP/1.0 session's request and response are each a fresh TCP
//! transfer starting in slow start. A persistent session has one connection
//! each way ([`Connection`]: PackMime runs one FullTcp connection per HTTP/1.1
//! connection and writes each object on it): its first request and first
//! response open them, every later one is an application write on them
//! ([`crate::tcp::Sender::append`]), sent with the window, ssthresh, RTT
//! estimate and algorithm state the last object left, the window restarted
//! after an idle time above the RTO (RFC 5681 §4.1, Linux
//! `tcp_cwnd_restart`). Each direction is its own sender: requests do not
//! carry the ACKs of responses (no piggybacking), and connection set-up and
//! close (SYN, FIN) are not modeled.
//!
//! Transfers are created when they start and their slots reused when they
//! finish; a persistent session's two slots are kept until it ends. Memory is
//! bounded by the transfers and sessions in progress, not by the run length.

pub mod packmime;
mod stats;

pub use stats::{SessionSummary, WebBin, WebResult, WebStats};

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng as _;
use rand_distr::{Distribution, Exp, Pareto};

use crate::rng::Rng;
use crate::time::{Time, NEVER, SEC};

pub use hscc_model::web::{Sessions, SizeDist, WebConfig, WebModel};

/// Drawing a size from a [`SizeDist`] (the tables of PackMime live here, with the engine).
pub trait Sample {
    /// Draw one size (at least 1 byte).
    fn sample(&self, rng: &mut Rng) -> u64;
}

impl Sample for SizeDist {
    fn sample(&self, rng: &mut Rng) -> u64 {
        let v = match *self {
            SizeDist::Fixed(n) => n as f64,
            SizeDist::Exponential { mean } => {
                Exp::new(1.0 / mean).expect("positive mean").sample(rng)
            }
            SizeDist::Pareto { shape, mean } => {
                let scale = mean * (shape - 1.0) / shape;
                Pareto::new(scale, shape)
                    .expect("positive scale and shape")
                    .sample(rng)
            }
            SizeDist::PackmimeRequest => return packmime::request(rng),
            SizeDist::PackmimeResponse => {
                let download = rng.random::<f64>() < packmime::DOWNLOAD_SHARE_LIMIT;
                return packmime::response(download, rng);
            }
        };
        (v.round() as u64).max(1)
    }
}

/// Generator state of one web source.
#[derive(Clone, Debug)]
pub struct WebSource {
    /// Configuration.
    pub cfg: WebConfig,
    rng: Rng,
    /// Response-time statistics.
    pub stats: WebStats,
    /// Session state (session model only).
    sessions: Option<Box<SessionState>>,
}

/// One transfer to start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Server node.
    pub src: u32,
    /// Client node.
    pub dst: u32,
    /// Bytes.
    pub size: u64,
}

impl WebSource {
    /// A source with its own random stream.
    pub fn new(cfg: WebConfig, mut rng: Rng) -> WebSource {
        let sessions = match &cfg.model {
            WebModel::Transfers => None,
            WebModel::Sessions(_) => Some(Box::new(SessionState::new(cfg.rate, &mut rng))),
        };
        WebSource {
            cfg,
            rng,
            stats: WebStats::default(),
            sessions,
        }
    }

    /// Time of the next arrival after `t`, if before the stop.
    pub fn next_arrival(&mut self, t: Time) -> Option<Time> {
        let gap = Exp::new(self.cfg.rate)
            .expect("positive rate")
            .sample(&mut self.rng);
        let next = t.saturating_add(((gap * SEC as f64).round() as Time).max(1));
        match self.cfg.stop {
            Some(stop) if next >= stop => None,
            _ => Some(next),
        }
    }

    /// Draw the transfer that arrives now.
    pub fn transfer(&mut self) -> Transfer {
        let src = self.cfg.servers[self.rng.random_range(0..self.cfg.servers.len())];
        let dst = self.cfg.clients[self.rng.random_range(0..self.cfg.clients.len())];
        let size = self.cfg.size.sample(&mut self.rng);
        Transfer { src, dst, size }
    }

    /// Session model: note that the next session arrives at `t` (`None`: no more).
    pub fn set_next_session(&mut self, t: Option<Time>) {
        if let Some(s) = &mut self.sessions {
            s.next_arrival = t.unwrap_or(NEVER);
        }
    }

    /// Session model: what is due at `now`, for one `WebArrival` event (each
    /// session arrival and each scheduled step has its own event).
    pub fn due(&mut self, now: Time) -> Due {
        let s = self.sessions.as_mut().expect("session model");
        if s.next_arrival <= now {
            s.next_arrival = NEVER;
            return Due::Arrival;
        }
        match s.steps.peek() {
            Some(&Reverse((t, _, session, step))) if t <= now => {
                s.steps.pop();
                Due::Step(session, step)
            }
            _ => Due::Nothing,
        }
    }

    /// Session model: a session arrives at `now`. Draws its hosts, its request
    /// size and its pages; returns its id and its first object, or `None` when
    /// [`crate::limits::MAX_WEB_SLOTS`] sessions are already in progress.
    pub fn open_session(&mut self, now: Time) -> Option<(u32, Object)> {
        let WebModel::Sessions(model) = &self.cfg.model else {
            unreachable!("session model")
        };
        let s = self.sessions.as_mut().expect("session model");
        self.stats.sessions_started += 1;
        if s.live >= crate::limits::MAX_WEB_SLOTS {
            self.stats.sessions_refused += 1;
            return None;
        }
        let rng = &mut self.rng;
        let server = self.cfg.servers[rng.random_range(0..self.cfg.servers.len())];
        let client = self.cfg.clients[rng.random_range(0..self.cfg.clients.len())];
        let request = model.request_size.sample(rng);
        let response = s.response(&self.cfg.size, rng);
        // PackMime's HTTP/1.1 connection: pages, then objects per page.
        let (pages, objects) = if model.persistent > 0.0 && rng.random::<f64>() < model.persistent {
            let pages = packmime::pages(rng);
            (pages, packmime::objects(pages, rng))
        } else {
            (1, 1)
        };
        // Later responses of a persistent session (PackMime's `adjust_persist_rspsz`).
        let several = pages > 1 || objects > 1;
        let persist = (several
            && self.cfg.size == SizeDist::PackmimeResponse
            && response > packmime::CACHE_CUTOFF)
            .then(|| packmime::persist_params(rng));
        let connection = several.then(Connection::default);
        let session = Session {
            server,
            client,
            arrival: now,
            request,
            response,
            pages,
            pages_left: pages - 1,
            objects_left: objects - 1,
            persist,
            object_start: now,
            connection,
        };
        let id = match s.free.pop() {
            Some(id) => {
                s.table[id as usize] = session;
                id
            }
            None => {
                s.table.push(session);
                s.table.len() as u32 - 1
            }
        };
        s.live += 1;
        Some((
            id,
            Object {
                src: client,
                dst: server,
                size: request,
                start: now,
            },
        ))
    }

    /// Session model: the request of session `id` has reached its server at
    /// `now`: the server's delay, after which its response starts.
    pub fn server_delay(&mut self) -> Time {
        let WebModel::Sessions(model) = &self.cfg.model else {
            unreachable!("session model")
        };
        if model.server_delay {
            packmime::server_delay(&mut self.rng)
        } else {
            0
        }
    }

    /// Session model: the response of session `id` to send now.
    pub fn response_of(&self, id: u32) -> Object {
        let s = &self.sessions.as_ref().expect("session model").table[id as usize];
        Object {
            src: s.server,
            dst: s.client,
            size: s.response,
            start: s.object_start,
        }
    }

    /// Session model: the connection of persistent session `id` (`None`: an
    /// HTTP/1.0 session, a fresh transfer per request and response).
    pub fn connection(&mut self, id: u32) -> Option<&mut Connection> {
        self.sessions.as_mut().expect("session model").table[id as usize]
            .connection
            .as_mut()
    }

    /// Session model: the response of session `id` has fully arrived at `now`.
    /// Records the session's time if that was its last object and frees it;
    /// otherwise returns the think time before its next request.
    pub fn response_done(&mut self, id: u32, now: Time) -> AfterResponse {
        let st = self.sessions.as_mut().expect("session model");
        let rng = &mut self.rng;
        let s = &mut st.table[id as usize];
        let gap = if s.objects_left > 0 {
            s.objects_left -= 1;
            st.gaps.within_page(rng)
        } else if s.pages_left > 0 {
            s.pages_left -= 1;
            // A new page: its objects (the page just started is one of them).
            s.objects_left = packmime::objects(s.pages, rng) - 1;
            st.gaps.between_pages(rng)
        } else {
            let (time, connection) = (now - s.arrival, s.connection.take());
            st.free.push(id);
            st.live -= 1;
            self.stats.record_session(time);
            return AfterResponse::Ended(connection);
        };
        AfterResponse::Think(gap)
    }

    /// Session model: session `id` sends its next request at `now`.
    pub fn next_request(&mut self, id: u32, now: Time) -> Object {
        let st = self.sessions.as_mut().expect("session model");
        let s = &mut st.table[id as usize];
        s.object_start = now;
        s.response = match s.persist {
            Some(p) => packmime::persist_response(p, &mut self.rng),
            None if self.cfg.size == SizeDist::PackmimeResponse => s.response,
            None => self.cfg.size.sample(&mut self.rng),
        };
        Object {
            src: s.client,
            dst: s.server,
            size: s.request,
            start: now,
        }
    }

    /// Session model: session `id` ends early at `now` (no flow slot for its
    /// next transfer): freed without a session time. Returns its connection
    /// (persistent sessions), whose slots the caller frees.
    pub fn abort_session(&mut self, id: u32) -> Option<Connection> {
        let st = self.sessions.as_mut().expect("session model");
        st.free.push(id);
        st.live -= 1;
        self.stats.sessions_aborted += 1;
        st.table[id as usize].connection.take()
    }

    /// Session model: schedule `step` of session `id` at `t`; the caller
    /// pushes one `WebArrival` event for it.
    pub fn schedule(&mut self, t: Time, id: u32, step: Step) {
        let st = self.sessions.as_mut().expect("session model");
        st.seq += 1;
        st.steps.push(Reverse((t, st.seq, id, step)));
    }

    /// Sessions in progress (session model).
    pub fn live_sessions(&self) -> usize {
        self.sessions.as_ref().map_or(0, |s| s.live)
    }

    /// Session model: a number for the next transfer's random stream.
    pub fn next_flow_number(&mut self) -> u64 {
        let s = self.sessions.as_mut().expect("session model");
        s.opened += 1;
        s.opened
    }
}

/// What a web source's event is for (session model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// A new session arrives.
    Arrival,
    /// A scheduled step of a session.
    Step(u32, Step),
    /// Nothing (cannot happen while every item has its own event).
    Nothing,
}

/// A scheduled step of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// The client sends its next request (after a think time).
    Request,
    /// The server sends its response (after the server delay).
    Response,
}

/// What follows a session's response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterResponse {
    /// Its next request, after this think time.
    Think(Time),
    /// Nothing: the session has ended; its connection's slots are to be freed.
    Ended(Option<Connection>),
}

/// The TCP connection of a persistent session (HTTP/1.1): the flow slots
/// that carry its requests (client → server) and its responses (server →
/// client), each opened by its first transfer and kept until the session ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    /// Slot of the requests' sender, once opened.
    pub requests: Option<u32>,
    /// Slot of the responses' sender, once opened.
    pub responses: Option<u32>,
}

impl Connection {
    /// The slot of one direction.
    pub fn slot(&mut self, request: bool) -> &mut Option<u32> {
        if request {
            &mut self.requests
        } else {
            &mut self.responses
        }
    }
}

/// One transfer of a session: a request (client → server) or a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Object {
    /// Sending node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
    /// Bytes.
    pub size: u64,
    /// When the object's request was sent (its response time counts from here).
    pub start: Time,
}

/// One session in progress.
#[derive(Clone, Copy, Debug)]
struct Session {
    server: u32,
    client: u32,
    arrival: Time,
    /// Request size (the same for every request of the session).
    request: u64,
    /// Size of the current object's response.
    response: u64,
    /// Pages of the session.
    pages: u32,
    /// Pages after the current one.
    pages_left: u32,
    /// Objects of the current page after the current one.
    objects_left: u32,
    /// Location and scale² of later response sizes (persistent sessions).
    persist: Option<(f64, f64)>,
    /// When the current object's request was sent.
    object_start: Time,
    /// The connection of a persistent session.
    connection: Option<Connection>,
}

/// The session model's state in a source.
#[derive(Clone, Debug)]
struct SessionState {
    table: Vec<Session>,
    free: Vec<u32>,
    live: usize,
    /// Steps (time, sequence, session, step), earliest first.
    steps: BinaryHeap<Reverse<(Time, u64, u32, Step)>>,
    seq: u64,
    /// Transfers opened so far (numbers their random streams).
    opened: u64,
    next_arrival: Time,
    /// PackMime's response-size runs: current state (true: downloads) and
    /// responses left in the run; run-length shapes for this rate.
    download: bool,
    run_left: u64,
    run_shape: [f64; 2],
    gaps: packmime::Gaps,
}

impl SessionState {
    fn new(rate: f64, rng: &mut Rng) -> SessionState {
        SessionState {
            table: Vec::new(),
            free: Vec::new(),
            live: 0,
            steps: BinaryHeap::new(),
            seq: 0,
            opened: 0,
            next_arrival: NEVER,
            // PackMime starts in state 0 and switches before the first draw.
            download: false,
            run_left: 0,
            run_shape: packmime::run_shapes(rate),
            gaps: packmime::Gaps::new(rng),
        }
    }

    /// The next response size: PackMime's runs for its own distribution.
    fn response(&mut self, size: &SizeDist, rng: &mut Rng) -> u64 {
        if *size != SizeDist::PackmimeResponse {
            return size.sample(rng);
        }
        if self.run_left == 0 {
            self.download = !self.download;
            self.run_left = packmime::run_length(self.download, self.run_shape, rng);
        }
        self.run_left -= 1;
        packmime::response(self.download, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::packmime::*;
    use super::*;
    use crate::rng::{component_rng, Component};
    use std::f64::consts::LN_2;

    /// ∫ 2^f(log2 u) du over (0, 1), in v = −log2 u.
    fn log_table_mean(knots: &[(f64, f64)]) -> f64 {
        let (n, vmax) = (400_000, 80.0);
        (0..n)
            .map(|i| (i as f64 + 0.5) * vmax / n as f64)
            .map(|v| interpolate(knots, -v).exp2() * LN_2 * (-v).exp2() * vmax / n as f64)
            .sum()
    }

    fn linear_mean(knots: &[(f64, f64)]) -> f64 {
        let n = 100_000;
        (0..n)
            .map(|i| interpolate(knots, (i as f64 + 0.5) / n as f64))
            .sum::<f64>()
            / n as f64
    }

    #[test]
    fn the_packmime_means_are_those_of_the_knots() {
        assert!((linear_mean(&VALIDATION_KNOTS) - VALIDATION_MEAN).abs() < 0.1);
        assert!(
            (log_table_mean(&DOWNLOAD_KNOTS) / DOWNLOAD_MEAN - 1.0).abs() < 0.001,
            "{}",
            log_table_mean(&DOWNLOAD_KNOTS)
        );
        let req = REQUEST_BODY_SHARE * linear_mean(&REQUEST_BODY_KNOTS)
            + (1.0 - REQUEST_BODY_SHARE) * log_table_mean(&REQUEST_TAIL_KNOTS);
        assert!((req / REQUEST_MEAN - 1.0).abs() < 0.002, "{req}");
        // E⌈Exp(λ)⌉ = 1/(1 − e^{−1/λ}).
        let e = |l: f64| 1.0 / (1.0 - (-1.0 / l).exp());
        let share = e(RUNS[1].2) / (e(RUNS[0].2) + e(RUNS[1].2));
        assert!((share - DOWNLOAD_SHARE_LIMIT).abs() < 1e-4, "{share}");
    }

    #[test]
    fn interpolation_follows_the_knots_and_extends_the_ends() {
        let k = [(0.0, 0.0), (1.0, 10.0), (2.0, 12.0)];
        assert_eq!(interpolate(&k, 0.5), 5.0);
        assert_eq!(interpolate(&k, 1.5), 11.0);
        assert_eq!(interpolate(&k, -1.0), -10.0);
        assert_eq!(interpolate(&k, 3.0), 14.0);
        // Download median: 2^f(−1) ≈ 2.24 kB; the tail index of the first segment ≈ 1.23.
        assert!((interpolate(&DOWNLOAD_KNOTS, -1.0).exp2() - 2242.0).abs() < 5.0);
        let (a, b) = (DOWNLOAD_KNOTS[0], DOWNLOAD_KNOTS[1]);
        assert!((-(b.0 - a.0) / (b.1 - a.1) - 1.233).abs() < 0.01);
    }

    #[test]
    fn drawn_sizes_have_the_tables_quantiles() {
        let mut rng = component_rng(1, Component::Traffic, 0);
        let n = 200_000;
        let mut d: Vec<u64> = (0..n).map(|_| response(true, &mut rng)).collect();
        d.sort_unstable();
        // Quantiles of 2^f(log2(1 − p)) at p = 0.5, 0.9 (binomial error ≈ 0.3 % in p).
        let q = |p: f64| interpolate(&DOWNLOAD_KNOTS, (1.0 - p).log2()).exp2();
        for p in [0.5, 0.9] {
            let got = d[(p * n as f64) as usize] as f64;
            assert!((got / q(p) - 1.0).abs() < 0.03, "p {p}: {got} vs {}", q(p));
        }
        let v: Vec<u64> = (0..n).map(|_| response(false, &mut rng)).collect();
        assert!(v.iter().all(|&s| (4..=273).contains(&s)));
        let mean = v.iter().sum::<u64>() as f64 / n as f64;
        // Truncation to whole bytes lowers the mean by about 0.5.
        assert!((mean - (VALIDATION_MEAN - 0.5)).abs() < 0.6, "{mean}");
    }

    #[test]
    fn persistent_connections_have_packmimes_mean_structure() {
        let mut rng = component_rng(2, Component::Traffic, 0);
        let n = 100_000;
        let (mut objects, mut pages) = (0u64, 0u64);
        for _ in 0..n {
            let p = packmime::pages(&mut rng);
            pages += p as u64;
            objects += (0..p)
                .map(|_| packmime::objects(p, &mut rng) as u64)
                .sum::<u64>();
        }
        let (mo, mp) = mean_objects_pages();
        assert!(
            (pages as f64 / n as f64 / mp - 1.0).abs() < 0.01,
            "pages {}",
            pages as f64 / n as f64
        );
        assert!(
            (objects as f64 / n as f64 / mo - 1.0).abs() < 0.02,
            "objects {}",
            objects as f64 / n as f64
        );
        // By hand: multi-page connections have 1 + 1/(1 − e^{−1/0.417}) = 2.100 pages.
        assert!((mp - (0.82 + 0.18 * 2.0999)).abs() < 1e-3, "{mp}");
    }

    #[test]
    fn server_delays_are_at_most_100_ms() {
        let mut rng = component_rng(3, Component::Traffic, 0);
        let d: Vec<Time> = (0..10_000).map(|_| server_delay(&mut rng)).collect();
        assert!(d.iter().all(|&t| t > 0 && t <= 100 * crate::time::MS));
        // P(W < 10) = 1 − exp(−(10/305)^0.63) = 0.1096: that share sits at exactly 100 ms.
        let at_max = d.iter().filter(|&&t| t == 100 * crate::time::MS).count() as f64 / 10_000.0;
        assert!((at_max - 0.1096).abs() < 0.01, "{at_max}");
    }

    #[test]
    fn think_time_means_match_their_closed_form() {
        // Over many runs (the parameters are drawn once per run).
        let mut rng = component_rng(4, Component::Traffic, 0);
        let n = 400_000;
        let sum: f64 = (0..n)
            .map(|_| crate::time::secs(Gaps::new(&mut rng).within_page(&mut rng)))
            .sum();
        let m = mean_gap(WITHIN_PAGE);
        // By hand: 2^−4.15 · e^{(ln 2)²·3.12/2} · (1 − (ln 2)²·1.57/(2·2.35))^−2.35 = 0.05632 · 2.116 · 1.508.
        assert!((m - 0.1797).abs() < 0.001, "{m}");
        assert!(
            (mean_gap(BETWEEN_PAGES) - 15.23).abs() < 0.02,
            "{}",
            mean_gap(BETWEEN_PAGES)
        );
        // A heavy right tail: allow 5 %.
        assert!(
            (sum / n as f64 / m - 1.0).abs() < 0.05,
            "{}",
            sum / n as f64
        );
    }
}
