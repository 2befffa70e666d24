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
  [ "$period" -gt 0 ] || fail "$label: perf script reads no sample"
  "$RSP" report "$f" --format json --top 1000 >"$f.json" || fail "$label: rsp report failed"
  python3 "$(dirname "$0")/perftruth.py" "$label" "$f.json" "$f.jsonl" "$period" "$sampled" || status=1
  # the other verbs: nothing to report rather than an empty table
done
exit $status
