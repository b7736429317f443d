#!/usr/bin/env bash
# Build NuSMV 2.5.4 (with the MiniSat SAT solver, for `NuSMV -bmc`) from source into a cache outside
# the checkout, where tactl/engines/checkers.py looks for it:
#
#     ${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}/nusmv/bin/NuSMV
#
# Does nothing when that binary is already there and runs. `--force` (or TACTL_NUSMV_REBUILD=1)
# rebuilds anyway.
#
# Where the source comes from: NuSMV 2.5.4 (LGPL) and MiniSat 070721 (MIT) ship, unmodified, inside
# the source distribution of pynusmv 1.0rc8 on PyPI (dependencies/NuSMV/NuSMV-2.5.4.tar.gz,
# dependencies/MiniSat/minisat2-070721.zip). We fetch it with pip at build time (never copy it into
# the repository), check its SHA-256, and keep the 4 MB archive in $CACHE/downloads for rebuilds.
#
# What it takes to build 2011 code with a current compiler (Debian 12, gcc 12; also meant for gcc 14+):
#   * CUDD 2.4.1.1: util/pipefork.c declares `union wait status`, which glibc removed -> `int`;
#     built with its Makefile_64bit (64-bit sizes in XCFLAGS).
#   * MiniSat 070721: NuSMV's own interface patch (MiniSat/MiniSat_v070721_nusmv.patch, adds the C
#     API Solver_C.h that NuSMV links against), pynusmv's patch moving the `Clause_new` friend out
#     of the class (newer g++ rejects it), and -std=gnu++98 (C++11 parses `extern "C"void` as a
#     user-defined literal).
#   * NuSMV: -fcommon (gcc >= 10 defaults to -fno-common and the sources define globals in headers),
#     -std=gnu17 where accepted (gcc >= 15 defaults to C23), and the old-C diagnostics that gcc 14
#     made errors demoted back to warnings. Everything compiled with -w: the build log stays short.
# If MiniSat does not build, NuSMV is built without it (BDD checking works, `-bmc` does not) and a
# WARNING says so.
#
# Needs: gcc, make, flex, bison, patch, tar, python3 with pip or venv; g++ for MiniSat; optional
# headers for readline (interactive shell) and expat (XML traces). As root with apt-get, missing ones
# are installed; otherwise the script says what is missing.
#
# Safety: everything happens in a temporary directory under $CACHE; the result is installed by
# renaming a complete, smoke-tested tree into place, so an interrupted build never leaves a
# half-installed binary. A lock (flock) keeps two concurrent builds from racing.

set -euo pipefail

NUSMV_VERSION=2.5.4
PYNUSMV_VERSION=1.0rc8
PYNUSMV_SDIST="pynusmv-${PYNUSMV_VERSION}.tar.gz"
PYNUSMV_SHA256=35af7cdd25dfc8dc357770f0764b2cb726aed219200bba2e58c25318b2425aa1
NUSMV_TGZ_SHA256=3c250624cba801b1f62f50733f9507b0f3b3ca557ce1cd65956178eb273f1bdf
MINISAT_ZIP_SHA256=ddc2ed421a538a349ddab58d3958076d73813925ff08361e6292583d3b87248e

. "$(dirname "$0")/lib.sh"  # begin_build, run, step (the build scaffolding shared with the other builders)
say()  { printf 'build_nusmv: %s\n' "$*"; }
warn() { printf 'build_nusmv: WARNING: %s\n' "$*" >&2; }
die()  { printf 'build_nusmv: ERROR: %s\n' "$*" >&2; exit 1; }

if [ -z "${TACTL_TOOLS:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${HOME:-}" ]; then
    die "cannot tell where the cache is: set TACTL_TOOLS (or HOME)"
fi
CACHE="${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}"
PREFIX="$CACHE/nusmv"
BIN="$PREFIX/bin/NuSMV"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"

FORCE="${TACTL_NUSMV_REBUILD:-0}"
for arg in "$@"; do
    case "$arg" in
        --force) FORCE=1 ;;
        -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown argument '$arg' (only --force)" ;;
    esac
done

# A built NuSMV counts only if it runs (a removed shared library, e.g. after an upgrade, means rebuild).
nusmv_works() {
    local banner
    [ -x "$1" ] || return 1
    banner="$("$1" -help 2>&1 || true)"   # -help exits with status 2 after printing the banner
    grep -q "This is NuSMV ${NUSMV_VERSION}" <<<"$banner"
}

if [ "$FORCE" != 1 ] && nusmv_works "$BIN"; then
    say "NuSMV ${NUSMV_VERSION} already built: $BIN ($(cat "$PREFIX/BUILD-INFO" 2>/dev/null | grep '^minisat' || echo 'minisat: ?'))"
    exit 0
