//! A finished run's tables (Parquet) and summary.json, made from the engine's
//! results in one step. This is the one definition of those files' columns
//! (`schemas` gives them to Python): summary.json's rows are the tables' rows,
//! written from the same columns. Python made them from the results' JSON until
//! it cost more than simulating a short run (docs/performance.md).

use hscc_sim::RunResult;

use crate::json;
use crate::parquet::{self, Values};

/// What the results alone do not say: names and labels from the scenario, and
/// which traces it asked for.
pub struct Context<'a> {
    /// The scenario's name.
    pub name: Option<String>,
    /// Wall time of the run (build to finish), s.
    pub wall_time_s: f64,
    /// Each TCP flow's [[flows]] entry and label, in engine order.
    pub flows: &'a [(u32, String)],
    /// Each UDP flow's source (`"udp[0]"`, `"voip[1]"`) and label, in engine order.
    pub udp: Vec<(String, String)>,
    /// Each web source's label.
    pub web: Vec<String>,
    /// Whether the flows' and the queues' traces are tables.
    pub flow_traces: bool,
    pub queue_traces: bool,
    /// The capture files' names, sorted (none without `[output] pcap`).
    pub captures: Vec<String>,
}

type Table = Vec<(&'static str, Values)>;

/// summary.json's bytes and each table's (name, Parquet file bytes).
pub type Files = (Vec<u8>, Vec<(&'static str, Vec<u8>)>);

/// Picoseconds, the engine's time unit, in seconds (as the results' JSON gave them to Python).
const PS: f64 = 1e-12;

/// summary.json's bytes and each table's Parquet file, in the run directory's order
/// (flows, links, udp, web, timeseries, queues); with `only`, the files of those
/// tables alone (the summary is the same either way).
pub fn files(r: &RunResult, cx: &Context, only: Option<&[String]>) -> Result<Files, String> {
    let tables = tables(r, cx)?;
    let summary = summary(r, cx, &tables)?;
    let files = tables
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| only.is_none_or(|o| o.iter().any(|n| n == name)))
        .map(|(i, (name, t))| Ok((*name, parquet_file(i, t)?)))
        .collect::<Result<_, String>>()?;
    Ok((summary, files))
}

/// Table `i`'s Parquet file. A table without rows is the same file every time (a run
/// without UDP, web sources or traces has two to four), so it is written once.
fn parquet_file(i: usize, t: &Table) -> Result<Vec<u8>, String> {
    static EMPTY: [std::sync::OnceLock<Vec<u8>>; 6] = [const { std::sync::OnceLock::new() }; 6];
    if t.first().is_some_and(|(_, v)| !v.is_empty()) {
        return parquet::table(t);
    }
    if let Some(file) = EMPTY[i].get() {
        return Ok(file.clone());
    }
    let file = parquet::table(t)?;
    Ok(EMPTY[i].get_or_init(|| file).clone())
}

/// Every table's columns: [(table, [(column, polars dtype name)])].
pub fn schemas() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let empty = RunResult {
        duration_s: 0.0,
        seed: 0,
        events: 0,
        flows: vec![],
        links: vec![],
        udp: vec![],
        web: vec![],
        jain_index: None,
        traces: Default::default(),
        cc_log: vec![],
        captures: Default::default(),
    };
    let cx = Context {
        name: None,
        wall_time_s: 0.0,
        flows: &[],
        udp: vec![],
        web: vec![],
        flow_traces: true,
        queue_traces: true,
        captures: vec![],
    };
    let tables = tables(&empty, &cx).expect("no rows, no labels to miss");
    tables
        .into_iter()
        .map(|(name, t)| (name, t.iter().map(|(c, v)| (*c, v.dtype())).collect()))
        .collect()
}

fn tables(r: &RunResult, cx: &Context) -> Result<Vec<(&'static str, Table)>, String> {
    if cx.flows.len() != r.flows.len() || cx.udp.len() != r.udp.len() || cx.web.len() != r.web.len()
    {
        return Err(format!(
            "the scenario's labels ({} TCP, {} UDP, {} web) do not match the run ({} TCP, {} UDP, {} web)",
            cx.flows.len(), cx.udp.len(), cx.web.len(), r.flows.len(), r.udp.len(), r.web.len()
        ));
    }
    Ok(vec![
        ("flows", flows(r, cx)),
        ("links", links(r)),
        ("udp", udp(r, cx)),
        ("web", web(r, cx)),
        ("timeseries", timeseries(r, cx)),
        ("queues", queues(r, cx)),
    ])
}

fn f64s(it: impl Iterator<Item = f64>) -> Values {
    Values::F64(it.map(Some).collect())
}
fn u32s(it: impl Iterator<Item = u32>) -> Values {
    Values::U32(it.map(Some).collect())
}
fn u64s(it: impl Iterator<Item = u64>) -> Values {
    Values::U64(it.map(Some).collect())
}
fn texts<'a>(it: impl Iterator<Item = &'a str>) -> Values {
    Values::Text(it.map(|s| Some(s.to_string())).collect())
}

