#!/usr/bin/env bash
# Install the external model checkers that tactl's tests run for real (see tactl/engines/checkers.py):
#   * SPIN, plus a C compiler for the `pan` verifiers it generates: Debian's `spin` and `gcc`
#     packages, installed when missing and we are root;
#   * NuSMV 2.5.4: built from source by tools/build_nusmv.sh into
#     ${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}/nusmv (a no-op once built), unless a
#     NuSMV is already given by TACTL_NUSMV or found on PATH.
# Whatever cannot be installed is reported with a loud WARNING naming the tests that will skip, and
# the script still exits 0, so that `make test` runs everything else.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tools/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

IS_ROOT=0; [ "$(id -u)" = 0 ] && IS_ROOT=1
HAVE_APT=0; command -v apt-get >/dev/null 2>&1 && HAVE_APT=1
APT_UPDATED=0
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    if [ $APT_UPDATED = 0 ]; then
        apt-get update -qq >/dev/null || true
        APT_UPDATED=1
    fi
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---- SPIN and a C compiler --------------------------------------------------------------------
spin_bin="${TACTL_SPIN:-$(command -v spin || true)}"
cc_bin="$(command -v "${CC:-gcc}" || command -v gcc || command -v cc || true)"
if [ -n "$spin_bin" ] && [ -n "$cc_bin" ]; then
    say "SPIN: $spin_bin ($("$spin_bin" -V 2>/dev/null | head -n1)); C compiler: $cc_bin"
else
    # (libc6-dev too: Debian's gcc only recommends it, and pan.c does not compile without it.)
    want=(); [ -z "$spin_bin" ] && want+=(spin); [ -z "$cc_bin" ] && want+=(gcc)
    if [ $IS_ROOT = 1 ] && [ $HAVE_APT = 1 ]; then
        say "installing ${want[*]} from Debian (SPIN and the C compiler its pan verifiers need)"
        apt_install "${want[@]}" libc6-dev || true
    fi
    if command -v spin >/dev/null 2>&1 && { command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1; }; then
        say "SPIN: $(command -v spin) ($(spin -V 2>/dev/null | head -n1))"
    else
        if [ $IS_ROOT = 1 ] && [ $HAVE_APT = 1 ]; then why="'apt-get install ${want[*]}' failed"
        else why="installing it needs root and apt-get: 'apt-get install spin gcc'"; fi
        loud "${want[*]} missing ($why)." \
             "The tests that run SPIN (Promela output checked with spin -a, gcc and pan) will be" \
             "SKIPPED; 'tactl' commands that need SPIN exit 2."
    fi
fi

# ---- NuSMV ------------------------------------------------------------------------------------
if [ -n "${TACTL_NUSMV:-}" ]; then
    say "NuSMV: $TACTL_NUSMV (from TACTL_NUSMV; not building one)"
elif command -v NuSMV >/dev/null 2>&1; then
    say "NuSMV: $(command -v NuSMV) (on PATH; not building one)"
elif bash "$HERE/build_nusmv.sh"; then
    :
else
    log="${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}/build_nusmv.log"
    loud "NuSMV could not be built: see the build_nusmv messages above$([ -s "$log" ] && echo " and $log")." \
         "The tests that run NuSMV (SMV output checked with NuSMV) will be SKIPPED;" \
         "'tactl' commands that need NuSMV exit 2. Fix the cause, then run 'make tools' again."
fi
exit 0
