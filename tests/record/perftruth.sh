#!/bin/sh
# A perf user's own file (issue 24): `perf record -g` and `perf record -F 97 -g`
# of the truth* workloads (CPU samples with stacks, no scheduler events).  rsp
# must estimate CPU from the samples, within the tolerances of
# tests/record/perftruth.py, and claim nothing about when threads waited.
. "$(dirname "$0")/lib.sh"

status=0
# name, scale, perf's options: CPU-bound children, a mostly sleeping program with
# two threads, three processes in a chain; -F 97 runs scaled up for samples
for spec in "truthfork 40 -g" "truthpoll 60 -g" "truthrpc 120 -g" \
            "truthfork 40 -F 97 -g" "truthpoll 120 -F 97 -g"; do
  set -- $spec
  w=$1 n=$2
  shift 2
  label="$w (perf record $*)"
  f="$T/$w$(echo "$*" | tr -d ' -').data"
  RSP_TRUTH="$f.jsonl" timeout 120 perf record -q -o "$f" "$@" -- "$WL/$w" "$n" >"$f.rec" 2>&1 ||
    { cat "$f.rec"; fail "$label: perf record failed"; }
  [ -s "$f.jsonl" ] || fail "$label: no side file"
  perf script -i "$f" -F period 2>/dev/null | awk 'NF { if (!p) p = $1; s += $1 }
    END { print p + 0, s + 0 }' >"$f.periods"
  read -r period sampled <"$f.periods"
  # each sample's program, period and leaf function, as perf script reads them
  perf script -i "$f" -F comm,period,ip,sym -G 2>/dev/null >"$f.leaf" || true
  [ "$period" -gt 0 ] || fail "$label: perf script reads no sample"
  "$RSP" report "$f" --format json --top 1000 >"$f.json" || fail "$label: rsp report failed"
  python3 "$(dirname "$0")/perftruth.py" "$label" "$f.json" "$f.jsonl" "$period" "$sampled" \
    "$f.leaf" || status=1
  # the verbs that tell when threads were off the CPU: one line saying why they
  # cannot, exit 1, nothing on standard output, rather than an empty table
  for verb in causes offcpu; do
    if "$RSP" $verb "$f" >"$f.$verb" 2>"$f.$verb.err"; then
      fail "$label: rsp $verb succeeded on a file without scheduler events"
    fi
    [ ! -s "$f.$verb" ] && [ "$(wc -l <"$f.$verb.err")" -eq 1 ] &&
      grep -q "^rsp $verb: .*no scheduler events (sched:sched_switch).*perf record -g -e 'sched:\*'" "$f.$verb.err" ||
      { cat "$f.$verb" "$f.$verb.err"; fail "$label: rsp $verb does not say in one line why it cannot"; }
  done
  note "$label: rsp causes and offcpu: $(cat "$f.offcpu.err")"
done
exit $status
