//! Packet captures read back with pcap-file's reader and a header decoder
//! written here, apart from the writer (crates/hscc-sim/src/capture): the
//! flow capture agrees with the sender's counters, a dropped packet enters the
//! link capture and never the next link's, captures change nothing in the run,
//! and bad options get errors that name the field.

use std::collections::HashMap;

use hscc_sim::{RunResult, ScenarioSpec, Sim};
use pcap_file::pcap::PcapReader;

/// A decoded IPv4/TCP packet: the fields the checks need.
#[derive(Debug)]
struct Tcp {
    t_ns: u128,
    src: [u8; 4],
    sport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    ecn: u8,
    payload: usize,
    sack: Vec<(u32, u32)>,
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

/// Every TCP packet of a pcap file (LINKTYPE_RAW, IPv4).
fn read(bytes: &[u8]) -> Vec<Tcp> {
    let mut r = PcapReader::new(bytes).unwrap();
    let h = r.header();
    assert_eq!(
        (u32::from(h.datalink), h.ts_resolution),
        (101, pcap_file::TsResolution::NanoSecond),
        "raw IP, ns"
    );
    let mut out = Vec::new();
    // Raw records: pcap-file 2.0's checked ones refuse orig_len > snaplen,
    // which is what a snap length is for.
    while let Some(p) = r.next_raw_packet() {
        let p = p.unwrap();
        assert_eq!(
            p.incl_len,
            p.orig_len.min(h.snaplen),
            "cut at the snap length"
        );
        let b = &p.data;
        assert_eq!(b[0], 0x45);
        if b[9] != 6 {
            continue;
        }
        let total = u16::from_be_bytes([b[2], b[3]]) as usize;
        assert_eq!(total, p.orig_len as usize);
        let t = &b[20..];
        let hlen = (t[12] >> 4) as usize * 4;
        let mut sack = Vec::new();
        let mut o = 20;
        while o < hlen {
            match t[o] {
                0 => break,
                1 => o += 1,
                kind => {
                    let len = t[o + 1] as usize;
                    if kind == 5 {
                        sack = t[o + 2..o + len]
                            .chunks(8)
                            .map(|c| (be32(c), be32(&c[4..])))
                            .collect();
                    }
                    o += len;
                }
            }
        }
        out.push(Tcp {
            t_ns: p.ts_sec as u128 * 1_000_000_000 + p.ts_frac as u128,
            src: b[12..16].try_into().unwrap(),
            sport: u16::from_be_bytes([t[0], t[1]]),
            seq: be32(&t[4..]),
            ack: be32(&t[8..]),
            flags: t[13],
            ecn: b[1] & 3,
            payload: total - 20 - hlen,
            sack,
        });
    }
    out
}

fn scenario(pcap: &str, extra: &str) -> String {
    format!(
        r#"{{"duration": "4s", "seed": 3,
            "topology": {{"kind": "dumbbell", "bottleneck": {{"rate": "10Mbps", "delay": "5ms", "buffer": "15pkts"{extra}}},
                          "pairs": [{{"rate": "1Gbps", "rtt": "40ms"}}]}},
            "flows": [{{"pair": 0, "algorithm": "reno", "count": 2}}],
            "output": {{"pcap": {pcap}}}}}"#
    )
}

fn run(json: &str) -> RunResult {
    let cfg = ScenarioSpec::from_json(json).unwrap().build().unwrap();
    Sim::new(cfg).unwrap().run()
}

/// The capture whose file name contains `part`.
fn file<'a>(r: &'a RunResult, part: &str) -> &'a [u8] {
    &r.captures
        .files
        .iter()
        .find(|(n, _)| n.contains(part))
        .unwrap_or_else(|| panic!("no {part}"))
        .1
}

