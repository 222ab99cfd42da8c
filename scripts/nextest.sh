#!/usr/bin/env bash
# `cargo nextest run ARGS...` as scripts/test.sh and scripts/test-slow.sh use it.
# Installs the pinned cargo-nextest when it is missing or older (built from
# crates.io: 12 CPU-minutes, once per machine), builds the tests, then runs
# them with each test process's address space capped at 4 GiB: a broken
# algorithm can make the simulator allocate without bound, and the cap turns
# that into one failed test instead of a machine out of memory. Time limits per
# test are in .config/nextest.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi

version=0.9.151  # building it needs Rust >= 1.91
have=$(cargo nextest --version 2>/dev/null | sed -n '1s/^cargo-nextest \([^ ]*\).*/\1/p' || true)
if [ -z "$have" ] || [ "$(printf '%s\n' "$version" "$have" | sort -V | head -n1)" != "$version" ]; then
  echo "nextest: installing cargo-nextest $version (cargo install: 6 to 20 minutes, once)" >&2
  # Without the self-update feature: fewer crates to build; updates come from this pin.
  cargo install cargo-nextest --version "$version" --locked --no-default-features --features default-no-update
fi

# Build outside the cap (the compiler may need more), then run under it.
cargo nextest run --no-run "$@"
ulimit -v $((4 << 20))  # KiB
exec cargo nextest run "$@"
