#!/bin/sh
# Record the `pass` workload: perf reads the file cleanly and shows every event
# rsp counted; switches and stacked wakings between the two processes; fork,
# exec and exit; synthesized records for a thread alive before recording.
. "$(dirname "$0")/lib.sh"

# a process that exists before recording and keeps waking up during it
"$WL/pollwait" 300 >/dev/null 2>&1 &
OLD=$!
sleep 0.3

"$RSP" record -o "$T/p.data" -- "$WL/pass" 300 2>"$T/sum" || fail "rsp record exited $?"
cat "$T/sum"
kill $OLD 2>/dev/null || true
wait $OLD 2>/dev/null || true

perf script -i "$T/p.data" >"$T/script" 2>"$T/script.err" || fail "perf script failed"
[ ! -s "$T/script.err" ] || { cat "$T/script.err"; fail "perf script printed errors or warnings"; }
perf report -i "$T/p.data" --stdio >/dev/null 2>"$T/report.err" || fail "perf report failed"
[ ! -s "$T/report.err" ] || { cat "$T/report.err"; fail "perf report printed errors or warnings"; }

# every event rsp counted is in perf script's output
for ev in $(awk '$2 ~ /^[0-9-]+$/ && $1 ~ /:/ {print $1}' "$T/sum"); do
  p=$(col "$T/sum" perf "$ev"); t=$(col "$T/sum" target "$ev"); f=$(col "$T/sum" ftrace "$ev")
  [ "$p" = - ] && p=0; [ "$t" = - ] && t=0; [ "$f" = - ] && f=0
  want=$((p + t + f))
  got=$(perf_count "$T/p.data" "$ev")
  [ "$got" -eq "$want" ] || fail "$ev: perf script shows $got, rsp counted $want"
done
note "perf script shows every counted event"

# the two processes pass control back and forth: 300 round trips, and in
# each at least one of them sleeps waiting for the token (both, when they run
# on different CPUs; on a loaded machine the woken one often preempts the
# writer, which then finds the token back without sleeping)
n=$(grep -c 'sched_switch: prev_comm=pass\(-peer\)\? .*prev_state=S' "$T/script" || true)
[ "$n" -ge 280 ] || fail "pass and pass-peer slept only $n times (want >= 280 for 300 round trips)"

# wakings carry the waker's stack: pass_token -> write -> pipe wakeup
awk '/sched:sched_waking:.*comm=pass/ { s = 1; next } s && /^$/ { s = 0 } s && /pipe_write/ { n++ } END { exit !(n >= 100) }' "$T/script" ||
  fail "fewer than 100 pipe wakings with a waker stack"
grep -q 'sched:sched_process_fork: comm=pass ' "$T/script" || fail "no fork of pass"
grep -q 'sched:sched_process_exec: filename=.*/pass ' "$T/script" || fail "no exec of pass"
[ "$(grep -c 'sched:sched_process_exit: comm=pass' "$T/script")" -ge 2 ] || fail "exits missing"

# the thread that existed before: its name and parent come from synthesized records
perf script --show-task-events -i "$T/p.data" 2>/dev/null >"$T/tasks"
grep -q "PERF_RECORD_FORK($OLD:$OLD):($$:$$)" "$T/tasks" ||
  fail "no synthesized FORK for pid $OLD with parent $$"
grep -q "PERF_RECORD_COMM: pollwait:$OLD/$OLD" "$T/tasks" || fail "no synthesized COMM for $OLD"
grep -Eq "^ *pollwait +$OLD .*sched:sched_switch" "$T/script" ||
  fail "samples of the old process are not named pollwait"

