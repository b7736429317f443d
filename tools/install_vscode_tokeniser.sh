#!/usr/bin/env bash
# Install VS Code's own TextMate tokeniser (vscode-textmate on vscode-oniguruma, the devDependencies
# of editors/vscode/package.json) into editors/vscode/node_modules, so that
# tests/cli/test_textmate_grammar.py checks the grammars with the regular-expression engine the
# editor uses, not only with its Python reading. Needs node and npm (installed from Debian when
# missing and we are root) and the npm registry; otherwise a loud WARNING names the test that will
# skip. Idempotent, and always exits 0 so that `make test` runs everything else.

set -uo pipefail

# shellcheck source=tools/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

EXT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../editors/vscode" && pwd)"

if [ -d "$EXT/node_modules/vscode-textmate" ] && [ -d "$EXT/node_modules/vscode-oniguruma" ]; then
    say "VS Code tokeniser: $EXT/node_modules (already installed)"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing node and npm from Debian (for VS Code's tokeniser in the grammar test)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    apt-get install -y -qq nodejs npm >/dev/null || true
fi

if ! command -v npm >/dev/null 2>&1; then
    loud "npm is missing and cannot be installed here" \
         "tests/cli/test_textmate_grammar.py::test_vscode_reads_the_grammars_as_these_tests_do will skip"
    exit 0
fi

say "installing vscode-textmate and vscode-oniguruma into editors/vscode/node_modules"
if ! (cd "$EXT" && npm install --no-audit --no-fund --silent --no-package-lock >/dev/null 2>&1); then
    loud "npm install in editors/vscode failed (no npm registry?)" \
         "tests/cli/test_textmate_grammar.py::test_vscode_reads_the_grammars_as_these_tests_do will skip"
fi
exit 0
