#!/bin/sh
# rsp export on a recorded multi-process workload (rpcchain: TCP, a unix socket,
# fsync): every export parsed back and its content checked.  Folded stacks: the
# grammar as flamegraph.pl, inferno and speedscope read it, and known frames;
# pseudostacks add up to rsp report's total.  Chrome JSON: what Perfetto's
# importer needs (X slices per thread, s/f flows bound to slices, b/e async).
# SVG (XML-parsed, titles), PNG and PDF (magic) when rsp was built with cairo.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not installed (setup.sh installs it)"

"$RSP" record -q -o "$T/rpc.data" -- "$WL/rpcchain" 2>"$T/rec.err" || { cat "$T/rec.err"; fail "record rpcchain"; }

for k in cpu offcpu hotcold offwake pseudo; do
  "$RSP" export "$T/rpc.data" --folded $k -o "$T/$k.folded" || fail "--folded $k"
  [ -s "$T/$k.folded" ] || fail "--folded $k: empty"
done
"$RSP" export "$T/rpc.data" --folded offwake --mark-frames >"$T/offwake-marked.folded" || fail "--folded to stdout"
"$RSP" report "$T/rpc.data" -f json >"$T/report.json" || fail "rsp report"

python3 - "$T" <<'EOF' || fail "folded stacks"
import json, re, sys
T = sys.argv[1]

# how each tool reads a line (their parsers' rules)
flamegraph_pl = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$")   # flamegraph.pl: stack, samples
speedscope = re.compile(r"^(.*) (\d+)$")                    # speedscope's folded importer

def load(kind):
    out = {}
    for n, line in enumerate(open("%s/%s.folded" % (T, kind)), 1):
        assert line.endswith("\n"), "%s:%d: no newline" % (kind, n)
        line = line[:-1]
        m1, m2 = flamegraph_pl.match(line), speedscope.match(line)
        stack, value = line.rsplit(" ", 1)                    # inferno: last space
        assert m1 and m2 and m1.group(1) == stack == m2.group(1), "%s:%d: %r" % (kind, n, line)
        assert int(value) > 0 and str(int(value)) == value, "%s:%d: value %r" % (kind, n, value)
        frames = stack.split(";")
        assert all(f and "\n" not in f for f in frames), "%s:%d: empty frame" % (kind, n)
        assert stack not in out, "%s:%d: stack twice" % (kind, n)
        out[stack] = int(value)
    assert list(out) == sorted(out), kind + ": not sorted"
    return out

procs = {"rpcchain", "rpc-server", "rpc-backend"}
cpu, off, hc, ow, ps = (load(k) for k in ("cpu", "offcpu", "hotcold", "offwake", "pseudo"))

# cpu: samples of the three processes, in their named functions
assert {s.split(";")[0] for s in cpu} <= procs | {"true"}, {s.split(";")[0] for s in cpu}
assert any(s.startswith("rpc-server;") and "server_handle" in s for s in cpu), "no server_handle sample"
# offcpu: the client's recv sleeps under client_call; the backend's fsync
assert any(s.startswith("rpcchain;") and ";client_call;" in s and ";tcp_recvmsg" in s for s in off)
assert any(s.startswith("rpc-backend;") and "backend_store" in s and "fsync" in s for s in off)
# hotcold: both, marked, one value unit (us): the client's off-CPU is most of its time
hot = sum(v for s, v in hc.items() if s.startswith("rpcchain;[on-cpu]"))
cold = sum(v for s, v in hc.items() if s.startswith("rpcchain;[off-cpu]"))
assert all(s.split(";")[1] in ("[on-cpu]", "[off-cpu]") for s in hc), "an unmarked hot/cold stack"
assert hot > 0 and cold > hot, (hot, cold)
assert cold == sum(v for s, v in off.items() if s.startswith("rpcchain;")) or \
    abs(cold - sum(v for s, v in off.items() if s.startswith("rpcchain;"))) <= len(off), "hot/cold's off-CPU is not offcpu's"
# offwake: target stack, "--", waker stack leaf first, the waker last
for s in ow:
    f = s.split(";")
    assert f.count("--") == 1, s
    assert f[-1] != "--"
