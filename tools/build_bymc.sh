#!/usr/bin/env bash
# Build ByMC 2.4.4 (the Byzantine Model Checker, OCaml, BSD-style licence) from its public source into a
# cache outside the checkout, where `python -m tactl.bench --only peers` looks for it:
#
#     ${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}/bymc/bin/bymc.native
#
# (TACTL_BYMC names another binary for the bench.) Does nothing when that binary is there, runs, and was
# built from the same commit with the same patches. `--force` (or TACTL_BYMC_REBUILD=1) rebuilds anyway;
# `--dedup` (or TACTL_BYMC_DEDUP=1) also applies the optional tools/bymc/05-dedup-declare-fun.patch;
# `--synt` (or TACTL_BYMC_SYNT=1) the optional tools/bymc/06-synt-first-vector.patch (ByMC's synthesis
# loop; build it into another cache, e.g. TACTL_TOOLS=~/.cache/tactl/bymc-synt tools/build_bymc.sh --synt).
#
# Where the source comes from: `git clone https://github.com/konnov/bymc` at the pinned commit
# BYMC_COMMIT below (HEAD of its master, prints ByMC-2.4.4). BYMC_SRC overrides the place to clone from
# (a local clone or mirror, bare or not, or another URL). Nothing of ByMC is copied into the repository.
#
# Our changes, as small patches in tools/bymc/ (each file's header says what and why), applied in order:
#   01 lazy-trie -> a strict prefix tree module     02 ocamlmpi -> a one-node stub
#   03 no Z3 OCaml API: default solver `z3 -smt2 -in` through a pipe (ByMC is slower than in its papers)
#   04 `%type <unit> for_pre for_post` in spin.mly for Menhir 20220210
#   05 (optional, --dedup) declare each SMT name once per solver process (TACO's red-belly files)
#   06 (optional, --synt) --chain synt starts from no candidate, not the all-zero one (docs/bench.md)
# The three OCaml packages are not in Debian; everything else comes from Debian 12 packages.
#
# Needs (Debian): ocaml ocaml-findlib ocamlbuild libbatteries-ocaml-dev libocamlgraph-ocaml-dev
# libsexplib-ocaml-dev menhir libmenhir-ocaml-dev libnum-ocaml-dev z3, plus git and make. As root with
# apt-get, the missing ones are installed (one apt-get update); otherwise the script says what is missing.
#
# Safety: the build happens in a temporary directory under $CACHE; the result is installed by renaming a
# complete, smoke-tested tree into place. A lock (flock) keeps two concurrent builds from racing.

set -euo pipefail

BYMC_VERSION=2.4.4
BYMC_COMMIT=266366f738bce9dbd5d04336fd9123d85ae2bca1
BYMC_URL=https://github.com/konnov/bymc

. "$(dirname "$0")/lib.sh"  # begin_build, run, step (the build scaffolding shared with the other builders)
say()  { printf 'build_bymc: %s\n' "$*"; }
warn() { printf 'build_bymc: WARNING: %s\n' "$*" >&2; }
die()  { printf 'build_bymc: ERROR: %s\n' "$*" >&2; exit 1; }

if [ -z "${TACTL_TOOLS:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${HOME:-}" ]; then
    die "cannot tell where the cache is: set TACTL_TOOLS (or HOME)"
fi
CACHE="${TACTL_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tactl}"
PREFIX="$CACHE/bymc"
BIN="$PREFIX/bin/bymc.native"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PATCHES="$HERE/bymc"

FORCE="${TACTL_BYMC_REBUILD:-0}"
DEDUP="${TACTL_BYMC_DEDUP:-0}"
SYNT="${TACTL_BYMC_SYNT:-0}"
for arg in "$@"; do
    case "$arg" in
        --force) FORCE=1 ;;
        --dedup) DEDUP=1 ;;
        --synt) SYNT=1 ;;
        -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown argument '$arg' (only --force, --dedup, --synt)" ;;
    esac
done

