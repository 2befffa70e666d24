#!/bin/sh
# Whole user stacks for CPU samples (issue 23): rsp record against perf record
# --call-graph dwarf, same run, interleaved.  As root, after ./setup.sh:
#
#   bench/stacks.sh [BUILD_DIR] [ROUNDS]        (defaults: build, 3)
#
# Workloads, all built without frame pointers: tests/workloads/cpustack (ours, -O2
# -fomit-frame-pointer: two threads and main in call trees through libc's
# qsort), and three binaries from the distribution: xz -T2 (liblzma, threads)
# and gzip, each on 8 MB of base64 text, and sqlite3's shell (an in-memory
# database: 1.2 M rows inserted, indexed, scanned and joined; its statements run
# more than 8 KiB below main).  Per round and workload, in a
# rotating order: the workload alone, under `perf record --call-graph dwarf -F
# 999 -e cpu-clock` (perf's defaults: 8 KiB of stack per sample, the command's
# tasks only) and under `rsp record` with its defaults (everything, system-wide).
#
# Printed per workload (round 1's files; times are medians over the rounds):
#   reach   share of the target's CPU samples with a user stack whose outermost
#           frame is main, a thread start or the C library's or loader's entry
#           (bench/stacks.py; samples without any user frame are not counted)
#   B/smp   bytes per CPU sample record of the workload's processes (`perf script
#           -D` of both files: records as written, before rsp's zstd); B/smp_all:
#           over every CPU sample of rsp's system-wide file (`rsp info --json`)
#   zB/smp  the same records alone, in file order, compressed as rsp record writes
#           by default (zstd -1, a frame per 256 KiB; bench/stacks.py): for rsp,
#           what they cost in its file (an upper bound: the file's other records
#           in the same frames can only help); for perf, about what perf record -z
#           would write (its default writes B/smp)
#   x       the workload's wall time under the recorder / alone
# Then, per workload, what the recorder's unwinding did in round 1 (rsp record -vv:
# CPU samples of every process unwound of those with a copy, and the writer
# thread's CPU time spent on it; the rest keep their copies).
# Goals: rsp reach >= 98%; rsp B/smp <= half of perf's (result).  disk: rsp's
# zB/smp, what its default file holds, against perf's default (B/smp, no -z).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${2:-3}
RSP=$B/cli/rsp
CPUSTACK=$B/tests/workloads/cpustack
PY="python3 $here/stacks.py"
[ "$(id -u)" -eq 0 ] || { echo "stacks.sh: run as root (rsp records system-wide)" >&2; exit 1; }
[ -x "$RSP" ] && [ -x "$CPUSTACK" ] || { echo "stacks.sh: build first: ./setup.sh" >&2; exit 1; }
for c in perf xz gzip sqlite3; do
  command -v $c >/dev/null ||
    { echo "stacks.sh: $c not found (apt-get install linux-perf xz-utils gzip sqlite3)" >&2; exit 1; }
done
W=$(mktemp -d /var/tmp/rsp-stacks.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
head -c 6000000 /dev/urandom | base64 >"$W/in.txt"
# sqlite3's shell runs its statements more than 8 KiB below main (a copy of 8 KiB,
# perf's default, misses main on almost every sample)
cat >"$W/cpu.sql" <<'SQL'
create table t(id integer primary key, v text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 1200000)
insert into t(v) select printf('%08x-%s', x * 2654435761 % 4294967296, hex(x)) from c;
create index iv on t(v);
select count(*), sum(length(v)) from t where v like '%ab%';
select count(*) from t a join t b on a.v = b.v where a.id % 3 = 0;
SQL

workload() {
  case $1 in
  cpustack) echo "$CPUSTACK 3" ;;
  xz) echo "xz -T2 -6 -c $W/in.txt" ;;
  gzip) echo "gzip -6 -c $W/in.txt" ;;
  sqlite3) echo "sqlite3 -batch -init $W/cpu.sql :memory: .quit" ;;
  esac
}

run() { # workload mode round
  w=$1; m=$2; r=$3; cmd="/usr/bin/time -f TIME=%e $(workload "$w")"; o=$W/$w.$m.$r
  case $m in
  base) $cmd >/dev/null 2>"$o.err" ;;
  perf) perf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$o.data" -- $cmd >/dev/null 2>"$o.err" ;;
  rsp) "$RSP" record -vv -o "$o.data" -- $cmd >/dev/null 2>"$o.err" ;;
  esac
  t=$(sed -n 's/^TIME=//p' "$o.err" | tail -1)
  [ -n "$t" ] || { echo "stacks.sh: $w under $m printed no time:" >&2; cat "$o.err" >&2; exit 1; }
  echo "$m $t" >>"$W/$w.times"
  if [ "$m" != base ] && [ "$r" -gt 1 ]; then rm -f "$o.data"; fi
}

