/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Offsets and sizes of the shim's kernel types as C sees them, in a fixed
 * order: the Rust mirror (crates/hscc-program, sock.rs) checks its own
 * against these, so a field added on one side only fails a test.
 */
#ifndef HSCC_SHIM_LAYOUT_H
#define HSCC_SHIM_LAYOUT_H

#include "vmlinux.h"

static inline void hscc_user_layout_fill(size_t *out)
{
	size_t i = 0;
	out[i++] = sizeof(struct tcp_sock);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_inet.sk_pacing_rate);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_ca_state);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_ca_priv);
	out[i++] = offsetof(struct tcp_sock, snd_cwnd);
	out[i++] = offsetof(struct tcp_sock, rtt_min);
	out[i++] = offsetof(struct tcp_sock, snd_una);
	out[i++] = offsetof(struct tcp_sock, is_cwnd_limited);
	out[i++] = offsetof(struct tcp_sock, app_limited);
	out[i++] = offsetof(struct tcp_sock, tcp_mstamp);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_inet.sk_max_pacing_rate);
	out[i++] = offsetof(struct tcp_sock, delivered_mstamp);
	out[i++] = offsetof(struct tcp_sock, tcp_clock_cache);
	out[i++] = sizeof(struct rate_sample);
	out[i++] = offsetof(struct rate_sample, interval_us);
	out[i++] = offsetof(struct rate_sample, losses);
	out[i++] = offsetof(struct rate_sample, is_ack_delayed);
	out[i++] = offsetof(struct tcp_sock, lsndtime);
	out[i++] = offsetof(struct tcp_sock, delivered_ce);
	out[i++] = offsetof(struct tcp_sock, hscc_enter_cwr);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_ack.pending);
	out[i++] = offsetof(struct tcp_sock, rcv_nxt);
	out[i++] = offsetof(struct tcp_sock, ecn_flags);
	out[i++] = offsetof(struct tcp_sock, rx_opt.rcv_tsval);
	out[i++] = offsetof(struct tcp_sock, rx_opt.rcv_tsecr);
	out[i++] = offsetof(struct rate_sample, tx_in_flight);
	out[i++] = offsetof(struct rate_sample, lost);
	out[i++] = offsetof(struct tcp_skb_cb, tx.in_flight);
	out[i++] = sizeof(struct tcp_congestion_ops);
}

#endif /* HSCC_SHIM_LAYOUT_H */
