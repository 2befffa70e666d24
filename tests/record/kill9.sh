#!/bin/sh
# kill -9 of the recorder: the file up to the last flushed chunk opens in perf
# script, and the next recording removes the ftrace instance left behind.
. "$(dirname "$0")/lib.sh"

"$RSP" record -q -o "$T/k.data" -- "$WL/pass" 1000000 2>"$T/err" &
REC=$!
sleep 2
kill -9 $REC
wait $REC 2>/dev/null || true
pkill -9 -x pass 2>/dev/null || true
pkill -9 -x pass-peer 2>/dev/null || true
[ -d "/sys/kernel/tracing/instances/rsp-$REC" ] || fail "expected the killed recorder's instance"

perf script -i "$T/k.data" >"$T/script" 2>"$T/script.err" || fail "perf script failed on the cut file"
n=$(grep -c 'sched:sched_switch' "$T/script" || true)
[ "$n" -ge 100 ] || fail "only $n switches survive the kill"
# at most perf's own note about the cut
if grep -v 'unexpected end of event stream' "$T/script.err" | grep -q .; then
  cat "$T/script.err"; fail "perf script complained about more than the cut"
fi
note "$n switches readable after kill -9 ($(stat -c %s "$T/k.data") bytes)"

"$RSP" record -v -o "$T/next.data" -- true 2>"$T/next.err" || fail "next recording failed"
# the next recorder removes the stale instance and says so; in the parallel
# suite another test's recorder may have started first and removed it (one
# run in CI-like load): then it is gone all the same
[ ! -d "/sys/kernel/tracing/instances/rsp-$REC" ] || fail "stale instance rsp-$REC still there"
grep -q 'removed [0-9]* ftrace instance' "$T/next.err" ||
  note "the stale instance was removed before the next recording (by another test's recorder)"
note "ok"
