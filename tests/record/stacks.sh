#!/bin/sh
# Whole user stacks for CPU samples (issue 23): the target's CPU samples reach
# main or a thread start on programs built without frame pointers, in every
# output that shows them; with frame pointers only (--call-graph fp) they do
# not, which shows the check can fail.
. "$(dirname "$0")/lib.sh"
STACKS="python3 $(dirname "$0")/../../bench/stacks.py"

reach() { # FILE KIND -> "user_samples reaching percent" of the folded KIND
  "$RSP" export "$1" --folded "$2" --mark-frames -o "$T/f.folded" 2>"$T/err" ||
    { cat "$T/err" >&2; fail "rsp export --folded $2 $1"; }
  if [ "$2" = hotcold ]; then # the [on-cpu] part, as "comm;frames N"
    grep ';\[on-cpu\];' "$T/f.folded" | sed 's/;\[on-cpu\];/;/' >"$T/g.folded" || true
    mv "$T/g.folded" "$T/f.folded"
  fi
  $STACKS rsp-reach "$T/f.folded"
}

# truthfork: parent and children -fomit-frame-pointer; cpustack: -O2
# -fomit-frame-pointer, two threads and main through libc's qsort; xz from the
# distribution (threads, liblzma), on 3 MB of text
head -c 2300000 /dev/urandom | base64 >"$T/in.txt"
XZ=$(command -v xz) || skip "xz not installed"
CPUSTACK=$WL/cpustack
[ -x "$CPUSTACK" ] || fail "$CPUSTACK not built"
for spec in "truthfork:$WL/truthfork" "cpustack:$CPUSTACK 1" "xz:$XZ -T2 -6 -c $T/in.txt"; do
  name=${spec%%:*}; cmd=${spec#*:}
  timeout 120 "$RSP" record -q -o "$T/$name.data" -- $cmd >/dev/null ||
    fail "rsp record -- $cmd"
  for kind in cpu hotcold; do
    set -- $(reach "$T/$name.data" $kind)
    note "$name, folded $kind: $2 of $1 (its values) of CPU with a user stack reach a root ($3%)"
    [ "$1" -ge 50 ] || fail "$name: only $1 CPU samples with a user stack"
    at_least_pct "$2" "$1" 98 "$name ($kind): samples reaching main or a thread start"
  done
  # the report's CPU rows name the caller chain, not the leaf alone
  "$RSP" report "$T/$name.data" >"$T/$name.report" 2>/dev/null || fail "rsp report $name"
done
grep -q 'tfork-cc: child_main > child_compile' "$T/truthfork.report" ||
  { cat "$T/truthfork.report" >&2; fail "truthfork's report does not say child_main > child_compile"; }

# frame pointers only: the same binaries' samples stop at their first frame
timeout 120 "$RSP" record -q --call-graph fp -o "$T/fp.data" -- "$CPUSTACK" 1 >/dev/null ||
  fail "rsp record --call-graph fp"
set -- $(reach "$T/fp.data" cpu)
note "cpustack with --call-graph fp: $2 of $1 reach a root ($3%)"
[ $(( $2 * 100 )) -lt $(( $1 * 50 )) ] ||
  fail "--call-graph fp reached a root on $3% of an -fomit-frame-pointer program's samples: the check cannot tell"
echo "PASS"
