//! Selection of algorithms by name, with static dispatch.
//!
//! [`Cc`] is an enum over every algorithm, so the per-ACK path is a `match`,
//! not a virtual call. [`CcParams`] holds one algorithm's validated
//! parameters. To add an algorithm, add one line to the `registry!` list below.

use core::fmt;

use crate::algos;
use crate::external::{ExternalOps, ExternalParams, ExternalRegistrations};
use crate::ops::{AckSample, CaEvent, CaState, CongestionOps, LostSkb, RateSample, TcpCc};
use crate::params::{ParamError, ParamOrder, ParamSpec, Params};

/// What `hscc algorithms` lists about one algorithm.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AlgorithmInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One-line description.
    pub summary: &'static str,
    /// Defining document.
    pub source: &'static str,
    /// Parameters with defaults, ranges and sources.
    pub params: Vec<ParamSpec>,
    /// Cross-field constraints: `low` must not exceed `high`.
    pub orders: Vec<ParamOrder>,
}

/// A rejected algorithm selection.
#[derive(Clone, Debug, PartialEq)]
pub enum CcError {
    /// No algorithm of that name.
    UnknownAlgorithm {
        name: String,
        known: Vec<&'static str>,
    },
    /// A parameter was rejected.
    Param {
        algorithm: &'static str,
        error: ParamError,
    },
}

impl fmt::Display for CcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CcError::UnknownAlgorithm { name, known } => {
                write!(
                    f,
                    "unknown algorithm '{name}'; known algorithms: {}",
                    known.join(", ")
                )
            }
            CcError::Param { algorithm, error } => write!(f, "{algorithm}: {error}"),
        }
    }
}

impl std::error::Error for CcError {}

