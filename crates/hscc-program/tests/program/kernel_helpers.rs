//! What Linux's bpf_dctcp.c needs beyond the template: a file with several
//! struct_ops, the socket-option helpers, bpf_tcp_send_ack, socket storage
//! and the receiving end's fields (`ecn_flags`, `rcv_nxt`, `icsk_ack`).

use std::path::{Path, PathBuf};

use hscc_cc::{ExternalProgram, TcpCc};
use hscc_program::program::{choose_ops, Candidate};

/// The template as `name`, with `extra` appended (more struct_ops).
fn template_with(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let text = include_str!("../../../../python/hscc/templates/algorithm.bpf.c")
        .replace("__NAME__", name)
        + extra;
    let p = dir.join(format!("{name}.bpf.c"));
    std::fs::write(&p, text).unwrap();
    p
}

fn candidate(variable: &str, missing: &[&'static str]) -> Candidate {
    Candidate {
        variable: variable.into(),
        name: format!("k_{variable}"),
        missing: missing.to_vec(),
    }
}

#[test]
fn the_one_complete_struct_ops_of_a_file_is_chosen() {
    let nouse = candidate("nouse", &["ssthresh", "undo_cwnd"]);
    let full = candidate("full", &[]);
    assert_eq!(choose_ops(&[nouse.clone(), full.clone()]), Ok(1));
    assert_eq!(choose_ops(&[full.clone(), nouse.clone()]), Ok(0));
    assert_eq!(choose_ops(std::slice::from_ref(&full)), Ok(0));
    // Two complete: refused, naming both with their kernel names.
    let e = choose_ops(&[full.clone(), candidate("other", &[]), nouse.clone()]).unwrap_err();
    assert!(
        e.contains("3 struct tcp_congestion_ops")
            && e.contains("full (\"k_full\", complete)")
            && e.contains("other (\"k_other\", complete)")
            && e.contains("nouse (\"k_nouse\", leaves out ssthresh and undo_cwnd)")
            && e.contains("exactly one"),
        "{e}"
    );
    // None complete: refused, saying what each lacks.
    let e = choose_ops(&[nouse.clone(), candidate("b", &["undo_cwnd"])]).unwrap_err();
    assert!(e.contains("b (\"k_b\", leaves out undo_cwnd)"), "{e}");
    let e = choose_ops(&[nouse]).unwrap_err();
    assert!(e.contains("struct tcp_congestion_ops nouse leaves out ssthresh and undo_cwnd"));
}

/// A struct_ops with init and set_state only, before and after the complete one.
const NOUSE: &str = "
SEC(\".struct_ops\")
struct tcp_congestion_ops nouse = {
	.init = (void *)two_init,
	.set_state = (void *)two_set_state,
	.name = \"two_nouse\",
};
";

#[test]
fn a_file_with_an_incomplete_struct_ops_runs_its_complete_one() {
    crate::test_env();
    let dir = tempfile::tempdir().unwrap();
    let p = hscc_program::load(&template_with(dir.path(), "two", NOUSE)).unwrap();
    assert_eq!(p.ops_variable(), "two");
    assert_eq!(p.kernel_name().unwrap(), "two");
    let mut c = p.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    tp.snd_cwnd = 100;
    // The template's ssthresh (512/1024): the complete ops run.
    assert_eq!(c.ssthresh(&mut tp), 50);
    // Two complete ones: refused with both names.
    let both = NOUSE.replace(
        ".set_state = (void *)two_set_state,",
        ".ssthresh = (void *)two_ssthresh,\n\t.undo_cwnd = (void *)two_undo_cwnd,\n\t.cong_avoid = (void *)two_cong_avoid,",
    );
    let e = hscc_program::load(&template_with(dir.path(), "two", &both)).unwrap_err();
    assert!(
        e.contains("2 struct tcp_congestion_ops")
            && e.contains("two (\"two\", complete)")
            && e.contains("nouse (\"two_nouse\", complete)"),
        "{e}"
    );
}

/// A cong_avoid that calls the helpers and reads the receiving end's fields,
/// and sets snd_cwnd to one bit per expectation met (bit 0 always, so the
/// window is never 0). A second call checks that the first one's writes to
/// `ecn_flags` and `icsk_ack.pending` were dropped.
const PROBE: &str = r#"
#include "bpf_tracing_net.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, int);
} stg SEC(".maps");

SEC("struct_ops")
__u32 BPF_PROG(probe_ssthresh, struct sock *sk) { return 2; }
SEC("struct_ops")
__u32 BPF_PROG(probe_undo, struct sock *sk) { return tcp_sk(sk)->snd_cwnd; }

SEC("struct_ops")
void BPF_PROG(probe_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	char name[TCP_CA_NAME_MAX];
	char other[4] = { 1, 1, 1, 1 };
	__u32 bits = 1;
	int *v;

	if (bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)"reno", 5) == -95)
		bits |= 1 << 1;
	if (bpf_getsockopt(sk, SOL_TCP, TCP_CONGESTION, name, sizeof(name)) == 0 &&
	    __builtin_memcmp(name, "probe_ops\0\0\0\0\0\0\0", 16) == 0)
		bits |= 1 << 2;
	if (bpf_getsockopt(sk, SOL_TCP, 99, other, sizeof(other)) == -95 &&
	    (other[0] | other[1] | other[2] | other[3]) == 0)
		bits |= 1 << 3;
	if (bpf_tcp_send_ack(tp, tp->rcv_nxt) == -95)
		bits |= 1 << 4;
	if (tp->ecn_flags == TCP_ECN_OK && tp->rcv_nxt == 0 &&
	    inet_csk(sk)->icsk_ack.pending == 0)
		bits |= 1 << 5;
	if (!bpf_sk_storage_get(&stg, tp, NULL, 0)) {
		v = bpf_sk_storage_get(&stg, tp, NULL, BPF_SK_STORAGE_GET_F_CREATE);
		if (v && *v == 0) {
			*v = 7;
			v = bpf_sk_storage_get(&stg, tp, NULL, 0);
			if (v && *v == 7 && bpf_sk_storage_delete(&stg, tp) == 0 &&
			    bpf_sk_storage_delete(&stg, tp) == -2 &&
			    !bpf_sk_storage_get(&stg, tp, NULL, 0))
				bits |= 1 << 6;
		}
	}
	tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW | ICSK_ACK_TIMER;
	tp->snd_cwnd = bits;
}

SEC(".struct_ops")
struct tcp_congestion_ops probe = {
	.ssthresh = (void *)probe_ssthresh,
	.undo_cwnd = (void *)probe_undo,
	.cong_avoid = (void *)probe_cong_avoid,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "probe_ops",
};
"#;

#[test]
fn socket_options_send_ack_storage_and_the_receivers_fields_behave_as_documented() {
    crate::test_env();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("probe.bpf.c");
    std::fs::write(&path, PROBE).unwrap();
    let p = hscc_program::load(&path).unwrap();
    assert_eq!(p.flags(), 2, "TCP_CONG_NEEDS_ECN from .flags");
    let mut c = p.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    tp.ecn_ok = true;
    c.init(&mut tp);
    for _ in 0..2 {
        tp.snd_cwnd = 10;
        c.cong_avoid(&mut tp, 0, 1);
        assert_eq!(c.fault(), None);
        assert_eq!(tp.snd_cwnd, 0b111_1111, "bits {:07b}", tp.snd_cwnd);
    }
    // Without ECN on the connection, ecn_flags reads 0 (bit 5 clear).
    tp.ecn_ok = false;
    c.cong_avoid(&mut tp, 0, 1);
    assert_eq!(tp.snd_cwnd, 0b101_1111);
}
