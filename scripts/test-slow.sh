#!/usr/bin/env bash
# The opt-in slow suite (about 25 minutes on 2 cores, a third of it building):
# the #[ignore]d long simulations, in release mode, the property tests with
# thousands of random cases (PROPTEST_CASES, 5000 unless set), the eBPF
# programs' conformance on ten times the default suite's random sequences, the
# Python tests marked slow (the longer --quick experiments), and the wheel
# installed on a machine without Rust, as built here and as built with Zig for glibc
# 2.17 (scripts/test-wheel.sh). Per-test time
# limits: the `slow` profile of .config/nextest.toml, pytest-timeout.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1

status=0
echo "== long simulations: cargo nextest run --release --run-ignored only"
bash scripts/nextest.sh --workspace --release --profile slow --run-ignored only \
  -E 'not test(/ten_lossless_days/)' || status=1
# Every proptest: the simulator's properties and scenario fuzzer, each
# algorithm's suite. In the test profile: its debug assertions are part of
# what they check.
cases=${PROPTEST_CASES:-5000}
echo "== property tests, $cases cases each"
PROPTEST_CASES=$cases bash scripts/nextest.sh --workspace --profile slow --run-ignored all \
  -E '(binary(=engine) & test(/^(scenario_fuzz|properties)::/)) | test(/_properties::(invariants_hold|ten_lossless_days)/)' || status=1
# The eBPF programs against their Rust twins: ten times the default suite's
# random sequences per program.
conformance=${CONFORMANCE_CASES:-20000}
echo "== eBPF conformance, $conformance random sequences per program"
PROPTEST_CASES=$conformance bash scripts/nextest.sh -p hscc-bpf-conformance --profile slow \
  -E 'test(/random_sequences|conform_on_rate_samples/)' || status=1
echo "== pytest tests/python -m slow (on every core)"
.venv/bin/python -m pytest tests/python -q -n auto --dist loadfile -m slow || status=1
echo "== the wheel without Rust: scripts/test-wheel.sh"
timeout 1800 bash scripts/test-wheel.sh || status=1
echo "== the manylinux2014 wheel (Zig, glibc 2.17): scripts/test-wheel.sh --manylinux2014"
timeout 1800 bash scripts/test-wheel.sh --manylinux2014 || status=1
if [ "$status" -ne 0 ]; then
  echo "FAILED: see the output above" >&2
fi
exit "$status"
