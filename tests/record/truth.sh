#!/bin/sh
# Known answers (issue 12): each truth* workload measures itself (CPU per named
# function with CLOCK_THREAD_CPUTIME_ID, its waits with CLOCK_MONOTONIC) and
# writes its numbers to a side file; rsp's explanation of a recording of it must
# agree within the tolerances of tests/record/truth.py (docs/TESTING.md).
. "$(dirname "$0")/lib.sh"

status=0
for spec in "truthrpc 120" "truthpipe 80" "truthpoll 60" "truthfork 40"; do
  set -- $spec
  w=$1
  RSP_TRUTH="$T/$w.jsonl" "$RSP" record -o "$T/$w.data" -- "$WL/$w" "$2" >"$T/$w.rec" 2>&1 ||
    { cat "$T/$w.rec"; fail "$w: rsp record failed"; }
  [ -s "$T/$w.jsonl" ] || fail "$w: no side file"
  "$RSP" report "$T/$w.data" --format json --top 1000 >"$T/$w.json" || fail "$w: rsp report failed"
  "$RSP" export "$T/$w.data" --folded pseudo -o "$T/$w.folded" || fail "$w: rsp export failed"
  if ! python3 "$(dirname "$0")/truth.py" "$w" "$T/$w.json" "$T/$w.folded" "$T/$w.jsonl"; then
    sed 's/^/#   /' "$T/$w.rec"
    status=1
  fi
done
exit $status
