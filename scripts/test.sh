#!/usr/bin/env bash
# The whole test suite: Rust (cargo nextest, and cargo test for the doctests)
# and Python (pytest tests/python, on every core; the real-kernel tests alone
# after); the long validation runs are the slow suite's (scripts/test-slow.sh).
# Sets up what is needed first (scripts/system-packages.sh: the kernel and
# testbed tests' system packages where root and apt-get are there;
# scripts/bootstrap.sh: .venv with the pinned cargo-nextest and the
# extension). Every test
# runs under a time limit (.config/nextest.toml, pytest-timeout in
# pyproject.toml): a test that loops forever fails instead of hanging the run.
# Exits non-zero if anything fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh
bash scripts/bootstrap.sh || exit 1
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi

status=0
echo "== cargo nextest run --workspace"
bash scripts/nextest.sh --workspace || status=1
echo "== cargo test --workspace --doc --locked"  # nextest does not run doctests
cargo test --workspace --doc --locked || status=1
# The real-kernel tests measure the kernel, so they run alone on an idle machine
# after the rest, which runs on every core (pytest-xdist).
echo "== pytest tests/python -m 'not real_kernel and not slow' (on every core)"
.venv/bin/python -m pytest tests/python -q -n auto --dist loadfile -m "not real_kernel and not slow" || status=1
echo "== pytest tests/python -m 'real_kernel and not slow' (alone)"
.venv/bin/python -m pytest tests/python -q -m "real_kernel and not slow" || status=1
if [ "$status" -ne 0 ]; then
  echo "FAILED: see the output above" >&2
fi
exit "$status"