macro_rules! registry {
    ($( $variant:ident => $ty:ty, aliases [$($alias:literal),*], $summary:literal, $source:literal; )*) => {
        /// Any algorithm, dispatched statically.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( #[doc = $summary] $variant($ty), )*
            /// A program loaded at run time (crate::external).
            External(ExternalCc),
        }

        /// Validated parameters of one algorithm (which also selects it).
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[serde(tag = "algorithm", rename_all = "lowercase")]
        pub enum CcParams {
            $( #[doc = $summary] $variant(<$ty as CongestionOps>::Params), )*
            /// A program loaded at run time, with the values a flow sets.
            #[serde(untagged)]
            External(ExternalParams),
        }

        /// Every algorithm with its parameters, in registry order.
        pub fn algorithms() -> Vec<AlgorithmInfo> {
            vec![$( AlgorithmInfo {
                name: <$ty as CongestionOps>::NAME,
                aliases: &[$($alias),*],
                summary: $summary,
                source: $source,
                params: <<$ty as CongestionOps>::Params as Params>::specs(),
                orders: <<$ty as CongestionOps>::Params as Params>::orders(),
            }, )*]
        }

        /// Canonical names of every algorithm.
        pub fn algorithm_names() -> Vec<&'static str> {
            vec![$( <$ty as CongestionOps>::NAME, )*]
        }

        impl CcParams {
            /// Default parameters of the algorithm called `name` (or one of its aliases).
            pub fn from_name(name: &str) -> Result<CcParams, CcError> {
                let lower = name.to_ascii_lowercase();
                $( if lower == <$ty as CongestionOps>::NAME $(|| lower == $alias)* {
                    return Ok(CcParams::$variant(Default::default()));
                } )*
                Err(CcError::UnknownAlgorithm { name: name.to_string(), known: algorithm_names() })
            }

            /// Canonical name of the selected algorithm.
            pub fn name(&self) -> &'static str {
                match self {
                    $( CcParams::$variant(_) => <$ty as CongestionOps>::NAME, )*
                    CcParams::External(p) => p.program.name(),
                }
            }

            /// The selected algorithm's Linux `.flags` ([`CongestionOps::FLAGS`]).
            pub fn flags(&self) -> u32 {
                match self {
                    $( CcParams::$variant(_) => <$ty as CongestionOps>::FLAGS, )*
                    CcParams::External(p) => p.program.flags(),
                }
            }

            /// Set one parameter by name, validated.
            pub fn set(&mut self, param: &str, value: f64) -> Result<(), CcError> {
                let algorithm = self.name();
                let r = match self {
                    $( CcParams::$variant(p) => p.set(param, value), )*
                    CcParams::External(p) => p.set(param, value),
                };
                r.map_err(|error| CcError::Param { algorithm, error })
            }

            /// Cross-field validation of the whole set.
            pub fn check(&self) -> Result<(), CcError> {
                let algorithm = self.name();
                let r = match self {
                    $( CcParams::$variant(p) => p.check(), )*
                    CcParams::External(_) => Ok(()),
                };
                r.map_err(|error| CcError::Param { algorithm, error })
            }

            /// Current value of every parameter.
            pub fn values(&self) -> Vec<(String, f64)> {
                match self { $( CcParams::$variant(p) => {
                    <<$ty as CongestionOps>::Params as Params>::specs()
                        .into_iter().map(|s| (s.name.to_string(), p.get(s.name).unwrap())).collect()
                } )*
                    CcParams::External(p) => p.all_values().into_iter().map(|(k, v)| (k, v as f64)).collect(),
                }
            }
        }

        impl Cc {
            /// Instantiate the algorithm selected by `params`; a simulation then
            /// [`attach`](Cc::attach)es it to the state its run shares.
            pub fn new(params: &CcParams) -> Cc {
                Cc::new_in(params, &Shared::default())
            }

            /// Instantiate the algorithm selected by `params` as one of the
            /// connections of the run that `shared` belongs to (a program is
            /// registered once per run).
            pub fn new_in(params: &CcParams, shared: &Shared) -> Cc {
                match params {
                    $( CcParams::$variant(p) => Cc::$variant(<$ty as CongestionOps>::new(p)), )*
                    CcParams::External(p) => Cc::External(ExternalCc::connect(p, shared)),
                }
            }

            /// Canonical name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Cc::$variant(_) => <$ty as CongestionOps>::NAME, )*
                    Cc::External(e) => e.name,
                }
            }

            /// Whether the algorithm reads `pkts_acked`'s `in_flight`
            /// ([`CongestionOps::NEEDS_DELIVERY_STAMPS`]).
            pub fn needs_delivery_stamps(&self) -> bool {
                match self {
                    $( Cc::$variant(_) => <$ty as CongestionOps>::NEEDS_DELIVERY_STAMPS, )*
                    Cc::External(e) => e.ops.needs_delivery_stamps(),
                }
            }
        }

        registry!(@dispatch [$($variant),*]);
    };

    (@dispatch [$($variant:ident),*]) => {
        // The hooks are always inlined: a dispatch is a jump table, and the
        // sender's per-ACK path (through hscc-sim's `LoggedCc`) must not
        // depend on the inliner's budget for it.
        impl Cc {
            /// See [`CongestionOps::init`].
            #[inline(always)] pub fn init(&mut self, tp: &mut TcpCc) { match self { $( Cc::$variant(a) => a.init(tp), )* Cc::External(e) => e.ops.init(tp), } }
            /// See [`CongestionOps::ssthresh`].
            #[inline(always)] pub fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 { match self { $( Cc::$variant(a) => a.ssthresh(tp), )* Cc::External(e) => e.ops.ssthresh(tp), } }
            /// See [`CongestionOps::cong_avoid`].
            #[inline(always)] pub fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) { match self { $( Cc::$variant(a) => a.cong_avoid(tp, ack, acked), )* Cc::External(e) => e.ops.cong_avoid(tp, ack, acked), } }
            /// See [`CongestionOps::set_state`].
            #[inline(always)] pub fn set_state(&mut self, tp: &mut TcpCc, s: CaState) { match self { $( Cc::$variant(a) => a.set_state(tp, s), )* Cc::External(e) => e.ops.set_state(tp, s), } }
            /// See [`CongestionOps::cwnd_event`].
            #[inline(always)] pub fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) { match self { $( Cc::$variant(a) => a.cwnd_event(tp, ev), )* Cc::External(e) => e.ops.cwnd_event(tp, ev), } }
            /// See [`CongestionOps::in_ack_event`].
            #[inline(always)] pub fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) { match self { $( Cc::$variant(a) => a.in_ack_event(tp, flags), )* Cc::External(e) => e.ops.in_ack_event(tp, flags), } }
            /// See [`CongestionOps::pkts_acked`].
            #[inline(always)] pub fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) { match self { $( Cc::$variant(a) => a.pkts_acked(tp, s), )* Cc::External(e) => e.ops.pkts_acked(tp, s), } }
            /// See [`CongestionOps::undo_cwnd`].
            #[inline(always)] pub fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 { match self { $( Cc::$variant(a) => a.undo_cwnd(tp), )* Cc::External(e) => e.ops.undo_cwnd(tp), } }
            /// See [`CongestionOps::bpf_globals`].
            pub fn bpf_globals(&self) -> Vec<(&'static str, i64)> { match self { $( Cc::$variant(a) => a.bpf_globals(), )* Cc::External(_) => Vec::new(), } }
            /// See [`CongestionOps::delay_signals`].
            #[inline] pub fn delay_signals(&self) -> u32 { match self { $( Cc::$variant(a) => a.delay_signals(), )* Cc::External(_) => 0, } }
            /// See [`CongestionOps::cong_control`].
            #[inline(always)] pub fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool { match self { $( Cc::$variant(a) => a.cong_control(tp, rs), )* Cc::External(e) => e.ops.cong_control(tp, rs), } }
            /// See [`CongestionOps::skb_marked_lost`].
            #[inline(always)] pub fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) { match self { $( Cc::$variant(a) => a.skb_marked_lost(tp, skb), )* Cc::External(e) => e.ops.skb_marked_lost(tp, skb), } }
        }
    };
}