/// The flows' summed goodput, in engine order (the shares' denominator and summary.json's total).
fn total_goodput(r: &RunResult) -> f64 {
    r.flows.iter().fold(0.0, |sum, f| sum + f.goodput_bps)
}

fn flows(r: &RunResult, cx: &Context) -> Table {
    let fl = &r.flows;
    let total = total_goodput(r);
    let traces = if cx.flow_traces {
        r.traces.flows.as_slice()
    } else {
        &[]
    };
    // The mean of the positive sRTT samples, its sum correctly rounded (as Python's math.fsum):
    // no summation order to depend on.
    let mean_srtt = |i: usize| {
        let t = traces.get(i)?;
        let positive: Vec<f64> = t.srtt_s.iter().copied().filter(|x| *x > 0.0).collect();
        (!positive.is_empty()).then(|| fsum(&positive) / positive.len() as f64)
    };
    let counter =
        |get: fn(&hscc_sim::stats::FlowCounters) -> u64| u64s(fl.iter().map(|f| get(&f.counters)));
    vec![
        ("flow", u32s(fl.iter().map(|f| f.id))),
        ("spec", u32s(cx.flows.iter().map(|(spec, _)| *spec))),
        (
            "label",
            texts(cx.flows.iter().map(|(_, label)| label.as_str())),
        ),
        ("algorithm", texts(fl.iter().map(|f| f.algorithm.as_str()))),
        ("src", texts(fl.iter().map(|f| f.src.as_str()))),
        ("dst", texts(fl.iter().map(|f| f.dst.as_str()))),
        ("start_s", f64s(fl.iter().map(|f| f.start_s))),
        ("end_s", f64s(fl.iter().map(|f| f.end_s))),
        ("base_rtt_s", f64s(fl.iter().map(|f| f.base_rtt_s))),
        (
            "mean_srtt_s",
            Values::F64((0..fl.len()).map(mean_srtt).collect()),
        ),
        ("srtt_s", f64s(fl.iter().map(|f| f.srtt_s))),
        ("min_rtt_s", f64s(fl.iter().map(|f| f.min_rtt_s))),
        ("goodput_bps", f64s(fl.iter().map(|f| f.goodput_bps))),
        (
            "share",
            f64s(fl.iter().map(|f| {
                if total > 0.0 {
                    f.goodput_bps / total
                } else {
                    0.0
                }
            })),
        ),
        (
            "completion_s",
            Values::F64(fl.iter().map(|f| f.completion_s).collect()),
        ),
        ("final_cwnd", u32s(fl.iter().map(|f| f.final_cwnd))),
        ("segs_sent", counter(|c| c.segs_sent)),
        ("retrans", counter(|c| c.retrans)),
        ("delivered_segs", counter(|c| c.delivered_segs)),
        ("delivered_bytes", counter(|c| c.delivered_bytes)),
        ("lost_fast", counter(|c| c.lost_fast)),
        ("rack_lost", counter(|c| c.rack_lost)),
        ("tlps", counter(|c| c.tlps)),
        ("undos", counter(|c| c.undos)),
        ("recoveries", counter(|c| c.recoveries)),
        ("timeouts", counter(|c| c.timeouts)),
        ("acks_sent", counter(|c| c.acks_sent)),
        ("ecn_reductions", counter(|c| c.ecn_reductions)),
        ("ce_received", counter(|c| c.ce_received)),
        (
            "retrans_ratio",
            f64s(fl.iter().map(|f| {
                let c = &f.counters;
                if c.segs_sent > 0 {
                    c.retrans as f64 / c.segs_sent as f64
                } else {
                    0.0
                }
            })),
        ),
        (
            "slow_start_s",
            f64s(fl.iter().map(|f| f.counters.slow_start_time as f64 * PS)),
        ),
        ("signals", u64s(fl.iter().map(|f| f.signals_s.len() as u64))),
        (
            "signals_s",
            Values::F64Lists(
                fl.iter()
                    .map(|f| Some(f.signals_s.iter().map(|t| Some(*t)).collect()))
                    .collect(),
            ),
        ),
    ]
}