#[test]
fn flow_capture_matches_the_senders_counters() {
    let r = run(&scenario(r#"{"flows": ["reno 0"]}"#, ""));
    assert_eq!(r.captures.files.len(), 1);
    assert_eq!(r.captures.files[0].0, "flow-0-reno_0.pcap");
    let pkts = read(file(&r, "flow-0"));
    let syn = &pkts[0];
    assert_eq!(syn.flags, 0x02, "a SYN first");
    assert_eq!(pkts[1].flags, 0x12, "then the SYN-ACK");
    let isn = syn.seq;
    let sender = syn.src;
    let data: Vec<&Tcp> = pkts[2..].iter().filter(|p| p.src == sender).collect();
    let acks: Vec<&Tcp> = pkts[2..].iter().filter(|p| p.src != sender).collect();
    let c = &r.flows[0].counters;
    assert!(
        c.retrans > 0,
        "the 15-packet buffer overflows in slow start"
    );
    assert_eq!(
        data.len() as u64,
        c.segs_sent,
        "every segment sent, once per transmission"
    );
    let mut seen = HashMap::new();
    let mut retrans = 0;
    for d in &data {
        let off = d.seq.wrapping_sub(isn).wrapping_sub(1);
        assert_eq!(
            (off % 1448, d.payload),
            (0, 1448),
            "segments start on MSS boundaries"
        );
        retrans += u64::from(seen.insert(d.seq, ()).is_some());
    }
    assert_eq!(
        retrans, c.retrans,
        "a sequence number seen before is a retransmission"
    );
    // ACK numbers and SACK edges fall on segment boundaries at or below the highest sent.
    let high = data.iter().map(|d| d.seq.wrapping_sub(isn)).max().unwrap() + 1448;
    let on_edge = |x: u32| {
        x.wrapping_sub(isn).wrapping_sub(1).is_multiple_of(1448) && x.wrapping_sub(isn) <= high
    };
    assert!(acks.iter().all(|a| on_edge(a.ack)
        && a.sack
            .iter()
            .all(|&(l, r)| on_edge(l) && on_edge(r) && l < r)));
    let sacked = acks.iter().filter(|a| !a.sack.is_empty()).count();
    assert!(sacked > 0, "losses are reported in SACK blocks");
    // Time order, within the run.
    assert!(pkts.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
    assert!(pkts.last().unwrap().t_ns <= 4_000_000_000);
}

#[test]
fn a_drop_enters_the_link_and_never_the_next() {
    let r = run(&scenario(
        r#"{"links": ["bottleneck:fwd", "access-d0:fwd"], "snaplen": 96}"#,
        "",
    ));
    let bn = read(file(&r, "-bottleneck_fwd.pcap"));
    let next = read(file(&r, "-access-d0_fwd.pcap"));
    let drops: Vec<_> = r
        .captures
        .drops
        .iter()
        .filter(|d| d.link == "bottleneck:fwd")
        .collect();
    assert!(!drops.is_empty());
    assert_eq!(
        drops.len() as u64,
        r.links[0].counters.drops_queue,
        "the drop log has every drop"
    );
    let count = |pkts: &[Tcp], sport: u16, seq: u32| {
        pkts.iter()
            .filter(|p| p.sport == sport && p.seq == seq && p.payload > 0)
            .count()
    };
    let ports: HashMap<Option<u32>, u16> = (0..2).map(|i| (Some(i), 32_768 + i as u16)).collect();
    for d in &drops {
        assert_eq!(
            (d.kind, d.cause),
            ("data", hscc_sim::capture::DropCause::Queue)
        );
        let (sport, seq) = (ports[&d.flow], d.tcp_seq.unwrap());
        let dropped = drops
            .iter()
            .filter(|e| e.flow == d.flow && e.tcp_seq == d.tcp_seq)
            .count();
        let entered = count(&bn, sport, seq);
        assert!(entered >= dropped, "the dropped packet entered the link");
        let last_in = bn
            .iter()
            .filter(|p| p.sport == sport && p.seq == seq)
            .map(|p| p.t_ns)
            .max()
            .unwrap();
        if last_in < 3_900_000_000 {
            assert_eq!(
                count(&next, sport, seq),
                entered - dropped,
                "and never left it"
            );
        }
    }
}

#[test]
fn captures_change_nothing_else_and_repeat_exactly() {
    let plain = scenario("null", "").replace(r#""pcap": null"#, r#""traces": []"#);
    let traced = scenario(r#"{"flows": ["reno 1"], "links": ["bottleneck:fwd"]}"#, "")
        .replace(r#""output": {"#, r#""output": {"traces": [], "#);
    let a = run(&plain);
    let mut b = run(&traced);
    let c = run(&traced);
    assert_eq!(b.captures.files, c.captures.files, "same seed, same bytes");
    b.captures = Default::default();
    // A captured link folds no hop into it (link/fold.rs): more events, nothing else.
    assert!(b.events > a.events);
    b.events = a.events;
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn ecn_marks_show_in_the_ip_header() {
    let r = run(&scenario(
        r#"{"links": ["access-d0:fwd"]}"#,
        r#", "queue": {"kind": "red", "ecn": true}"#,
    )
    .replace(r#""count": 2"#, r#""count": 2, "ecn": true"#));
    let pkts = read(file(&r, "-access-d0_fwd.pcap"));
    assert!(
        pkts.iter().any(|p| p.flags == 0x02 | 0x40 | 0x80),
        "an ECN-setup SYN"
    );
    let ce = pkts.iter().filter(|p| p.ecn == 3).count() as u64;
    assert!(
        ce > 0 && ce <= r.links[0].counters.marks,
        "CE marks crossed to the next link: {ce}"
    );
    assert!(
        pkts.iter()
            .filter(|p| p.payload > 0)
            .all(|p| p.ecn != 0 || p.seq != 0),
        "data is ECN-capable"
    );
}

#[test]
fn bad_options_name_the_field() {
    let cases = [
        (
            r#"{"flows": ["cubic 0"]}"#,
            "output.pcap.flows[0]",
            "reno 0",
        ),
        (
            r#"{"links": ["bottleneck"]}"#,
            "output.pcap.links[0]",
            "bottleneck:fwd",
        ),
        (
            r#"{"links": ["bottleneck:fwd", "bottleneck:fwd"]}"#,
            "output.pcap.links[1]",
            "once",
        ),
        (
            r#"{"flows": ["reno 0"], "snaplen": 40}"#,
            "output.pcap.snaplen",
            "80 to 65535",
        ),
    ];
    for (pcap, field, hint) in cases {
        let e = ScenarioSpec::from_json(&scenario(pcap, ""))
            .unwrap()
            .build()
            .unwrap_err();
        assert_eq!(e.field, field, "{pcap}");
        assert!(e.allowed.contains(hint), "{pcap}: {}", e.allowed);
    }
    let e = ScenarioSpec::from_json(&scenario(r#"{"flow": ["reno 0"]}"#, "")).unwrap_err();
    assert!(e.field.contains("output.pcap"), "{e}");
}

#[test]
fn a_capture_too_large_is_refused_before_the_run() {
    let json = scenario(r#"{"links": ["bottleneck:fwd"], "snaplen": 1500}"#, "")
        .replace(r#""4s""#, r#""3000s""#)
        .replace("10Mbps", "10Gbps");
    let e = ScenarioSpec::from_json(&json).unwrap().build().unwrap_err();
    assert_eq!(e.field, "output.pcap.links");
    assert!(
        e.allowed.contains("packet captures would take about") && e.allowed.contains("GB"),
        "{}",
        e.allowed
    );
}

#[test]
fn the_estimate_of_capture_bytes_is_near_the_files() {
    for pcap in [
        r#"{"flows": ["reno 0"]}"#,
        r#"{"links": ["bottleneck:fwd", "bottleneck:rev"]}"#,
    ] {
        let json = scenario(pcap, "").replace(r#""4s""#, r#""20s""#);
        let estimate = ScenarioSpec::from_json(&json)
            .unwrap()
            .estimate()
            .unwrap()
            .capture_bytes as f64;
        let actual: usize = run(&json).captures.files.iter().map(|(_, b)| b.len()).sum();
        let ratio = estimate / actual as f64;
        eprintln!("{pcap}: estimate {estimate} B, files {actual} B ({ratio:.2}×)");
        assert!((0.5..=2.0).contains(&ratio));
    }
}
