#!/bin/sh
# What the other path did meanwhile (issue 41 item 6): lockturns' two threads
# take turns on a mutex, each running its own function (alpha_locked,
# beta_locked) while it holds it, and time themselves (their CPU clock around
# each turn, their monotonic clock around each pthread_mutex_lock).  Each
# thread's waits in pthread_mutex_lock are "Waiting on another control path"
# (the threads are targets of one code path, no helper of each other), in
# pieces named by what the other did during them (the folded pseudo export:
# per waiting thread).  Judged for each thread: >= 70% of its other-path time
# names the other's locked function (running it, by its samples or estimated
# from its site's; or preempted in it); the part running it at most the
# other's measured CPU in its turns; the other-path time within the thread's
# own measure of its lock waits.  Recorded as a user would (the default
# sampling: most 300 us turns have no sample).  Before the rule each wait was
# one piece named by what the other ran when it woke the waiter, mostly its
# site between its function and the lock: 45% and 39% in one recording.
. "$(dirname "$0")/lib.sh"
[ -x "$WL/lockturns" ] || fail "$WL/lockturns not built"

timeout 60 "$RSP" record -o "$T/lt.data" -- "$WL/lockturns" \
  >"$T/lt.out" 2>"$T/lt.err" || { cat "$T/lt.err" >&2; fail "rsp record -- lockturns"; }
"$RSP" export "$T/lt.data" --folded pseudo -o "$T/lt.folded" 2>/dev/null || fail "folded pseudo"
"$RSP" report "$T/lt.data" --format json --top 0 >"$T/lt.json" 2>/dev/null || fail "report json"
"$RSP" report "$T/lt.data" >"$T/lt.txt" 2>/dev/null || fail "report"
python3 - "$T/lt.out" "$T/lt.folded" "$T/lt.json" "$T/lt.txt" <<'PY'
import collections, json, sys
out = dict(l.split() for l in open(sys.argv[1]))
other = {'lt-alpha': 'beta', 'lt-beta': 'alpha'}
tot, fn, run = collections.Counter(), collections.Counter(), collections.Counter()
rows = collections.defaultdict(collections.Counter)
for line in open(sys.argv[2]):
    stack, us = line.rstrip('\n').rsplit(' ', 1)
    fr = stack.split(';')
    lab = [f for f in fr if f.startswith('[other path]')]
    if fr[0] not in other or not lab or 'sleep in pthread_mutex_lock' not in fr[1]:
        continue
    what = lab[0].split('): ', 1)[1] if '): ' in lab[0] else '(the thread alone)'
    n = int(us) * 1000
    tot[fr[0]] += n
    rows[fr[0]][what] += n
    if other[fr[0]] + '_locked' in what.replace('preempted in ', '').replace(' (estimated)', '').split(' > '):
        fn[fr[0]] += n
        run[fr[0]] += 0 if what.startswith('preempted in') else n
bad = []
for me, o in other.items():
    wait = int(out[me[3:] + '_wait_ns'])
    cpu = int(out[o + '_locked_ns'])
    print('# %s: other path %.1f ms (its own lock waits %.1f ms), %s_locked %.1f ms (%.0f%%), '
          'of it running %.1f ms (%s measured %.1f ms of CPU in its turns)' %
          (me, tot[me] / 1e6, wait / 1e6, o, fn[me] / 1e6, 100 * fn[me] / max(tot[me], 1),
           run[me] / 1e6, o, cpu / 1e6))
    for w, n in rows[me].most_common(4):
        print('#    %8.1f ms %s' % (n / 1e6, w))
    if tot[me] < 20e6:
        bad.append('%s: only %.1f ms waiting on the other' % (me, tot[me] / 1e6))
    if fn[me] * 10 < tot[me] * 7:
        bad.append('%s: %s_locked names %.0f%% of its other-path time (< 70%%)' %
                   (me, o, 100 * fn[me] / max(tot[me], 1)))
    if run[me] > cpu * 1.1 + 5e6:
        bad.append('%s: %.1f ms of %s_locked running, more than its %.1f ms of CPU' %
                   (me, run[me] / 1e6, o, cpu / 1e6))
    if tot[me] > wait * 1.02 + 2e6:
        bad.append('%s: other path %.1f ms, more than its lock waits %.1f ms' %
                   (me, tot[me] / 1e6, wait / 1e6))
# where the report shows the category: the table's rows and JSON's contributors
cat = [c for c in json.load(open(sys.argv[3]))['categories'] if c['key'] == 'other_path']
if not cat or not any('_locked' in c['what'] for c in cat[0]['contributors']):
    bad.append('the JSON other_path contributors name no locked function')
txt = open(sys.argv[4]).read()
if 'lt-beta (tid %s): ' % out['beta_tid'] not in txt or 'beta_locked' not in txt:
    bad.append('the table names no row of lt-beta\'s function')
for b in bad:
    print('FAIL: ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
