#!/bin/sh
# Command lines (issue 41 item 1): rsp record -- make -j2 of a tree where one
# file (heavy.c) costs far more to compile than the three others.  Each
# compile runs under /usr/bin/time, which measures it (cc and what it waits
# for: cc1, as).  rsp report --by command puts heavy.c's compiler first, and
# the CPU of the command lines naming heavy.c is what time measured; the
# control paths carry their command lines (--threads, JSON); perf script and
# perf report read the file without a word; a damaged command-line record is
# one warning line.
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
echo "PASS"
