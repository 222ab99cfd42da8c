#!/usr/bin/env bash
# Opt-in: install Debian's Chromium and chromedriver (needs root), then run the test that
# opens report.html in headless Chromium (tests/python/test_reproduce_catalogue.py; it
# runs every --quick experiment first, a few minutes). Without Chromium the default
# suite skips that one test and says why.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
fi
bash scripts/bootstrap.sh >/dev/null
.venv/bin/python -m pytest tests/python/test_reproduce_catalogue.py -q
