#!/bin/sh
# Record every workload and check the shape of its explanation (issue 4):
# the categories sum to the total exactly, >= 95% is accounted, and each
# workload's documented shape (tests/workloads/README.md) holds.
. "$(dirname "$0")/lib.sh"

check() { # workload, then python assertions on d (the JSON report), c (percent by key)
  w=$1; shift
  "$RSP" report "$T/$w.data" --threads --format json --top 1000 >"$T/$w.json" ||
    fail "$w: rsp report failed"
  python3 - "$T/$w.json" "$w" "$@" <<'PY' || { sed 's/^/#   /' "$T/$w.rec"; fail "$w: shape"; }
import json, sys
d = json.load(open(sys.argv[1])); w = sys.argv[2]
c = {x['key']: x['percent'] for x in d['categories']}
ns = {x['key']: x['ns'] for x in d['categories']}
# (the top 10 contributors are what the checks name; all of them count below)
who = {x['key']: ' | '.join(k['what'] for k in x['contributors'][:10]) for x in d['categories']}
ok = True
def need(cond, what):
    global ok
    print('# %s: %s %s' % (w, 'ok ' if cond else 'NOT', what))
    ok &= bool(cond)
need(sum(ns.values()) == d['total_ns'], 'categories sum to the total exactly (%d ns)' % d['total_ns'])
need(all(v >= 0 for v in ns.values()), 'no category negative')
# time in spans the recorder lost (a saturated machine: the reader fell behind;
# rsp record says so) is unknown by right, not a fault of the analysis
lost = sum(k['ns'] for x in d['categories'] if x['key'] == 'unknown'
           for k in x['contributors'] if 'records lost' in k['what'])
lost_pct = 100.0 * lost / d['total_ns'] if d['total_ns'] else 0.0
need(d['percent_accounted'] + lost_pct >= 95,
     '%.1f%% accounted (>= 95)%s' % (d['percent_accounted'], ', %.1f%% in spans of lost records'
                                     % lost_pct if lost else ''))
# the share of the total the workload waited for a CPU while a program that is
# none of its own (the machine's other work, the recorder) held it: named after
# ' by ' or ' while ' in the scheduler's and preemptions' contributors; the
# shapes below are of the rest
mine = {w, w + '-peer'}
def holder(what):
    for sep in (' by ', ' while '):
        if sep in what:
            h = what.rsplit(sep, 1)[1]
            return h[:-len(' ran')] if h.endswith(' ran') else h
    return None
outside_ns = sum(k['ns'] for x in d['categories'] if x['key'] in ('sched', 'involuntary')
                 for k in x['contributors'] if holder(k['what']) not in (None, *mine))
outside = 100.0 * outside_ns / d['total_ns'] if d['total_ns'] else 0.0
own = 100.0 - outside
if outside >= 0.5:
    print('# %s: %.1f%% of the total waited for a CPU other programs held' % (w, outside))
# (beyond 90% too little is left to judge a shape by)
need(outside <= 90, "others' CPU %.1f%% of the total (<= 90)" % outside)
for a in sys.argv[3:]:
    need(eval(a), a)
print('#   ' + ', '.join('%s %.1f%%' % (k, v) for k, v in c.items() if v >= 0.5))
if not ok:
    for x in d.get('warnings', []):
        print('#   warning: %s' % x)
    for x in d['categories']:
        if x['key'] == 'unknown' and x['ns']:
            print('#   unknown: ' + ' | '.join('%s %.1f ms' % (k['what'], k['ns'] / 1e6)
                                               for k in x['contributors']))
sys.exit(0 if ok else 1)
PY
}

rec() { # workload [args]; the end summary is shown when a shape check fails
  w=$1; shift
  "$RSP" record -o "$T/$w.data" -- "$WL/$w" "$@" >"$T/$w.out" 2>"$T/$w.rec" ||
    { cat "$T/$w.rec"; fail "$w: rsp record exited $?"; }
}

# pass: CPU in both processes dominates, one control path through both.  On
# a loaded 2-CPU machine (CI) the peer often waits for a CPU after its wakeup
# (scheduler delay, 12.5% seen in CI) and runs while pass itself is preempted
# after its write: that work is parallel to pass, so it is a second (async)
# path; both grow with the load, hence the margins (20.1% seen in CI with the
# target sampled at 999 Hz, whose runs are shorter than at 9999).  Of the time
# not spent waiting for other programs' CPU (`own`: 38% of pass's went to a
# compiler's and a recorder's once, cpu 62%)
rec pass
check pass "c['cpu'] + c['cpu_unsampled'] >= 0.70 * own" "c['sched'] - outside <= 25" \
  "c['cpu'] + c['cpu_unsampled'] >= 3 * (c['sched'] + c['involuntary'] - outside)" \
  "'pass-peer' in who['cpu'] + who['cpu_unsampled']" \
  "d['paths'][0]['comm'] == 'pass' and not d['paths'][0]['async']" \
  "d['paths'][0]['total_ns'] >= 0.75 * d['total_ns']"

rec rpcchain
check rpcchain "'rpc-server' in who['cpu'] + who['cpu_unsampled']" \
  "'rpc-backend' in who['cpu'] + who['cpu_unsampled']" "c['disk'] >= 0.05 * own" \
  "[k for k in d['paths'][0]['categories'] if k['key'] == 'disk'][0]['ns'] > 0"

rec forkexec
check forkexec "c['cpu'] + c['cpu_unsampled'] >= 0.50 * own" "'fx-job' in who['cpu']" \
  "'job_compile' in who['cpu']" \
  "[k for k in d['paths'][0]['categories'] if k['key'] == 'cpu'][0]['percent'] >= 0.20 * own"

rec pollwait
check pollwait "c['timeout'] >= 0.50 * own" "'wait_for_resolver' in who['timeout']" \
  "'while resolver ran' in who['timeout']"

# how much of odirect is disk depends on the disk under the VM: seen here from
# 3 to 475 of its 600 reads completing before it could sleep (check-timeline
# holds each sleep against its own count); its waits are the disk's, whatever
# its CPU share
rec odirect
check odirect "c['disk'] >= 0.15 * own" \
  "c['disk'] == max(v for k, v in c.items() if k not in ('cpu', 'cpu_unsampled', 'sched', 'involuntary'))" \
  "c['disk'] >= c['sched'] + c['involuntary'] - outside" \
  "'by odirect' in who['disk']"

rec oversub
check oversub "c['involuntary'] >= 40" "who['involuntary'].count('spin-') >= 3"

rec futex
# each locker is a target thread, a control path of its own: a waiter's wait for the
# lock is on another control path, named by what the holder ran (its critical section);
# 43.7% of the total in a run here, 28.9% beside a helper's tests (other load preempts
# the lockers)
check futex "'critical_section' in who['cpu']" "c['other_path'] >= 0.20 * own" "'critical_section' in who['other_path']"
note "ok"
