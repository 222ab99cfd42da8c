#!/usr/bin/env bash
# Write vmlinux.h (the running kernel's types, from its BTF) to $1, for the
# kernel build of bpf/*.bpf.c. Regenerated per machine, never committed: the
# programs must see the layout of the kernel they load into.
set -euo pipefail
out=${1:?usage: gen-vmlinux.sh OUT}
btf=/sys/kernel/btf/vmlinux
[ -r "$btf" ] || { echo "gen-vmlinux.sh: $btf is missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
command -v bpftool >/dev/null || { echo "gen-vmlinux.sh: bpftool is not installed (apt-get install bpftool)" >&2; exit 1; }
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
bpftool btf dump file "$btf" format c >"$tmp"
mv "$tmp" "$out"
trap - EXIT