# the target's sleep stacks were copied for DWARF unwinding, and perf unwinds them
t=$(col "$T/sum" target sched:sched_switch)
[ "$t" != - ] && [ "$t" -ge 280 ] || fail "only $t target sleep-stack copies"
# Through perf (--no-bpf, or where the BPF program cannot run) every blocking
# pipe read of pass is there twice: a frame-pointer copy and a user-stack copy
# (registers + stack) for DWARF unwinding.  Unwinding itself
# is the model's job (tests/model); perf 6.1's own unwinder fails at random on
# system-wide recordings, perf's own `perf record -a --call-graph dwarf` too.
# CPU samples carry copies too (issue 23): only the tracepoints' (period 1) count here.
# The recorder unwinds most copies itself and writes them as callchains
# (collector/runwind.c): what is left as copies is counted here, the rest below.
perf script -D -i "$T/p.data" 2>/dev/null | awk '
  /PERF_RECORD_SAMPLE/ { tp = / period: 1 / }
  tp && /user regs: mask 0xff0fff/ { regs++ }
  tp && /ustack: size [1-9]/ { stack++; bytes += $4 + 0 }
  END { print regs + 0, stack + 0, stack ? int(bytes / stack) : 0 }' >"$T/copies"
read regs stack avg <"$T/copies"
# the copies are cut to the live stack (collector/ustack.h, or in the kernel by
# rsp's BPF program): pass sleeps a few frames below main, far less than the 8
# KiB the kernel copies
# (the copies the recorder could not unwind are a few odd ones: their sizes say
# nothing of the cut)
if ! grep -q "from rsp's BPF program" "$T/sum"; then
  [ "$avg" -gt 0 ] && [ "$avg" -lt 2048 ] || fail "user-stack copies average $avg bytes (want < 2048)"
fi
grep -q "user-stack copies cut to the live stack" "$T/sum" || fail "no trimming in the summary"
note "user-stack copies left as copies: $stack, $avg bytes on average"
# Every copy carries the registers; the stack the kernel reads without
# faulting, and one copy of 625 came empty in a run of this test (not in the
# next four; the cause not confirmed: a switch inside a fault on a stack page
# not yet mapped would do it): at most 1% of the target's copies may be empty.
# The share is of all of them ($t), not of those left: the recorder unwinds
# the readable ones, so an empty one is most of what is left (1 of 1 once).
[ "$stack" -le "$regs" ] && [ $(((regs - stack) * 100)) -le "$t" ] ||
  fail "$regs target copies left with user registers, $stack of them with a user stack (of $t copies)"
# the sleeps of pass: from their copies, unwound by the recorder or left for
# the model; through perf (--no-bpf) a frame-pointer twin of each too
blk=$(perf script -i "$T/p.data" -F comm,event,ip,sym 2>/dev/null | awk '
  /^ *pass .*sched_switch/ { s = 1; blk = ""; next }
  s && /^$/ { s = 0; if (blk ~ /anon_pipe_read/ && blk ~ / pass_main_side\n/) n++; next }
  s { blk = blk $0 "\n" }
  END { print n + 0 }')
if grep -q "from rsp's BPF program" "$T/sum"; then
  # one sample a sleep: unwound by the recorder, or a copy left for the model
  [ "$blk" -ge 50 ] || fail "only $blk pipe-read sleeps of pass unwound by the recorder through pass_main_side"
  note "$t target sleeps: $blk of pass's pipe reads unwound by the recorder to pass_main_side, $regs copies left"
else
  [ "$regs" -eq "$t" ] || fail "$t target copies, but $regs carry user registers"
  [ "$blk" -ge 50 ] || fail "only $blk frame-pointer sleep stacks of pass reach pass_main_side"
  note "$t user-stack copies, $blk frame-pointer pipe-read stacks"
fi

# the end summary and rsp info report the share of complete user sleep
# stacks; with the defaults (DWARF copies for the target's tree) nearly all of
# pass's reach main
share() { sed -n "s/.*$1 \([0-9.]*\)% (\([0-9]*\) of \([0-9]*\)).*/\1 \3/p" "$2" | head -1; }
set -- $(share target "$T/sum")
[ $# -eq 2 ] || fail "the end summary has no share of complete user stacks"
python3 -c "import sys; sys.exit(not (float('$1') >= 90 and int('$2') >= 270))" ||
  fail "only $1% of $2 target sleep stacks reach main (want >= 90% of >= 270)"
"$RSP" info "$T/p.data" >"$T/info" || fail "rsp info failed"
grep -q "user sleep stacks (target): [0-9.]*% reach main" "$T/info" || fail "rsp info: no stack share"
note "complete target sleep stacks: $1% of $2"
note "ok"
