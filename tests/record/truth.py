#!/usr/bin/env python3
"""rsp's explanation against what the workloads measured themselves.

  truth.py WORKLOAD REPORT.json PSEUDO.folded TRUTH.jsonl CHROME.json

REPORT.json: `rsp report --format json --top 1000` of a recording of a truth*
workload (tests/workloads/README.md, "Ground truth side files"); PSEUDO.folded
its `rsp export --folded pseudo` (the pseudostacks, in microseconds); TRUTH.jsonl
the workload's side file; CHROME.json its `rsp export --chrome` (the threads'
runs and sleeps as the kernel's scheduling records give them).  TAP output: each check with rsp's number and the program's.
The tolerances and why: docs/TESTING.md ("record-truth").
"""
import json
import math
import os
import sys

MS = 1e6
# processes of a workload not in the target's tree: sampled by the system's 999 Hz only
OUTSIDE_TARGET = {('truthserve', 'truthserve'), ('truthpool', 'tpool-w*'),
                  ('truthserve-udp', 'truthserve')}
# functions rsp reads wrong for a known reason: reported (TAP's TODO), not judged.
# Empty since each sample stands for one sampler period (docs/ANALYSIS.md, "What a
# sample measures"): truthpool's pool_store, the worker run's last function, read
# -12.5% on average under the paper's equal division, -1.3% since (9 recordings).
UNDER_READ = {}
# threads whose CPU per function is compared summed (a pool's workers share its
# requests at random: each one's share of a function is noise, their sum is not)
POOLED = {'tpool-w0': 'tpool-w*', 'tpool-w1': 'tpool-w*'}


def load(report, folded, truth):
    r = json.load(open(report))
    lines = [json.loads(l) for l in open(truth) if l.strip()]
    # truthserve's and truthclient's "stats" lines (latencies, requests) are not
    # a process's functions and waits (tests/workloads/README.md)
    lines = [l for l in lines if 'stats' not in l]
    # truthpool's "server" line sums its threads' lines (rsp names the threads:
    # tpool-io, tpool-wN), compared one by one
    lines = [l for l in lines if not (l.get('prog') == 'truthpool' and l['role'] == 'server')]
    stacks = []
    for l in open(folded):
        stack, _, v = l.rstrip('\n').rpartition(' ')
        stacks.append((stack.split(';'), int(v) * 1000))
    return r, lines, stacks


def busy_together(chrome, comms):
    """ns in which two or more threads named in @comms were busy at once: running,
    runnable (woken and not yet running: a sleep's part after its wake_ts;
    preempted by a thread not of @comms: one of them preempting another holds the
    time itself, counting both would hide a run counted twice) or asleep in the
    kernel uninterruptibly (their own I/O), from the timeline of `rsp export
    --chrome`."""
    j = json.load(open(chrome))
    ev = j['traceEvents'] if isinstance(j, dict) else j
    names = {e['tid']: e['args']['name'] for e in ev
             if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    edges = []
    for e in ev:
        if e.get('ph') != 'X' or names.get(e.get('tid')) not in comms:
            continue
        a, b = e['ts'], e['ts'] + e['dur']
        st = (e.get('args') or {}).get('state')
        wake = (e.get('args') or {}).get('wake_ts')
        if st == 'R' and (e.get('args') or {}).get('waker') in comms:
            continue
        if e['name'] != 'running' and st not in ('R', 'D'):
            if st != 'S' or wake is None or wake >= b:
                continue
            a = max(a, wake)
        edges += [(a, 1), (b, -1)]
    edges.sort()
    n, last, ns = 0, None, 0.0
    for t, d in edges:
        if n >= 2:
            ns += t - last
        n += d
        last = t
    return ns * 1000  # the export's microseconds


def cat(r, key):
    return next(c for c in r['categories'] if c['key'] == key)


def innermost(what):
    """'comm: a > b' -> ('comm', 'b'); 'comm: b' -> ('comm', 'b')."""
    if ': ' not in what:
        return what, ''
    comm, rest = what.split(': ', 1)
    return comm, rest.split(' > ')[-1]


def cpu_of(r, comm, func, part=False):
    """rsp's CPU (measured + estimated + inferred) in @func of the processes named @comm
    (@part: in any function whose name contains @func: a call's syscall wrapper, e.g.
    clock_nanosleep for nanosleep)."""
    ns = 0
    for key in ('cpu', 'cpu_unsampled'):
        for k in cat(r, key)['contributors']:
            c, f = innermost(k['what'])
            if (c == comm or POOLED.get(c) == comm) and (f == func or (part and func in f)):
                ns += k['ns']
    return ns


def in_call(r, stacks, comm, call):
    """rsp's time of @comm inside calls to @call: the pseudostacks through its sleeps in
    @call (their waits, with everything that ran on their behalf, and their runnable
    ends), and its CPU in @call (its samples there, measured or estimated)."""
    head = comm + ': sleep in '
    ns = 0
    for frames, v in stacks:
        if any(f.startswith(head) and call in f[len(head):].rsplit(' > ', 1)[-1]
               for f in frames):
            ns += v
    return ns + cpu_of(r, comm, call, part=True)


class Tap:
    def __init__(self):
        self.n = 0
        self.bad = 0

    def check(self, ok, what):
        self.n += 1
        self.bad += not ok
        print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, what))

    def skip(self, what, why):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, what, why))

    def todo(self, ok, what, why):
        # a goal not yet met, said each run (TAP's TODO: reported, not a failure)
        self.n += 1
        print('%s %d - %s # TODO %s' % ('ok' if ok else 'not ok', self.n, what, why))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.bad else 0