patch_list=("$PATCHES"/0[1-4]-*.patch)
[ "$DEDUP" = 1 ] && patch_list+=("$PATCHES"/05-*.patch)
[ "$SYNT" = 1 ] && patch_list+=("$PATCHES"/06-*.patch)
for p in "${patch_list[@]}"; do [ -f "$p" ] || die "patch missing: $p"; done
# What the installed build must match: the commit and the exact patch texts.
RECIPE="commit $BYMC_COMMIT patches $(cat "${patch_list[@]}" | sha256sum | cut -c1-16) dedup $DEDUP$([ "$SYNT" = 1 ] && echo " synt 1")"

bymc_works() {
    local banner
    [ -x "$1" ] || return 1
    banner="$(cd "${TMPDIR:-/tmp}" && "$1" --version 2>&1 || true)"
    grep -q "ByMC-${BYMC_VERSION}" <<<"$banner"
}
up_to_date() { bymc_works "$BIN" && grep -qxF "recipe: $RECIPE" "$PREFIX/BUILD-INFO" 2>/dev/null; }

if [ "$FORCE" != 1 ] && up_to_date; then
    say "ByMC ${BYMC_VERSION} already built: $BIN"
    exit 0
fi

mkdir -p "$CACHE"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/.build_bymc.lock"
    if ! flock -n 9; then
        say "another build of ByMC is running; waiting for it"
        flock 9
    fi
    if [ "$FORCE" != 1 ] && up_to_date; then
        say "ByMC ${BYMC_VERSION} was built meanwhile: $BIN"
        exit 0
    fi
    rm -rf "$CACHE"/.build-bymc.??????   # we hold the lock: these are from killed builds
fi

begin_build bymc 5  # $WORK, $LOG, run, step; cleanup traps (tools/lib.sh)

say "building ByMC ${BYMC_VERSION} into $PREFIX (about a minute; on failure the log is kept in $CACHE/build_bymc.log)"

# ---------------------------------------------------------------------------------------------
step 1 "checking the OCaml tool chain and z3 (Debian packages)"
# command:package pairs, then findlib-package:Debian-package pairs.
TOOLS=(git:git make:make ocaml:ocaml ocamlfind:ocaml-findlib ocamlbuild:ocamlbuild menhir:menhir z3:z3)
LIBS=(batteries:libbatteries-ocaml-dev ocamlgraph:libocamlgraph-ocaml-dev sexplib:libsexplib-ocaml-dev
      menhirLib:libmenhir-ocaml-dev num:libnum-ocaml-dev)