woken = [s for s in ow if s.startswith("rpcchain;") and ";client_call;" in s]
assert any(s.endswith(";rpc-server") for s in woken), "the client's recv not woken by rpc-server"
# pseudo: the control paths of rpcchain; the server and the backend inside it;
# the leaves add up to rsp report's total
rep = json.load(open("%s/report.json" % T))
total_us = sum(ps.values())
assert abs(total_us - rep["total_ns"] / 1000) <= len(ps) + 1, (total_us, rep["total_ns"])
# the client's path, and the processes it started and did not wait for (async)
roots = {s.split(";")[0] for s in ps}
assert "rpcchain" in roots and all(r == "rpcchain" or r.endswith(" (async)") for r in roots), roots
assert any("rpc-server" in s and "rpc-backend" in s for s in ps), "no rpcchain > rpc-server > rpc-backend"
assert any(s.startswith("rpcchain;") and "[disk]" in s for s in ps), "no disk under the client"
print("# folded: cpu %d stacks, offcpu %d, hotcold %d (hot %d us, cold %d us), offwake %d, pseudo %d = %d us (report %d us)"
      % (len(cpu), len(off), len(hc), hot, cold, len(ow), len(ps), total_us, rep["total_ns"] // 1000))
EOF
grep -q '_\[k\]_\[w\];' "$T/offwake-marked.folded" || grep -q '_\[w\] [0-9]*$' "$T/offwake-marked.folded" ||
  fail "--mark-frames: no waker marks"
note "folded stacks"

"$RSP" export "$T/rpc.data" --chrome-json -o "$T/trace.json" || fail "--chrome-json"
python3 - "$T/trace.json" <<'EOF' || fail "chrome json"
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev
ph = collections.Counter(e["ph"] for e in ev)
for e in ev:
    assert e["ph"] in "XMsfbe", e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
pnames = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert {"rpcchain", "rpc-server", "rpc-backend"} <= set(pnames.values()), pnames

# X: per thread, slices in order without overlap; runs and sleeps alternate in kind
tracks = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        assert e["dur"] >= 0 and e["cat"] == "sched" and e["name"], e
        assert (e["pid"], e["tid"]) in names, "a slice on an unnamed thread"
        tracks[(e["pid"], e["tid"])].append(e)
for t, xs in tracks.items():
    xs.sort(key=lambda e: e["ts"])
    for a, b in zip(xs, xs[1:]):
        assert a["ts"] + a["dur"] <= b["ts"] + 0.002, ("overlap", t, a, b)
sleeps = [e for xs in tracks.values() for e in xs if e["name"] != "running" and e["name"] != "unknown"]
assert sleeps and all(e["args"]["state"] in ("S", "D", "R") and isinstance(e["args"]["stack"], list) for e in sleeps)
assert any(any(f.startswith("client_call") for f in e["args"]["stack"]) and e["name"].startswith("S") for e in sleeps), "no client_call sleep with its stack"
assert any(e["args"]["state"] == "D" and any("fsync" in f for f in e["args"]["stack"]) for e in sleeps), "no fsync D sleep"

def inside(t, ts):
    return any(x["ts"] - 0.002 <= ts <= x["ts"] + x["dur"] + 0.002 for x in tracks[t])

# flows: s on the waker inside a slice, f (bp e) on the wakee at the start of its run
flows = collections.defaultdict(dict)
for e in ev:
    if e["ph"] in "sf":
        assert e["cat"] == "wakeup" and isinstance(e["id"], int), e
        assert e["id"] not in flows or e["ph"] not in flows[e["id"]], "flow id reused"
        flows[e["id"]][e["ph"]] = e
assert flows, "no flow events"
for i, p in flows.items():
    s, f = p["s"], p["f"]
    assert f.get("bp") == "e" and s["name"] == f["name"], p
    assert s["ts"] <= f["ts"] + 0.002, p
    assert inside((s["pid"], s["tid"]), s["ts"]), ("s outside a slice", s)
    assert any(x["name"] == "running" and abs(x["ts"] - f["ts"]) < 0.002 for x in tracks[(f["pid"], f["tid"])]), ("f not at a run's start", f)
cross = [p for p in flows.values() if pnames.get(p["s"]["pid"]) != pnames.get(p["f"]["pid"])]
assert cross, "no wakeup between processes"

# async: b/e pairs per (cat, id), end after begin: the backend's writes and flushes
io = collections.defaultdict(dict)
for e in ev:
    if e["ph"] in "be":
        assert e["cat"] == "io", e
        io[e["id"]][e["ph"]] = e
assert io, "no block I/O"
for i, p in io.items():
    assert set(p) == {"b", "e"} and p["e"]["ts"] >= p["b"]["ts"] and p["b"]["name"] == p["e"]["name"], p
assert any(pnames.get(p["b"]["pid"]) == "rpc-backend" for p in io.values()), "no I/O by rpc-backend"
print("# chrome json: %d events (%s), %d threads, %d flows (%d across processes), %d I/O"
      % (len(ev), dict(ph), len(tracks), len(flows), len(cross), len(io)))
EOF
note "chrome trace json"

# the views: drawn by the viewer's render library, or one clear line without it
set +e
"$RSP" export "$T/rpc.data" --view flame -o "$T/flame.svg" 2>"$T/view.err"
rc=$?
set -e
if grep -q 'built without cairo' "$T/view.err"; then
  [ "$rc" -eq 1 ] && [ "$(wc -l <"$T/view.err")" -eq 1 ] || fail "--view without cairo: exit $rc"
  note "--view: rsp built without the render library: $(cat "$T/view.err")"
else
  [ "$rc" -eq 0 ] || { cat "$T/view.err"; fail "--view flame exit $rc"; }
  for v in running flame consolidated; do
    "$RSP" export "$T/rpc.data" --view $v -o "$T/$v.svg" || fail "--view $v svg"
    "$RSP" export "$T/rpc.data" --view $v -o "$T/$v.png" || fail "--view $v png"
    "$RSP" export "$T/rpc.data" --view $v -o "$T/$v.pdf" || fail "--view $v pdf"
  done
  python3 - "$T" <<'EOF' || fail "views"
import sys, xml.etree.ElementTree as ET
T = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
for v in ("running", "flame", "consolidated"):
    root = ET.parse("%s/%s.svg" % (T, v)).getroot()
    assert root.tag == NS + "svg", root.tag
    titles = [t.text or "" for t in root.iter(NS + "title")]
    assert titles, v + ": no <title>"
    assert any("rpcchain" in t for t in titles), v + ": no title names rpcchain"
    assert any(c.isdigit() for t in titles for c in t), v + ": no times in titles"
    if v != "running":
        assert any("rpc-server" in t for t in titles), v + ": the server is not in the flame view"
    png = open("%s/%s.png" % (T, v), "rb").read()
    pdf = open("%s/%s.pdf" % (T, v), "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000, v + ": not a PNG"
    assert pdf[:5] == b"%PDF-" and len(pdf) > 1000, v + ": not a PDF"
    print("# %s: %d titles" % (v, len(titles)))
EOF
  note "views: SVG, PNG, PDF"
fi
# pprof: decoded by protobuf's decoder and read by `go tool pprof` (when installed), each
# sample type equal, line by line, to the folded stacks of the same recording; then a
# perf record -g file (no scheduler events: the estimated CPU time) the same way
python3 "$PPROF_CHECK" "$RSP" "$PROFILE_PROTO" "$T/rpc.data" >"$T/pprof.tap" 2>&1 ||
  { cat "$T/pprof.tap"; fail "--pprof of the rpcchain recording"; }
note "pprof: $(grep -c '^ok' "$T/pprof.tap") checks of the rpcchain recording"
if command -v perf >/dev/null; then
  perf record -q -g -o "$T/perf-g.data" -- "$WL/cpustack" 1 >/dev/null 2>&1 || fail "perf record -g"
  python3 "$PPROF_CHECK" "$RSP" "$PROFILE_PROTO" "$T/perf-g.data" --all >"$T/pprof-g.tap" 2>&1 ||
    { cat "$T/pprof-g.tap"; fail "--pprof of a perf record -g file"; }
  grep -q "cpu = --folded hotcold's on-CPU lines" "$T/pprof-g.tap" || fail "pprof-g: no cpu check"
  "$RSP" export "$T/perf-g.data" --folded hotcold --all | grep -q '^[^;]*;\[on-cpu estimated\];' ||
    fail "perf record -g: no estimated on-CPU time to compare"
  note "pprof: $(grep -c '^ok' "$T/pprof-g.tap") checks of a perf record -g file (estimated CPU)"
fi
set +e
"$RSP" export "$T/rpc.data" >/dev/null 2>&1; rc1=$?
"$RSP" export "$T/rpc.data" --folded sideways >/dev/null 2>&1; rc2=$?
"$RSP" export "$T/rpc.data" --folded cpu -o /nonexistent/dir/x >/dev/null 2>&1; rc3=$?
set -e
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] && [ "$rc3" -eq 1 ] || fail "exit codes $rc1 $rc2 $rc3, want 2 2 1"
note "ok"