fi

mkdir -p "$CACHE"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/.build_nusmv.lock"
    if ! flock -n 9; then
        say "another build of NuSMV is running; waiting for it"
        flock 9
    fi
    if [ "$FORCE" != 1 ] && nusmv_works "$BIN"; then
        say "NuSMV ${NUSMV_VERSION} was built meanwhile: $BIN"
        exit 0
    fi
    # We hold the lock, so build directories still lying around are from killed builds.
    rm -rf "$CACHE"/.build-nusmv.??????
fi

begin_build nusmv 7  # $WORK, $LOG, run, step; cleanup traps (tools/lib.sh)

say "building NuSMV ${NUSMV_VERSION} into $PREFIX (1-3 minutes; on failure the log is kept in $CACHE/build_nusmv.log)"

# ---------------------------------------------------------------------------------------------
step 1 "checking build tools"
IS_ROOT=0; [ "$(id -u)" = 0 ] && IS_ROOT=1
CC="${CC:-gcc}"; CXX="${CXX:-g++}"
header_ok() { printf '#include <%s>\n' "$1" | "$CC" -E -x c - >/dev/null 2>&1; }
missing_required=(); missing_optional=()
for tool_pkg in "$CC:gcc" make:make flex:flex bison:bison patch:patch tar:tar gzip:gzip; do
    command -v "${tool_pkg%%:*}" >/dev/null 2>&1 || missing_required+=("${tool_pkg##*:}")
done
command -v "$CXX" >/dev/null 2>&1 || missing_optional+=(g++)
if command -v "$CC" >/dev/null 2>&1; then
    header_ok stdio.h || missing_required+=(libc6-dev)   # Debian's gcc only recommends it
    header_ok readline/readline.h || missing_optional+=(libreadline-dev)
    header_ok expat.h || missing_optional+=(libexpat1-dev)
else
    missing_required+=(libc6-dev); missing_optional+=(libreadline-dev libexpat1-dev)
