#!/usr/bin/env bash
# The house style, checked: .ci/run calls this before the tests, and a
# contributor runs it (or the pre-commit hooks, .pre-commit-config.yaml) before
# pushing. Every check runs and every failure is reported; exits non-zero if any
# failed. The tools are the pinned ones in .venv (requirements-dev.lock) and the
# toolchain in rust-toolchain.toml.
#
#   Rust:   rustfmt, clippy (warnings are errors, all targets), rustdoc (warnings
#           are errors, private items too), cargo-deny (licences, bans, sources; advisories where the
#           RustSec database can be fetched), the MSRV in Cargo.toml against the
#           locked dependencies' own (scripts/check_msrv.py)
#   Python: ruff format, ruff check, mypy (python/hscc, config in pyproject.toml)
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --tools-only || exit 1
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi
export PATH="$PWD/.venv/bin:$PATH"  # cargo finds cargo-deny on PATH

failed=()
check() {
  local name=$1
  shift
  echo "== $name: $*"
  local t0=$SECONDS
  if "$@"; then
    echo "   ok ($((SECONDS - t0)) s)"
  else
    echo "   FAILED: $name" >&2
    failed+=("$name")
  fi
}

check rustfmt cargo fmt --all --check
check rustfmt-fuzz cargo fmt --manifest-path fuzz/Cargo.toml --all --check
check clippy cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
check rustdoc env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet \
  --document-private-items
check cargo-deny cargo deny --locked check --hide-inclusion-graph licenses bans sources
# The advisory database is a git repository on github.com; where it cannot be
# fetched (a machine that reaches only package registries) say so, do not fail.
if timeout 60 git ls-remote https://github.com/RustSec/advisory-db HEAD >/dev/null 2>&1; then
  check advisories cargo deny --locked check --hide-inclusion-graph advisories
else
  echo "== advisories: not checked (the RustSec database on github.com cannot be reached)"
fi
check msrv python scripts/check_msrv.py
check ruff-format ruff format --check --quiet .
check ruff ruff check --quiet .
check mypy mypy

if [ "${#failed[@]}" -ne 0 ]; then
  echo "lint FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "lint: all checks passed"
