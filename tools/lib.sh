# Shared by the tools/install_*.sh and tools/build_*.sh scripts: `say` prints a progress line prefixed with the
# calling script's name, `loud` a boxed WARNING on stderr (for what the tests will then skip).

say()  { printf '%s: %s\n' "$(basename "$0" .sh)" "$*"; }
loud() {
    {
        echo "######################################################################################"
        printf '# WARNING: %s\n' "$1"; shift
        printf '#          %s\n' "$@"
        echo "######################################################################################"
    } >&2
}

# For tools/build_*.sh, after taking the build lock: `begin_build NAME STEPS` makes a scratch
# folder $WORK in $CACHE with the build log $LOG, `run CMD…` (output to the log), `step K TEXT`
# (progress with elapsed time), and traps that remove $WORK on exit, keep the log as
# $CACHE/build_NAME.log and print its tail when the build fails, and say nothing was installed
# on Ctrl-C. The caller defines `say` and `warn` and sets $CACHE.
begin_build() {
    BUILD_NAME=$1
    STEPS=$2
    START=$(date +%s)
    WORK="$(mktemp -d "$CACHE/.build-$BUILD_NAME.XXXXXX")"
    LOG="$WORK/build.log"
    : >"$LOG"
    trap _build_cleanup EXIT
    trap 'warn "interrupted: nothing was installed"; exit 130' INT TERM
}
elapsed() { local s=$(( $(date +%s) - START )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
step() { say "[$1/$STEPS] $2   (elapsed $(elapsed))"; }
# Runs a build command with its output going to the log.
run() { echo "+ $*" >>"$LOG"; "$@" >>"$LOG" 2>&1; }
_build_cleanup() {
    local rc=$?
    if [ $rc -ne 0 ] && [ -s "$LOG" ]; then
        cp "$LOG" "$CACHE/build_$BUILD_NAME.log" 2>/dev/null || true
        echo "build_$BUILD_NAME: ---- last lines of the build log (whole log: $CACHE/build_$BUILD_NAME.log) ----" >&2
        tail -n 25 "$LOG" >&2 || true
    fi
    rm -rf "$WORK"
    exit $rc
}
