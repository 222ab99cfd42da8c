#!/usr/bin/env bash
# The opt-in slow suite (about 16 minutes on 2 cores, half of it building): the
# #[ignore]d long simulations, in release mode, the property tests with
# thousands of random cases (PROPTEST_CASES, 5000 unless set), and the wheel
# installed on a machine without Rust, as built here and as built with Zig for glibc
# 2.17 (scripts/test-wheel.sh). Per-test time
# limits: the `slow` profile of .config/nextest.toml.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
echo "== long simulations: cargo nextest run --release --run-ignored only"
bash scripts/nextest.sh --workspace --release --profile slow --run-ignored only || status=1
# Every proptest: the simulator's properties and scenario fuzzer, each
# algorithm's suite. In the test profile: its debug assertions are part of
# what they check.
cases=${PROPTEST_CASES:-5000}
echo "== property tests, $cases cases each"
PROPTEST_CASES=$cases bash scripts/nextest.sh --workspace --profile slow \
  -E '(binary(=engine) & test(/^(scenario_fuzz|properties)::/)) | test(/_properties::invariants_hold/)' || status=1
echo "== the wheel without Rust: scripts/test-wheel.sh"
timeout 1800 bash scripts/test-wheel.sh || status=1
echo "== the manylinux2014 wheel (Zig, glibc 2.17): scripts/test-wheel.sh --manylinux2014"
timeout 1800 bash scripts/test-wheel.sh --manylinux2014 || status=1
if [ "$status" -ne 0 ]; then
  echo "FAILED: see the output above" >&2
fi
exit "$status"
