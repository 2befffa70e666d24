#!/bin/sh
# Recorder benchmark (issue 2): rsp record against perf record, same run,
# interleaved.  As root, after ./setup.sh:
#
#   bench/record.sh [BUILD_DIR] [ROUNDS]        (defaults: build, 3)
#
# Workloads: pipe ping-pong (perf bench sched pipe), TCP loopback ping-pong
# (bench/tcp-pingpong), O_DIRECT dd of 4 KiB blocks, perf bench sched
# messaging.  Each round runs, per workload and in a rotating order: the
# workload alone, under `perf record -a -g` with rsp's event set (the
# tracepoints of probes/events.conf plus cpu-clock at rsp's 999 Hz, each with
# its own period), and under `rsp record` with its defaults.  The time is the
# workload's own (perf bench's "Total time", dd's "copied, X s"), so the
# recorders' start-up and shut-down are not in it.  Medians over the rounds.
#
# Printed per workload: slowdowns (time / time alone), rsp's added overhead as
# a share of perf's ((rsp - 1) / (perf - 1), goal <= 0.6), events lost by each
# (sum of PERF_RECORD_LOST, plus for rsp the kernel-count check of its end
# summary), bytes written per sample record (goal: rsp <= perf).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${2:-3}
RSP=$B/cli/rsp
TCP=$B/bench/tcp-pingpong
[ "$(id -u)" -eq 0 ] || { echo "record.sh: run as root (both recorders trace system-wide)" >&2; exit 1; }
[ -x "$RSP" ] && [ -x "$TCP" ] || { echo "record.sh: build first: ./setup.sh" >&2; exit 1; }
command -v perf >/dev/null || { echo "record.sh: perf not found: apt-get install linux-perf" >&2; exit 1; }

# scratch on a real disk: O_DIRECT needs one, and the recordings are large
W=$(mktemp -d /var/tmp/rsp-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
DDFILE=$W/dd.in
dd if=/dev/urandom of="$DDFILE" bs=1M count=64 status=none
sync

# rsp's event set, as perf -e arguments: the tracepoints this kernel has
EV=""
for e in $(awk '!/^#/ && NF >= 3 && $1 != "alt" && $2 ~ /:/ { print $2 }' "$here/../probes/events.conf"); do
  sys=${e%%:*}; name=${e#*:}
  [ -d "/sys/kernel/tracing/events/$sys/$name" ] && EV="$EV,$e"
done
EV="${EV#,},cpu-clock/period=1001001/"

workload() { # name -> the command line
  case $1 in
  pipe) echo "perf bench sched pipe -l 100000" ;;
  tcp) echo "$TCP 20000" ;;
  dd) echo "dd if=$DDFILE of=/dev/null bs=4k count=16000 iflag=direct" ;;
  messaging) echo "perf bench sched messaging -g 10 -l 100" ;;
  esac
}

# the workload's own time in seconds, from its output (dd's is on stderr)
wtime() {
  cat "$@" 2>/dev/null | sed -n -e 's/.*Total time: *\([0-9.]*\).*/\1/p' \
    -e 's/.*copied, \([0-9.e-]*\) s,.*/\1/p' | tail -1
}

run() { # workload, mode, round -> appends "mode seconds" to $W/$w.times
  w=$1; m=$2; r=$3; cmd=$(workload "$w"); out=$W/$w.$m.$r
  case $m in
  base) $cmd >"$out.out" 2>"$out.err" ;;
  perf) perf record -q -a -g -e "$EV" -o "$out.data" -- $cmd >"$out.out" 2>"$out.err" ;;
  rsp) "$RSP" record -o "$out.data" -- $cmd >"$out.out" 2>"$out.err" ;;
  esac
  t=$(wtime "$out.out" "$out.err")
  [ -n "$t" ] || { echo "record.sh: $w under $m printed no time:" >&2; cat "$out.out" "$out.err" >&2 || true; exit 1; }
  echo "$m $t" >>"$W/$w.times"
  if [ "$m" != base ] && [ "$r" -gt 1 ]; then rm -f "$out.data"; fi # keep round 1's files
}

