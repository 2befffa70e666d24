#!/bin/sh
# The memory ceiling (issue 21): under a bounded load, with a writer slowed
# to a slow disk's pace (RSP_WRITER_THROTTLE) so that the queue fills,
# `--max-memory 64M` holds: the recorder's peak RSS (VmHWM, sampled from
# outside and read by rsp itself at the end) stays under 64 MiB, it sheds
# (never the scheduler's events), and every shed span is in the file: rsp
# info lists each, rsp report's warning names each, perf script reads it.
. "$(dirname "$0")/lib.sh"

# saturation disturbs other measurements on a small shared machine
exec 9>/tmp/rsp-bench.lock
flock -w 240 9 || skip "the benchmark lock is held by someone else"

# the load: local sockets only, bounded twice (loops and timeout)
timeout 30 sh -c 'for i in $(seq 200); do perf bench sched messaging -g 2 -l 400 >/dev/null 2>&1; done' &
load=$!
sleep 1
RSP_WRITER_THROTTLE=2000000 "$RSP" record --max-memory 64M -d 6 -o "$T/c.data" \
  -- sh -c 'sleep 30' >/dev/null 2>"$T/sum" &
rp=$!
hwm=0
while kill -0 $rp 2>/dev/null; do
  h=$(awk '/^VmHWM/ { print $2 }' /proc/$rp/status 2>/dev/null || true)
  [ -n "$h" ] && hwm=$h
  sleep 0.1
done
wait $rp || true
kill $load 2>/dev/null || true
wait $load 2>/dev/null || true
cat "$T/sum"

[ "$hwm" -gt 0 ] || fail "VmHWM was never sampled"
[ "$hwm" -le $((64 * 1024)) ] || fail "peak RSS $hwm kB above the 64 MiB ceiling"
own=$(sed -n 's/.*peak resident \([0-9.]*\) MiB.*/\1/p' "$T/sum")
[ -n "$own" ] || fail "no peak resident line in the summary"
awk -v v="$own" 'BEGIN { exit !(v <= 64) }' || fail "rsp's own VmHWM $own MiB above 64 MiB"
grep -q '^rsp record: SHED at the memory ceiling' "$T/sum" || fail "nothing was shed: the load did not fill the queue"
shed=$(awk '/^rsp record: SHED/ { on = 1; next } on && /^  [a-z-]+(:[a-z_]+)? +[0-9]+ span/ { print $1; next } { on = 0 }' "$T/sum")
[ -n "$shed" ] || fail "no shed event listed"
for e in $shed; do
  case $e in sched:sched_switch|sched:sched_waking|sched:sched_wakeup*|sched:sched_process_*)
    fail "$e was shed: the scheduler's events are never shed by choice" ;;
  esac
done

"$RSP" info "$T/c.data" >"$T/info" 2>&1 || fail "rsp info failed on the shed file"
grep -q '^missing     event types in spans' "$T/info" || fail "rsp info lists no shed span"
"$RSP" report "$T/c.data" >/dev/null 2>"$T/rep" || fail "rsp report failed on the shed file: $(cat "$T/rep")"
for e in $shed; do
  grep -q "^ *$e [0-9.]*\.\.[0-9.]* s ([0-9]* shed; " "$T/info" || fail "rsp info does not name $e's shed span"
  grep -q "$e [0-9.]*\.\.[0-9.]* s ([0-9]* shed" "$T/rep" || fail "rsp report's warning does not name $e's shed span"
done
perf script -i "$T/c.data" >/dev/null 2>"$T/perr" || fail "perf script failed: $(tail -3 "$T/perr")"
# the shed spans are LOST_SAMPLES records perf reads too
perf script -D -i "$T/c.data" 2>/dev/null | grep -q 'PERF_RECORD_LOST_SAMPLES' || fail "no LOST_SAMPLES in the file"
note "ok: peak RSS $hwm kB (rsp: $own MiB) under 64 MiB; shed: $(echo $shed)"

# a ceiling below what the recorder needs to start: one line, no file
if "$RSP" record --max-memory 8M -a -d 1 -o "$T/small.data" >/dev/null 2>"$T/err"; then
  fail "--max-memory 8M was accepted"
fi
grep -q 'max-memory 8 MiB is too small' "$T/err" || fail "no clear message for a tiny ceiling: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line for a tiny ceiling"
note "ok: $(cat "$T/err")"
[ ! -e "$T/small.data" ] || fail "a file was left for a refused ceiling"
