#!/usr/bin/env bash
# The Linux kernel's own BPF congestion controls (tools/testing/selftests/bpf/
# progs/bpf_cubic.c, bpf_dctcp.c and the bpf_tracing_net.h they include), for
# the tests that run them unchanged in the simulator and the kernel. They come
# from the OS package linux-source-6.12 (scripts/system-packages.sh installs
# it); this extracts the three files, once, into
# ${HSCC_LINUX_SELFTESTS:-~/.cache/hscc/linux-selftests} and prints that
# directory. Exits 1, saying why, when the package is not there.
set -euo pipefail
out="${HSCC_LINUX_SELFTESTS:-${XDG_CACHE_HOME:-$HOME/.cache}/hscc/linux-selftests}"
files=(bpf_cubic.c bpf_dctcp.c bpf_tracing_net.h)
have=1
for f in "${files[@]}"; do [ -s "$out/$f" ] || have=0; done
if [ "$have" = 1 ]; then echo "$out"; exit 0; fi
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$tarball" ]; then
  echo "linux-selftests: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.12)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$(basename "$tarball" .tar.xz)
tar -xJf "$tarball" -C "$tmp" "${files[@]/#/$top/tools/testing/selftests/bpf/progs/}"
mkdir -p "$out"
for f in "${files[@]}"; do cp "$tmp/$top/tools/testing/selftests/bpf/progs/$f" "$out/$f"; done
echo "$out"
