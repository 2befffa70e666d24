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
