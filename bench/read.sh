#!/bin/sh
# Reading one large recording against perf script (issue 21's "the same speed goals
# as on other files": rsp info and rsp report >= 20x faster than perf script):
#
#   flock /tmp/rsp-bench.lock bench/read.sh [BUILD_DIR] FILE TARGET [ROUNDS]
#                                           (build, -, -, 3)
#
# Each round times, one after the other: rsp info, rsp report --target TARGET,
# perf script, rsp report, rsp info.  rsp runs before and after the peer in every
# round and its time is the mean of the two: a run of a few seconds falls in one of
# this VM's phases (times move by up to 2x between them) while perf script's minutes
# span several, and the run right after perf script pays for the 3 GB it frees (the
# balloon's free page reporting: bench/README.md).  Per round the ratio, then the
# least and the median of the rounds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 3 ] && [ -d "$1" ]; then B=$(cd "$1" && pwd); shift; else B=$(cd "$here/../build" && pwd); fi
F=${1:?usage: read.sh [BUILD_DIR] FILE TARGET [ROUNDS]}
TARGET=${2:?usage: read.sh [BUILD_DIR] FILE TARGET [ROUNDS]}
N=${3:-3}
RSP=$B/cli/rsp
[ -r "$F" ] || { echo "read.sh: cannot read $F" >&2; exit 1; }
command -v perf >/dev/null || { echo "read.sh: perf is not installed" >&2; exit 1; }
W=$(mktemp -d /tmp/rsp-read.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

# timed NAME command...: wall seconds to $W/NAME (appended), the exit status checked
timed() {
  name=$1; shift
  t0=$(date +%s.%N)
  rc=0
  "$@" >/dev/null 2>"$W/err" || rc=$?
  t1=$(date +%s.%N)
  [ $rc -eq 0 ] || { echo "read.sh: $* failed ($rc):" >&2; cat "$W/err" >&2; exit 1; }
  echo "$t1 - $t0" | bc >>"$W/$name"
}

for r in $(seq "$N"); do
  timed info "$RSP" info "$F"
  timed report "$RSP" report --target "$TARGET" "$F"
  timed perf perf script -i "$F"
  timed report "$RSP" report --target "$TARGET" "$F"
  timed info "$RSP" info "$F"
done

python3 - "$W" "$N" <<'EOF'
import statistics, sys
w, n = sys.argv[1], int(sys.argv[2])
t = {k: [float(x) for x in open(f"{w}/{k}")] for k in ("info", "report", "perf")}
print("round  perf script   rsp info (before/after)   rsp report (before/after)   ratios info / report")
ratios = {"info": [], "report": []}
for r in range(n):
    p = t["perf"][r]
    row = f"{r + 1:5}  {p:9.1f} s"
    for k in ("info", "report"):
        a, b = t[k][2 * r], t[k][2 * r + 1]
        ratios[k].append(p / ((a + b) / 2))
        row += f"   {a:6.2f} / {b:6.2f} s       "
    print(row + f"   {ratios['info'][-1]:5.1f}x / {ratios['report'][-1]:5.1f}x")
for k in ("info", "report"):
    v = ratios[k]
    print(f"perf script / rsp {k}: least {min(v):.1f}x, median {statistics.median(v):.1f}x "
          f"over {n} round(s) (goal 20x)")
EOF
