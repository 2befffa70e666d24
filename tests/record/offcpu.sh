#!/bin/sh
# rsp offcpu (Gregg's off-CPU analysis) on recorded workloads: stacks with
# power-of-two histograms, blocked time apart from dispatcher-queue time, the
# threshold, the state filter, and --within: only the waits under a function.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not installed (setup.sh installs it)"

"$RSP" record -q -o "$T/pass.data" -- "$WL/pass" 300 2>"$T/pass.err" || { cat "$T/pass.err"; fail "record pass"; }
"$RSP" record -q -o "$T/od.data" -- "$WL/odirect" 2>"$T/od.err" || { cat "$T/od.err"; fail "record odirect"; }
# how many of its reads slept, by its own count (a read whose completion is already
# there does not: from 3 to 475 of the 600 on this VM's disk, run to run)
NV=$(sed -n 's/.*the reads: \([0-9]*\) voluntary switches.*/\1/p' "$T/od.err")
[ -n "$NV" ] || { cat "$T/od.err"; fail "odirect did not count its switches"; }
export NV

"$RSP" offcpu "$T/pass.data" -f json --top 0 >"$T/all.json" || fail "rsp offcpu"
"$RSP" offcpu "$T/pass.data" -f json --top 0 --within wait_token >"$T/in.json" || fail "rsp offcpu --within"
"$RSP" offcpu "$T/pass.data" -f json --top 0 --within pass_token >"$T/tok.json" || fail "rsp offcpu --within pass_token"
"$RSP" offcpu "$T/pass.data" -f json --top 0 --min-us 100 >"$T/min.json" || fail "rsp offcpu --min-us"
python3 - "$T/all.json" "$T/in.json" "$T/tok.json" "$T/min.json" <<'EOF' || fail "offcpu on pass"
import json, sys
full, within, tok, mn = (json.load(open(p)) for p in sys.argv[1:5])

def names(s):
    return [f["func"] for f in s["frames"]]

def check_stack(s):
    # the histogram is the waits: counts add up, buckets are powers of two
    assert sum(b["count"] for b in s["histogram"]) == s["count"], s
    for b in s["histogram"]:
        assert b["ns"] == 0 or b["ns"] & (b["ns"] - 1) == 0, b
    assert s["histogram"][-1]["ns"] <= s["max_ns"] < 2 * s["histogram"][-1]["ns"] or s["max_ns"] == 0
    assert s["total_ns"] <= s["count"] * s["max_ns"]
    assert not s["frames"] or any(f["kernel"] for f in s["frames"]), "no kernel frames"

for d in (full, within, tok, mn):
    for part in ("blocked", "runnable"):
        for s in d[part]:
            check_stack(s)
    assert d["summary"]["blocked_ns"] == sum(s["total_ns"] for s in d["blocked"])
    assert d["summary"]["runnable_ns"] == sum(s["total_ns"] for s in d["runnable"])

# the target's tree: pass and pass-peer
assert {s["comm"] for s in full["blocked"]} >= {"pass", "pass-peer"}, {s["comm"] for s in full["blocked"]}
# blocked in the pipe read under wait_token: most of the blocked time
pipe = [s for s in full["blocked"] if "wait_token" in names(s) and ("anon_pipe_read" in names(s) or "pipe_read" in names(s))]
assert pipe and sum(s["count"] for s in pipe) >= 150, "pipe waits: %d" % sum(s["count"] for s in pipe)

# --within F: exactly the waits whose stack has F, nothing else: wait_token (the
# pipe reads), pass_token (preemptions after the hand-off write, if any)
for d, fn in ((within, "wait_token"), (tok, "pass_token")):
    for part in ("blocked", "runnable"):
        want = sum(s["total_ns"] for s in full[part] if fn in names(s))
        got = sum(s["total_ns"] for s in d[part])
        assert got == want, "%s %s: --within total %d != %d" % (fn, part, got, want)
        assert all(fn in names(s) for s in d[part]), "a stack without " + fn
        assert d["summary"][part + "_count"] == sum(s["count"] for s in full[part] if fn in names(s))
