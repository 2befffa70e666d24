#!/bin/sh
# JIT-compiled code named as its runtime names it (issue 41): jitcode compiles
# its own code into anonymous executable memory and names it in
# /tmp/perf-PID.map (map) or in a jitdump it maps executable (dump: the same
# addresses hold jit_alpha, then jit_beta); it times each function's phase on
# its thread's CPU clock.  rsp record copies the files into FILE.jit; rsp
# report's rows and the folded export name each function, with its own
# measured time (within sampling), and the dump's reused addresses by time.
# Node.js with --perf-basic-prof, one hot function: >= 80% of node's CPU
# samples name it.  A damaged map gives one warning naming it.
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || fail "node not installed (setup.sh installs nodejs)"
[ -x "$WL/jitcode" ] || fail "$WL/jitcode not built"

# the CSV row's ms of contributor $2 in report $1, 0 if none
row_ms() {
  awk -F, -v who="\"$2\"" '$2 == "contributor" && $7 == who { ms += $5 } END { printf "%d\n", ms }' "$1"
}
# folded cpu file $1: "samples of comm $2, those whose stack names $3"
share() {
  awk -v comm="$2" -v pat="$3" 'index($0, comm ";") == 1 { n += $NF; if (index($0, pat)) h += $NF }
    END { print n + 0, h + 0 }' "$1"
}
# $1 within 15% (and 15 ms) of the workload's $2
near() {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.15 + 15) }'
}

for mode in map dump; do
  timeout 120 "$RSP" record -q -o "$T/$mode.data" -- "$WL/jitcode" "$mode" 500 \
    >"$T/$mode.out" 2>"$T/$mode.err" || { cat "$T/$mode.err" >&2; fail "rsp record -- jitcode $mode"; }
  pid=$(awk '$1 == "pid" { print $2 }' "$T/$mode.out")
  rm -f "/tmp/perf-$pid.map" # the runtime's file, as a runtime leaves it
  if [ $mode = map ]; then f=perf-$pid.map; else f=jit-$pid.dump; fi
  [ -f "$T/$mode.data.jit/$f" ] || fail "$mode: $f not copied into $mode.data.jit: $(ls "$T/$mode.data.jit" 2>&1)"
  "$RSP" report "$T/$mode.data" --format csv >"$T/$mode.csv" 2>"$T/$mode.rerr" ||
    { cat "$T/$mode.rerr" >&2; fail "$mode: rsp report"; }
  [ ! -s "$T/$mode.rerr" ] || { cat "$T/$mode.rerr" >&2; fail "$mode: rsp report warned"; }
  "$RSP" export "$T/$mode.data" --folded cpu -o "$T/$mode.folded" 2>/dev/null || fail "$mode: folded"
  for fn in jit_alpha jit_beta; do
    want=$(awk -v fn=$fn '$1 == fn { printf "%d\n", $2 }' "$T/$mode.out")
    got=$(row_ms "$T/$mode.csv" "jitcode: $fn")
    note "$mode: $fn: rsp report $got ms, the workload's thread CPU clock $want ms"
    near "$got" "$want" || fail "$mode: rsp report gives $fn $got ms, the workload measured $want ms"
  done
  set -- $(share "$T/$mode.folded" jitcode ";jit_")
  note "$mode: $2 of jitcode's $1 CPU samples in the folded export name a JIT function"
  at_least_pct "$2" "$1" 90 "$mode: jitcode's CPU samples naming jit_alpha or jit_beta"
done

# the recording moved with its FILE.jit still names them; without it, addresses
mkdir "$T/moved"
mv "$T/dump.data" "$T/dump.data.jit" "$T/moved/"
"$RSP" report "$T/moved/dump.data" --format csv >"$T/moved.csv" 2>/dev/null || fail "moved: report"
[ "$(row_ms "$T/moved.csv" "jitcode: jit_beta")" -gt 0 ] || fail "moved with FILE.jit: jit_beta not named"
mv "$T/moved/dump.data.jit" "$T/moved/elsewhere.jit"
"$RSP" report "$T/moved/dump.data" --format csv >"$T/bare.csv" 2>/dev/null || fail "no FILE.jit: report"
! grep -q jit_ "$T/bare.csv" || fail "without FILE.jit a JIT function is named"

# a damaged map: one warning naming it, the other lines' names, no crash
m=$(ls "$T/map.data.jit/")
{ echo "not a line"; cat "$T/map.data.jit/$m"; } >"$T/m" && mv "$T/m" "$T/map.data.jit/$m"
"$RSP" report "$T/map.data" --format csv >"$T/damaged.csv" 2>"$T/damaged.err" || fail "damaged: report"
grep -q "map.data.jit/$m: 1 of 3 lines are not \"START SIZE NAME\"" "$T/damaged.err" ||
  { cat "$T/damaged.err" >&2; fail "damaged map: no warning naming it"; }
[ "$(grep -c . "$T/damaged.err")" -eq 1 ] || { cat "$T/damaged.err" >&2; fail "damaged map: more than one line"; }
[ "$(row_ms "$T/damaged.csv" "jitcode: jit_alpha")" -gt 0 ] || fail "damaged map: its good lines unused"

# Node.js, --perf-basic-prof (V8 writes /tmp/perf-PID.map), one hot function
cat >"$T/hot.js" <<'JS'
function hotLoop(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003;
  return x;
}
const t0 = process.hrtime.bigint();
let s = 0;
while (process.hrtime.bigint() - t0 < 3000000000n) s += hotLoop(100000);
console.log("pid " + process.pid + " " + (s > 0));
JS
timeout 120 "$RSP" record -q -o "$T/node.data" -- node --perf-basic-prof "$T/hot.js" \
  >"$T/node.out" 2>"$T/node.err" || { cat "$T/node.err" >&2; fail "rsp record -- node"; }
pid=$(awk '$1 == "pid" { print $2 }' "$T/node.out")
rm -f "/tmp/perf-$pid.map"
[ -f "$T/node.data.jit/perf-$pid.map" ] || fail "node: perf-$pid.map not copied"
"$RSP" export "$T/node.data" --folded cpu -o "$T/node.folded" 2>/dev/null || fail "node: folded"
set -- $(share "$T/node.folded" node "JS:*hotLoop")
note "node: $2 of node's $1 CPU samples in the folded export name JS:*hotLoop"
at_least_pct "$2" "$1" 80 "node: CPU samples naming hotLoop (folded)"
"$RSP" report "$T/node.data" --format csv >"$T/node.csv" 2>/dev/null || fail "node: report"
awk -F, '$1 == "all" && $2 == "category" && $3 == "cpu" { cpu = $5 }
  $1 == "all" && $2 == "contributor" && $3 == "cpu" && index($7, "JS:*hotLoop") { hot += $5 }
  END { printf "%d %d\n", hot, cpu }' "$T/node.csv" >"$T/node.ms"
read hot cpu <"$T/node.ms"
note "node: rsp report: $hot of $cpu ms of CPU in rows naming JS:*hotLoop"
at_least_pct "$hot" "$cpu" 80 "node: the report's CPU time in rows naming hotLoop"
