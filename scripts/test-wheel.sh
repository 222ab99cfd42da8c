#!/usr/bin/env bash
# The wheel on a machine without Rust: build hscc's wheel (maturin build --release:
# one abi3 wheel for every CPython >= 3.11, tagged manylinux), install it into a new
# venv whose PATH has no cargo or rustc, and check from there that
#   - `hscc run examples/two-reno-rtt.toml` runs the demo (its summary checked);
#   - `hscc kernel list` finds every eBPF program in the package's copy of bpf/, and
#     `hscc kernel build` compiles them with clang (where the kernel toolchain is);
#   - the testbed's C sources are in the package and `hscc testbed limits` builds
#     and runs the delay line from them (where cc is).
# About 4 minutes on 2 cores: the release build (1.5 minutes; seconds when cached),
# installing the dependencies (under a minute), building the 22 programs (25 s).
# Part of scripts/test-slow.sh.
#
#   bash scripts/test-wheel.sh                   # build, then test
#   bash scripts/test-wheel.sh --manylinux2014   # build with Zig against glibc 2.17, then test
#   bash scripts/test-wheel.sh --wheel FILE      # test a wheel built before
#
# The plain build's manylinux tag follows the building machine's glibc (Debian 12:
# manylinux_2_34); --manylinux2014 links with Zig (the pinned `ziglang` wheel,
# installed with its hash into a temporary venv) so the wheel installs on glibc 2.17
# and newer, and checks that its tag says so.
#
# Needs: Python >= 3.11 ($PYTHON or python3) with venv, network or a pip cache for the
# wheel's dependencies; for the build, Rust (cargo) and maturin (.venv, scripts/bootstrap.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
say() { echo "test-wheel [$SECONDS s]: $*" >&2; }
fail() { echo "test-wheel: FAILED: $*" >&2; exit 1; }

wheel=""
zig=0
if [ "${1:-}" = "--wheel" ]; then
  [ -f "${2:-}" ] || fail "--wheel needs an existing wheel file (got '${2:-}')"
  wheel=$(realpath "$2")
elif [ "${1:-}" = "--manylinux2014" ]; then
  zig=1
elif [ $# -gt 0 ]; then
  fail "unknown argument '$1' (allowed: --wheel FILE, --manylinux2014)"
fi

py="${PYTHON:-python3}"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || fail "Python 3.11 or newer is needed as \$PYTHON or python3"

work=$(mktemp -d "${TMPDIR:-/tmp}/hscc-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -z "$wheel" ]; then
  maturin=.venv/bin/maturin
  [ -x "$maturin" ] || maturin=$(command -v maturin) \
    || fail "maturin not found: run scripts/bootstrap.sh (it installs maturin into .venv)"
  # rustup puts cargo in ~/.cargo/bin, which a non-login shell may not have on PATH.
  command -v cargo >/dev/null 2>&1 || PATH="$HOME/.cargo/bin:$PATH"
  build=(build --release --locked --out "$work/dist")
  if [ "$zig" = 1 ]; then
    say "installing Zig (ziglang 0.17.1, hash-checked) into a temporary venv"
    "$py" -m venv "$work/zig"
    printf '%s\n' "ziglang==0.17.1 --hash=sha256:ea6cc5d87b033cf0aedfbc8f9549a908cae6c50ac31f1698188fa48a74524b54" > "$work/zig.lock"
    "$work/zig/bin/pip" install --disable-pip-version-check -q --require-hashes -r "$work/zig.lock" >&2
    build+=(--zig --compatibility manylinux2014)
    # A target directory of its own: objects linked by Zig are not the host linker's.
    export PATH="$work/zig/bin:$PATH" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/zig"
  fi
  say "building the wheel (maturin ${build[*]})"
  # Where flock exists, /tmp/hscc-cargo.lock is held while building: one Rust build at a
  # time on a machine that several checkouts share (a shared CARGO_TARGET_DIR).
  lock=()
  command -v flock >/dev/null 2>&1 && lock=(flock /tmp/hscc-cargo.lock)
  "${lock[@]}" "$maturin" "${build[@]}" >&2
  wheel=$(ls "$work"/dist/hscc-*.whl)
fi
name=$(basename "$wheel")
case "$name" in
  hscc-*-cp311-abi3-manylinux*.whl) ;;
  *) fail "$name is not an abi3 manylinux wheel (expected hscc-VERSION-cp311-abi3-manylinux*.whl)" ;;
esac
if [ "$zig" = 1 ]; then
  case "$name" in
    *manylinux_2_17*) ;;
    *) fail "$name is not tagged manylinux_2_17 (glibc 2.17): the Zig link did not hold" ;;
  esac