// One line per algorithm: Variant => type, aliases, summary, defining document.
registry! {
    Reno => algos::reno::Reno, aliases ["newreno"], "Reno/NewReno: slow start, +1 segment per RTT, halve on loss", "RFC 5681 §3; Linux tcp_cong.c";
    MulTcp => algos::multcp::MulTcp, aliases [], "MulTCP(N): N virtual Reno flows in one, +N segments per RTT, x(1 - 1/(2N)) on loss", "Crowcroft & Oechslin, ACM CCR 28(3) 1998; TCP-FIT (INFOCOM 2011) §II";
    Ctcp => algos::ctcp::Ctcp, aliases ["compound"], "Compound TCP: Reno cwnd plus a delay window dwnd (binomial increase, retreats when the backlog exceeds gamma)", "Tan et al., IEEE INFOCOM 2006 §III, §V; CTCP slides (PFLDnet 2006)";
    CtcpLa => algos::ctcp::CtcpLa, aliases ["ctcp-andrew"], "Lachlan Andrew's Linux CTCP 1.3 (the CTCP TCP-FIT compared against): CTCP with min-RTT rounds, TUBE gamma tuning and a paced dwnd increase", "L. Andrew, tcp_compound.c release 1.3 (2008), netlab.caltech.edu/lachlan/ctcp";
    Fit => algos::fit::Fit, aliases ["tcp-fit"], "TCP-FIT: behaves as N Reno flows (+N per RTT, x(1-2/(3N+1)) on loss), N adapted per loss from the queueing delay", "Wang, Wen, Zhang, Han, IEEE INFOCOM 2011 §III, §V";
    Sync => algos::sync::SyncTcp, aliases ["synctcp", "sync-tcp"], "Sync-TCP: delay-based AIMD with synchronized queue-delay signals (Probing/Waiting/Emptying), time-based increase, paced", "Wu, Chan, Ananda, Ganjihal, IEEE ICNP 2009 §IV, §V";
    Africa => algos::africa::Africa, aliases ["tcp-africa"], "TCP-Africa: HighSpeed increase while the Vegas backlog estimate is below alpha, Reno increase above; HighSpeed decrease", "King, Baraniuk, Riedi, IEEE INFOCOM 2005 §III";
    HighSpeed => algos::highspeed::HighSpeed, aliases ["hstcp"], "HighSpeed TCP: AIMD with a(w), b(w) above 38 segments, from RFC 3649's table (Linux) or its formulas (ns-2)", "RFC 3649; Linux tcp_highspeed.c; ns-2 tcp.cc";
    Scalable => algos::scalable::Scalable, aliases ["stcp"], "Scalable TCP: MIMD, +0.01 segment per ACK, x0.875 on loss, Reno at small windows", "Kelly, ACM CCR 33(2) 2003; Linux tcp_scalable.c";
    Bic => algos::bic::Bic, aliases [], "BIC-TCP: binary search towards the last loss window W_max, then max probing; x0.8 on loss", "Xu, Harfoush, Rhee, IEEE INFOCOM 2004; Linux tcp_bic.c";
    Cubic => algos::cubic::Cubic, aliases [], "CUBIC: window a cubic function of time since the last loss, Reno-friendly region, x0.7 on loss", "RFC 9438; Linux tcp_cubic.c v2.3";
    Htcp => algos::htcp::Htcp, aliases ["h-tcp"], "H-TCP: increase grows with time since the last loss (alpha(delta)), backoff RTTmin/RTTmax in [0.5, 0.8]", "Leith & Shorten, PFLDnet 2004; draft-leith-tcp-htcp; Linux tcp_htcp.c";
    Vegas => algos::vegas::Vegas, aliases [], "Vegas: delay-based, keeps alpha..beta segments queued, +/-1 segment per RTT", "Brakmo & Peterson, IEEE JSAC 13(8) 1995; Linux tcp_vegas.c";
    Fast => algos::fast::Fast, aliases ["fasttcp"], "FAST TCP: delay-based, w <- min(2w, (1-gamma)w + gamma(baseRTT/avgRTT*w + alpha)) every RTT", "Jin, Wei & Low, IEEE INFOCOM 2004 §IV; ns-2.35 tcp-fast.cc";
    Illinois => algos::illinois::Illinois, aliases [], "TCP-Illinois: AIMD with alpha (0.3..10) and beta (1/8..1/2) set per RTT from the average queueing delay", "Liu, Basar & Srikant, VALUETOOLS 2006 / Perf. Eval. 2008; Linux tcp_illinois.c";
    Westwood => algos::westwood::Westwood, aliases ["westwoodplus", "westwood+"], "Westwood+: Reno growth; after loss ssthresh = estimated bandwidth x RTTmin", "Mascolo et al., ACM MobiCom 2001; Grieco & Mascolo, ACM CCR 34(2) 2004; Linux tcp_westwood.c";
    Veno => algos::veno::Veno, aliases [], "Veno: Reno with Vegas backlog N; beyond beta = 3 grow every other RTT and halve, else cut by 1/5", "Fu & Liew, IEEE JSAC 21(2) 2003; Linux tcp_veno.c";
    Hybla => algos::hybla::Hybla, aliases [], "Hybla: a long-RTT flow grows as one at rtt0 = 25 ms would: slow start +2^rho - 1 per ACK, rho^2/cwnd per ACK after (rho = RTT/rtt0); Reno decrease", "Caini & Firrincieli, Int. J. Satellite Commun. Netw. 22(5) 2004; Linux 6.12 tcp_hybla.c";
    Yeah => algos::yeah::Yeah, aliases [], "YeAH: Scalable increase while the Vegas queue estimate is at most 80 segments and the queueing delay at most baseRTT/8, else Reno, draining a queue beyond 80; a loss removes the queue estimate", "Baiocchi, Castellani & Vacirca, PFLDnet 2007; Linux 6.12 tcp_yeah.c, tcp_vegas.c";
    Cdg => algos::cdg::Cdg, aliases [], "CDG: Reno growth; backs off (CWR, x0.7) with a probability rising with the RTT gradient over a window of rounds; shadow window and HyStart", "Hayes & Armitage, IFIP Networking 2011; Linux 6.12 tcp_cdg.c";
    Nv => algos::nv::Nv, aliases ["tcp-nv"], "TCP-NV: per RTT, the window the best delivery rate needs at the min RTT plus nv_pad = 10 segments; above it cut 30 % of the excess, below it Reno growth; loss: x0.8", "Brakmo, TCP-NV: An Update to TCP-Vegas (2010); Linux 6.12 tcp_nv.c";
    Bbr => algos::bbr::Bbr, aliases ["bbr1", "bbrv1"], "BBR v1: paces at the windowed max delivery rate (gain-cycled), cwnd 2 BDP; STARTUP, DRAIN, PROBE_BW, PROBE_RTT", "Cardwell et al., ACM Queue 14(5) 2016; Linux tcp_bbr.c";
    Bbr3 => algos::bbr3::Bbr3, aliases ["bbrv3"], "BBRv3 (draft-ietf-ccwg-bbr-06): paces at min(max_bw, bw_shortterm); PROBE_BW cycles DOWN/CRUISE/REFILL/UP; inflight_longterm cut when a probe loses over 2 %, short-term bounds x0.7 per lossy round", "draft-ietf-ccwg-bbr-06 (Cardwell et al., IETF CCWG 2026)";
    Lp => algos::lp::Lp, aliases ["tcp-lp"], "TCP-LP: Reno that yields: halves (or drops to 1 within 3 RTTs of the last) when the smoothed one-way delay from timestamps passes 15 % of its min-max range, no growth for 3 RTTs after", "Kuzmanovic & Knightly, IEEE/ACM ToN 14(4) 2006; Linux tcp_lp.c";
    Ledbat => algos::ledbat::Ledbat, aliases ["tcp-ledbat"], "LEDBAT: keeps its queueing delay (one-way delay from timestamps, less the base over 10 minutes) near a 100-ms target: cwnd += (target - queue)/target segments per RTT, at most the flight + 1 segment; NewReno slow start, loss and fallback", "RFC 6817; ns-3.47 tcp-ledbat.cc TcpLedbat";
    Dctcp => algos::dctcp::Dctcp, aliases [], "DCTCP: Reno growth; ECN-marked fraction alpha (EWMA, g = 1/16) per RTT, cwnd x (1 - alpha/2) once per window of CE echoes; needs ECN", "Alizadeh et al., ACM SIGCOMM 2010; RFC 8257; Linux tcp_dctcp.c";
}

