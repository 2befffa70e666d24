#!/usr/bin/env python3
"""rsp report --requests against truthserve's own account of its requests.

  requests.py REQUESTS.json PSEUDO.folded SERVER.jsonl CLIENT.jsonl N CLIENTS [DAEMON [udp]]

DAEMON: truthserve (the default) or truthpool; udp: truthserve --udp (one socket
serves every client: one "connection" whatever the number of clients).
REQUESTS.json: `rsp report --requests --format json --top 0` (every contributor) of `rsp record -p SERVER`
made while CLIENTS truthclients made N requests in all, wholly inside the recording; PSEUDO.folded:
`rsp export --folded pseudo` of the same file (the server's pseudostacks, in
microseconds); SERVER.jsonl and CLIENT.jsonl: the programs' side files.  TAP.

Tolerances, and why:
- count: exact.  The client's requests all lie inside the recording (it starts after
  the recorder says it is set up and the recorder is stopped after it is done), the
  server served no other, so no request is cut at an edge (checked: 0 cut).
- latency percentiles and sum: rsp's request runs from sock_recv_length (fired in the
  kernel as recvmsg ends) to sock_send_length (as sendmsg ends); the server reads
  its clock just before the recv that completes the request and just after it,
  just before its reply's send and just after it returns (from_recv, to_send):
  rsp's request begins inside that recv and ends inside that send, so per request
  rsp's latency lies between "after the recv to before the send" and "before the
  recv to after the send" (the second also holds a preemption on the way back from
  either call, which the first does not see: one early request read 9.9 ms for the
  server's 8.3 after its recv).  If every request's x <= y <= z, the k-th smallest
  of each keep that order, so each percentile of rsp's lies between the two
  distributions' (the sum too).  p50 and p90 within 3% (or 30 us) of those bounds,
  the sum within 3%, p99 and max within 10% (or 0.5 ms): the tail is a handful of
  requests.
- against the client's own latencies: rsp's requests as their client saw them
  (`client_latency_ns`: from the client's send, or the request's arrival inside it,
  to the end of the client's last receive of the reply, or its return when
  preempted before it), per client (the requests whose client thread is that
  client's): every request seen from its client (exact; UDP 1% unseen).  Request
  by request (the client's per-request file): none longer by rsp than by the
  client's clock (rsp's interval lies inside the client's clock reads; 20 us for
  where each clock is read), and at most 1% off by more than 10% or 0.1 ms: the
  client's clock also holds the start of its send() before the data is
  delivered and the return from its recv(), microseconds per request, which a
  stall of the VM can stretch for single requests (212 us inside sendto()
  before its softirq, in a trace; 1.1 ms once in CI).  p50 and p99 within 10% or
  0.1 ms of the client's k-th to (k+m+j)-th smallest with m unseen and j off
  (each moves the rank by one at most).  The server-side percentiles are not
  compared with the client's: they lack the round trip and the client's own
  wake-ups (hundreds of us on this VM in the tail).
- fdatasync share of the requests' time: rsp's time in the server's fdatasync (the
  pseudostacks through its sleeps in it, with their runnable ends, and its CPU in
  it) over the requests' total, against the server's fdatasync time over its
  requests' time to their reply's send (to_send: rsp's request ends inside that
  send); within +-25% (issue 20's goal for a client's fsync time is +-20%: the
  server's share is estimated, below).
"""
import bisect
import json
import os
import sys

MS = 1e6


# the TAP printer and the tolerance test of the workloads' known answers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import Tap, within  # noqa: E402


def cat(expl, key):
    return next(c for c in expl['categories'] if c['key'] == key)


def read_each(path):
    """truthclient's $RSP_TRUTH_EACH file, if any: per client pid, its
    requests' (start, end) in order"""
    each = {}
    if os.path.exists(path):
        for line in open(path):
            pid, _, start, end = (int(x) for x in line.split())
            each.setdefault(pid, []).append((start, end))
    return each