fn links(r: &RunResult) -> Table {
    let l = &r.links;
    let counter =
        |get: fn(&hscc_sim::stats::LinkCounters) -> u64| u64s(l.iter().map(|x| get(&x.counters)));
    vec![
        ("link", u32s(l.iter().map(|x| x.id))),
        ("name", texts(l.iter().map(|x| x.name.as_str()))),
        ("from", texts(l.iter().map(|x| x.from.as_str()))),
        ("to", texts(l.iter().map(|x| x.to.as_str()))),
        ("rate_bps", u64s(l.iter().map(|x| x.rate_bps))),
        (
            "monitored",
            Values::Bool(l.iter().map(|x| Some(x.monitored)).collect()),
        ),
        ("utilization", f64s(l.iter().map(|x| x.utilization))),
        ("tx_packets", counter(|c| c.tx_packets)),
        ("tx_bytes", counter(|c| c.tx_bytes)),
        ("drops_queue", counter(|c| c.drops_queue)),
        // Int64, as polars read it from the JSON (kept so that stored runs keep their types).
        (
            "drops_queue_slow_start",
            Values::I64(
                l.iter()
                    .map(|x| Some(x.counters.drops_queue_slow_start as i64))
                    .collect(),
            ),
        ),
        ("drops_queue_udp", counter(|c| c.drops_queue_udp)),
        ("drops_random", counter(|c| c.drops_random)),
        ("drops_aqm", counter(|c| c.drops_aqm)),
        ("marks", counter(|c| c.marks)),
        (
            "drops",
            counter(|c| c.drops_queue + c.drops_aqm + c.drops_random),
        ),
        ("mean_qdelay_s", f64s(l.iter().map(|x| x.mean_qdelay_s))),
        ("p99_qdelay_s", f64s(l.iter().map(|x| x.p99_qdelay_s))),
        ("max_qdelay_s", f64s(l.iter().map(|x| x.max_qdelay_s))),
        ("mean_queue_pkts", f64s(l.iter().map(|x| x.mean_queue_pkts))),
        (
            "mean_queue_bytes",
            f64s(l.iter().map(|x| x.mean_queue_bytes)),
        ),
        (
            "normalized_occupancy",
            f64s(l.iter().map(|x| x.normalized_occupancy)),
        ),
    ]
}

fn udp(r: &RunResult, cx: &Context) -> Table {
    let u = &r.udp;
    vec![
        ("udp", u32s(u.iter().map(|x| x.id))),
        (
            "source",
            texts(cx.udp.iter().map(|(source, _)| source.as_str())),
        ),
        (
            "label",
            texts(cx.udp.iter().map(|(_, label)| label.as_str())),
        ),
        ("sent", u64s(u.iter().map(|x| x.sent))),
        ("received", u64s(u.iter().map(|x| x.received))),
        ("lost", u64s(u.iter().map(|x| x.lost))),
        ("loss_rate", f64s(u.iter().map(|x| x.loss_rate))),
        ("throughput_bps", f64s(u.iter().map(|x| x.throughput_bps))),
        ("mean_delay_s", f64s(u.iter().map(|x| x.mean_delay_s))),
        ("p99_delay_s", f64s(u.iter().map(|x| x.p99_delay_s))),
        ("max_delay_s", f64s(u.iter().map(|x| x.max_delay_s))),
        ("jitter_s", f64s(u.iter().map(|x| x.jitter_s))),
    ]
}

fn web(r: &RunResult, cx: &Context) -> Table {
    let rows: Vec<(u32, &str, &hscc_sim::web::WebBin)> = r
        .web
        .iter()
        .zip(&cx.web)
        .flat_map(|(w, label)| w.bins.iter().map(move |b| (w.id, label.as_str(), b)))
        .collect();
    vec![
        ("web", u32s(rows.iter().map(|r| r.0))),
        ("label", texts(rows.iter().map(|r| r.1))),
        ("size_min", u64s(rows.iter().map(|r| r.2.size_min))),
        ("size_max", u64s(rows.iter().map(|r| r.2.size_max))),
        ("count", u64s(rows.iter().map(|r| r.2.count))),
        ("mean_s", f64s(rows.iter().map(|r| r.2.mean_s))),
        ("median_s", f64s(rows.iter().map(|r| r.2.median_s))),
        ("p90_s", f64s(rows.iter().map(|r| r.2.p90_s))),
    ]
}

