#!/usr/bin/env bash
# `cargo nextest run --locked ARGS...` as scripts/test.sh and scripts/test-slow.sh use it.
# cargo-nextest is the pinned prebuilt binary that scripts/bootstrap.sh puts in
# .venv/bin (requirements-dev.lock). Builds the tests, then runs them with each
# test process's address space capped at 4 GiB: a broken algorithm can make the
# simulator allocate without bound, and the cap turns that into one failed test
# instead of a machine out of memory. Time limits per test are in
# .config/nextest.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi
export PATH="$PWD/.venv/bin:$PATH"  # cargo finds `cargo-nextest` on PATH
cargo nextest --version >/dev/null 2>&1 || { echo "nextest: cargo-nextest missing; run scripts/bootstrap.sh" >&2; exit 1; }

# Build outside the cap (the compiler may need more), then run under it.
cargo nextest run --locked --no-run "$@"
ulimit -v $((4 << 20))  # KiB
exec cargo nextest run --locked "$@"