def within(got, want, rel, abs_ns):
    return abs(got - want) <= max(rel * want, abs_ns)


def fsyncd_checks(t, r, stacks, lines, steal, busy, wall):
    """truthfsyncd (issue 45): a daemon's main thread waits on its own fsync thread
    (docs/ANALYSIS.md, "Waiting on one's own helper").  Its waits are calls into the
    helper's work, not another control path, and the windows walked there are cut
    from the helper's own path."""
    wl = 'truthfsyncd'
    main = next(l for l in lines if l['role'] == 'main')
    sync = next(l for l in lines if l['role'] == 'sync')
    cats = {c['key']: c['ns'] for c in r['categories']}
    not_idle = r['total_ns'] - cats.get('idle', 0)
    # before the rule: 44% of the time not idle (663.8 ms of 1510.2 in a recording).
    # At most 2%; on a busy machine 10% (the main thread preempted after its signal
    # for longer than the tolerance: the helper's run began before the wait, no call;
    # 2.21% at a load of about 20)
    share = 100.0 * cats['other_path'] / not_idle
    what = '%s: waiting on another control path %.3f ms, %.2f%% of the time not idle (<= 2)' % (
        wl, cats['other_path'] / MS, share)
    if share > 2 and busy > 0.05 * wall:
        t.check(share <= 10, what.replace('(<= 2)', '(<= 10: other processes held the CPUs '
                                          '%.3f ms of the %.3f ms)' % (busy / MS, wall / MS)))
    else:
        t.check(share <= 2, what)
    # the main thread's frames: its waits in its hand-off (pthread_cond_wait, and the
    # mutex it takes back in it) and, one layer up, what the fsync thread did then
    def handoff(f):
        return f[0] == 'truthfsyncd' and len(f) > 1 and (
            'pthread_cond_wait' in f[1] or '__pthread_mutex_cond_lock' in f[1])
    under = [(f[2:], v) for f, v in stacks if handoff(f) and len(f) > 2 and
             f[1].startswith('truthfsyncd: sleep in ') and f[2].startswith('tfsd-sync: ')]
    # the hand-off timed by the main thread (after its signal to its done seen): rsp's
    # time of its waits there and of its CPU in them.  +-10%: the program's clock also
    # holds its own return from pthread_cond_wait's lock, a run rsp names by its site
    got = sum(v for f, v in stacks if handoff(f))
    want = main['waits']['call']['ns']
    # reported, not judged yet: one suite run read 139.9 ms for 166.4 (and the
    # fdatasync below 32.8 for 59.1) on a machine not busy by the count above; not
    # explained yet (waits labelled at another place? records lost?)
    t.todo(within(got, want, 0.10, 0),
           '%s: the main thread in its hand-offs: rsp %.3f ms, measured %.3f ms (+-10%%)' %
           (wl, got / MS, want / MS), 'one run read 16% short, not explained yet')
    # the helper's fdatasync (its sleeps with their runnable ends and its CPU in the
    # call) under those waits, against its own clock around each fdatasync.  +-10%: a
    # wait at the recording's edges, or one the rule did not take (its job begun before
    # the recording: one in 300), is not under them; the call's entry and exit code can
    # be estimated to its caller's site (sync_write, around fdatasync).  Skipped on a
    # busy machine, as the other program-timed waits are (a preemption around the call
    # is in the program's timing, not in the call's frames): one suite run at a load
    # of 20, 196 records lost, read 56.8 ms for 64.1 (0.2 ms calls; not examined
    # further)
    got = sum(v for f, v in under if 'fdatasync' in f[0])
    want = sync['waits']['fsync']['ns']
    what = ('%s: the fsync thread\'s fdatasync under the main thread\'s waits: rsp %.3f ms, '
            'measured %.3f ms (+-10%%)' % (wl, got / MS, want / MS))
    if not within(got, want, 0.10, 0) and busy > 0.05 * wall:
        t.skip(what, 'other processes held the CPUs %.3f ms of the %.3f ms (the machine was '
               'busy)' % (busy / MS, wall / MS))
    else:
        t.todo(within(got, want, 0.10, 0), what, 'one run read 45% short, not explained yet')
    # the helper's CPU: under the main thread's waits, and in its own path (its CPU
    # while the main thread still ran after its signal: the hand-off's overlap; its
    # loop back to its wait), against its thread clock (its whole life: the daemon
    # started before the recording and waited idle until it).  +-10%, widened by the
    # time stolen (truth.sh); the part under the waits at least 70% of it
    cpu_under = sum(v for f, v in under if len(f) == 1)
    cpu_own = sum(v for f, v in stacks if f[0] == 'tfsd-sync' and len(f) == 2)
    want = sync['cpu_ns']
    hi = want * (1.10 / (1 - min(2 * steal, 0.4)))
    what = ('%s: the fsync thread\'s CPU: rsp %.3f ms under the main thread\'s waits and '
            '%.3f ms in its own path, measured %.3f ms (+-10%%, under the waits >= 70%%)' %
            (wl, cpu_under / MS, cpu_own / MS, want / MS))
    t.check(cpu_under >= 0.70 * want, what.replace('(+-10%, ', '('))
    if not 0.90 * want <= cpu_under + cpu_own <= hi and busy > 0.05 * wall:
        # one suite run at a load of about 20: 135.4 ms for 118.0 (not examined further)
        t.skip(what, 'other processes held the CPUs %.3f ms of the %.3f ms (the machine was '
               'busy)' % (busy / MS, wall / MS))
    else:
        t.check(0.90 * want <= cpu_under + cpu_own <= hi, what)
    # nothing counted twice: the fsync thread's time walked under the main thread's
    # waits is cut from its own path, so total = the two spans (each about wall: both
    # threads live through the recording) less that time.  Without the cut it would
    # be the two spans
    lent = sum(v for f, v in under)
    t.check(abs(r['total_ns'] - (2 * r['wall_ns'] - lent)) <= 0.01 * r['wall_ns'],
            '%s: total %.3f ms = two spans of wall %.3f ms less the fsync thread\'s %.3f ms '
            'under the main thread\'s waits (+-1%% of wall)' %
            (wl, r['total_ns'] / MS, r['wall_ns'] / MS, lent / MS))


