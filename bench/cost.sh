#!/bin/sh
# Where rsp record's cost goes: the workloads recorded with one mechanism at a
# time switched off or replaced, beside the floor and perf, in one run,
# interleaved.  As root, after ./setup.sh:
#
#   bench/cost.sh [BUILD_DIR] [ROUNDS]          (defaults: build, 5)
#   WORKLOADS="pipe pgbench" by default (bench/record.sh lists the others)
#   VARIANTS="base perf-g rsp rt": only these (base and perf-g are needed)
#
# Each variant's added time over the program alone, and the share of rsp's own
# added time the mechanism it switches off accounts for: (rsp - variant) / rsp.
# The variants:
#   rsp           rsp record's defaults
#   no-bpf        switches and wakeups through perf, not rsp's BPF program
#   no-copies     --call-graph fp: no user-stack copies (the target's sleeps, CPU samples)
#   no-samples    -F 0: no CPU samples
#   no-unwind     RSP_RECORD_UNWIND=0: the CPU samples' copies written as they are
#   no-zstd       --compression-level 0: the records uncompressed
#   no-rt         --no-rt: the reader at normal priority throughout
#   rt            RSP_RECORD_READER=rt: the reader at real-time priority throughout
#   no-net-block  --no-net --no-block: no socket, no block events
#   sched-only    the scheduler's events and CPU samples only (no irq, block, net)
#   floor         an ftrace instance with the same tracepoints, nobody reading
#   perf          perf record -a (no stacks), perf-g: perf record -a -g
# Then, outside the timed rounds, one rsp record with the kernel timing rsp's
# BPF programs (RSP_RECORD_BPF_STATS=1): the in-kernel cost of each switch and
# each wakeup, with their stacks, and its sum.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WORKLOADS=${WORKLOADS:-pipe pgbench}
. "$here/lib.sh"

awk '/^#/ || $1 == "sched" || $1 == "sampling"' "$here/../probes/events.conf" >"$W/sched-only.conf"

VARIANTS=${VARIANTS:-"base floor perf perf-g rsp no-bpf no-copies no-samples no-unwind no-zstd no-rt rt no-net-block sched-only"}
variant() { # workload, variant, round
  case $2 in
  base | floor) run "$1" "$2" "$3" "$2" ;;
  perf) run "$1" perf "$3" perf ;;
  perf-g) run "$1" perf-g "$3" perf -g ;;
  rsp) run "$1" rsp "$3" rsp ;;
  no-bpf) run "$1" "$2" "$3" rsp --no-bpf ;;
  no-copies) run "$1" "$2" "$3" rsp --call-graph fp ;;
  no-samples) run "$1" "$2" "$3" rsp -F 0 ;;
  no-unwind) run "$1" "$2" "$3" rsp RSP_RECORD_UNWIND=0 ;;
  rt) run "$1" "$2" "$3" rsp RSP_RECORD_READER=rt ;;
  no-zstd) run "$1" "$2" "$3" rsp --compression-level 0 ;;
  no-rt) run "$1" "$2" "$3" rsp --no-rt ;;
  no-net-block) run "$1" "$2" "$3" rsp --no-net --no-block ;;
  sched-only) run "$1" "$2" "$3" rsp --probes "$W/sched-only.conf" ;;
  esac
}

prepare "$WORKLOADS"
for r in $(seq 1 "$ROUNDS"); do
  for w in $RUN; do
    for v in $(echo $VARIANTS | tr ' ' '\n' | shuf); do variant "$w" "$v" "$r"; done
  done
  echo "round $r done" >&2
done

for w in $RUN; do
  # not timed: the kernel's clock reads add to each program run
  run "$w" bpf-stats 1 rsp RSP_RECORD_BPF_STATS=1 -v
done

for w in $RUN; do
  printf '\n%s (medians of %s rounds)\n' "$w" "$ROUNDS"
  python3 - "$W/$w.times" "$VARIANTS" <<'PY'
import statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    d.setdefault(k, []).append(float(v))
m = {k: st.median(v) for k, v in d.items()}
b = m['base']
add = {k: m[k] / b - 1 for k in m}
print('%-13s %9s %8s %9s %9s' % ('variant', 'figure', 'added', '/perf-g', 'of rsp'))
for k in sys.argv[2].split():
    if k not in m:
        continue
    share = '' if k in ('base', 'floor', 'perf', 'perf-g', 'rsp') else \
        '%8.0f%%' % (100 * (add['rsp'] - add[k]) / add['rsp']) if add['rsp'] > 0 else 'n/a'
    print('%-13s %9.4f %7.1f%% %9.2f %9s' % (k, m[k], 100 * add[k],
          add[k] / add['perf-g'] if add['perf-g'] > 0 else float('nan'), share))
PY
  sed -n 's/^rsp record: \(sched:[a-z_]*\): the BPF program ran \([0-9]*\) times.*, \([0-9.]* us\) a run (\([0-9.]* s\) in all.*/  in the kernel, rsp'"'"'s BPF program at \1: \3 a run, \2 runs, \4/p' "$W/$w.bpf-stats.1.rec"
done
echo
echo "added = the variant's time over the program alone, minus 1; /perf-g = as a share of perf -g's"
echo "of rsp = the share of rsp's added time that the mechanism the variant switches off costs"