WORKLOADS=${WORKLOADS:-pipe tcp dd messaging}
for r in $(seq 1 "$ROUNDS"); do
  for w in $WORKLOADS; do
    case $(( r % 3 )) in
    1) order="base perf rsp" ;; 2) order="perf rsp base" ;; *) order="rsp base perf" ;;
    esac
    for m in $order; do run "$w" "$m" "$r"; done
  done
  echo "round $r done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# records in a file: perf's own count (perf report --stats reads perf's file
# layout; perf 6.1 fails on --stats of any pipe-mode file, perf's own too, so
# rsp's files are counted with `rsp info`, which agrees with `perf report -D`)
perf_stats() { # file -> "samples lost_records"
  perf report --stats -i "$1" 2>/dev/null | awk '
    /^ *SAMPLE events:/ && !s { s = $3 } /^ *LOST events:/ { l = $3 }
    END { print s + 0, l + 0 }'
}
lost_samples() { # file -> sum of PERF_RECORD_LOST.lost
  "$RSP" info --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(x.get("lost", 0) for x in d["lost"]))'
}
rsp_samples() {
  "$RSP" info --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(e["count"] + e.get("merged_copies", 0) for e in d["events"]))'
}
rsp_missing() { # the end summary's "missing" column: counted by the kernel, not in the file
  awk '$1 ~ /:$/ { next } $1 ~ /:/ && NF == 7 && $2 ~ /^[0-9]+$/ && $NF ~ /^[0-9]+$/ { m += $NF } END { print m + 0 }' "$1"
}

printf '\n%-10s %8s %8s %8s %7s %7s %6s %10s %10s %7s %7s\n' workload alone_s perf_x rsp_x \
  added lost_p lost_r B/ev_perf B/ev_rsp bytes result
fail=0
for w in $WORKLOADS; do
  b=$(awk '$1 == "base" { print $2 }' "$W/$w.times" | median)
  p=$(awk '$1 == "perf" { print $2 }' "$W/$w.times" | median)
  q=$(awk '$1 == "rsp" { print $2 }' "$W/$w.times" | median)
  pf=$W/$w.perf.1.data; rf=$W/$w.rsp.1.data
  set -- $(perf_stats "$pf"); ps=$1
  lp=$(lost_samples "$pf"); lr=$(lost_samples "$rf")
  mr=$(rsp_missing "$W/$w.rsp.1.err")
  rs=$(rsp_samples "$rf")
  psz=$(stat -c %s "$pf"); rsz=$(stat -c %s "$rf")
  python3 - "$w" "$b" "$p" "$q" "$lp" "$lr" "$mr" "$ps" "$rs" "$psz" "$rsz" <<'PY' || fail=1
import sys
w = sys.argv[1]
b, p, q = (float(x) for x in sys.argv[2:5])
lp, lr, mr, ps, rs, psz, rsz = (int(x) for x in sys.argv[5:12])
px, qx = p / b, q / b
bp, br = psz / max(ps, 1), rsz / max(rs, 1)
if px - 1 < 0.05:
    # perf adds nothing measurable (the disk, not the CPU, bounds dd): the
    # ratio is undefined; rsp must not add anything measurable either
    added, time_ok = 'n/a', qx - 1 < 0.05
else:
    added = (qx - 1) / (px - 1)
    time_ok = added <= 0.6
    added = '%.2f' % added
ok = time_ok and br <= bp and (w != 'messaging' or (lr == 0 and mr == 0))
print('%-10s %8.3f %7.2fx %7.2fx %7s %7d %7d %10.0f %10.0f %7s %7s' % (
    w, b, px, qx, added, lp, lr + mr, bp, br,
    'ok' if br <= bp else 'MORE', 'ok' if ok else 'MISSED'))
sys.exit(0 if ok else 1)
PY
done
echo
echo "added = rsp's added time as a share of perf's: (rsp_x - 1) / (perf_x - 1), goal <= 0.6"
echo "        (n/a: perf adds < 5%, too little for a ratio; rsp must add < 5% too)"
echo "lost_p/lost_r = events lost by perf / by rsp (rsp: PERF_RECORD_LOST + kernel count - recorded)"
echo "B/ev = bytes of the recording per sample record; messaging: rsp must lose 0"
echo "event set: $EV"
exit $fail
