#!/bin/sh
# rsp causes (LatencyTOP) on recorded workloads, with known answers: the
# O_DIRECT reader's top cause is disk I/O; pass's blocking cause is the pipe;
# pollwait's time is poll timing out; a stack made to match no rule is in the
# unmatched log; a malformed rule file gets one error line naming the line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not installed (setup.sh installs it)"

"$RSP" record -q -o "$T/od.data" -- "$WL/odirect" 2>"$T/od.err" || { cat "$T/od.err"; fail "record odirect"; }
# how many of its reads slept, by its own count (a read whose completion is already
# there does not: from 3 to 475 of the 600 on this VM's disk, run to run)
NV=$(sed -n 's/.*the reads: \([0-9]*\) voluntary switches.*/\1/p' "$T/od.err")
[ -n "$NV" ] || { cat "$T/od.err"; fail "odirect did not count its switches"; }
export NV
"$RSP" record -q -o "$T/pass.data" -- "$WL/pass" 300 2>"$T/pass.err" || { cat "$T/pass.err"; fail "record pass"; }
"$RSP" record -q -o "$T/pw.data" -- "$WL/pollwait" 2>"$T/pw.err" || { cat "$T/pw.err"; fail "record pollwait"; }

# $1 file, $2 process, $3 python expression over `p` (the process's JSON) that must hold
check_json() {
  python3 - "$1" "$2" "$3" "$4" <<'EOF' || fail "$4"
import json, os, sys
d = json.load(open(sys.argv[1]))
procs = [p for p in d["processes"] if p["comm"] == sys.argv[2]]
if not procs:
    sys.exit("no process %s in %s" % (sys.argv[2], sys.argv[1]))
p = procs[0]
causes = p["causes"]
top = causes[0]
by = {c["cause"]: c for c in causes}
share = lambda name: by[name]["total_ns"] / p["total_ns"] if name in by else 0.0
print("# %s: %s" % (sys.argv[2], ", ".join("%s %.1f ms x%d" % (c["cause"], c["total_ns"] / 1e6, c["count"]) for c in causes[:4])))
nv = int(os.environ.get("NV", "0"))  # odirect's own count of the reads that slept
ok = eval(sys.argv[3])
if not ok:
    sys.exit("%s: %s does not hold" % (sys.argv[4], sys.argv[3]))
EOF
}

# odirect: 600 O_DIRECT preads, NV of them a D sleep in read_blocks -> pread64.  Its blocking
# time (S and D) is disk I/O; with the scheduler's causes too, the same reads (how much
# the scheduler's causes take depends on the load: waiting for a CPU once took a third,
# and with few reads sleeping, preemption came first)
"$RSP" causes "$T/od.data" --target odirect --state S,D -f json >"$T/od-sd.json" ||
  fail "rsp causes odirect"
check_json "$T/od-sd.json" odirect \
  'top["cause"].startswith("Disk I/O") and 0.98 * nv <= by["Disk I/O: read"]["count"] <= nv and sum(share(c) for c in by if c.startswith("Disk I/O")) > 0.8' \
  "odirect: its blocking time is disk I/O (its reads; the fsync of its setup)"
"$RSP" causes "$T/od.data" --target odirect -f json >"$T/od.json" || fail "rsp causes odirect"
check_json "$T/od.json" odirect \
  '0.98 * nv <= by["Disk I/O: read"]["count"] <= nv' \
  "odirect: with the scheduler's causes too, its reads counted as they slept"

# pass: its blocking cause is the pipe (LatencyTOP's view: the stack causes, S and D);
# with the scheduler's causes too, the pipe is still a large share (wakeup
# preemption by the peer it hands the token to competes with it on 2 CPUs)
"$RSP" causes "$T/pass.data" --target pass --state S,D -f json >"$T/pass-sd.json" || fail "rsp causes pass"
check_json "$T/pass-sd.json" pass 'top["cause"] == "Pipe" and top["count"] >= 100 and share("Pipe") > 0.9' \
  "pass: the top blocking cause is the pipe"
"$RSP" causes "$T/pass.data" --target pass -f json >"$T/pass.json" || fail "rsp causes pass (all states)"
check_json "$T/pass.json" pass \
  '"Pipe" in [c["cause"] for c in causes[:3]] and share("Pipe") > 0.2 and "Waiting for a CPU (scheduler queue)" in by' \
  "pass: the pipe among the top causes, the scheduler queue reported"

# pollwait: the main thread's poll(NULL, 0, 10) loop ends by timeout every time
"$RSP" causes "$T/pw.data" --target pollwait -f json >"$T/pw.json" || fail "rsp causes pollwait"
check_json "$T/pw.json" pollwait \
  'top["cause"] == "Waiting for event (poll), timed out" and top["count"] >= 20 and share(top["cause"]) > 0.6 and "Sleeping (nanosleep)" in by' \
  "pollwait: the time is poll with a timeout, timing out"

# text, CSV and Markdown carry the same answer
"$RSP" causes "$T/od.data" --target odirect --state S,D >"$T/od.txt" || fail "text"
grep -q '^Process odirect ([0-9]*)  total' "$T/od.txt" || fail "text: no odirect section"
awk '/^Process odirect/ { getline; print; exit }' "$T/od.txt" | grep -q '^  Disk I/O: [a-z/]*  *[0-9]' ||
  fail "text: odirect's first cause is not disk I/O"