def matched(own, mine):
    """The client's requests (@own, its (start, end) in order) paired with rsp's
    given to it (@mine): (the client's latency, rsp's, rsp's request) each, by
    rsp's server-side start, which lies inside the client's request (one request
    at a time)"""
    starts = [s for s, _ in own]
    out = []
    for r in mine:
        i = bisect.bisect_right(starts, r['start_ns']) - 1
        if i >= 0:
            out.append((own[i][1] - own[i][0], r['client_latency_ns'], r))
    return out


def worst(own, mine, every):
    """A diagnosis, not a check: the client's requests against rsp's, request by
    request (rsp's server-side start lies inside the client's request: one
    request at a time), the three that differ most; and each request of the
    client's that rsp did not give it, with rsp's request inside it (@every:
    all of rsp's requests)"""
    starts = [s for s, _ in own]
    got = set(bisect.bisect_right(starts, r['start_ns']) - 1 for r in mine)
    for i in [i for i in range(len(own)) if i not in got][:3]:
        s, e = own[i]
        inside = [r for r in every if s <= r['start_ns'] < e]
        print('# unseen: request %d of the client, %d to %d (%.1f us); rsp\'s requests in it: %s' %
              (i, s, e, (e - s) / 1e3,
               ', '.join('#%d at %d to %d, %.1f us, client %s' %
                         (r['index'], r['start_ns'], r['end_ns'], r['latency_ns'] / 1e3,
                          r['client_tid']) for r in inside) or 'none'))
    d = []
    for r in mine:
        i = bisect.bisect_right(starts, r['start_ns']) - 1
        if i >= 0:
            s, e = own[i]
            d.append(((e - s) - r['client_latency_ns'], i, e - s, r))
    if not d:
        return
    d.sort(key=lambda v: v[0])
    print('# per request, the client\'s latency less rsp\'s: min %.1f median %.1f max %.1f us' %
          (d[0][0] / 1e3, d[len(d) // 2][0] / 1e3, d[-1][0] / 1e3))
    for x, i, c, r in sorted(d, key=lambda v: -abs(v[0]))[:3]:
        print('#   request %d of the client (rsp #%d, at %d): the client %.1f us, rsp %.1f us, '
              'server-side %.1f us, client start to server start %.1f us' %
              (i, r['index'], r['start_ns'], c / 1e3, r['client_latency_ns'] / 1e3,
               r['latency_ns'] / 1e3, (r['start_ns'] - own[i][0]) / 1e3))


def main():
    rq = json.load(open(sys.argv[1]))
    stacks = []
    for line in open(sys.argv[2]):
        stack, _, v = line.rstrip('\n').rpartition(' ')
        stacks.append((stack.split(';'), int(v) * 1000))
    server = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
    client = [json.loads(l) for l in open(sys.argv[4]) if l.strip()]
    n = int(sys.argv[5])
    clients = int(sys.argv[6])
    daemon = sys.argv[7] if len(sys.argv) > 7 else 'truthserve'
    udp = len(sys.argv) > 8 and sys.argv[8] == 'udp'
    # the threads whose fdatasync is the requests': truthpool's workers
    comms = ('tpool-w',) if daemon == 'truthpool' else ('truthserve',)
    sline = next(l for l in server if l.get('stats') == 'service')
    stats = sline['service_ns']
    proc = next(l for l in server if 'stats' not in l and l['role'] == 'server')
    made = sum(l['latency_ns']['count'] for l in client if l.get('stats') == 'latency')
    lat = rq['latency_ns']
    t = Tap()

    t.check(stats['count'] == n and made == n and sline['connections'] == clients,
            'the programs agree: server served %d on %d connections, %d client(s) made %d '
            'of %d' % (stats['count'], sline['connections'], clients, made, n))
    served = [c for c in rq['connections'] if c['role'] == 'served' and c['requests']]
    # UDP: one socket for every peer, and no peer address on the socket's events
    want_conns = 1 if udp else clients
    t.check(len(served) == want_conns, 'connections with requests: rsp %d, want %d (%d '
            'client(s)%s)' % (len(served), want_conns, clients, ', one UDP socket' if udp else ''))
    t.check(lat['count'] == stats['count'],
            'request count: rsp %d, server %d (exact)' % (lat['count'], stats['count']))
    amb = rq['ambiguous']
    # a pool's worker preempted after its reply's send (the client it woke takes its
    # CPU) may end its request after the I/O thread received the next one: a few
    # of truthpool's requests overlap (2 of 400 seen)
    overlap_ok = amb['overlapping'] <= (n // 50 if daemon == 'truthpool' else 0)
    t.check(amb['cut_at_start'] == 0 and amb['cut_at_end'] == 0 and overlap_ok,
            'no request cut at the edges, overlapping within bounds: %s' % amb)
    # from after the request's recv to just before the reply's send, and from
    # before that recv to after that send (a request begins inside the one and
    # ends inside the other)
    low = next(l for l in server if l.get('stats') == 'to_send')['to_send_ns']
    high = next(l for l in server if l.get('stats') == 'from_recv')['from_recv_ns']
    for key, rel, abs_ns in (('p50', 0.03, 30000), ('p90', 0.03, 30000), ('sum', 0.03, 0),
                             ('p99', 0.10, 500000), ('max', 0.10, 500000)):
        lo, hi = low[key], high[key]
        t.check(lo * (1 - rel) - abs_ns <= lat[key] <= hi * (1 + rel) + abs_ns,
                'latency %s: rsp %.3f ms, server %.3f ms after its recv to its send, %.3f '
                'before its recv to its return (+-%d%% or %d us)' %
                (key, lat[key] / MS, lo / MS, hi / MS, round(rel * 100), abs_ns // 1000))
    # as the clients saw them (rsp_requests_clients()): each client's requests, by
    # the client thread rsp found for them, against the client's own account
    cls = [l for l in client if l.get('stats') == 'latency']
    each = read_each(sys.argv[4].replace('client.jsonl', 'each.txt'))
    seen = rq['client_latency_ns']
    # UDP: a datagram is known as a client's only when the receive softirq ran in
    # the sender's context (builder-net.c); one run of the fresh-clone CI read 799
    # of 800 (a softirq left to ksoftirqd is the likely cause): 1% may be unseen
    miss = max(1, lat['count'] // 100) if udp else 0
    t.check(lat['count'] - miss <= seen['count'] <= lat['count'],
            'requests seen by their client on this machine: %d of %d (all%s: the clients '
            'are local; a connection made before the recording by its data)' %
            (seen['count'], lat['count'], ' but %d' % miss if miss else ''))
    for cl in cls:
        mine = sorted(r['client_latency_ns'] for r in rq['requests']
                      if r['client_tid'] == cl['tid'])
        own = cl['latency_ns']
        t.check(own['count'] - miss <= len(mine) <= own['count'],
                'client %d: rsp saw %d of its requests, it made %d' %
                (cl['tid'], len(mine), own['count']))
        if not mine:
            continue
        # request by request (the client's file): rsp's interval lies inside the
        # client's clock reads (its start inside the send, its end at the recv's
        # return), so rsp's latency is never the longer beyond the clocks'
        # placement; and it is the client's within 10% or 0.1 ms but for at most
        # 1% of the requests: the client's clock also holds its time inside
        # send() before the delivery (no event marks a call's beginning) and
        # after recv() returned, which a stall of the VM can stretch (212 us in
        # sendto before its softirq seen in a trace; 1.1 ms once in CI)
        lats = sorted(e - s for s, e in each.get(cl['pid'], []))
        pairs = matched(each.get(cl['pid'], []),
                        [r for r in rq['requests'] if r['client_tid'] == cl['tid']])
        longer = [p for p in pairs if p[0] < p[1] - 20000]
        off = [p for p in pairs if abs(p[0] - p[1]) > max(0.10 * p[0], 100000)]
        if len(lats) == own['count']:
            t.check(not longer, 'client %d: no request longer by rsp than by the client\'s '
                    'clock (20 us for the clocks\' placement): %d of %d%s' %
                    (cl['tid'], len(longer), len(pairs),
                     ''.join('; the client %.1f us, rsp %.1f' % (c / 1e3, g / 1e3)
                             for c, g, _ in longer[:3])))
            t.check(len(off) <= max(1, len(pairs) // 100),
                    'client %d: requests off by more than 10%% or 100 us: %d of %d (<= 1%%)%s' %
                    (cl['tid'], len(off), len(pairs),
                     ''.join('; the client %.1f us, rsp %.1f' % (c / 1e3, g / 1e3)
                             for c, g, _ in off[:3])))
        # with m of its n requests unseen, rsp's k-th smallest of n - m is between
        # the client's k-th and (k + m)-th smallest (the same requests, each within
        # microseconds): a tail with a step moves p99 by one rank (799 of 800 over
        # UDP read 1.502 ms for the client's 1.195, its next value 1.507); each
        # request off (above) moves it by one more either way
        unseen = own['count'] - len(mine)
        for key, pct in (('p50', 50), ('p99', 99)):
            k = max(0, (len(mine) * pct + 99) // 100 - 1)
            got = mine[k]
            lo, hi = (lats[max(0, k - len(off))], lats[min(k + unseen + len(off), len(lats) - 1)]) \
                if len(lats) == own['count'] else (own[key], own[key])
            t.check(lo - max(0.10 * lo, 100000) <= got <= hi + max(0.10 * hi, 100000),
                    'client %d latency %s as it saw it: rsp %.3f ms, the client %.3f ms%s '
                    '(+-10%% or 100 us)' % (cl['tid'], key, got / MS, own[key] / MS,
                                           ' (%d unseen, %d off: %.3f to %.3f)' %
                                           (unseen, len(off), lo / MS, hi / MS)
                                           if unseen or off else ''))
        if each:
            worst(each.get(cl['pid'], []), [r for r in rq['requests'] if r['client_tid'] == cl['tid']],
                  rq['requests'])
        if clients == 1:
            # the server's side: the client's latency less the round trip and its
            # wake-ups (reported: the client's tail holds its own wake-ups from idle)
            print('# server-side p50 %.3f p99 %.3f ms, the client\'s own %.3f %.3f ms' %
                  (lat['p50'] / MS, lat['p99'] / MS, own['p50'] / MS, own['p99'] / MS))
    # requests' time and idle time: a partition of the server's span, idle not in
    # the requests' table
    tm = rq['time']
    t.check(tm['requests_ns'] + tm['idle_ns'] == tm['span_ns'],
            'span %.3f ms = requests %.3f + idle %.3f' %
            (tm['span_ns'] / MS, tm['requests_ns'] / MS, tm['idle_ns'] / MS))
    total = rq['all']['total_ns']
    t.check(total == lat['sum'],
            "all requests' table total %.3f ms = the sum of their latencies %.3f ms" %
            (total / MS, lat['sum'] / MS))
    bad = [r for r in rq['requests']
           if sum(r['categories_ns'].values()) != r['latency_ns']]
    t.check(not bad, "each request's categories sum to its latency (%d of %d do not)" %
            (len(bad), len(rq['requests'])))
    # the server's own threads' (other programs' timers can enter a request's chain
    # through a wakeup on a loaded machine: a tokio-rt-worker's 0.182 ms once)
    tmo = [k for k in cat(rq['all'], 'timeout').get('contributors', [])
           if k['what'].startswith(('truthserve', 'tpool-', 'truthpool'))]
    t.check(not tmo,
            'no "waits that timed out" of the server in the requests (idle epoll_wait is '
            'not a request)%s' % ''.join('; %s %.3f ms x%d' % (k['what'], k['ns'] / MS, k['count'])
                                         for k in tmo[:3]))
    # a request handed to a worker is followed into the worker's work (issue 20)
    other = cat(rq['all'], 'other_path')['ns']
    t.check(other <= 0.02 * total,
            'waiting on another control path: %.3f ms, %.2f%% of the requests (<= 2)' %
            (other / MS, 100.0 * other / total))
    # the fdatasync share
    in_sync = sum(v for frames, v in stacks
                  if any(f.startswith(comms) and ': sleep in ' in f and f.endswith('fdatasync')
                         for f in frames))
    for key in ('cpu', 'cpu_unsampled'):
        for k in cat(rq['all'], key)['contributors']:
            # its CPU in fdatasync: sampled there, or a run without samples that
            # resumed from fdatasync and stopped in it ("(around fdatasync)": a
            # run cut by a preemption inside the call, frequent on a busy machine)
            if k['what'].startswith(comms) and \
                    k['what'].endswith(('fdatasync', '(around fdatasync)')):
                in_sync += k['ns']
    got = in_sync / total
    # over the server's time to just before its reply's send, as rsp's requests
    # end inside that send: the server's service time also holds the return
    # from it, and the client it woke may preempt the server there (under a
    # slow disk, two clients: 2094 ms of service for 1603 to the send, when
    # rsp's requests summed 1621)
    want = proc['waits']['fsync']['ns'] / low['sum']
    # until 2026-11-27 a TODO: CI runs read 21-25% for the server's 31-36%; the
    # JSON was written with --top 3, which left out the CPU contributors in
    # fdatasync (a fifth of its time on truthpool's workers); with every one,
    # nine truthpool runs by hand read -7% to +15% of the server's.  +-25%, not
    # the issue's +-20% (a client's report, record-truth): the call's CPU shares
    # its runs with the request's code (before its first wait, after its last),
    # so it is estimated from those runs' samples; 16 runs of this test (112
    # readings, another job's load beside them) read -17% to +8%, once -20%
    t.check(within(got, want, 0.25, 0),
            'fdatasync share of request time: rsp %.1f%% (%.3f ms), server %.1f%% (%.3f ms) '
            '(+-25%%)' % (100 * got, in_sync / MS, 100 * want,
                          proc['waits']['fsync']['ns'] / MS))
    disk = cat(rq['all'], 'disk')['ns'] + cat(rq['all'], 'io_queue')['ns']
    print('# in blocking disk I/O and its queue: %.3f ms of %.3f ms of requests' %
          (disk / MS, total / MS))
    return t.done()


def callee():
    """requests.py --callee REQUESTS.json TRUTH.jsonl CALLER_COMM N

    A back end called by another process of the recording over a unix socket
    (truthrpc: trpc-server calls trpc-backend once per request; `rsp report
    --requests --target trpc-backend`).  The caller times each call itself
    (its "call" waits: send of the request to the reply received).  Every
    request seen from its caller (exact); the caller-side latencies summed
    within 5% of the caller's own sum (its clock also holds the start of its
    send and the return from its recv: microseconds a call); the back end's
    own windows summed no longer than the caller's view of them (each lies
    inside its call, give or take the reply's send returning after the caller
    already read it: within 2%).
    """
    rq = json.load(open(sys.argv[2]))
    lines = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
    caller, n = sys.argv[4], int(sys.argv[5])
    call = next(l for l in lines if l.get('comm') == caller and 'waits' in l)['waits']['call']
    lat, seen = rq['latency_ns'], rq['client_latency_ns']
    t = Tap()
    t.check(lat['count'] == n and call['count'] == n,
            'callee: %d requests, the caller made %d calls, want %d' % (lat['count'], call['count'], n))
    t.check(seen['count'] == lat['count'],
            'callee: seen from the caller over the unix socket: %d of %d' % (seen['count'], lat['count']))
    t.check(within(seen['sum'], call['ns'], 0.05, 0),
            "callee: the calls as the caller saw them: rsp %.3f ms, the caller's own %.3f ms (+-5%%)" %
            (seen['sum'] / MS, call['ns'] / MS))
    t.check(lat['sum'] <= seen['sum'] * 1.02,
            "callee: its requests' windows %.3f ms inside the caller's view %.3f ms (the caller's "
            "work after the reply not counted)" % (lat['sum'] / MS, seen['sum'] / MS))
    return t.done()


if __name__ == '__main__':
    sys.exit(callee() if sys.argv[1:2] == ['--callee'] else main())
