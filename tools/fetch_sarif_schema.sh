#!/usr/bin/env bash
# Fetch the SARIF 2.1.0 JSON schema that tests/report/test_ci_sarif.py validates `tactl check
# --sarif` and `tactl verify --sarif` against, into
#     ${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}/sarif-schema-2.1.0.json
# (outside the checkout: the schema is OASIS's file, never committed). The schema is not on PyPI,
# so it comes from its canonical place (SARIF_SCHEMA_URL), else from the JSON Schema Store
# (SARIF_SCHEMA_MIRROR). A no-op once the file is there; written atomically after checking that it
# is the 2.1.0 schema. Offline, a loud WARNING names the test that will skip its schema check (the
# test's second, download-free check still runs) and the script exits 0, so `make test` runs on.

set -euo pipefail

# shellcheck source=tools/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

if [ -z "${TACTL_TOOLS:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${HOME:-}" ]; then
    loud "cannot tell where the cache is: set TACTL_TOOLS (or HOME); the SARIF schema was not fetched"
    exit 0
fi
CACHE="${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}"
TARGET="$CACHE/sarif-schema-2.1.0.json"
URLS=("${SARIF_SCHEMA_URL:-https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json}"
      "${SARIF_SCHEMA_MIRROR:-https://json.schemastore.org/sarif-2.1.0.json}")
PYTHON="${PYTHON:-python3}"

if [ -s "$TARGET" ]; then
    say "SARIF 2.1.0 schema: $TARGET"
    exit 0
fi
mkdir -p "$CACHE"
for url in "${URLS[@]}"; do
    # Python's urllib: no curl or wget needed; the check refuses an error page or another schema.
    if "$PYTHON" - "$url" "$TARGET" <<'EOF'
import json, os, sys, tempfile, urllib.request
url, target = sys.argv[1], sys.argv[2]
try:
    with urllib.request.urlopen(url, timeout=30) as response:
        data = response.read()
    schema = json.loads(data)
except (OSError, ValueError) as e:
    print(f"fetch_sarif_schema: {url}: {e}", file=sys.stderr)
    sys.exit(1)
if "2.1.0" not in str(schema.get("title", "")) + str(schema.get("$id", schema.get("id", ""))):
    print(f"fetch_sarif_schema: {url}: not the SARIF 2.1.0 schema", file=sys.stderr)
    sys.exit(1)
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".sarif-schema.")
with os.fdopen(fd, "wb") as out:
    out.write(data)
os.chmod(tmp, 0o644)
os.replace(tmp, target)
EOF
    then
        say "SARIF 2.1.0 schema fetched from $url into $TARGET"
        exit 0
    fi
done
loud "the SARIF 2.1.0 schema could not be fetched (offline?); put it at $TARGET." \
     "tests/report/test_ci_sarif.py will SKIP its validation against the schema (its structural" \
     "check with the sarif-pydantic models still runs)."
exit 0
