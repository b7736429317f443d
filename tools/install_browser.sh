#!/usr/bin/env bash
# Install the headless browser that tests/report/test_report_browser.py runs for real: Debian's
# `chromium`, which renders the HTML report of `tactl verify` (--dump-dom, --screenshot) so the
# test sees the page a user sees, not just the text we wrote. Installed when missing and we are
# root with apt-get; otherwise a loud WARNING names the test that will skip. Idempotent (a no-op
# once a chromium is on PATH) and always exits 0, so that `make test` runs everything else.

set -euo pipefail

# shellcheck source=tools/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

find_chromium() { command -v chromium || command -v chromium-browser || true; }

bin="$(find_chromium)"
if [ -n "$bin" ]; then
    say "chromium: $bin ($("$bin" --version 2>/dev/null | head -n1 || echo 'version unknown'))"
    exit 0
fi

IS_ROOT=0; [ "$(id -u)" = 0 ] && IS_ROOT=1
HAVE_APT=0; command -v apt-get >/dev/null 2>&1 && HAVE_APT=1
if [ $IS_ROOT = 1 ] && [ $HAVE_APT = 1 ]; then
    say "installing chromium from Debian (headless, for the HTML report's browser test; ~100 MB)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    apt-get install -y -qq chromium >/dev/null || true
fi

bin="$(find_chromium)"
if [ -n "$bin" ]; then
    say "chromium: $bin ($("$bin" --version 2>/dev/null | head -n1 || echo 'version unknown'))"
else
    if [ $IS_ROOT = 1 ] && [ $HAVE_APT = 1 ]; then why="'apt-get install chromium' failed"
    else why="installing it needs root and apt-get: 'apt-get install chromium'"; fi
    loud "headless Chromium missing ($why)." \
         "tests/report/test_report_browser.py (the verify report rendered by a real browser: DOM text" \
         "and a screenshot) will be SKIPPED; the HTML report itself is still tested as text."
fi
exit 0