/// What the flows of one run share, as the globals of one kernel module would
/// be: made once per simulation and attached to every flow it creates.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// TCP-FIT's α (INFOCOM 2011 §V.B), for the flows with `alpha_shared`.
    pub fit_alpha: algos::fit::AlphaPool,
    /// The programs the run has registered.
    pub programs: ExternalRegistrations,
}

/// A connection of a program loaded at run time ([`Cc::External`]).
#[derive(Debug)]
pub struct ExternalCc {
    /// The program's name.
    pub name: &'static str,
    /// Its hooks.
    pub ops: Box<dyn ExternalOps>,
}

impl Clone for ExternalCc {
    fn clone(&self) -> ExternalCc {
        ExternalCc {
            name: self.name,
            ops: self.ops.clone_box(),
        }
    }
}

impl ExternalCc {
    fn connect(p: &ExternalParams, shared: &Shared) -> ExternalCc {
        let ops = shared
            .programs
            .connect(p)
            .unwrap_or_else(|e| Box::new(Unregistered(e)));
        ExternalCc {
            name: p.program.name(),
            ops,
        }
    }
}

/// A connection that cannot run its program (it could not be registered, or
/// its memory could not be mapped): every hook leaves the window alone and the
/// failure is its fault.
#[derive(Clone, Debug)]
pub struct Unregistered(pub String);

