#!/bin/sh
# Whole user stacks for CPU samples (issue 23): the target's CPU samples reach
# main or a thread start on programs built without frame pointers, in every
# output that shows them; with frame pointers only (--call-graph fp) they do
# not, which shows the check can fail.  The recorder unwinds the CPU samples'
# copies itself (collector/runwind.c): their stacks are those the model
# unwinds from the copies (RSP_RECORD_UNWIND=0), at a fraction of the bytes,
# and perf script reads them.
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
# -fomit-frame-pointer, two threads and main through libc's qsort; cpustack
# deep: its main thread's work 10 KiB below main (as sqlite3's shell: the CPU
# sampler's copies are 16 KiB; 8 KiB read 70% here); xz from the distribution
# (threads, liblzma), on 3 MB of text
head -c 2300000 /dev/urandom | base64 >"$T/in.txt"
XZ=$(command -v xz) || skip "xz not installed"
CPUSTACK=$WL/cpustack
[ -x "$CPUSTACK" ] || fail "$CPUSTACK not built"
for spec in "truthfork:$WL/truthfork" "cpustack:$CPUSTACK 1" "cpustack-deep:$CPUSTACK 1 deep" \
  "xz:$XZ -T2 -6 -c $T/in.txt"; do
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

# the recorder's unwinding against the model's, same programs: the same user
# stacks (whole paths, and each function's callers), within sampling
for spec in "truthfork:tfork-cc:$WL/truthfork" "cpustack:cpustack:$CPUSTACK 1"; do
  name=${spec%%:*}; rest=${spec#*:}; comm=${rest%%:*}; cmd=${rest#*:}
  RSP_RECORD_UNWIND=0 timeout 120 "$RSP" record -q -o "$T/$name.copies.data" -- $cmd >/dev/null ||
    fail "RSP_RECORD_UNWIND=0 rsp record -- $cmd"
  for f in "$name" "$name.copies"; do
    "$RSP" export "$T/$f.data" --folded cpu --mark-frames -o "$T/$f.folded" 2>"$T/err" ||
      { cat "$T/err" >&2; fail "rsp export --folded cpu $f"; }
  done
  set -- $($STACKS folded-same "$T/$name.folded" "$T/$name.copies.folded")
  note "$name: user stacks unwound by the recorder vs by the model: $1 of the weight in the same paths; $2 and $3 of each one's weight in stacks whose every (function, caller) pair the other has; missing: $4"
  [ "$4" = - ] || fail "$name: the pair $4 (>= 3% of one recording) is missing from the other"
  awk -v p="$2" -v q="$3" 'BEGIN { exit !(p >= 0.97 && q >= 0.97) }' ||
    fail "$name: callers in one recording the other does not have (covered $2, $3)"
  # bytes per CPU sample of the program's processes, as written (perf script -D)
  set -- $(perf script -D -i "$T/$name.data" 2>/dev/null | $STACKS dump-bytes "$comm")
  nu=$1; bu=$(( $2 / ($1 > 0 ? $1 : 1) ))
  set -- $(perf script -D -i "$T/$name.copies.data" 2>/dev/null | $STACKS dump-bytes "$comm")
  bc=$(( $2 / ($1 > 0 ? $1 : 1) ))
  note "$name: $bu bytes per CPU sample unwound by the recorder ($nu samples), $bc with copies"
  [ "$nu" -ge 50 ] || fail "$name: only $nu CPU samples of $comm"
  [ $(( bu * 4 )) -le "$bc" ] ||
    fail "$name: $bu bytes per CPU sample with the recorder's unwinding, $bc with copies: not unwound"
done
# perf script, the reference decoder, reads the unwound samples and shows their
# user frames up to main or the thread start
perf script -i "$T/cpustack.data" -F comm,event,ip,sym >"$T/cpustack.script" 2>"$T/err" ||
  { cat "$T/err" >&2; fail "perf script -i cpustack.data"; }
! grep -iE 'error|fail' "$T/err" >&2 || fail "perf script complained reading cpustack.data"
set -- $(awk '
  /^ *cpustack .*cpu-clock/ { if (s) { n++; m += hit } s = 1; hit = 0; next }
  /^ *[^ \t]/ { if (s) { n++; m += hit } s = 0; next }
  s && $2 ~ /^(main|start_thread|__?clone3?)$/ { hit = 1 }
  END { if (s) { n++; m += hit } print n + 0, m + 0 }' "$T/cpustack.script")
note "perf script: $2 of $1 cpu-clock samples of cpustack show main or a thread start"
[ "$1" -ge 50 ] || fail "perf script shows only $1 cpu-clock samples of cpustack"
at_least_pct "$2" "$1" 95 "perf script: cpustack's cpu-clock samples with main or a thread start"

# frame pointers only: the same binaries' samples stop at their first frame
timeout 120 "$RSP" record -q --call-graph fp -o "$T/fp.data" -- "$CPUSTACK" 1 >/dev/null ||
  fail "rsp record --call-graph fp"
set -- $(reach "$T/fp.data" cpu)
note "cpustack with --call-graph fp: $2 of $1 reach a root ($3%)"
[ $(( $2 * 100 )) -lt $(( $1 * 50 )) ] ||
  fail "--call-graph fp reached a root on $3% of an -fomit-frame-pointer program's samples: the check cannot tell"
echo "PASS"
