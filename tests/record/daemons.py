#!/usr/bin/env python3
"""A real daemon's rsp report, as its user reads it (issue 45).

  daemons.py NAME REPORT.txt REPORT.json requests=N|statements=N client=COMM

REPORT.*: `rsp report` of `rsp record -p` of the daemon (tests/record/daemons.sh).
Checks, each printed with its numbers (TAP):
  - the requests' paragraph opens the report, and rsp counts the requests the
    server's or client's own count says (requests=N: exactly; statements=N, a
    pgbench run's statements: at least 99% of them, at most 7 more per connection
    for its set-up exchanges);
  - idle is at least 80% of the daemon's threads' time, and named;
  - of the time not idle at least 99% accounted and 95% explained (the explained
    share is judged only where other processes left the CPUs alone: under other
    load a thread's wait for a CPU held by many others is named by the thread
    alone, past the 16 holders a wait names);
  - no polling advice: waits that timed out under 5% of the time not idle;
  - the recorder's threads, where the daemon waited for a CPU they held, named as
    the recorder (rsp record), their cost the header's and JSON's recorder_ns.
"""
import json
import sys

MS = 1e6


class Tap:
    def __init__(self, name):
        self.name, self.n, self.failed = name, 0, 0

    def check(self, ok, what):
        self.n += 1
        self.failed += not ok
        print('%s %d - %s: %s' % ('ok' if ok else 'not ok', self.n, self.name, what))

    def skip(self, what, why):
        self.n += 1
        print('ok %d - %s: %s # SKIP %s' % (self.n, self.name, what, why))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def main():
    name, txt, rep = sys.argv[1:4]
    words = dict(a.split('=', 1) for a in sys.argv[4:])
    t = Tap(name)
    text = open(txt).read().splitlines()
    r = json.load(open(rep))
    cats = {c['key']: c for c in r['categories']}
    total = r['total_ns']
    idle = r.get('idle_ns', 0)
    busy_time = r.get('not_idle_ns', total)
    q = r.get('requests', {})

    # the requests' paragraph first, and as many requests as the truth says
    t.check(len(text) > 1 and text[1].startswith('  A server: '),
            'the report opens with its requests: %r' % (text[1] if len(text) > 1 else ''))
    got = q.get('count', 0)
    if 'requests' in words:
        want = int(words['requests'])
        t.check(got == want, '%d requests counted, %d by the server\'s or client\'s own count'
                % (got, want))
    else:
        want = int(words['statements'])
        conns = q.get('connections', 0)
        t.check(want * 99 <= got * 100 <= (want + 7 * conns) * 100,
                '%d requests counted on %d connections for pgbench\'s %d statements '
                '(%.2f%%; >= 99%%, set-up exchanges at most 7 a connection)'
                % (got, conns, want, 100.0 * got / want if want else 0))
    print('# %s: latency p50 %.3f ms, p99 %.3f ms, max %.3f ms; %.1f%% of its threads\' time '
          'in requests; served by %s' % (name, q.get('p50_ns', 0) / MS, q.get('p99_ns', 0) / MS,
                                        q.get('max_ns', 0) / MS, q.get('percent_in_requests', 0),
                                        ', '.join('%d (%s) %d' % (p['pid'], p['comm'],
                                                                 p['requests'])
                                                  for p in q.get('processes', []))))

    # idle: most of its threads' time, named by where they waited
    top = cats.get('idle', {}).get('contributors', [])
    t.check(total and idle >= 0.8 * total,
            'idle %.3f ms of %.3f ms, %.1f%% of its threads\' time (>= 80)'
            % (idle / MS, total / MS, 100.0 * idle / total if total else 0))
    t.check(top and all(':' in k['what'] for k in top),
            'idle named by thread and place: %s' % '; '.join(
                '%s %.3f ms' % (k['what'], k['ns'] / MS) for k in top[:4]))

    # the rest: accounted, explained, no polling advice
    t.check(r['percent_accounted'] >= 99,
            '%.2f%% of the %.3f ms not idle accounted (>= 99)'
            % (r['percent_accounted'], busy_time / MS))
    ours = {words['client']}
    ours.update(p['comm'] for p in q.get('processes', []))
    others = 0
    for key, sep in (('involuntary', ' preempted by '), ('involuntary', ' preempted, while '),
                     ('sched', ' while ')):
        for k in cats.get(key, {}).get('contributors', []):
            if sep in k['what']:
                who = k['what'].split(sep, 1)[1]
                who = who[:-len(' ran')] if who.endswith(' ran') else who
                if who.startswith('another ') or who in ours or who == name:
                    continue
                others += k['ns']
    what = '%.2f%% of the time not idle explained (>= 95)' % r['percent_explained']
    if r['percent_explained'] < 95 and others > 0.05 * busy_time:
        t.skip(what, 'other processes held the CPUs it waited for %.3f ms of its %.3f ms not '
               'idle (the machine was busy)' % (others / MS, busy_time / MS))
    else:
        t.check(r['percent_explained'] >= 95, what)
    # the recorder's own threads named as the recorder where the daemon waited for a CPU
    # they held, and that cost said in the header (accounted: it is time the program lost)
    mine = [k for key in ('sched', 'involuntary') for k in cats.get(key, {}).get('contributors', [])
            if 'the recorder (rsp record)' in k['what']]
    by_name = [k['what'] for key in ('sched', 'involuntary')
               for k in cats.get(key, {}).get('contributors', [])
               if any(n in k['what'] for n in ('rsp-record', 'rsp-writer', 'rsp-ustack', 'rsp-watch',
                                                   'rsp-cmdline'))]
    cost = r.get('recorder_ns', 0)
    said = [l for l in text if l.startswith('  the recorder (rsp record) held a CPU')]
    t.check(not by_name and cost == sum(k['ns'] for k in mine) and bool(said) == (cost > 0),
            'the recorder\'s cost %.3f ms, %.1f%% of the time not idle, named as the recorder '
            '(%d lines; by its threads\' names: %s) and said in the header: %s'
            % (cost / MS, 100.0 * cost / busy_time if busy_time else 0, len(mine),
               '; '.join(by_name[:3]) or 'none', 'yes' if said else 'no'))
    timeout = cats.get('timeout', {}).get('ns', 0)
    t.check(timeout * 20 < busy_time and not any('curl bug' in l for l in text),
            'waits that timed out %.3f ms, %.2f%% of the time not idle (< 5: no polling advice)'
            % (timeout / MS, 100.0 * timeout / busy_time if busy_time else 0))
    print('# %s: %s' % (name, ', '.join('%s %.1f%%' % (c['key'], c['percent'])
                                        for c in r['categories'] if c['ns'])))
    return t.done()


if __name__ == '__main__':
    sys.exit(main())