/// One row per sample and flow, flow by flow.
fn timeseries(r: &RunResult, cx: &Context) -> Table {
    let t = &r.traces.time_s;
    let fl = if cx.flow_traces {
        r.traces.flows.as_slice()
    } else {
        &[]
    };
    vec![
        ("time_s", f64s(fl.iter().flat_map(|_| t.iter().copied()))),
        (
            "flow",
            u32s((0..fl.len() as u32).flat_map(|i| std::iter::repeat_n(i, t.len()))),
        ),
        (
            "throughput_bps",
            f64s(fl.iter().flat_map(|f| f.throughput_bps.iter().copied())),
        ),
        ("cwnd", u32s(fl.iter().flat_map(|f| f.cwnd.iter().copied()))),
        (
            "srtt_s",
            f64s(fl.iter().flat_map(|f| f.srtt_s.iter().copied())),
        ),
        (
            "pacing_rate_bps",
            f64s(fl.iter().flat_map(|f| f.pacing_rate_bps.iter().copied())),
        ),
    ]
}

/// One row per sample and monitored link, link by link.
fn queues(r: &RunResult, cx: &Context) -> Table {
    let t = &r.traces.time_s;
    let q = if cx.queue_traces {
        r.traces.links.as_slice()
    } else {
        &[]
    };
    vec![
        ("time_s", f64s(q.iter().flat_map(|_| t.iter().copied()))),
        (
            "link",
            u32s(q.iter().flat_map(|l| std::iter::repeat_n(l.link, t.len()))),
        ),
        (
            "name",
            texts(
                q.iter()
                    .flat_map(|l| std::iter::repeat_n(l.name.as_str(), t.len())),
            ),
        ),
        (
            "queue_pkts",
            u64s(q.iter().flat_map(|l| l.queue_pkts.iter().copied())),
        ),
        (
            "queue_bytes",
            u64s(q.iter().flat_map(|l| l.queue_bytes.iter().copied())),
        ),
        (
            "qdelay_s",
            f64s(q.iter().flat_map(|l| l.qdelay_s.iter().copied())),
        ),
        (
            "drops",
            u64s(q.iter().flat_map(|l| l.drops.iter().copied())),
        ),
        (
            "marks",
            u64s(q.iter().flat_map(|l| l.marks.iter().copied())),
        ),
        (
            "utilization",
            f64s(q.iter().flat_map(|l| l.utilization.iter().copied())),
        ),
    ]
}