fi
say "wheel: $name, $(du -k "$wheel" | cut -f1) kB"
# What the include list adds: the sources of bpf/, never a checkout's build outputs.
files=$("$py" -m zipfile -l "$wheel" | awk '{print $1}')
echo "$files" | grep -q '^hscc/_bpf/hscc\.h$' || fail "$name has no hscc/_bpf/hscc.h"
! echo "$files" | grep -q '^hscc/_bpf/build/' || fail "$name carries bpf/build/"
say "  $(echo "$files" | grep -c '^hscc/_bpf/') files of bpf/ in it"

# PATH without any directory that holds cargo or rustc (rustup's ~/.cargo/bin, a system Rust).
clean_path=""
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ] && clean_path="${clean_path:+$clean_path:}$d"
done
venv="$work/venv"
"$py" -m venv "$venv"
export PATH="$venv/bin:$clean_path"
unset VIRTUAL_ENV CARGO_TARGET_DIR
if command -v cargo >/dev/null 2>&1 || command -v rustc >/dev/null 2>&1; then
  fail "cargo or rustc is still on PATH ($(command -v cargo rustc | tr '\n' ' '))"
fi
say "installing it into a fresh venv (no cargo, no rustc on PATH)"
pip install --disable-pip-version-check -q "$wheel" >&2
# Everything below runs from the temporary directory: nothing may come from the checkout
# but the example scenario.
cd "$work"
export XDG_CACHE_HOME="$work/cache" HSCC_TESTBED_BUILD="$work/testbed-build"
site=$(python -c 'import hscc, pathlib; print(pathlib.Path(hscc.__file__).parent)')
case "$site" in
  "$venv"/*) ;;
  *) fail "hscc was imported from $site, not from the fresh venv" ;;
esac

say "hscc run examples/two-reno-rtt.toml"
hscc run "$repo/examples/two-reno-rtt.toml" --out "$work/out/demo" -q >&2
python - "$work/out/demo/summary.json" <<'EOF' || fail "the demo's summary is not as expected"
import json, sys
flows = json.load(open(sys.argv[1]))["flows"]
goodput = [f["goodput_bps"] / 1e6 for f in flows]
print(f"test-wheel: demo: {len(flows)} flows, goodput {goodput[0]:.1f} and {goodput[1]:.1f} Mbit/s",
      file=sys.stderr)
# Two Reno flows on 100 Mbit/s: the link nearly full, the 40 ms flow well ahead of the 120 ms one.
assert len(flows) == 2 and 80 < sum(goodput) <= 100 and goodput[0] > 1.5 * goodput[1], goodput
EOF

say "hscc kernel list (the programs of the package's bpf/ copy)"
[ -f "$site/_bpf/hscc.h" ] && [ ! -L "$site/_bpf" ] || fail "the wheel carries no bpf/ copy at $site/_bpf"
listed=$(hscc kernel list | sed -n 's/^programs in bpf\/: //p' | tr -d ' ' | tr ',' '\n' | sort)
expected=$(ls "$repo"/bpf/*.bpf.c | xargs -n1 basename | sed 's/\.bpf\.c$//' | sort)
[ -n "$listed" ] && [ "$listed" = "$expected" ] \
  || fail "hscc kernel list shows [$(echo $listed)], bpf/ has [$(echo $expected)]"
say "  $(echo "$listed" | wc -l) programs found"
if python -c 'import sys; from hscc.kernel import toolchain; sys.exit(toolchain.missing_for_build() is not None)'; then
  say "hscc kernel build (clang, from the package's copy)"
  hscc kernel build >&2
  built=$(ls "$XDG_CACHE_HOME"/hscc/bpf-*/*.bpf.o | wc -l)
  [ "$built" -eq "$(echo "$expected" | wc -l)" ] || fail "hscc kernel build made $built objects"
  [ ! -e "$site/_bpf/build" ] || fail "hscc kernel build wrote into the installed package"
  say "  $built programs built in $(echo "$XDG_CACHE_HOME"/hscc/bpf-*)"
else
  say "skipping hscc kernel build: $(python -c 'from hscc.kernel import toolchain; print(toolchain.missing_for_build())')"
fi

say "the testbed's sources"
for f in delayline.c loss.bpf.c recovery.bpf.c endpoint.py; do
  [ -f "$site/testbed/$f" ] || fail "the wheel carries no testbed/$f"
done
if command -v cc >/dev/null 2>&1; then
  hscc testbed limits >&2
  ls "$HSCC_TESTBED_BUILD"/delayline-* >/dev/null || fail "hscc testbed limits built no delay line"
else
  say "skipping hscc testbed limits: no C compiler (cc)"
fi
say "ok: $name works without Rust"
