#!/usr/bin/env bash
# The whole test suite: Rust (cargo test --workspace) and Python (pytest tests/python).
# Sets up what is needed first (scripts/bootstrap.sh). Exits non-zero if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi

status=0
echo "== cargo test --workspace"
cargo test --workspace || status=1
echo "== pytest tests/python"
.venv/bin/python -m pytest tests/python -q || status=1
if [ "$status" -ne 0 ]; then
  echo "FAILED: see the output above" >&2
fi
exit "$status"
