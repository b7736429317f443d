# Shared by the tools/install_*.sh scripts: `say` prints a progress line prefixed with the
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