"$RSP" causes "$T/od.data" -f csv --sort count >"$T/od.csv" || fail "csv"
python3 - "$T/od.csv" <<'EOF' || fail "csv: not what was expected"
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and set(rows[0]) == {"scope", "pid", "tid", "comm", "cause", "matched", "count", "avg_ns", "max_ns", "total_ns", "percent"}
od = [r for r in rows if r["scope"] == "process" and r["comm"] == "odirect"]
# by count: the reads that slept (NV, odirect's own count), and about as many waits
# for a CPU after them
nv = int(os.environ["NV"])
assert od and any(r["cause"] == "Disk I/O: read" and 0.98 * nv <= int(r["count"]) <= nv for r in od[:2]), (nv, od[:2])
counts = [int(r["count"]) for r in od]
assert counts == sorted(counts, reverse=True), "not sorted by count: %s" % counts
for r in rows:
    assert int(r["avg_ns"]) <= int(r["max_ns"]) <= int(r["total_ns"]) or int(r["count"]) == 0
EOF
"$RSP" causes "$T/od.data" -f md --target odirect >"$T/od.md" || fail "md"
grep -q '^| Disk I/O: read | [0-9]* |' "$T/od.md" || fail "md: no disk read row"
note "odirect, pass and pollwait: the known top causes"

# --log: a rule file without the pipe rules leaves pass's pipe reads unmatched
cat >"$T/nopipe.conf" <<'EOF'
# only the scheduler and sleeping: pipes match nothing
100 state=R : Waiting for a CPU
100 state=P : Preempted
54  do_nanosleep : Sleeping
EOF
"$RSP" causes "$T/pass.data" -c "$T/nopipe.conf" --log unmatched "$T/unmatched.log" >"$T/nopipe.txt" ||
  fail "rsp causes --log"
grep -q '^  \[no rule matched\]' "$T/nopipe.txt" || fail "the unmatched time is not in the table"
python3 - "$T/unmatched.log" <<'EOF' || fail "the unmatched log"
import re, sys
entries, cur = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        cur = None
        continue
    m = re.match(r"^(\S.*?)(?: \(line \d+\))?  state ([SDRP])  count (\d+)  total ([\d.]+) ms  avg ([\d.]+) ms  max ([\d.]+) ms  seen in (.+) \((\d+)\)$", line)
    if m:
        cur = {"cause": m.group(1), "state": m.group(2), "count": int(m.group(3)), "total": float(m.group(4)), "comm": m.group(7), "frames": []}
        entries.append(cur)
        continue
    m = re.match(r"^  ([ku]) (.+)$", line)
    assert m and cur is not None, "bad line: %r" % line
    cur["frames"].append((m.group(1), m.group(2)))
assert entries, "no entries"
assert all(e["cause"] == "[no rule matched]" for e in entries), "a matched stack in the unmatched log"
totals = [e["total"] for e in entries]
assert totals == sorted(totals, reverse=True), "not by total"
pipe = [e for e in entries if e["comm"] == "pass" and any(f[1] in ("anon_pipe_read", "pipe_read") for f in e["frames"]) and ("u", "wait_token") in e["frames"]]
assert pipe, "no pipe-read stack of pass under wait_token"
print("# unmatched log: %d entries; pass's pipe read: x%d, %.1f ms" % (len(entries), pipe[0]["count"], pipe[0]["total"]))
assert pipe[0]["count"] >= 100
EOF
# the shipped rules match it: not in their unmatched log, in the matched one
"$RSP" causes "$T/pass.data" --log unmatched "$T/un2.log" >/dev/null || fail "--log with the shipped rules"
! grep -q 'wait_token' "$T/un2.log" || fail "the shipped rules leave pass's pipe read unmatched"
"$RSP" causes "$T/pass.data" --log=matched "$T/m.log" >/dev/null || fail "--log=matched"
grep -q '^Pipe (line [0-9]*)  state S  count [0-9]*' "$T/m.log" || fail "the matched log has no pipe entry"
note "unmatched and matched logs"

# a malformed rule file: exit 1, one line naming the file and line
printf '# rules\n10 vfs_read : Reading\n20 pipe_read Pipe reads\n' >"$T/bad.conf"
set +e
"$RSP" causes "$T/pass.data" -c "$T/bad.conf" >"$T/bad.out" 2>"$T/bad.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a malformed rule file: exit $rc, want 1"
[ "$(wc -l <"$T/bad.err")" -eq 1 ] || { cat "$T/bad.err"; fail "not one error line"; }
grep -q "^rsp causes: $T/bad.conf:3: no cause" "$T/bad.err" || { cat "$T/bad.err"; fail "the error does not name line 3"; }
[ ! -s "$T/bad.out" ] || fail "output despite the error"
set +e
"$RSP" causes "$T/pass.data" --sort sideways >/dev/null 2>&1; rc1=$?
"$RSP" causes "$T/pass.data" --log sometimes "$T/x" >/dev/null 2>&1; rc2=$?
"$RSP" causes "$T/missing.data" >/dev/null 2>&1; rc3=$?
set -e
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] && [ "$rc3" -eq 1 ] || fail "exit codes $rc1 $rc2 $rc3, want 2 2 1"
note "errors: $(cat "$T/bad.err")"
# --threads JSON: every object's keys are unique (a process's thread count and
# its thread list once had the same key)
"$RSP" causes "$T/pass.data" --threads -f json >"$T/threads.json" || fail "causes --threads json"
python3 - "$T/threads.json" <<'EOF' || fail "causes --threads json: duplicate keys"
import json, sys
def unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        sys.exit("duplicate keys: %s" % keys)
    return dict(pairs)
d = json.load(open(sys.argv[1]), object_pairs_hook=unique)
assert any(p.get("threads") for p in d["processes"]), "no thread lists"
EOF
note "ok"
