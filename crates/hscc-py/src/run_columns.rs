//! What each column of a run's tables means, with its unit: the reference the docs
//! are generated from (`hscc fields --run-directory`, docs/run-directory.md) and
//! the extension gives Python (`_core.table_columns`). A test holds it to the
//! tables [`crate::run_tables`] writes, column for column, in order.

/// A table: its name, what one row is, and its (column, meaning) pairs in order.
pub type Table = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Every table, in the run directory's order.
pub const TABLES: &[Table] = &[
    (
        "flows",
        "one row per TCP flow",
        &[
            ("flow", "engine index of the flow"),
            ("spec", "index of its `[[flows]]` entry"),
            ("label", "its label (the entry's `label`, else made from its algorithm and path)"),
            ("algorithm", "congestion control: its name (a program file's without `.bpf.c`, a Python algorithm's `name`)"),
            ("src", "sending host"),
            ("dst", "receiving host"),
            ("start_s", "start time, s"),
            ("end_s", "end of its active period (its stop, completion or the run's end), s"),
            ("base_rtt_s", "round-trip propagation and serialization delay, s"),
            ("mean_srtt_s", "mean of its sampled smoothed RTT, s (null without flow traces)"),
            ("srtt_s", "smoothed RTT at the end, s"),
            ("min_rtt_s", "smallest RTT sample, s"),
            ("goodput_bps", "in-order payload delivered to the receiver over its active period, bit/s"),
            ("share", "its goodput over the sum of every flow's"),
            ("completion_s", "time its transfer completed, s (null unless it did)"),
            ("final_cwnd", "congestion window at the end, segments"),
            ("segs_sent", "data segments sent, retransmissions included"),
            ("retrans", "retransmitted segments"),
            ("delivered_segs", "segments delivered in order to the receiving application"),
            ("delivered_bytes", "payload bytes delivered in order to the receiving application"),
            ("lost_fast", "segments marked lost before a retransmission timeout: by duplicate ACKs, SACK or RACK"),
            ("rack_lost", "of those, marked by RACK"),
            ("tlps", "tail loss probes sent"),
            ("undos", "window reductions undone as spurious (D-SACK, timestamps, F-RTO)"),
            ("recoveries", "fast recoveries entered, and reductions after a tail loss probe repaired a loss (Linux TCPLossProbeRecovery)"),
            ("timeouts", "retransmission timeouts"),
            ("acks_sent", "ACKs its receiver sent"),
            ("ecn_reductions", "window reductions for ECN echoes"),
            ("ce_received", "data segments that arrived CE-marked"),
            ("retrans_ratio", "retrans over segs_sent"),
            ("slow_start_s", "time spent in slow start, s"),
            ("signals", "congestion signals its algorithm detected by delay"),
            ("signals_s", "their times, s (summary.json has their synchronization instead: `signal_sync`)"),
        ],
    ),
    (
        "links",
        "one row per link direction",
        &[
            ("link", "engine index of the link"),
            ("name", "its name, e.g. `bottleneck:fwd`"),
            ("from", "node it leaves"),
            ("to", "node it reaches"),
            ("rate_bps", "rate, bit/s"),
            ("monitored", "whether its queue statistics are kept"),
            ("utilization", "share of the run spent transmitting: bytes that crossed it, with its framing, over rate × run length, 0-1"),
            ("tx_packets", "packets that crossed it"),
            ("tx_bytes", "IP bytes that crossed it, bytes"),
            ("drops_queue", "packets dropped because its queue was full"),
            ("drops_queue_slow_start", "of those, TCP segments sent while their flow was in slow start (null from the testbed)"),
            ("drops_queue_udp", "of those, UDP datagrams (null from the testbed)"),
            ("drops_random", "packets dropped by random loss"),
            ("drops_aqm", "packets the queue discipline dropped (RED's and PIE's early drops, CoDel's)"),
            ("marks", "packets the queue discipline CE-marked"),
            ("drops", "every drop: drops_queue + drops_aqm + drops_random"),
            ("mean_qdelay_s", "mean queuing delay of the packets that left the queue, s (monitored links)"),
            ("p99_qdelay_s", "its 99th percentile, s"),
            ("max_qdelay_s", "its largest, s"),
            ("mean_queue_pkts", "time-averaged backlog, packets"),
            ("mean_queue_bytes", "time-averaged backlog, bytes"),
            ("normalized_occupancy", "mean backlog over the buffer's size"),
        ],
    ),
    (
        "udp",
        "one row per UDP flow (a `[[voip]]` call is two, → then ←)",
        &[
            ("udp", "engine index of the UDP flow"),
            ("source", "its entry, e.g. `udp[0]` or `voip[1]`"),
            ("label", "its label"),
            ("sent", "datagrams sent"),
            ("received", "datagrams received"),
            ("lost", "datagrams dropped on the way (not those still in flight at the end)"),
            ("loss_rate", "lost over sent"),
            ("throughput_bps", "bits received per second"),
            ("mean_delay_s", "mean one-way delay, s"),
            ("p99_delay_s", "its 99th percentile, s"),
            ("max_delay_s", "its largest, s"),
            ("jitter_s", "interarrival jitter as RFC 3550 §6.4.1 computes it, s"),
        ],
    ),
    (
        "web",
        "one row per web source and response-size bin",
        &[
            ("web", "index of its `[[web]]` entry"),
            ("label", "its label"),
            ("size_min", "smallest response in the bin, bytes"),
            ("size_max", "largest response in the bin, bytes"),
            ("count", "transfers completed"),
            ("mean_s", "mean response time, s"),
            ("median_s", "median response time, s"),
            ("p90_s", "90th percentile of the response time, s"),
        ],
    ),
    (
        "timeseries",
        "one row per sample and TCP flow (`[output] traces` with `flows`)",
        &[
            ("time_s", "end of the sampling interval, s"),
            ("flow", "engine index of the flow"),
            ("throughput_bps", "goodput over the interval, bit/s"),
            ("cwnd", "congestion window at the sample, segments"),
            ("srtt_s", "smoothed RTT at the sample, s"),
            (
                "pacing_rate_bps",
                "pacing rate at the sample, bit/s, as Linux's socket holds it (tcpi_pacing_rate): the algorithm's, else 2× cwnd per sRTT in slow start's first half and 1.2× after, paced or not",
            ),
        ],
    ),
    (
        "queues",
        "one row per sample and monitored link (`[output] traces` with `queues`)",
        &[
            ("time_s", "end of the sampling interval, s"),
            ("link", "engine index of the link"),
            ("name", "its name"),
            ("queue_pkts", "backlog at the sample, packets"),
            ("queue_bytes", "backlog at the sample, bytes"),
            ("qdelay_s", "mean queuing delay of the packets that left the queue in the interval, s"),
            ("drops", "drops in the interval"),
            ("marks", "CE marks in the interval"),
            ("utilization", "utilization over the interval, 0-1"),
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::TABLES;
    use crate::run_tables::schemas;

    #[test]
    fn every_column_written_is_described_in_order() {
        let written: Vec<(&str, Vec<&str>)> = schemas()
            .into_iter()
            .map(|(t, cols)| (t, cols.into_iter().map(|(c, _)| c).collect()))
            .collect();
        let described: Vec<(&str, Vec<&str>)> = TABLES
            .iter()
            .map(|(t, _, cols)| (*t, cols.iter().map(|(c, _)| *c).collect()))
            .collect();
        assert_eq!(described, written);
        for (t, _, cols) in TABLES {
            for (c, meaning) in *cols {
                assert!(!meaning.is_empty(), "{t}.{c}");
            }
        }
    }
}
