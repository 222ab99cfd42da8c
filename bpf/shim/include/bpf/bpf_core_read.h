/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libbpf's CO-RE reads in the user-space build: the shim's types are the
 * kernel's as this build sees them, so a relocatable read is a plain one. */
#ifndef HSCC_SHIM_BPF_CORE_READ_H
#define HSCC_SHIM_BPF_CORE_READ_H

#define BPF_CORE_READ_BITFIELD(s, field) ((s)->field)
#define BPF_CORE_READ_BITFIELD_PROBED(s, field) ((s)->field)
#define BPF_CORE_READ(src, a) ((src)->a)
#define BPF_CORE_READ_INTO(dst, src, a) (*(dst) = (src)->a, 0)
#define bpf_core_field_exists(field) 1

#endif /* HSCC_SHIM_BPF_CORE_READ_H */