WORKLOADS=${WORKLOADS:-cpustack xz gzip sqlite3}
for r in $(seq 1 "$ROUNDS"); do
  for w in $WORKLOADS; do
    case $(( r % 3 )) in
    1) order="base perf rsp" ;; 2) order="perf rsp base" ;; *) order="rsp base perf" ;;
    esac
    for m in $order; do run "$w" "$m" "$r"; done
  done
  echo "round $r done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '\n%-9s %8s %9s %9s %9s %9s %9s %9s %9s %8s %8s %7s %7s\n' workload alone_s \
  reach_perf reach_rsp B/smp_perf B/smp_rsp B/smp_all zB/smp_perf zB/smp_rsp perf_x rsp_x \
  result disk
fail=0
for w in $WORKLOADS; do
  b=$(awk '$1 == "base" { print $2 }' "$W/$w.times" | median)
  p=$(awk '$1 == "perf" { print $2 }' "$W/$w.times" | median)
  q=$(awk '$1 == "rsp" { print $2 }' "$W/$w.times" | median)
  pf=$W/$w.perf.1.data; rf=$W/$w.rsp.1.data
  perf script -F pid,ip,sym,dso -i "$pf" 2>/dev/null >"$W/$w.perf.txt"
  set -- $($PY perf-reach "$W/$w.perf.txt"); rp=$3
  "$RSP" export "$rf" --folded cpu --mark-frames -o "$W/$w.folded" 2>/dev/null
  set -- $($PY rsp-reach "$W/$w.folded"); rr=$3; nr=$1
  set -- $($PY perf-bytes "$pf"); bp=$(( $2 / ($1 > 0 ? $1 : 1) )); zp=$(( $3 / ($1 > 0 ? $1 : 1) ))
  set -- $(perf script -D -i "$rf" 2>/dev/null | $PY dump-bytes "$w")
  br=$(( $2 / ($1 > 0 ? $1 : 1) )); zr=$(( $3 / ($1 > 0 ? $1 : 1) ))
  ba=$("$RSP" info --json "$rf" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = [x for x in d["events"] if x["name"] in ("cpu-clock", "task-clock")]
print(sum(x["bytes"] for x in e) // max(sum(x["count"] for x in e), 1))')
  python3 - "$w" "$b" "$rp" "$rr" "$bp" "$br" "$ba" "$zp" "$zr" "$p" "$q" <<'PY' || fail=1
import sys
w = sys.argv[1]
b, rp, rr, bp, br, ba, zp, zr, p, q = (float(x) for x in sys.argv[2:12])
ok = rr >= 98.0 and br <= bp / 2
disk = rr >= 98.0 and zr <= bp / 2
print('%-9s %8.3f %9.1f%% %8.1f%% %9.0f %9.0f %9.0f %9.0f %9.0f %7.2fx %7.2fx %7s %7s' % (
    w, b, rp, rr, bp, br, ba, zp, zr, p / b, q / b, 'ok' if ok else 'MISSED',
    'ok' if disk else 'MISSED'))
sys.exit(0 if ok else 1)
PY
done
echo
for w in $WORKLOADS; do # the recorder's own unwinding (collector/runwind.c), round 1
  printf '%-9s ' "$w"
  sed -n 's/^rsp record: CPU samples unwound by the recorder: /unwound by the recorder: /p' \
    "$W/$w.rsp.1.err" | tail -1
done
echo
echo "reach: share of the target's CPU samples with a user stack that reach main, a thread"
echo "       start or the libc/loader entry; B/smp: bytes per CPU sample record of the"
echo "       workload (B/smp_all: every process in rsp's file; before zstd); zB/smp: those"
echo "       records alone compressed as rsp writes (zstd -1, 256 KiB frames); x: wall time"
echo "       under the recorder / alone; result: B/smp_rsp <= B/smp_perf / 2; disk:"
echo "       zB/smp_rsp (rsp's default file) <= B/smp_perf / 2 (perf's default file)"
exit $fail
