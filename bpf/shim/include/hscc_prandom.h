/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf_get_prandom_u32 in user space: hscc-cc's bbr::prandom_u32 (splitmix64,
 * high half) on the connection's generator state, which the caller copies in
 * from TcpCc::prandom_state before each hook and back after it (the variable
 * is defined once per build: the conformance crate's csrc/layout.c, the
 * program runtime's runtime.c).
 */
#ifndef HSCC_SHIM_PRANDOM_H
#define HSCC_SHIM_PRANDOM_H

#include "vmlinux.h"

extern __thread __u64 hscc_prandom_state;
static inline __u32 bpf_get_prandom_u32(void)
{
	__u64 z = hscc_prandom_state += 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (__u32)((z ^ (z >> 31)) >> 32);
}

#endif /* HSCC_SHIM_PRANDOM_H */
