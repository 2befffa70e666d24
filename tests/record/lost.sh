#!/bin/sh
# A tiny buffer under heavy load loses records: they are counted, reported
# and kept in the file as PERF_RECORD_LOST.
. "$(dirname "$0")/lib.sh"

"$RSP" record -m 1 -o "$T/l.data" -- perf bench sched messaging -g 10 -l 200 \
  >/dev/null 2>"$T/sum" || fail "rsp record exited $?"
cat "$T/sum"
grep -q 'rsp record: LOST records' "$T/sum" || fail "no LOST line in the summary"
total=$(sed -n 's/.*LOST records[^:]*://p' "$T/sum" | grep -oE 'cpu[0-9]+ [0-9]+ perf' | awk '{s += $2} END {print s + 0}')
[ "$total" -gt 0 ] || fail "summary reports no lost perf records"
n=$(perf script -D -i "$T/l.data" 2>/dev/null | grep -c 'PERF_RECORD_LOST' || true)
[ "$n" -gt 0 ] || fail "no PERF_RECORD_LOST in the file"
note "ok: $total lost records reported, $n LOST records in the file"

# With the default rings, the reader at normal priority while the machine is
# quiet must be raised when a load crowds the CPUs (its watch, or its own pass),
# and nothing may be lost: a second of sleep, then 200 processes of messaging.
"$RSP" record -v -o "$T/w.data" -- sh -c 'sleep 1; perf bench sched messaging -g 10 -l 100' \
  >/dev/null 2>"$T/wsum" || fail "rsp record exited $?"
line=$(grep 'reader at' "$T/wsum" || true)
note "$line"
grep -q 'lost: none' "$T/wsum" || { cat "$T/wsum"; fail "records lost with the default rings"; }
if grep -q 'reader at normal priority$' "$T/wsum"; then
  note "ok: no real-time priority here (--no-rt or not permitted)"
  exit 0
fi
case $line in
*"raised to real-time "[1-9]*) ;;
*"reader at real-time priority") # never lowered: other work crowded the CPUs all along
  note "ok: nothing lost; the reader was never lowered (the machine was busy: $(cat /proc/loadavg))"
  exit 0 ;;
*) cat "$T/wsum"; fail "the reader was lowered in the quiet second but not raised under the load" ;;
esac
note "ok: lowered while quiet, raised under 200 processes, nothing lost"