/// summary.json: the run's totals, then the flows' rows (without their signal times),
/// the rows of the links a packet reached and the count of the others (`idle_links`),
/// the UDP flows' rows, the web sources,
/// the signals' synchronization and the captures; laid out as Python's
/// `json.dumps(summary, indent=2)` would.
fn summary(
    r: &RunResult,
    cx: &Context,
    tables: &[(&'static str, Table)],
) -> Result<Vec<u8>, String> {
    let table = |name: &str| {
        &tables
            .iter()
            .find(|(n, _)| *n == name)
            .expect("every table is made")
            .1
    };
    let mut o = Obj::new();
    o.key("name");
    match &cx.name {
        Some(name) => json::string(&mut o.out, name),
        None => o.out.push_str("null"),
    }
    o.float("duration_s", r.duration_s)?;
    o.int("seed", r.seed);
    o.int("events", r.events);
    o.float("wall_time_s", cx.wall_time_s)?;
    o.key("jain_index");
    // Undefined (null) without TCP flows or without traffic: `metrics::jain_index`.
    match r.jain_index {
        Some(j) => o.value_float(j)?,
        None => o.out.push_str("null"),
    }
    o.float("total_goodput_bps", total_goodput(r))?;
    o.key("flows");
    rows(&mut o.out, table("flows"), &["signals_s"], |_| true)?;
    // A link no packet reached has nothing to say but zeros; on a topology of 10^5 hosts
    // they are almost every row. links.parquet keeps them.
    let carried: Vec<bool> = r
        .links
        .iter()
        .map(|l| carried_a_packet(&l.counters))
        .collect();
    o.key("links");
    rows(&mut o.out, table("links"), &[], |i| carried[i])?;
    o.int("idle_links", carried.iter().filter(|&&c| !c).count() as u64);
    o.key("udp");
    rows(&mut o.out, table("udp"), &[], |_| true)?;
    o.key("web");
    o.out.push('[');
    for (i, (w, label)) in r.web.iter().zip(&cx.web).enumerate() {
        o.out.push_str(if i > 0 { "," } else { "" });
        let mut row = Obj::new();
        row.int("web", w.id as u64);
        row.key("label");
        json::string(&mut row.out, label);
        row.int("started", w.started);
        row.int("completed", w.completed);
        row.int("refused", w.refused);
        o.out.push_str(&row.close());
    }
    o.out.push(']');
    // Sync-TCP's T_wait = 0.5 s, over the flows whose algorithm reports delay signals.
    let ids = r.signalling_flows();
    let (events, seen_by_all) = if ids.is_empty() {
        (0, 0)
    } else {
        let sync = r.signal_synchronization(&ids, 0.5);
        (sync.events, sync.seen_by_all)
    };
    let mut s = Obj::new();
    s.int("events", events);
    s.int("seen_by_all", seen_by_all);
    o.key("signal_sync");
    o.out.push_str(&s.close());
    if !cx.captures.is_empty() {
        let mut p = Obj::new();
        p.key("files");
        p.out.push('[');
        for (i, f) in cx.captures.iter().enumerate() {
            p.out.push_str(if i > 0 { "," } else { "" });
            json::string(&mut p.out, f);
        }
        p.out.push(']');
        p.int("missed", r.captures.missed);
        o.key("pcap");
        o.out.push_str(&p.close());
    }
    Ok(json::indent(&o.close(), 2))
}

/// Whether a packet reached the link: it crossed it or was dropped there.
fn carried_a_packet(c: &hscc_sim::stats::LinkCounters) -> bool {
    c.tx_packets + c.drops_queue + c.drops_aqm + c.drops_random > 0
}

/// A table's rows `keep` accepts (by index) as a JSON list of objects, column by column in
/// order, without the columns `skip`.
fn rows(
    out: &mut String,
    t: &Table,
    skip: &[&str],
    keep: impl Fn(usize) -> bool,
) -> Result<(), String> {
    let n = t.first().map_or(0, |(_, v)| v.len());
    out.push('[');
    let mut first = true;
    for i in (0..n).filter(|&i| keep(i)) {
        out.push_str(if first { "" } else { "," });
        first = false;
        let mut row = Obj::new();
        for (name, values) in t.iter().filter(|(name, _)| !skip.contains(name)) {
            row.key(name);
            values
                .write_json(&mut row.out, i)
                .ok_or_else(|| format!("{name}: a value that is not a finite number"))?;
        }
        out.push_str(&row.close());
    }
    out.push(']');
    Ok(())
}

/// A compact JSON object being written.
struct Obj {
    out: String,
    first: bool,
}

impl Obj {
    fn new() -> Obj {
        Obj {
            out: String::from("{"),
            first: true,
        }
    }
    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        json::string(&mut self.out, k);
        self.out.push(':');
    }
    fn int(&mut self, k: &str, v: u64) {
        self.key(k);
        self.out.push_str(&v.to_string());
    }
    fn float(&mut self, k: &str, v: f64) -> Result<(), String> {
        self.key(k);
        self.value_float(v).map_err(|e| format!("{k}: {e}"))
    }
    fn value_float(&mut self, v: f64) -> Result<(), String> {
        json::float(&mut self.out, v).ok_or_else(|| format!("{v} is not a finite number"))
    }
    fn close(mut self) -> String {
        self.out.push('}');
        self.out
    }
}

/// The sum of `xs`, correctly rounded: Shewchuk's exact partials, as Python's
/// `math.fsum` computes it (CPython's algorithm, round-half-even across partials).
pub fn fsum(xs: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &x0 in xs {
        let mut x = x0;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::fsum;

    #[test]
    fn fsum_is_correctly_rounded() {
        // math.fsum of each, from Python 3.11 (the naive sums are 0.9999999999999999, 0.0 and 1e-16).
        assert_eq!(fsum(&[0.1; 10]), 1.0);
        assert_eq!(fsum(&[1e100, 1.0, -1e100, 1e-100]), 1.0);
        assert_eq!(fsum(&[1.0, 1e-16, 1e-16]), 1.0000000000000002);
        assert_eq!(fsum(&[]), 0.0);
        // Round half to even across partials: 1 + 2^-53 + 2^-106 rounds up.
        assert_eq!(
            fsum(&[1.0, 2f64.powi(-53), 2f64.powi(-106)]),
            1.0000000000000002
        );
        assert_eq!(fsum(&[1.0, 2f64.powi(-53)]), 1.0);
    }
}