def main():
    wl, report, folded, truth, chrome = sys.argv[1:6]
    r, lines, stacks = load(report, folded, truth)
    t = Tap()
    total, wall = r['total_ns'], r['wall_ns']
    cats = {c['key']: c['ns'] for c in r['categories']}
    # the invariants
    t.check(sum(cats.values()) == total, '%s: the 14 categories sum to total exactly' % wl)
    t.check(all(v >= 0 for v in cats.values()), '%s: no category negative' % wl)
    # time in spans the recorder lost (a saturated machine: its reader fell behind, and
    # says so) is unknown by right, not a fault of the analysis (as report.sh counts it)
    lost = sum(k['ns'] for k in cat(r, 'unknown')['contributors'] if 'records lost' in k['what'])
    lost_pct = 100.0 * lost / total if total else 0.0
    t.check(r['percent_accounted'] + lost_pct >= 99, '%s: %.1f%% accounted (>= 99)%s' %
            (wl, r['percent_accounted'], ', %.1f%% in spans of lost records' % lost_pct
             if lost else ''))
    if r['percent_accounted'] < 99:
        for k in cat(r, 'unaccounted')['contributors'][:5]:
            print('#   unaccounted: %s %.3f ms x%d' % (k['what'], k['ns'] / MS, k['count']))
    t.check(r['percent_explained'] >= 90, '%s: %.1f%% explained (>= 90)' % (wl, r['percent_explained']))
    by_process = sum(k['ns'] for k in cat(r, 'cpu_unsampled')['contributors'] if ': ' not in k['what'])
    t.check(by_process <= 0.02 * total,
            '%s: running but not sampled named by a process only: %.2f%% of total (<= 2)' %
            (wl, 100.0 * by_process / total))
    if wl in ('truthserve2', 'truthserve2-udp', 'truthpool2'):
        # two clients of one daemon (issue 20): the other's requests are served partly
        # while the target waits, so the server's own totals are not the target's.  The
        # target's own: the time it queued behind the other connection (over UDP, the
        # other peer of the one socket), which the
        # server measures from the client's send (its clock, in the request) to its
        # read of it, counting the other connections' requests served meanwhile
        # (truthpool: to a worker's taking it, counting what that worker served
        # meanwhile, and its wait for store_lock while others' requests held it)
        raw = [json.loads(l) for l in open(truth) if l.strip()]
        me = next(l for l in raw if l.get('stats') == 'latency' and l['pid'] in r['pids'])
        q = next(l for l in raw if l.get('stats') == 'queued' and l['peer_port'] == me['local_port'])
        got = r.get('queued_ns', 0)
        t.check(within(got, q['queued_ns'], 0.20, 1e6),
                '%s: queued behind the other client: rsp %.3f ms, server %.3f ms of its %.3f ms '
                'of waits to be read (+-20%% or 1 ms)' %
                (wl, got / MS, q['queued_ns'] / MS, q['waited_ns'] / MS))
        others = r.get('queued_behind', [])
        t.check(len(others) == 1, '%s: behind one connection (%s)' %
                (wl, ', '.join('%s %.3f ms' % (o['peer'], o['ns'] / MS) for o in others)))
        for o in others:
            what = o.get('contributors', [])
            t.check(sum(w['ns'] for w in what) == o['ns'] == sum(o['categories'].values()),
                    '%s: what the server did meanwhile sums to the time queued' % wl)
            top = '; '.join('%s %.3f ms' % (w['what'], w['ns'] / MS) for w in what[:3])
            if wl == 'truthpool2':
                # named by the workers' work (theirs or their disk's), not the process
                t.check(what and all('tpool-w' in w['what'] for w in what[:3]),
                        '%s: the three largest name the pool\'s workers (%s)' % (wl, top))
                t.check(o['categories'].get('disk', 0) > 0,
                        '%s: the other\'s fdatasync among what the workers did (disk %.3f ms)' %
                        (wl, o['categories'].get('disk', 0) / MS))
                continue
            t.check(any('serve_compute' in w['what'] for w in what[:3]),
                    '%s: the server\'s serve_compute among the three largest (%s)' % (wl, top))
        return t.done()
    # CPU per named function: +-15% or +-1 ms (several processes of one name summed).
    # On a VM, time the hypervisor stole from a CPU is inside the runs rsp
    # divides among a thread's samples but outside the thread's own clock
    # (CONFIG_PARAVIRT_TIME_ACCOUNTING): the share stolen during the recording
    # (truth.sh, from /proc/stat) widens the upper bound, once and then again
    # (the theft is bursty: a function's runs can hold twice the average)
    steal = float(os.environ.get('TRUTH_STEAL', '0'))
    if steal >= 0.005:
        print('# %s: %.1f%% of the CPUs\' busy time stolen by the hypervisor during the recording'
              % (wl, 100 * steal))
    want = {}
    for l in lines:
        for func, m in l['functions'].items():
            c = POOLED.get(l['comm'], l['comm'])
            want[(c, func)] = want.get((c, func), 0) + m['cpu_ns']
    for (comm, func), ns in sorted(want.items()):
        got = cpu_of(r, comm, func)
        # a function's samples have Poisson noise, 3 sigma = 3 / sqrt(expected
        # samples): the target's tree is sampled at --target-freq 9999 beside the
        # system's 999 Hz (client_prepare, 17.5 ms: ~190 samples, +-22%; seen -19%
        # under the test suite's load); a daemon it talks to only at 999 Hz
        # (serve_parse, 11 ms: ~11 samples, seen 5.7 to 13.1 ms)
        system_hz = int(os.environ.get('TRUTH_SYSTEM_HZ', '999'))
        hz = system_hz if (wl, comm) in OUTSIDE_TARGET else system_hz + 9999
        tol = max(0.15, 3 / math.sqrt(max(ns * hz / 1e9, 1)))
        what = '%s: %s %s: rsp %.3f ms, measured %.3f ms (+-%d%% or 1 ms)' % (
            wl, comm, func, got / MS, ns / MS, round(tol * 100))
        ok = within(got, ns, tol, 1e6)
        if not ok and steal >= 0.005 and got > ns:
            ok = got - max(tol * ns, 1e6) <= ns / (1 - min(2 * steal, 0.4))
            what += ', %.1f%% stolen' % (100 * steal)
        if (comm, func) in UNDER_READ:
            t.todo(ok, what, UNDER_READ[(comm, func)])
        else:
            t.check(ok, what)
    # other processes holding the CPUs the workload waited for (preempting it, or
    # running where it was woken): a program's own timing of a call then includes
    # time rsp rightly puts outside the call
    ours = {l['comm'] for l in lines}
    busy = 0
    for key, sep in (('involuntary', ' preempted by '), ('sched', ' while ')):
        for k in cat(r, key)['contributors']:
            if sep in k['what']:
                who = k['what'].split(sep, 1)[1]
                who = who[:-len(' ran')] if who.endswith(' ran') else who
                # "another thread of X", "another X process": one of its own kind
                if who.startswith('another thread of '):
                    who = who[len('another thread of '):]
                elif who.startswith('another ') and who.endswith(' process'):
                    who = who[len('another '):-len(' process')]
                busy += k['ns'] if who not in ours else 0
    waits = {}
    for l in lines:
        for k, w in l['waits'].items():
            waits[(l['comm'], k)] = waits.get((l['comm'], k), 0) + w['ns']
    # waits timed by the program: rsp's account of the same calls (the sleeps in them
    # with all they contain, their runnable ends, and for fsync its CPU)
    checks = (('nanosleep', 'nanosleep', 0.05), ('poll_timeout', 'poll', 0.05),
              ('fsync', 'fsync', 0.20))
    for kind, call, tol in checks:
        for (comm, k), ns in sorted(waits.items()):
            if k != kind or not ns:
                continue
            got = in_call(r, stacks, comm, call)
            if call == 'fsync':  # truthserve's durable write is fdatasync
                got += in_call(r, stacks, comm, 'fdatasync')
            what = '%s: %s in %s: rsp %.3f ms, measured %.3f ms (+-%d%%)' % (
                wl, comm, call, got / MS, ns / MS, round(tol * 100))
            if not within(got, ns, tol, 0) and busy > 0.05 * wall:
                t.skip(what, 'other processes held the CPUs %.3f ms of the %.3f ms (the '
                       'machine was busy: a preemption just before or after the call is in '
                       'the program\'s timing)' % (busy / MS, wall / MS))
            else:
                t.check(within(got, ns, tol, 0), what)
    if wl == 'truthpoll':
        # a loop that polls while its work waits (docs/ANALYSIS.md, "Idle"): its polls'
        # timeouts stay waits that timed out (the polling advice), none of it idle; the
        # waits' runnable ends are the scheduler's, so at least 80% of the polls' time
        polled = sum(ns for (_, k), ns in waits.items() if k == 'poll_timeout')
        t.check(not cats.get('idle') and cats.get('timeout', 0) >= 0.8 * polled,
                '%s: waits that timed out %.3f ms of the %.3f ms its polls timed out (>= 80%%), '
                'idle %.3f ms (0)' % (wl, cats.get('timeout', 0) / MS, polled / MS,
                                      cats.get('idle', 0) / MS))
    if wl == 'truthfsyncd':
        fsyncd_checks(t, r, stacks, lines, steal, busy, wall)
    if any(k == 'fsync' for _, k in waits):
        print('# %s: of the fsyncs, in blocking disk I/O %.3f ms, I/O queue %.3f ms' %
              (wl, cats['disk'] / MS, cats['io_queue'] / MS))
    if wl in ('truthserve', 'truthpool', 'truthserve-udp'):
        # a client of a daemon started before the recording (issue 20): its waits are
        # calls into the server's work on its requests, not another control path
        t.check(cats['other_path'] <= 0.02 * total,
                '%s: waiting on another control path %.3f ms, %.2f%% of total (<= 2)' %
                (wl, cats['other_path'] / MS, 100.0 * cats['other_path'] / total))
    # total against wall: a synchronous chain within 5%; parallel work (two children;
    # two threads of the target) exceeds it.  A chain is synchronous only on a machine
    # that leaves it alone: a caller preempted by other load after waking its callee
    # runs in parallel with it (ANALYSIS.md, "Control paths and async work")
    if wl == 'truthfsyncd':
        pass  # two threads of the target, the helper's path cut: fsyncd_checks()
    elif wl not in ('truthfork', 'truthpoll') and busy > 0.05 * wall:
        t.skip('%s: total within 5%% of wall' % wl,
               'other processes held the CPUs %.3f ms of the %.3f ms (the machine was busy)' %
               (busy / MS, wall / MS))
    elif wl == 'truthfork':
        # the children's work in parallel, by their own clocks: their CPU beyond the
        # span they ran in (none where they took turns on one CPU, the other held by
        # other processes); rsp's total exceeds wall by at least most of it
        kids = [l for l in lines if l['role'] == 'child']
        span = max(l['end_ns'] for l in kids) - min(l['start_ns'] for l in kids)
        par = sum(l['cpu_ns'] for l in kids) - span
        if par < 0.1 * wall:
            t.skip('%s: parallel children counted above wall' % wl,
                   'the children ran in parallel %.3f ms of %.3f ms by their own clocks: '
                   'they took turns on one CPU (the machine was busy)' % (max(par, 0) / MS,
                                                                           span / MS))
        else:
            t.check(total - wall > 0.8 * par,
                    '%s: parallel children: total %.3f ms is wall %.3f ms and %.3f ms more, '
                    'of the %.3f ms they ran in parallel (>= 80%%)' %
                    (wl, total / MS, wall / MS, (total - wall) / MS, par / MS))
    elif wl == 'truthpoll':
        t.check(total > 1.2 * wall, '%s: parallel threads: total %.3f ms > wall %.3f ms' %
                (wl, total / MS, wall / MS))
    else:
        # Idle time of a helper (waiting for the next request) added to the total
        # made it 30-60% over wall (issue 12), the rest of a reply run while the
        # caller's CPU woke from idle and a helper's waits for a CPU the target's
        # path held another 5-9%, an idle helper's wait for a CPU after a wakeup
        # for nothing 1% more; what is left above wall is work in parallel (a
        # callee's runs while its caller already runs again, a stage's send going on
        # after it woke the next stage) and those helpers' short runs.  How much
        # ran in parallel is the machine's doing: truthpipe 1-2% over wall in quiet
        # runs, 4-7.5% in slow phases of a fresh VM (3 of 12 runs over 5%).  What
        # can be judged: the part above wall is no more than the time two of the
        # workload's threads were busy at once (running, runnable, or in their own
        # I/O), by the kernel's scheduling records: counting a run twice (in the
        # target's path and a parallel one) exceeds it.  12 recordings of truthpipe:
        # 2.2-22.5 ms above wall, each within the 7.7-22.8 ms of such overlap (the
        # closest 0.35 ms under it, in the slowest run).  Slack 0.5% of wall: a
        # parallel path's sleeps that are neither its own I/O nor idle (a socket's
        # lock in its send) are in its total and not in the overlap.
        together = busy_together(chrome, ours)
        t.check(wall <= total * 1.001 and total - wall <= together + 0.005 * wall,
                '%s: total %.3f ms is wall %.3f ms and %.3f ms more, within the %.3f ms '
                'two of its threads were busy at once' %
                (wl, total / MS, wall / MS, (total - wall) / MS, together / MS))
    return t.done()


if __name__ == '__main__':
    sys.exit(main())
