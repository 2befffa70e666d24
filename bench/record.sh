#!/bin/sh
# Recorder benchmark: what recording costs the program, rsp record against perf
# record with the same event set and against the floor, in one run, interleaved.
# As root, after ./setup.sh:
#
#   bench/record.sh [BUILD_DIR] [ROUNDS]        (defaults: build, 5)
#   WORKLOADS="pipe pgbench-p" bench/record.sh  (a subset; the list below)
#
# Workloads (each its own figure, the one its users read):
#   pipe        perf bench sched pipe: a switch-heavy ping-pong ("Total time")
#   tcp         bench/tcp-pingpong: a TCP loopback ping-pong ("Total time")
#   dd          dd of 4 KiB O_DIRECT reads ("copied, X s")
#   messaging   perf bench sched messaging: 200 processes ("Total time")
#   make        make -j2 of a small C tree generated here (its wall time)
#   pgbench     PostgreSQL under `pgbench -N` on one connection, synchronous commit
#               (its "latency average"); the recorders record pgbench (-- COMMAND)
#   nginx       nginx serving a 4 KiB file to ab, 2 at a time ("Requests per second")
#   pgbench-p, nginx-p   the same servers recorded with -p (the postmaster, the
#               nginx master) while their client runs
# The servers are started here on loopback (a cluster and a config of their own
# under a scratch directory) and stopped after.
#
# Modes per workload and round, in a rotating order: alone; the floor (an ftrace
# instance with the same tracepoints, no stacks, nobody reading); perf record -a
# -g -e <rsp's event set> (the tracepoints of probes/events.conf this kernel has
# and cpu-clock at rsp's 999 Hz as a per-event period); rsp record with its
# defaults.  The figure is the program's own, so the recorders' start-up and
# shut-down are not in it (a -p recorder is started before the client and told
# to stop after it).  Medians over the rounds.
#
# Printed per workload: each mode's slowdown (its figure over the figure alone,
# turned so that more is slower), rsp's added slowdown as a share of perf's
# (goal <= 0.5) and of the floor's (goal <= 2, or the README says what the rest
# buys), records lost by each (rsp: PERF_RECORD_LOST plus its end summary's
# kernel-count check; goal 0), bytes per record (goal: rsp <= perf).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WORKLOADS=${WORKLOADS:-pipe tcp dd messaging make pgbench nginx pgbench-p nginx-p}
. "$here/lib.sh"
prepare "$WORKLOADS"

for r in $(seq 1 "$ROUNDS"); do
  for w in $RUN; do
    case $(( r % 4 )) in
    1) order="base floor perf rsp" ;; 2) order="perf rsp base floor" ;;
    3) order="rsp base floor perf" ;; *) order="floor perf rsp base" ;;
    esac
    for m in $order; do
      case $m in
      perf) run "$w" perf "$r" perf -g ;;
      rsp) run "$w" rsp "$r" rsp ;;
      *) run "$w" "$m" "$r" "$m" ;;
      esac
    done
  done
  echo "round $r done" >&2
done


# records in a file: perf's own count (perf report --stats reads perf's file
# layout; perf 6.1 fails on --stats of any pipe-mode file, perf's own too, so
# rsp's files are counted with `rsp info`, which agrees with `perf report -D`)
perf_samples() {
  perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ && !s { s = $3 } END { print s + 0 }'
}
lost_samples() { # file -> sum of PERF_RECORD_LOST.lost
  "$RSP" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(x.get("lost", 0) for x in d["lost"]))'
}
rsp_samples() {
  "$RSP" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(e["count"] + e.get("merged_copies", 0) for e in d["events"]))'
}
rsp_missing() { # the end summary's "missing" column: counted by the kernel, not in the file
  awk '$1 ~ /:$/ { next } $1 ~ /:/ && NF == 7 && $2 ~ /^[0-9]+$/ && $NF ~ /^[0-9]+$/ { m += $NF } END { print m + 0 }' "$1"
}

printf '\n%-10s %8s %7s %7s %7s %7s %7s %7s %7s %8s %8s %6s\n' workload alone floor_x perf_x rsp_x \
  added /floor lost_p lost_r B/r_perf B/r_rsp result
fail=0
for w in $RUN; do
  b=$(awk '$1 == "base" { print $2 }' "$W/$w.times" | median)
  f=$(awk '$1 == "floor" { print $2 }' "$W/$w.times" | median)
  p=$(awk '$1 == "perf" { print $2 }' "$W/$w.times" | median)
  q=$(awk '$1 == "rsp" { print $2 }' "$W/$w.times" | median)
  pf=$W/$w.perf.1.data; rf=$W/$w.rsp.1.data
  ps=$(perf_samples "$pf"); lp=$(lost_samples "$pf"); lr=$(lost_samples "$rf")
  mr=$(rsp_missing "$W/$w.rsp.1.rec"); rs=$(rsp_samples "$rf")
  psz=$(stat -c %s "$pf"); rsz=$(stat -c %s "$rf")
  python3 - "$w" "$b" "$f" "$p" "$q" "$lp" "$lr" "$mr" "$ps" "$rs" "$psz" "$rsz" <<'PY' || fail=1
import sys
w = sys.argv[1]
b, f, p, q = (float(x) for x in sys.argv[2:6])
lp, lr, mr, ps, rs, psz, rsz = (int(x) for x in sys.argv[6:13])
fx, px, qx = f / b, p / b, q / b
bp, br = psz / max(ps, 1), rsz / max(rs, 1)
if px - 1 < 0.05:
    # perf adds nothing measurable (the disk, not the CPU, bounds dd): the
    # ratio is undefined; rsp must not add anything measurable either
    added, time_ok = 'n/a', qx - 1 < 0.05
else:
    added = (qx - 1) / (px - 1)
    time_ok = added <= 0.5
    added = '%.2f' % added
floor = '%.2f' % ((qx - 1) / (fx - 1)) if fx - 1 >= 0.02 else 'n/a'
ok = time_ok and br <= bp and lr + mr == 0
print('%-10s %8.4g %6.2fx %6.2fx %6.2fx %7s %7s %7d %7d %8.0f %8.0f %6s' % (
    w, b, fx, px, qx, added, floor, lp, lr + mr, bp, br, 'ok' if ok else 'MISSED'))
sys.exit(0 if ok else 1)
PY
done
echo
echo "alone = the program's own figure alone (s, or s per request for ab); *_x = slowdowns"
echo "added = rsp's added time as a share of perf's: (rsp_x - 1) / (perf_x - 1), goal <= 0.5"
echo "        (n/a: perf adds < 5%, too little for a ratio; rsp must add < 5% too)"
echo "/floor = rsp's added time over the floor's (an ftrace instance, same tracepoints, nobody reading)"
echo "lost_p/lost_r = records lost by perf / by rsp (rsp: PERF_RECORD_LOST + kernel count - recorded), goal 0"
echo "B/r = bytes of the recording per sample record, goal rsp <= perf"
echo "event set: $PERF_EV"
exit $fail