missing() {
    local tp
    for tp in "${TOOLS[@]}"; do command -v "${tp%%:*}" >/dev/null 2>&1 || echo "${tp##*:}"; done
    for tp in "${LIBS[@]}"; do
        command -v ocamlfind >/dev/null 2>&1 && ocamlfind query "${tp%%:*}" >/dev/null 2>&1 || echo "${tp##*:}"
    done
}
mapfile -t pkgs < <(missing | sort -u)
if [ ${#pkgs[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "      installing from Debian: ${pkgs[*]}"
        export DEBIAN_FRONTEND=noninteractive
        run apt-get update -qq || warn "apt-get update failed; trying the install anyway"
        run apt-get install -y -qq --no-install-recommends "${pkgs[@]}" || warn "apt-get install ${pkgs[*]} failed"
        mapfile -t pkgs < <(missing | sort -u)
    fi
    [ ${#pkgs[@]} -eq 0 ] || die "missing: ${pkgs[*]} (Debian: apt-get install ${pkgs[*]}); ByMC cannot be built"
fi
echo "$(ocaml -version); z3 $(z3 --version)" >>"$LOG"

# ---------------------------------------------------------------------------------------------
SRC_FROM="${BYMC_SRC:-$BYMC_URL}"
step 2 "getting the source: git clone $SRC_FROM at ${BYMC_COMMIT:0:7}"
SRC="$WORK/src"
run git clone --quiet --no-checkout "$SRC_FROM" "$SRC" \
    || die "git clone $SRC_FROM failed (no network? set BYMC_SRC to a local clone or mirror of konnov/bymc)"
if ! git -C "$SRC" cat-file -e "${BYMC_COMMIT}^{commit}" 2>/dev/null; then
    run git -C "$SRC" fetch --quiet origin "$BYMC_COMMIT" || true   # a shallow or partial source
fi
run git -C "$SRC" -c advice.detachedHead=false checkout --quiet "$BYMC_COMMIT" \
    || die "$SRC_FROM has no commit $BYMC_COMMIT"

# ---------------------------------------------------------------------------------------------
step 3 "applying our ${#patch_list[@]} changes (tools/bymc/*.patch)"
for p in "${patch_list[@]}"; do
    run git -C "$SRC" apply --whitespace=nowarn "$p" || die "$(basename "$p") does not apply to ${BYMC_COMMIT:0:7}"
    echo "applied $(basename "$p")" >>"$LOG"
done

# ---------------------------------------------------------------------------------------------
step 4 "compiling (ocamlbuild, bymc.native)"
( cd "$SRC/bymc" && run make ) || die "ByMC did not compile"
[ -x "$SRC/bymc/_build/src/bymc.native" ] || die "make did not produce _build/src/bymc.native"

# ---------------------------------------------------------------------------------------------
step 5 "smoke test and install into $PREFIX"
NEW="$WORK/stage"
mkdir -p "$NEW/bin"
cp "$SRC/bymc/_build/src/bymc.native" "$NEW/bin/bymc.native"
cp "$SRC/bymc/LICENSE" "$NEW/LICENSE"
# A tiny automaton (ours): "safe" holds, "never" has a counterexample.
cat >"$WORK/smoke.ta" <<'EOF'
skel Proc {
  local pc;
  shared x;
  parameters N, T, F;
  assumptions (0) { N > 3 * T; T >= F; T >= 1; }
  locations (0) { A: [0]; B: [1]; C: [2]; }
  inits (0) { (A + B) == N - F; C == 0; x == 0; }
  rules (0) {
    0: B -> C when (true) do { x' == x + 1; };
    1: A -> C when (x >= T + 1 - F) do { x' == x + 1; };
    2: A -> A when (true) do { x' == x; };
    3: C -> C when (true) do { x' == x; };
  }
  specifications (0) {
    safe: (B == 0) -> [](C == 0);
    never: [](C == 0);
  }
}
EOF
for spec_expect in "safe:> Spec safe holds" "never:> SLPS: counterexample for never found"; do
    spec="${spec_expect%%:*}"; expect="${spec_expect#*:}"
    mkdir -p "$WORK/run-$spec"
    out="$(cd "$WORK/run-$spec" && "$NEW/bin/bymc.native" --smt 'lib2|z3|-smt2|-in' -O schema.tech=ltl \
             --target none --chain post --spec "$spec" -a "$WORK/smoke.ta" 2>&1)" || true
    echo "$out" >>"$LOG"
    grep -qF -- "$expect" <<<"$out" || die "the built ByMC fails its smoke test (spec $spec: expected '$expect')"
done
cat >"$NEW/BUILD-INFO" <<EOF
ByMC ${BYMC_VERSION}, built by tactl's tools/build_bymc.sh on $(date -u '+%Y-%m-%d %H:%M UTC')
source: $SRC_FROM at $BYMC_COMMIT
patches: $(for p in "${patch_list[@]}"; do printf '%s ' "$(basename "$p")"; done)
$(ocaml -version); solver: $(z3 --version) through SMT-LIB2 (no Z3 OCaml API)
recipe: $RECIPE
EOF

OLD=""
if [ -e "$PREFIX" ] || [ -L "$PREFIX" ]; then OLD="$WORK/old-bymc"; mv "$PREFIX" "$OLD"; fi
mv "$NEW" "$PREFIX"
bymc_works "$BIN" || die "installed $BIN does not run"
rm -f "$CACHE/build_bymc.log"
say "done in $(elapsed): $BIN"
