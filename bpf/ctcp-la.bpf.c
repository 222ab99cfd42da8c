/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Lachlan Andrew's Linux CTCP (tcp_compound.c release 1.3): hscc-cc's
 * CtcpLa, which is Ctcp with [LA13]'s module parameters mapped onto the
 * paper's (every ACK sampled, the round's minimum RTT, win = the segments
 * sent, TUBE γ tuning, paced increase; crates/hscc-cc/src/algos/ctcp.rs).
 * So this program is bpf/ctcp.bpf.c under another name; CtcpLa::bpf_globals
 * gives it Ctcp's globals with those values. The renames keep the user-space
 * build (one object per file, linked together) free of clashing symbols.
 */
#define CTCP_OPS hscc_ctcp_la
#define CTCP_OPS_NAME "hscc_ctcp_la"
#define ctcp_init ctcp_la_init
#define ctcp_pkts_acked ctcp_la_pkts_acked
#define ctcp_cong_avoid ctcp_la_cong_avoid
#define ctcp_ssthresh ctcp_la_ssthresh
#define ctcp_set_state ctcp_la_set_state
#define ctcp_cwnd_event ctcp_la_cwnd_event
#define ctcp_undo_cwnd ctcp_la_undo_cwnd
#define hscc_ctcp_set_global hscc_ctcp_la_set_global
#define hscc_ctcp_global_names hscc_ctcp_la_global_names
#include "ctcp.bpf.c"
