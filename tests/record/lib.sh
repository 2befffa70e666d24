# Shared by the record tests (meson suite `record`).  Sourced, not run.
# Environment from tests/meson.build: RSP (the rsp binary), WL (workloads dir).
set -eu

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

[ "$(id -u)" -eq 0 ] || skip "not root: recording needs root"
if [ ! -e /sys/kernel/tracing/events ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || skip "no tracefs"
fi
command -v perf >/dev/null || fail "perf not installed (setup.sh installs linux-perf)"

: "${RSP:?RSP not set}"
: "${WL:?WL not set}"
T=$(mktemp -d /tmp/rsp-test.XXXXXX)
# RSP_TEST_KEEP=1: the test's files stay (to read a failure's recordings)
trap '[ -n "${RSP_TEST_KEEP-}" ] || rm -rf "$T"' EXIT
export RSP_WL_DIR="$T"

# The value of column $2 (kernel|recorded|perf|target|ftrace|missing) for
# event $3 in rsp record's summary file $1.
col() {
  awk -v ev="$3" -v name="$2" '
    $1 == "event" && $2 == "kernel" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
    $1 == ev && (name in idx) { print $(idx[name]); exit }
  ' "$1"
}

# perf script's count of event $2 in file $1 (perf is the reference decoder)
perf_count() {
  perf script -F event -i "$1" 2>/dev/null | awk -v ev="$2:" '$1 == ev { n++ } END { print n + 0 }'
}

# Fail unless $1 >= $2 * $3 / 100 (integers)
at_least_pct() {
  [ $(( $1 * 100 )) -ge $(( $2 * $3 )) ] || fail "$4: $1 is less than $3% of $2"
}
