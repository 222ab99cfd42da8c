#!/usr/bin/env bash
# Opt-in slow suite: fuzz the scenario path (docs/validation/engine.md, "Fuzzing the scenario path").
#
#   bash scripts/fuzz.sh [--inputs N] [--jobs J] [--engine-seconds S] [--python-only | --engine-only]
#                        [--campaign LABEL] [--results PATH | --no-results]
#
# 1. Special files: `hscc check` on /dev/zero, a directory and a named pipe without
#    a writer exits 2 within 30 s.
# 2. The Python fuzzer (atheris): N inputs (default 10^6) over J processes
#    (default 2) through TOML → Scenario → engine build → a run of at most 1
#    simulated second or 20 000 events; then N/10 inputs through the sweep and
#    experiment readers (fuzz/py/fuzz_readers.py).
# 3. The engine fuzzer (cargo-fuzz): S seconds (default 900) of JSON → build → run.
# Corpora, findings and logs go to fuzz/out/ (git-ignored); a finding's
# smallest input is in fuzz/out/python/findings/*/input.toml or
# fuzz/out/engine/artifacts/. Each fuzzer's figures (inputs, wall time, coverage,
# findings per kind) go into --results (default validation/results/fuzz.json) as
# one entry, labelled LABEL (default: the start time, UTC); --no-results writes
# none. Exits 1 if anything was found, 0 if nothing.
# Needs: what scripts/bootstrap.sh needs, nightly Rust and cargo-fuzz
# (`rustup toolchain install nightly`, `cargo install cargo-fuzz --locked`).
set -uo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
command="bash scripts/fuzz.sh${*:+ $*}"
inputs=1000000 jobs=2 engine_seconds=900 python=1 engine=1
campaign=$(date -u +%Y-%m-%dT%H:%MZ) results_args=(--results validation/results/fuzz.json)
while [ $# -gt 0 ]; do
  case "$1" in
    --inputs) inputs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --engine-seconds) engine_seconds="$2"; shift 2 ;;
    --python-only) engine=0; shift ;;
    --engine-only) python=0; shift ;;
    --campaign) campaign="$2"; shift 2 ;;
    --results) case "$2" in /*) results_args=(--results "$2") ;; *) results_args=(--results "$caller/$2") ;; esac; shift 2 ;;
    --no-results) results_args=(--no-results); shift ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "fuzz: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
say() { echo "fuzz: $*" >&2; }
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi
bash scripts/bootstrap.sh || exit 1
py="$PWD/.venv/bin/python"
deps=$(sha256sum fuzz/requirements.lock | cut -c1-32)
if [ "$(cat .venv/.hscc-fuzz-deps 2>/dev/null)" != "$deps" ]; then
  say "installing the fuzzing tools (fuzz/requirements.lock)"
  "$py" -m pip install --disable-pip-version-check -q -r fuzz/requirements.lock || exit 1
  echo "$deps" > .venv/.hscc-fuzz-deps
fi
mkdir -p fuzz/out
status=0
# One entry of the results file from the summary a fuzzer just wrote.
record() { "$py" fuzz/py/fuzz_results.py --campaign "$campaign" --command "$command" "${results_args[@]}" "$@" >/dev/null || status=1; }

say "special files"
rm -f fuzz/out/pipe.toml && mkfifo fuzz/out/pipe.toml
for f in /dev/zero / fuzz/out/pipe.toml; do
  timeout 30 .venv/bin/hscc check "$f" >/dev/null 2>fuzz/out/special.err
  code=$?
  if [ "$code" -ne 2 ]; then say "FINDING: hscc check $f exited $code (want 2: bad input)"; status=1; fi
done
rm -f fuzz/out/pipe.toml  # a reader of the tree that opens it would wait for a writer

if [ "$python" = 1 ]; then
  say "Python fuzzer: $inputs inputs, $jobs jobs (fuzz/out/python)"
  rm -f fuzz/out/python/summary.json fuzz/out/readers/summary.json
  "$py" fuzz/py/campaign.py --inputs "$inputs" --jobs "$jobs" || status=1
  record --fuzzer python --summary fuzz/out/python/summary.json
  say "Python fuzzer: $((inputs / 10)) inputs through the sweep and experiment readers (fuzz/out/readers)"
  "$py" fuzz/py/fuzz_readers.py --inputs "$((inputs / 10))" > fuzz/out/readers.log 2>&1 || status=1
  record --fuzzer readers --summary fuzz/out/readers/summary.json --log fuzz/out/readers.log
fi

if [ "$engine" = 1 ]; then
  out=fuzz/out/engine
  mkdir -p "$out/corpus" "$out/seeds" "$out/artifacts"
  (cd fuzz/py && "$py" engine_seeds.py "../../$out/seeds") || exit 1
  say "engine fuzzer: building (cargo +nightly fuzz build, overflow checks on)"
  cargo +nightly fuzz build -a scenario_json || exit 1
  bin=fuzz/target/x86_64-unknown-linux-gnu/release/scenario_json
  limits=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10)
  say "engine fuzzer: $engine_seconds s (fuzz/out/engine)"
  rm -f "$out/summary.json"
  t0=$SECONDS
  # Fork mode with -ignore_*: the campaign goes on past a finding and keeps each one.
  "$bin" "${limits[@]}" -max_total_time="$engine_seconds" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_len=16384 -dict="$out/engine.dict" -artifact_prefix="$out/artifacts/" "$out/corpus" "$out/seeds" \
    > "$out/libfuzzer.log" 2>&1
  wall=$((SECONDS - t0))
  "$py" fuzz/py/engine_report.py "$out/libfuzzer.log" "$out/artifacts" "$bin" "${limits[@]}" || status=1
  record --fuzzer engine --summary "$out/summary.json" --wall-seconds "$wall"
fi

if [ "$status" -ne 0 ]; then say "FINDINGS: see above and fuzz/out/"; else say "no findings"; fi
exit "$status"
