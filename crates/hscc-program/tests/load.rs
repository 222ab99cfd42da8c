//! Building and loading programs, and running their hooks on a sender's view.

use std::path::PathBuf;

use hscc_cc::{CaState, ExternalProgram, TcpCc};

fn template(dir: &std::path::Path) -> PathBuf {
    let text = include_str!("../../../python/hscc/templates/algorithm.bpf.c").replace("__NAME__", "mycc");
    let p = dir.join("mycc.bpf.c");
    std::fs::write(&p, text).unwrap();
    p
}

fn cache(dir: &std::path::Path) {
    std::env::set_var("HSCC_CACHE_DIR", dir.join("cache"));
}

#[test]
fn the_template_loads_with_its_parameters_and_grows_as_reno() {
    let dir = tempfile::tempdir().unwrap();
    cache(dir.path());
    let p = hscc_program::load(&template(dir.path())).unwrap();
    assert_eq!(p.name(), "mycc");
    assert_eq!(p.kernel_name().unwrap(), "mycc");
    let params: Vec<(String, u8, i64)> =
        p.params().iter().map(|q| (q.name.clone(), q.size, q.default)).collect();
    assert_eq!(params, [("beta".into(), 4, 512), ("increase".into(), 4, 1)]);
    let reg = p.register(&[("beta".into(), 717)]).unwrap();
    let mut c = reg.connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    // Slow start: +1 per segment ACKed while cwnd-limited.
    tp.max_packets_out = 10;
    tp.is_cwnd_limited = true;
    c.cong_avoid(&mut tp, 0, 5);
    assert_eq!(tp.snd_cwnd, 15);
    // Loss: keep 717/1024 of 100 = 70.
    tp.snd_cwnd = 100;
    assert_eq!(c.ssthresh(&mut tp), 70);
    tp.snd_ssthresh = 70;
    tp.snd_cwnd = 70;
    tp.ca_state = CaState::Open;
    // Congestion avoidance: +1 after 70 segments ACKed.
    c.cong_avoid(&mut tp, 0, 69);
    assert_eq!(tp.snd_cwnd, 70);
    c.cong_avoid(&mut tp, 0, 1);
    assert_eq!(tp.snd_cwnd, 71);
    // Undo goes back to the window before the loss.
    assert_eq!(c.undo_cwnd(&mut tp), 100);
    assert!(c.fault().is_none());
}
