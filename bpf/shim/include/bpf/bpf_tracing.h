/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libbpf's bpf_tracing.h in the user-space build: a struct_ops program is a
 * plain C function of the arguments it names. As libbpf's, it brings in
 * bpf_helpers.h. */
#ifndef HSCC_SHIM_BPF_TRACING_H
#define HSCC_SHIM_BPF_TRACING_H

#include "bpf_helpers.h"

#define BPF_PROG(name, args...) name(args)

#endif /* HSCC_SHIM_BPF_TRACING_H */
