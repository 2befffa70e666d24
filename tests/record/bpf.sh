#!/bin/sh
# rsp's BPF program (collector/sched.bpf.c) writes what the kernel's own
# tracepoints say: with RSP_RECORD_BPF_CHECK=1 the recorder also takes ftrace's
# copy of every sched_switch and sched_waking, and check-bpf pairs them (the
# same payload byte for byte, the same interrupt or task context).  The
# workloads: pipe wakeups between two processes (pass), a disk's completion
# interrupts (odirect), timer expiries (sleep), forks and exits.  Then the same
# recording without the check: every event counted by the program is in the
# file, perf reads it cleanly, and the target's sleep stacks are whole.  The
# recorder's replayed unwinds (collector/runwind.c) are checked in the first
# recording: each is done again and must give the same frames.
. "$(dirname "$0")/lib.sh"

WORK="'$WL/pass' 300; '$WL/odirect' 200; for i in 1 2 3 4 5; do sleep 0.01; done"
RSP_RECORD_BPF_CHECK=1 "$RSP" record -o "$T/c.data" -- sh -c "$WORK" >/dev/null 2>"$T/sum" ||
  { cat "$T/sum"; fail "rsp record exited $?"; }
cat "$T/sum"
if ! grep -q "from rsp's BPF program" "$T/sum"; then
  # a build without libbpf, or a kernel without BTF, records through perf
  grep -q -e 'built without its BPF program' -e 'has no BTF' "$T/sum" &&
    skip "$(grep 'recorded through perf' "$T/sum")"
  fail "the BPF program did not run (the summary above says why)"
fi
# the program misses an event that fires while it runs on that CPU already (an
# interrupt's wakeup during its run for a task waking itself): the kernel
# counts them, and the summary's missing column says so
ms=$(col "$T/sum" missing sched:sched_switch); mw=$(col "$T/sum" missing sched:sched_waking)
"$CHECK_BPF" "$T/c.data" "$ms" "$mw" || fail "the BPF program's records differ from the kernel's (above)"

# the recorder's unwinding replays an unwind where a copy repeats the words the
# first unwind read (collector/runwind.c); in this mode it unwinds again, to compare
grep -q "recorder's unwinding: 0 of [1-9][0-9]* replayed unwinds differ" "$T/sum" ||
  fail "replayed unwinds differ from the unwinds done again (or none was replayed): $(grep "recorder's unwinding" "$T/sum")"

# pass alone: every one of its sleep stacks reaches main (DWARF, from the copies)
"$RSP" record -o "$T/b.data" -- "$WL/pass" 300 >/dev/null 2>"$T/sum2" ||
  { cat "$T/sum2"; fail "rsp record exited $?"; }
cat "$T/sum2"
for ev in sched:sched_switch sched:sched_waking; do
  k=$(col "$T/sum2" kernel "$ev"); p=$(col "$T/sum2" perf "$ev"); m=$(col "$T/sum2" missing "$ev")
  [ "$m" = 0 ] || fail "$ev: $m of $k events missing"
  got=$(perf_count "$T/b.data" "$ev")
  # one sample an event: with the target's copy (target) or without (perf)
  t=$(col "$T/sum2" target "$ev"); [ "$t" = - ] && t=0
  r=$(col "$T/sum2" recorded "$ev")
  [ "$got" -eq $((p + t)) ] && [ "$r" -eq $((p + t)) ] ||
    fail "$ev: perf script shows $got, rsp counted $p + $t and recorded $r"
done
perf script -i "$T/b.data" >/dev/null 2>"$T/script.err" || fail "perf script failed"
[ ! -s "$T/script.err" ] || { cat "$T/script.err"; fail "perf script printed errors or warnings"; }
grep -q 'complete user sleep stacks.*target 100.0%' "$T/sum2" ||
  fail "the target's sleep stacks are not all whole"
note "ok"
