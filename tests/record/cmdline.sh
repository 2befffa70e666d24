#!/bin/sh
# Command lines (issue 41 item 1): rsp record -- make -j2 of a tree where one
# file (heavy.c) costs far more to compile than the three others.  Each
# compile runs under /usr/bin/time, which measures it (cc and what it waits
# for: cc1, as).  rsp report --by command puts heavy.c's compiler first, and
# the CPU of the command lines naming heavy.c is what time measured; the
# control paths carry their command lines (--threads, JSON); perf script and
# perf report read the file without a word; a damaged command-line record is
# one warning line.  perf record -a -- CMD (no thread map): rsp report takes
# the process perf forked for CMD as the target and says so.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || fail "/usr/bin/time not installed (setup.sh installs time)"
command -v make >/dev/null && command -v cc >/dev/null || fail "make and cc needed"

src="$T/tree"
mkdir "$src"
for f in a b c; do printf 'int %s(int x) { return x + 1; }\n' $f >"$src/$f.c"; done
awk 'BEGIN { print "int heavy(int x) {"
  for (i = 0; i < 500; i++) printf "  x = x * 3 + %d; if (x %% 7 == %d) x ^= x >> 3;\n", i, i % 7
  print "  return x; }" }' >"$src/heavy.c"
cat >"$src/Makefile" <<'M'
OBJS = a.o b.o heavy.o c.o
all: $(OBJS)
%.o: %.c
	/usr/bin/time -f "%U %S" -o $@.time cc -O2 -c $< -o $@
M

timeout 240 "$RSP" record -q -o "$T/make.data" -- make -C "$src" -j2 >"$T/rec.out" 2>"$T/rec.err" ||
  { cat "$T/rec.err" >&2; fail "rsp record -- make -j2"; }
[ -f "$src/heavy.o" ] || fail "make did not build heavy.o"

# perf reads the file as before: no word on the command-line records
perf script -i "$T/make.data" >/dev/null 2>"$T/script.err" || fail "perf script failed"
[ ! -s "$T/script.err" ] || { cat "$T/script.err" >&2; fail "perf script warned"; }
perf report -i "$T/make.data" --stdio >/dev/null 2>"$T/preport.err" || fail "perf report failed"
[ ! -s "$T/preport.err" ] || { cat "$T/preport.err" >&2; fail "perf report warned"; }

"$RSP" report --by command --format csv --top 0 "$T/make.data" >"$T/by.csv" 2>"$T/by.err" ||
  { cat "$T/by.err" >&2; fail "rsp report --by command"; }
first=$(sed -n 2p "$T/by.csv")
note "first row: $first"
case "$first" in
  *cc1*heavy.c*) ;;
  *) fail "the costliest command line is not heavy.c's compiler: $first" ;;
esac
# the CPU of the rows naming heavy.c against what time measured of its compile
got=$(awk -F, 'NR > 1 && index($0, "heavy") { ms += $6 / 1e6 } END { printf "%d\n", ms }' "$T/by.csv")
want=$(awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$src/heavy.o.time")
note "heavy.c's compile: rsp report --by command $got ms of CPU, /usr/bin/time $want ms"
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.15 + 30) }' ||
  fail "heavy.c's compile: rsp $got ms of CPU, time measured $want ms"
# every other compile is cheaper, by rsp as by time
for f in a b c; do
  o=$(awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$src/$f.o.time")
  note "$f.c's compile: /usr/bin/time $o ms"
  [ "$o" -lt "$want" ] || fail "$f.c cost $o ms, not less than heavy.c's $want ms: the test tree is wrong"
done

# the control paths' command lines: the text and JSON
"$RSP" report --threads "$T/make.data" >"$T/threads.txt" 2>/dev/null || fail "rsp report --threads"
grep -q "^  command line: make -C $src -j2\$" "$T/threads.txt" ||
  { cat "$T/threads.txt" >&2; fail "the target's control path does not show its command line"; }
"$RSP" report --threads --format json "$T/make.data" >"$T/threads.json" 2>/dev/null || fail "json"
python3 - "$T/threads.json" "$src" <<'P' || fail "JSON paths' command lines"
import json, sys
d = json.load(open(sys.argv[1]))
want = "make -C %s -j2" % sys.argv[2]
cmds = [p.get("cmdline") for p in d["paths"]]
assert cmds[0] == want, cmds
P

# a damaged command-line record: one warning line, the report still made
python3 - "$T/make.data" "$T/bad.data" <<'P' || fail "cannot damage the file"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"rspcmdl1")
assert i >= 8
struct.pack_into("<I", b, i + 20, 60000)  # len: past the record
open(sys.argv[2], "wb").write(b)
P
"$RSP" report --by command "$T/bad.data" >"$T/bad.txt" 2>"$T/bad.err" || fail "report on a damaged record"
n=$(grep -c "command-line record is damaged" "$T/bad.txt")
[ "$n" = 1 ] || { cat "$T/bad.txt" >&2; fail "$n warnings for one damaged record"; }
note "damaged: $(grep "command-line record" "$T/bad.txt")"
# perf record -a -- CMD writes no thread map: rsp report takes the process perf
# forked for CMD (named in the header's command line) as the target, and says so;
# the process is the one the command itself reports ($$ of the shell perf ran)
perf record -q -a -g -e sched:sched_switch -e cpu-clock -o "$T/perf-a.data" -- \
  sh -c "echo \$\$ >'$T/perf-a.pid'; sleep 0.2; true" >/dev/null 2>&1 || fail "perf record -a -- sh"
pid=$(cat "$T/perf-a.pid")
"$RSP" report "$T/perf-a.data" >"$T/perf-a.txt" 2>"$T/perf-a.err" ||
  { cat "$T/perf-a.err" >&2; fail "rsp report on perf record -a -- CMD"; }
head -1 "$T/perf-a.txt" | grep -q "^rsp report: process $pid (sh), " ||
  { head -3 "$T/perf-a.txt" >&2; fail "the target is not perf's command, process $pid"; }
grep -q "marks no target: taking the command perf recorded, process $pid (sh -c " "$T/perf-a.err" ||
  { cat "$T/perf-a.err" >&2; fail "rsp report does not say it took perf's command"; }
note "perf record -a -- sh: $(grep 'marks no target' "$T/perf-a.err")"
# --target still chooses; perf record -a without a command still asks for one
"$RSP" report --target 1 "$T/perf-a.data" 2>"$T/perf-a1.err" | head -1 | grep -q "^rsp report: process 1 " ||
  fail "--target 1 on perf record -a -- CMD"
! grep -q "marks no target" "$T/perf-a1.err" || fail "the note with --target given"
timeout 5 perf record -q -a -e sched:sched_switch -o "$T/perf-all.data" >/dev/null 2>&1 &
sleep 1; kill -INT $! 2>/dev/null; wait $! 2>/dev/null || true
! "$RSP" report "$T/perf-all.data" >/dev/null 2>"$T/perf-all.err" || fail "perf record -a without a command: a target taken"
grep -q "records no target" "$T/perf-all.err" || { cat "$T/perf-all.err" >&2; fail "perf record -a without a command: the error"; }
echo "PASS"