impl ExternalOps for Unregistered {
    fn init(&mut self, _tp: &mut TcpCc) {}
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tp.snd_ssthresh
    }
    fn cong_avoid(&mut self, _tp: &mut TcpCc, _ack: u32, _acked: u32) {}
    fn set_state(&mut self, _tp: &mut TcpCc, _s: CaState) {}
    fn cwnd_event(&mut self, _tp: &mut TcpCc, _ev: CaEvent) {}
    fn in_ack_event(&mut self, _tp: &mut TcpCc, _flags: u32) {}
    fn pkts_acked(&mut self, _tp: &mut TcpCc, _s: &AckSample) {}
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        tp.snd_cwnd
    }
    fn cong_control(&mut self, _tp: &mut TcpCc, _rs: &RateSample) -> bool {
        false
    }
    fn has_cong_control(&self) -> bool {
        false
    }
    fn fault(&self) -> Option<String> {
        Some(self.0.clone())
    }
    fn clone_box(&self) -> Box<dyn ExternalOps> {
        Box::new(self.clone())
    }
}

impl Cc {
    /// The failure of a program's hook, if this is a program that failed.
    pub fn fault(&self) -> Option<String> {
        match self {
            Cc::External(e) => e.ops.fault(),
            _ => None,
        }
    }

