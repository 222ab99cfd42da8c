#!/usr/bin/env bash
# Set up everything hscc needs in .venv: the pinned Python packages
# (requirements-dev.lock) and the hscc package with its Rust engine built by
# maturin (release mode). Idempotent: a step runs only when its inputs changed,
# so a second call takes a second or two.
#
# `--tools-only`: stop after the Python packages (the lint tools among them);
# scripts/lint.sh needs no extension.
#
# Needs: Python >= 3.11 with venv (python3, or $PYTHON) and Rust (cargo, via rustup).
# Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$PWD/.venv"
say() { echo "bootstrap: $*" >&2; }

# rustup puts cargo in ~/.cargo/bin, which a non-login shell may not have on PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || { say "cargo not found: install Rust with rustup (https://rustup.rs)"; exit 1; }
py="${PYTHON:-python3}"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || { say "Python 3.11 or newer is needed as \$PYTHON or python3"; exit 1; }

# Fingerprint of some files: a step reruns when it changes.
fingerprint() { cat "$@" | sha256sum | cut -c1-32; }

if [ ! -x "$venv/bin/python" ]; then
  say "creating .venv"
  "$py" -m venv "$venv"
fi

deps=$(fingerprint requirements-dev.lock)
if [ "$(cat "$venv/.hscc-deps" 2>/dev/null)" != "$deps" ]; then
  say "installing the pinned Python packages (requirements-dev.lock)"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q --require-hashes -r requirements-dev.lock
  echo "$deps" > "$venv/.hscc-deps"
fi
[ "${1:-}" = "--tools-only" ] && exit 0

# The extension depends on the Rust sources and manifests and on the C it
# embeds (hscc-program's runtime and the shim's headers, bpf/shim/include and
# bpf/include); the Python sources are installed editable (python/ is used in
# place) and need no rebuild.
sources=$(fingerprint pyproject.toml Cargo.toml Cargo.lock $(find crates bpf/shim/include bpf/include -type f \( -name '*.rs' -o -name Cargo.toml -o -name '*.c' -o -name '*.h' \) -not -path '*/target/*' | LC_ALL=C sort))
if [ "$(cat "$venv/.hscc-build" 2>/dev/null)" != "$sources" ] || ! "$venv/bin/python" -c 'import hscc._core' 2>/dev/null; then
  say "building the hscc extension (maturin develop --release)"
  VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --release --locked
  echo "$sources" > "$venv/.hscc-build"
fi
say "ready: $("$venv/bin/hscc" --version)"