fi
if [ ${#missing_required[@]} -gt 0 ] || [ ${#missing_optional[@]} -gt 0 ]; then
    pkgs=("${missing_required[@]}" "${missing_optional[@]}")
    if [ $IS_ROOT = 1 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing build dependencies from Debian: ${pkgs[*]}"
        export DEBIAN_FRONTEND=noninteractive
        run apt-get update -qq || warn "apt-get update failed; trying the install anyway"
        run apt-get install -y -qq --no-install-recommends "${pkgs[@]}" \
            || warn "apt-get install ${pkgs[*]} failed"
    fi
    for tool_pkg in "$CC:gcc" make:make flex:flex bison:bison patch:patch tar:tar gzip:gzip; do
        command -v "${tool_pkg%%:*}" >/dev/null 2>&1 \
            || die "'${tool_pkg%%:*}' is missing (Debian: apt-get install ${tool_pkg##*:}); NuSMV cannot be built"
    done
    header_ok stdio.h || die "the C library headers are missing (Debian: apt-get install libc6-dev); NuSMV cannot be built"
fi
HAVE_CXX=1
command -v "$CXX" >/dev/null 2>&1 || { HAVE_CXX=0; warn "no C++ compiler ($CXX): MiniSat cannot be built, so NuSMV will have no -bmc (Debian: apt-get install g++)"; }
header_ok readline/readline.h || warn "readline headers missing: NuSMV's interactive shell will lack line editing (Debian: libreadline-dev)"
header_ok expat.h || warn "expat headers missing: NuSMV will not read XML traces (Debian: libexpat1-dev)"

# C flags the compiler accepts (each one probed: gcc rejects unknown -Wno-error=... options).
cflag_ok() { printf 'int main(void) { return 0; }\n' | "$CC" -Werror "$1" -x c -c -o /dev/null - >/dev/null 2>&1; }
COMPAT_CFLAGS="-w"
for f in -fcommon -std=gnu17 -Wno-error=implicit-function-declaration -Wno-error=implicit-int \
         -Wno-error=int-conversion -Wno-error=incompatible-pointer-types -Wno-error=return-mismatch \
         -Wno-error=declaration-missing-parameter-type; do
    cflag_ok "$f" && COMPAT_CFLAGS="$COMPAT_CFLAGS $f"
done
echo "compat C flags: $COMPAT_CFLAGS" >>"$LOG"
JOBS="$(nproc 2>/dev/null || echo 2)"; [ "$JOBS" -gt 8 ] && JOBS=8

# ---------------------------------------------------------------------------------------------
step 2 "fetching the source (pynusmv ${PYNUSMV_VERSION} sdist from PyPI)"
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
DOWNLOADS="$CACHE/downloads"
SDIST="$DOWNLOADS/$PYNUSMV_SDIST"
if sha_ok "$SDIST" "$PYNUSMV_SHA256"; then
    say "      using the cached $SDIST"
else
    mkdir -p "$DOWNLOADS"
    pip_python=""
    for py in "$REPO/.venv/bin/python" python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -m pip --version >/dev/null 2>&1; then pip_python="$py"; break; fi
    done
    if [ -z "$pip_python" ]; then
        # Debian's python3 has no pip module; a throwaway virtualenv has one.
        command -v python3 >/dev/null 2>&1 || die "python3 is needed to download the source with pip"
        run python3 -m venv "$WORK/venv" || die "no pip available (python3 -m venv failed; Debian: apt-get install python3-venv)"
        pip_python="$WORK/venv/bin/python"
    fi
    run "$pip_python" -m pip download --no-deps --no-binary :all: --disable-pip-version-check \
        -d "$WORK/dl" "pynusmv==${PYNUSMV_VERSION}" \
        || die "pip download pynusmv==${PYNUSMV_VERSION} failed (network to PyPI needed)"
    sha_ok "$WORK/dl/$PYNUSMV_SDIST" "$PYNUSMV_SHA256" \
        || die "$PYNUSMV_SDIST does not have the expected SHA-256 ($PYNUSMV_SHA256)"
    mv -f "$WORK/dl/$PYNUSMV_SDIST" "$SDIST"
fi
SRC="$WORK/src"
mkdir -p "$SRC"
DEP="pynusmv-${PYNUSMV_VERSION}/dependencies"
run tar -xzf "$SDIST" -C "$SRC" "$DEP/NuSMV/NuSMV-${NUSMV_VERSION}.tar.gz" \
    "$DEP/MiniSat/minisat2-070721.zip" "$DEP/MiniSat/pynusmv.patch" \
    || die "the sdist does not hold $DEP/NuSMV/NuSMV-${NUSMV_VERSION}.tar.gz and MiniSat (layout changed?)"
sha_ok "$SRC/$DEP/NuSMV/NuSMV-${NUSMV_VERSION}.tar.gz" "$NUSMV_TGZ_SHA256" || die "NuSMV-${NUSMV_VERSION}.tar.gz: unexpected SHA-256"
sha_ok "$SRC/$DEP/MiniSat/minisat2-070721.zip" "$MINISAT_ZIP_SHA256" || die "minisat2-070721.zip: unexpected SHA-256"
run tar -xzf "$SRC/$DEP/NuSMV/NuSMV-${NUSMV_VERSION}.tar.gz" -C "$SRC"
TOP="$SRC/NuSMV-${NUSMV_VERSION}"
CUDD="$TOP/cudd-2.4.1.1"
[ -d "$TOP/nusmv" ] && [ -d "$CUDD" ] || die "unexpected layout of NuSMV-${NUSMV_VERSION}.tar.gz"

# ---------------------------------------------------------------------------------------------
step 3 "building CUDD 2.4.1.1 (BDD library)"
# glibc no longer has `union wait`; waitpid/wait3 take an int*.
sed -i 's/^\([[:space:]]*\)union wait status;/\1int status;/' "$CUDD/util/pipefork.c"
grep -q 'union wait' "$CUDD/util/pipefork.c" && die "could not patch union wait out of CUDD's util/pipefork.c"
# Makefile_64bit sets CC='gcc -Wall' and the 64-bit sizes; we override only the optimisation flags.
( cd "$CUDD" && run make -f Makefile_64bit ICFLAGS="-g -O3 $COMPAT_CFLAGS" ) \
    || die "CUDD did not build"
for lib in cudd cudd_util mtr st; do
    [ -f "$CUDD/lib/lib$lib.a" ] || die "CUDD built but lib/lib$lib.a is missing"
done

# ---------------------------------------------------------------------------------------------
step 4 "building MiniSat 070721 (SAT solver for -bmc)"
MINISAT="$TOP/MiniSat/minisat"
# (Called as an `if` condition, where set -e is off: hence the && chain.)
build_minisat() {
    [ $HAVE_CXX = 1 ] \
    && cd "$TOP/MiniSat" \
    && { run python3 -m zipfile -e "$SRC/$DEP/MiniSat/minisat2-070721.zip" . \
         || run unzip -q -o "$SRC/$DEP/MiniSat/minisat2-070721.zip"; } \
    && run patch -p0 -N -i MiniSat_v070721_nusmv.patch \
    && run patch -p0 -N -i "$SRC/$DEP/MiniSat/pynusmv.patch" \
    && cd minisat \
    && run make lib CXX="$CXX" COPTIMIZE="-O3 -std=gnu++98 -w" \
    && [ -f "$MINISAT/libMiniSat.a" ] && [ -f "$MINISAT/Solver_C.h" ]
}
WITH_MINISAT=1
if (build_minisat); then
    say "      MiniSat built"
else
    WITH_MINISAT=0
    warn "MiniSat did not build: NuSMV is built WITHOUT it, so 'NuSMV -bmc' (bounded model checking) will not work; BDD-based checking is unaffected (details: $CACHE/build_nusmv.log)"
    cp "$LOG" "$CACHE/build_nusmv.log" 2>/dev/null || true
fi

# ---------------------------------------------------------------------------------------------
step 5 "configuring NuSMV ${NUSMV_VERSION}"
if [ $WITH_MINISAT = 1 ]; then
    solver_opts=(--enable-minisat "--with-minisat-libdir=$MINISAT" "--with-minisat-incdir=$MINISAT")
else
    solver_opts=(--disable-minisat)
fi
( cd "$TOP/nusmv" && run ./configure --prefix="$PREFIX" "${solver_opts[@]}" \
      CC="$CC" CXX="$CXX" CFLAGS="-O2 $COMPAT_CFLAGS" CXXFLAGS="-O2 -w" ) \
    || die "NuSMV's configure failed"

# ---------------------------------------------------------------------------------------------
step 6 "compiling NuSMV ${NUSMV_VERSION} (make -j$JOBS)"
( cd "$TOP/nusmv" && run make -j"$JOBS" ) || ( cd "$TOP/nusmv" && run make ) || die "NuSMV did not compile"

# ---------------------------------------------------------------------------------------------
step 7 "installing into $PREFIX"
STAGE="$WORK/stage"
( cd "$TOP/nusmv" && run make install-strip DESTDIR="$STAGE" ) || die "make install failed"
NEW="$STAGE$PREFIX"
[ -x "$NEW/bin/NuSMV" ] || die "make install did not produce bin/NuSMV"
# Only the programs and their run-time files (help, master.nusmvrc, licence) are kept.
rm -rf "$NEW/include" "$NEW/lib" "$NEW/share/nusmv/examples"

# Smoke test of the staged binary: an invariant violation found by BDDs (and by BMC with MiniSat).
cat >"$WORK/smoke.smv" <<'EOF'
MODULE main
VAR x : 0..3;
ASSIGN init(x) := 0; next(x) := (x + 1) mod 4;
INVARSPEC x < 3
LTLSPEC G x < 3
EOF
out="$("$NEW/bin/NuSMV" "$WORK/smoke.smv" 2>&1)" || true
echo "$out" >>"$LOG"
grep -q -- '-- invariant x < 3  is false' <<<"$out" || die "the built NuSMV fails its smoke test"
if [ $WITH_MINISAT = 1 ]; then
    out="$("$NEW/bin/NuSMV" -bmc -bmc_length 5 "$WORK/smoke.smv" 2>&1)" || true
    echo "$out" >>"$LOG"
    if ! grep -q 'linked to the MiniSat SAT solver' <<<"$out" \
       || ! grep -q 'Trace Description: BMC Counterexample' <<<"$out"; then
        WITH_MINISAT=0
        warn "NuSMV was built with MiniSat but its smoke test with -bmc failed: -bmc may not work"
    fi
fi
cat >"$NEW/BUILD-INFO" <<EOF
NuSMV ${NUSMV_VERSION}, built by tactl's tools/build_nusmv.sh on $(date -u '+%Y-%m-%d %H:%M UTC')
source: PyPI pynusmv==${PYNUSMV_VERSION} sdist ($PYNUSMV_SHA256), dependencies/NuSMV/NuSMV-${NUSMV_VERSION}.tar.gz
compiler: $("$CC" --version | head -n1); flags: -O2 $COMPAT_CFLAGS
minisat: $([ $WITH_MINISAT = 1 ] && echo "yes (070721, NuSMV -bmc works)" || echo "no (NuSMV -bmc does not work)")
EOF

# Two renames: the old tree (if any) aside, the new one in. The binary is never half-written.
OLD=""
if [ -e "$PREFIX" ] || [ -L "$PREFIX" ]; then
    OLD="$WORK/old-nusmv"
    mv "$PREFIX" "$OLD"
fi
mv "$NEW" "$PREFIX"
nusmv_works "$BIN" || die "installed $BIN does not run"
[ $WITH_MINISAT = 1 ] && rm -f "$CACHE/build_nusmv.log"   # a log of an earlier failure is stale now

say "done in $(elapsed): $BIN ($(du -sh "$PREFIX" | cut -f1))"
if [ $WITH_MINISAT = 1 ]; then
    say "BMC: yes (MiniSat 070721 linked in; 'NuSMV -bmc -bmc_length K model.smv' works)"
else
    warn "BMC: NO -- NuSMV was built without MiniSat; only BDD-based checking is available"
fi
