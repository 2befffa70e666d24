#!/bin/sh
# Model benchmark (issues 3 and 4): loading a recording into the timeline
# (rsp info) and explaining it (rsp report) against `perf script` of the same
# file, same run, interleaved.  As root, after ./setup.sh:
#
#   bench/load.sh [BUILD_DIR] [ROUNDS]        (defaults: build, 5)
#
# Records `perf bench sched pipe` with `rsp record` three times: ~1 M records
# and ~2 M records uncompressed (--compression-level 0), and ~1 M records with
# the default zstd compression.  Then, per round: `perf script` of the 1 M
# files once (its default output: every event with its symbolized stack, ~7 s)
# and each rsp job three times (~0.3 s each: a run this short is at the mercy
# of the VM's slow moments, so it gets more samples).  Medians over all runs.
#
# Memory: the peak of the process's anonymous resident memory (RssAnon,
# sampled every 5 ms): what the model holds.  The recording itself is mapped
# read-only (page cache, shared and reclaimable); a compressed one is read a
# zstd frame at a time (perf script inflates it whole, into anonymous memory).
#
# Goals: rsp info and rsp report >= 20x faster than perf script, on both
# files; <= 64 bytes of memory per event loading; the 2 M file loads in ~2x
# the time and memory of the 1 M file.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${2:-5}
RSP=$B/cli/rsp
[ "$(id -u)" -eq 0 ] || { echo "load.sh: run as root (rsp record traces system-wide)" >&2; exit 1; }
[ -x "$RSP" ] || { echo "load.sh: build first: ./setup.sh" >&2; exit 1; }
W=$(mktemp -d /var/tmp/rsp-load.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

"$RSP" record -q --compression-level 0 -o "$W/1m.data" -- perf bench sched pipe -l 100000 >/dev/null
"$RSP" record -q --compression-level 0 -o "$W/2m.data" -- perf bench sched pipe -l 200000 >/dev/null
"$RSP" record -q -o "$W/1mz.data" -- perf bench sched pipe -l 100000 >/dev/null

# run a command, print "seconds peak_anon_bytes peak_rss_bytes"
measure() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
def status(pid):
    v = {}
    try:
        for line in open('/proc/%d/status' % pid):
            k, _, rest = line.partition(':')
            if k in ('RssAnon', 'VmRSS'):
                v[k] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return v
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = rss = 0
while p.poll() is None:
    v = status(p.pid)
    anon = max(anon, v.get('RssAnon', 0)); rss = max(rss, v.get('VmRSS', 0))
    time.sleep(0.005)
t = time.monotonic() - t0
if p.returncode:
    sys.exit('load.sh: %s exited %d' % (' '.join(sys.argv[1:]), p.returncode))
print('%.4f %d %d' % (t, anon, rss))
PY
}

: >"$W/m"
run() { # name command...
  name=$1; shift
  echo "$name $(measure "$@")" >>"$W/m"
}
for r in $(seq 1 "$ROUNDS"); do
  run perf1 perf script -i "$W/1m.data"
  for k in 1 2 3; do
    run info1 "$RSP" info "$W/1m.data"
    run report1 "$RSP" report "$W/1m.data"
    run info2 "$RSP" info "$W/2m.data"
    run report2 "$RSP" report "$W/2m.data"
  done
  run perf1z perf script -i "$W/1mz.data"
  for k in 1 2 3; do
    run info1z "$RSP" info "$W/1mz.data"
    run report1z "$RSP" report "$W/1mz.data"
  done
  echo "round $r done" >&2
done

records() { "$RSP" info --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])'; }
n1=$(records "$W/1m.data"); n2=$(records "$W/2m.data"); nz=$(records "$W/1mz.data")
s1=$(stat -c %s "$W/1m.data"); s2=$(stat -c %s "$W/2m.data"); sz=$(stat -c %s "$W/1mz.data")
python3 - "$W/m" "$n1" "$n2" "$s1" "$s2" "$nz" "$sz" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, t, a, r = line.split()
    rows.setdefault(k, []).append((float(t), int(a), int(r)))
n1, n2, s1, s2, nz, sz = (int(x) for x in sys.argv[2:8])
med = lambda k, i: statistics.median(x[i] for x in rows[k])
print('files: 1M = %d records (%.0f MB), 2M = %d records (%.0f MB), uncompressed;'
      % (n1, s1 / 1e6, n2, s2 / 1e6))
print('       1Mz = %d records (%.0f MB), zstd (the default)' % (nz, sz / 1e6))
print('%-9s %5s %9s %9s %9s %12s %12s %14s' % ('', 'runs', 'median s', 'min s', 'max s',
                                               'anon MB', 'rss MB', 'anon B/record'))
for k, n in (('perf1', n1), ('info1', n1), ('report1', n1), ('info2', n2), ('report2', n2),
             ('perf1z', nz), ('info1z', nz), ('report1z', nz)):
    ts = [x[0] for x in rows[k]]
    print('%-9s %5d %9.3f %9.3f %9.3f %12.1f %12.1f %14.1f' % (k, len(ts), med(k, 0), min(ts), max(ts),
          med(k, 1) / 1e6, med(k, 2) / 1e6, med(k, 1) / n))
ratio = lambda p, r: med(p, 0) / med(r, 0)
goals = [
    ('perf script / rsp info, uncompressed', ratio('perf1', 'info1'), 20),
    ('perf script / rsp report, uncompressed', ratio('perf1', 'report1'), 20),
    ('perf script / rsp info, compressed (the default)', ratio('perf1z', 'info1z'), 20),
    ('perf script / rsp report, compressed (the default)', ratio('perf1z', 'report1z'), 20),
]
ok = True
for what, x, goal in goals:
    print('%s: %.1fx faster (goal >= %d)' % (what, x, goal))
    ok = ok and x >= goal
mem = med('info1', 1) / n1
memz = med('info1z', 1) / nz
lin_t = (med('info2', 0) / med('info1', 0)) / (n2 / n1)
lin_m = (med('info2', 1) / med('info1', 1)) / (n2 / n1)
print('memory: %.1f (uncompressed) and %.1f (compressed) bytes of anonymous memory per record '
      '(goal <= 64)' % (mem, memz))
print('scaling 1M -> 2M, per record: time x%.2f, memory x%.2f (1.00 = linear)' % (lin_t, lin_m))
ok = ok and mem <= 64 and memz <= 64 and 0.8 <= lin_t <= 1.25 and lin_m <= 1.25
print('result: %s' % ('ok' if ok else 'MISSED'))
sys.exit(0 if ok else 1)
PY
