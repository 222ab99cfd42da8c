#!/usr/bin/env bash
# The system packages the tests need beyond Python and Rust: for the kernel and
# testbed tests (tests/python/test_kernel.py, test_testbed*.py; docs/kernel.md,
# docs/testbed.md) clang, llvm, bpftool, libbpf-dev, iproute2, ethtool, iperf3 and
# a C compiler; tshark (the pcap files read back by Wireshark's dissectors) and
# Chromium with its driver (the report page rendered); linux-source-6.12 (the
# kernel's own BPF congestion controls, run unchanged as user programs:
# scripts/linux-selftests.sh extracts them); ns2 (the ns-2 cross-check's harness,
# tests/python/test_ns2_harness.py). Installs what is missing
# where apt-get and root are there (scripts/test.sh calls it, so CI runs those
# tests); elsewhere says which tests will skip. Never fails the caller.
packages=(clang llvm bpftool libbpf-dev iproute2 ethtool iperf3 gcc tshark chromium chromium-driver linux-source-6.12 ns2)
missing=0
for tool in clang llc bpftool ip tc ethtool iperf3 cc tshark chromium chromedriver ns; do
  command -v "$tool" >/dev/null 2>&1 || missing=1
done
[ -e /usr/include/bpf/libbpf.h ] || missing=1
ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1 || missing=1
[ "$missing" = 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "system-packages: installing ${packages[*]} (apt-get)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"; } >/dev/null \
    || echo "system-packages: could not install them; the tests that need them will skip and say why" >&2
else
  echo "system-packages: not root or no apt-get; the tests that need them will skip and say why" >&2
fi
exit 0
