#!/bin/sh
# Saturation benchmark (issue 21): rsp record -a and perf record -a -g with the
# same events, one after the other, on a machine both of whose CPUs a load
# saturates: LOAD messaging, a loop of `perf bench sched messaging -g 5 -l 2000`
# (switches and Unix sockets), or churn, a web server's connection churn over
# loopback (bench/tcp-churn: 16 clients, 2 workers, a new TCP connection per
# 4 KiB answer).  As root:
#
#   flock /tmp/rsp-bench.lock bench/saturate.sh [BUILD_DIR] [SECONDS] [LOAD]
#                                               (build, 60, messaging)
#
# Per recorder: peak RSS (/usr/bin/time -v), wall time past the deadline, file
# size, and per event the share recorded (rsp info --json, which reads both
# files) of the kernel's count (perf stat -a over the same window, run beside
# it).  Then `rsp record -- perf bench sched pipe` on the same saturated
# machine: its untyped lost records (the target's chain needs 0).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/../build}" && pwd)
S=${2:-60}
LOAD=${3:-messaging}
RSP=$B/cli/rsp
[ "$(id -u)" -eq 0 ] || { echo "saturate.sh: run as root" >&2; exit 1; }
case $LOAD in
  messaging) LOADCMD='perf bench sched messaging -g 5 -l 2000'; TARGET=sched-messaging ;;
  churn) LOADCMD="$B/bench/tcp-churn 30"; TARGET=tcp-churn ;;
  *) echo "saturate.sh: LOAD is messaging or churn, not $LOAD" >&2; exit 1 ;;
esac
W=$(mktemp -d /var/tmp/rsp-sat.XXXXXX)
trap 'kill $load 2>/dev/null || true; rm -rf "$W"' EXIT INT TERM

TPS=""
for e in $(awk '!/^#/ && NF >= 3 && $1 != "alt" && $2 ~ /:/ { print $2 }' "$here/../probes/events.conf"); do
  [ -d "/sys/kernel/tracing/events/${e%%:*}/${e#*:}" ] && TPS="$TPS,$e"
done
TPS=${TPS#,}
EV="$TPS,cpu-clock/period=1001001/"

timeout $((S * 3 + 120)) sh -c "while :; do $LOADCMD >/dev/null 2>&1; done" &
load=$!
sleep 2

run() { # name command... -> $W/NAME.{time,stat,data}
  name=$1; shift
  perf stat -a -x, -e "$TPS" -o "$W/$name.stat" -- sleep "$S" &
  st=$!
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$W/$name.time" "$@" >"$W/$name.out" 2>"$W/$name.err" || true
  t1=$(date +%s.%N)
  wait $st || true
  echo "$t1 - $t0 - $S" | bc >"$W/$name.late"
}
run rsp "$RSP" record -a -d "$S" -o "$W/rsp.data"
run perf perf record -q -a -g -e "$EV" -o "$W/perf.data" -- sleep "$S"

report() { # name
  name=$1
  rss=$(awk -F: '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$W/$name.time")
  size=$(stat -c %s "$W/$name.data" | awk '{ printf "%.1f", $1 / 1e6 }')
  "$RSP" info --json "$W/$name.data" >"$W/$name.json" 2>/dev/null || true
  python3 - "$W/$name.json" "$W/$name.stat" "$name" "$rss" "$(cat "$W/$name.late")" "$size" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
kern = {}
for line in open(sys.argv[2]):
    f = line.strip().split(',')
    if len(f) > 2 and f[0].isdigit():
        kern[f[2]] = int(f[0])
got = {e['name']: e['count'] for e in j.get('events', [])}
lost = sum(l['lost'] for l in j['lost'] if 'event' not in l)
shed = sorted({l['event'] for l in j['lost'] if l.get('shed')})
name, rss, late, size = sys.argv[3:7]
print(f"{name:5} peak RSS {rss} MB, {float(late):.1f} s past the deadline, {size} MB, "
      f"{lost} lost (untyped), shed: {', '.join(shed) or 'none'}")
for ev in sorted(kern):
    k = kern[ev]
    if ev == 'sched:sched_stat_runtime':
        # the kernel counts this tracepoint by its runtime field (ns), not by event
        print(f"      {ev:28} kernel {'(counts ns)':>10} recorded {got.get(ev, 0):10d}")
        continue
    print(f"      {ev:28} kernel {k:10d} recorded {got.get(ev, 0):10d} "
          f"{100.0 * got.get(ev, 0) / k if k else 100.0:6.1f}%")
PY
}
echo "saturate.sh: $S s of rsp record -a and perf record -a -g, $LOAD saturating both CPUs"
report rsp
report perf
grep -E 'memory:|SHED|LOST' "$W/rsp.err" || true
# the recorder's own count of the kernel's events over exactly its window (perf stat's
# window above starts and ends a little apart from it: sparse events such as block:*
# differ by whole bursts)
echo "rsp record's own table (kernel = its counters over its window):"
grep -E '^  (event|sched:sched_switch|sched:sched_waking|block:|sock:sk_data_ready) ' "$W/rsp.err" || true

# the target's chain on the saturated machine
"$RSP" record -o "$W/t.data" -- perf bench sched pipe -l 20000 >/dev/null 2>"$W/t.err" || true
"$RSP" info --json "$W/t.data" 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
lost = sum(l["lost"] for l in j["lost"] if "event" not in l)
shed = sorted({l["event"] for l in j["lost"] if l.get("shed")})
print(f"rsp record -- perf bench sched pipe: {lost} records lost (untyped), shed: {chr(44).join(shed) or chr(110)+chr(111)+chr(110)+chr(101)}")'
grep -E 'LOST|memory:' "$W/t.err" || true

# reading the saturated file, on a quiet machine (the load stopped: reading is timed
# against perf script as on other files)
kill $load 2>/dev/null || true
pkill -f "$LOADCMD" 2>/dev/null || true
sleep 2
# rsp info and rsp report (the load's processes as the target),
# their exit status, time and warnings; perf script on it with SAT_PERF_SCRIPT=1 (minutes)
for verb in info "report --target $TARGET"; do
  t0=$(date +%s.%N)
  rc=0
  "$RSP" $verb "$W/rsp.data" >"$W/read.out" 2>"$W/read.err" || rc=$?
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc >"$W/read.${verb%% *}"
  printf 'rsp %s on the saturated file: exit %d, %.2f s, %d warning line(s)\n' "$verb" "$rc" \
    "$(cat "$W/read.${verb%% *}")" "$(grep -c warning "$W/read.err" || true)"
done
if [ "${SAT_PERF_SCRIPT:-0}" = 1 ]; then
  t0=$(date +%s.%N)
  perf script -i "$W/rsp.data" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  p=$(echo "$t1 - $t0" | bc)
  printf 'perf script on the saturated file: %.2f s: %.1fx rsp info, %.1fx rsp report (goal 20x)\n' \
    "$p" "$(echo "$p / $(cat "$W/read.info")" | bc -l)" "$(echo "$p / $(cat "$W/read.report")" | bc -l)"
fi
# SAT_KEEP=FILE: the saturated recording kept there (to time its reading again)
[ -z "${SAT_KEEP:-}" ] || cp "$W/rsp.data" "$SAT_KEEP"

