#!/bin/sh
# This kernel's perf drops interrupt-context tracepoints on idle CPUs; rsp's
# ftrace instance must deliver >= 99% of what the kernel counted.
. "$(dirname "$0")/lib.sh"

"$RSP" record -o "$T/o.data" -- "$WL/odirect" 2000 2>"$T/sum" || fail "rsp record exited $?"
cat "$T/sum"
for ev in block:block_rq_complete irq:irq_handler_entry sched:sched_waking sched:sched_wakeup; do
  k=$(col "$T/sum" kernel "$ev"); r=$(col "$T/sum" recorded "$ev")
  [ -n "$k" ] && [ "$k" != - ] || fail "$ev has no kernel count"
  at_least_pct "$r" "$k" 99 "$ev"
  note "$ev: recorded $r of $k counted by the kernel"
done
# the O_DIRECT reader's 2000 reads reached the disk and were all recorded
r=$(col "$T/sum" recorded block:block_rq_complete)
[ "$r" -ge 2000 ] || fail "only $r block completions for 2000 O_DIRECT reads"
n=$(perf_count "$T/o.data" block:block_rq_complete)
[ "$n" -eq "$r" ] || fail "perf script shows $n block completions, rsp counted $r"
note "ok"