    /// Join the state the run's flows share (only TCP-FIT has any).
    pub fn attach(&mut self, shared: &Shared) {
        if let Cc::Fit(fit) = self {
            fit.attach(&shared.fit_alpha);
        }
    }
}

impl CcParams {
    /// Select `name` and apply `overrides` (parameter name, value) in order.
    pub fn with(name: &str, overrides: &[(&str, f64)]) -> Result<CcParams, CcError> {
        let mut p = CcParams::from_name(name)?;
        for (k, v) in overrides {
            p.set(k, *v)?;
        }
        p.check()?;
        Ok(p)
    }
}

impl Default for CcParams {
    fn default() -> Self {
        CcParams::from_name("reno").expect("reno is registered")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(CcParams::from_name("reno").unwrap().name(), "reno");
        assert_eq!(CcParams::from_name("NewReno").unwrap().name(), "reno");
        let e = CcParams::from_name("bogus").unwrap_err().to_string();
        assert!(
            e.contains("unknown algorithm 'bogus'") && e.contains("reno"),
            "{e}"
        );
    }

    #[test]
    fn every_algorithm_listed_once_with_sourced_params() {
        let names = algorithm_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for info in algorithms() {
            assert!(!info.source.is_empty(), "{}", info.name);
            for p in &info.params {
                assert!(
                    !p.source.is_empty() && !p.doc.is_empty(),
                    "{}.{}",
                    info.name,
                    p.name
                );
                assert!(
                    p.min <= p.default && p.default <= p.max,
                    "{}.{}",
                    info.name,
                    p.name
                );
            }
            let params = CcParams::from_name(info.name).unwrap();
            assert_eq!(Cc::new(&params).name(), info.name);
            params
                .check()
                .unwrap_or_else(|e| panic!("defaults break an order: {e}"));
            for o in &info.orders {
                assert!(
                    info.params.iter().any(|p| p.name == o.low)
                        && info.params.iter().any(|p| p.name == o.high),
                    "{o:?}"
                );
            }
        }
    }

    #[test]
    fn reversed_bounds_are_refused_by_check() {
        type Field<'a> = (&'a str, f64);
        let cases: [(&str, Field, Field); 6] = [
            ("sync", ("beta_min", 0.9), ("beta_max", 0.5)),
            ("sync", ("t_sample_ms", 200.0), ("t_win_ms", 100.0)),
            ("sync", ("th_s2t_mbps", 5.0), ("th_t2s_mbps", 2.0)),
            ("htcp", ("beta_min", 0.9), ("beta_max", 0.6)),
            ("vegas", ("alpha", 6.0), ("beta", 4.0)),
            ("sync", ("beta_min", 0.9), ("beta_max_loss", 0.8)),
        ];
        for (algo, low, high) in cases {
            // Each value is in its own range; the pair is not.
            let mut p = CcParams::from_name(algo).unwrap();
            p.set(low.0, low.1).unwrap();
            p.set(high.0, high.1).unwrap();
            let e = p.check().unwrap_err().to_string();
            assert!(
                e.contains(&format!("'{}' = {}", low.0, low.1))
                    && e.contains(&format!("at most {} = {}", high.0, high.1)),
                "{e}"
            );
            assert!(CcParams::with(algo, &[low, high]).is_err());
        }
        // Equal bounds are a fixed value, not an error.
        assert!(CcParams::with("htcp", &[("beta_min", 0.7), ("beta_max", 0.7)]).is_ok());
    }
}