assert within["summary"]["blocked_ns"] > 0.5 * full["summary"]["blocked_ns"], "the pipe reads are not most blocked time"
assert within["summary"]["outside_within"] > 0, "nothing was outside wait_token"
assert not any("wait_token" in names(s) for p in ("blocked", "runnable") for s in tok[p])

# --min-us 100: no wait shorter; what remains is the full set's long waits
for part in ("blocked", "runnable"):
    for s in mn[part]:
        assert s["histogram"][0]["ns"] >= 65536 and s["max_ns"] >= 100000, s["histogram"]
assert mn["summary"]["below_min"] > 0
print("# pass: blocked %.1f ms (%d), dispatcher queue %.1f ms (%d); within wait_token %.1f ms; pipe waits %d"
      % (full["summary"]["blocked_ns"] / 1e6, full["summary"]["blocked_count"],
         full["summary"]["runnable_ns"] / 1e6, full["summary"]["runnable_count"],
         within["summary"]["blocked_ns"] / 1e6, sum(s["count"] for s in pipe)))
EOF
note "pass: histograms, --within, --min-us"

# odirect: D sleeps are the O_DIRECT reads; S sleeps are none of them
"$RSP" offcpu "$T/od.data" -f json --top 0 --state D >"$T/d.json" || fail "rsp offcpu --state D"
"$RSP" offcpu "$T/od.data" -f json --top 0 --state S >"$T/s.json" || fail "rsp offcpu --state S"
python3 - "$T/d.json" "$T/s.json" <<'EOF' || fail "offcpu --state on odirect"
import json, os, sys
d, s = (json.load(open(p)) for p in sys.argv[1:3])
names = lambda st: [f["func"] for f in st["frames"]]
reads = [st for st in d["blocked"] if "read_blocks" in names(st)]
nv = int(os.environ["NV"])  # the reads that slept, by odirect's own count
n = sum(st["count"] for st in reads)
assert reads and 0.98 * nv <= n <= nv, "O_DIRECT reads in D: %d, odirect counted %d" % (n, nv)
assert max(d["blocked"], key=lambda st: st["count"]) in reads, "the most frequent D stack is not the reads"
assert not any("read_blocks" in names(st) for st in s["blocked"]), "a read in S"
# the reads' latency: microseconds to milliseconds, never seconds (a read this VM's
# disk completes at once sleeps ~2 us: a switch out and back in, not less than 1 us)
top = reads[0]
assert 1024 <= top["histogram"][0]["ns"] and top["max_ns"] < 1e9, top["histogram"]
print("# odirect: %d O_DIRECT reads in D, %.1f ms, max %.3f ms" % (sum(st["count"] for st in reads),
      sum(st["total_ns"] for st in reads) / 1e6, max(st["max_ns"] for st in reads) / 1e6))
EOF

# the text report: DTrace quantize rows, blocked and dispatcher queue apart
"$RSP" offcpu "$T/od.data" --top 3 >"$T/od.txt" || fail "rsp offcpu text"
grep -q '^== Blocked' "$T/od.txt" && grep -q '^== Dispatcher queue' "$T/od.txt" || fail "text: the two parts"
grep -Eq '^ +[0-9]+ \|@+ +[0-9]+$' "$T/od.txt" || fail "text: no histogram rows"
grep -q 'ns value  ------------- Distribution -------------' "$T/od.txt" || fail "text: no histogram header"
set +e
"$RSP" offcpu "$T/od.data" --state X >/dev/null 2>&1; rc1=$?
"$RSP" offcpu "$T/od.data" --min-us -3 >/dev/null 2>&1; rc2=$?
"$RSP" offcpu "$T/od.data" --target nosuchprocess >/dev/null 2>"$T/e"; rc3=$?
set -e
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] && [ "$rc3" -eq 1 ] || fail "exit codes $rc1 $rc2 $rc3, want 2 2 1"
grep -q "no process named 'nosuchprocess'" "$T/e" || fail "unknown target: $(cat "$T/e")"
note "ok"
