#!/usr/bin/env python3
"""bench/stacks.sh's measurements (see there).

  stacks.py rsp-reach FOLDED        rsp export --folded cpu --mark-frames output
  stacks.py perf-reach SCRIPT       perf script -F pid,ip,sym,dso output
  stacks.py perf-bytes PERF.DATA    sample records and their bytes in a perf.data
                                    file written by perf record (file mode, no -z)
  stacks.py folded-same A B         two rsp export --folded cpu --mark-frames
                                    outputs: how alike their user stacks are
                                    (below)
  stacks.py dump-bytes COMM         on standard input `perf script -D` of any file:
                                    the CPU samples (period above 1) of the
                                    processes named COMM, and their bytes

Both also print the bytes of those records alone, in file order, compressed as
`rsp record` writes by default (zstd level 1, a frame per 256 KiB): what they
cost on disk in rsp's file (other records in the same frames can only help),
and about what perf record -z would write for perf's.

A CPU sample "reaches a root" when its user stack holds main, a thread start
or the C library's or the loader's entry (the names in ROOTS): an unwind that
stopped early has none of them, and above them there is at most an unnamed
_start of a stripped executable.  Samples with no user frame at all (a kernel thread, a process in
execve or exit, whose user stack is gone) are not counted either way: no
unwinder could give them one.  Prints "user_samples reaching percent".
"""
import re
import struct
import subprocess
import sys

FRAME = 256 * 1024


def zsize(chunks):
    """bytes of @chunks (a list of bytes) compressed with zstd -1, a frame per 256 KiB"""
    total = 0
    buf = bytearray()

    def flush():
        nonlocal total
        if buf:
            out = subprocess.run(['zstd', '-1', '-q', '-c'], input=bytes(buf),
                                 stdout=subprocess.PIPE, check=True).stdout
            total += len(out)
            buf.clear()
    for c in chunks:
        buf += c
        if len(buf) >= FRAME:
            flush()
    flush()
    return total

ROOTS = {
    'main', '_start', '__libc_start_main', '__libc_start_call_main', '_dl_start',
    '_dl_start_user', 'start_thread', 'clone', 'clone3', '__clone', '__clone3',
    '__clone_internal', 'thread_start',
}


def report(total, good):
    print('%d %d %.1f' % (total, good, 100.0 * good / total if total else 0.0))


def rsp_reach(path):
    total = good = 0
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip('\n').rpartition(' ')
            frames = stack.split(';')[1:]  # the comm first
            user = [x for x in frames if not x.endswith('_[k]') and x not in ('[no stack]', '[unsampled]')]
            if not user:
                continue
            total += int(n)
            good += int(n) if any(x in ROOTS for x in user) else 0
    report(total, good)


def perf_reach(path):
    total = good = 0

    def done(frames):
        nonlocal total, good
        user = [s for s, d in frames if d != '[kernel.kallsyms]']
        if user:
            total += 1
            good += any(x in ROOTS for x in user)
    frames = None
    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                if frames is not None:
                    done(frames)
                frames = None
            elif line[0] in ' \t':
                # "\t    7f12 sym+0x12 (/usr/lib/...)"
                parts = line.split(None, 1)
                rest = parts[1] if len(parts) > 1 else ''
                sym, _, dso = rest.rpartition(' (')
                sym = sym.split('+0x')[0].strip()
                frames.append((sym, dso.rstrip(')\n')))
            else:
                frames = []
    if frames is not None:
        done(frames)
    report(total, good)


def perf_bytes(path):
    with open(path, 'rb') as f:
        head = f.read(104)
        magic, size, attr_size = struct.unpack_from('<8sQQ', head)
        if magic != b'PERFILE2':
            sys.exit('stacks.py: %s is not a perf.data file in file mode' % path)
        data_off, data_size = struct.unpack_from('<QQ', head, 40)
        f.seek(data_off)
        data = f.read(data_size)
    n = nbytes = 0
    pos = 0
    recs = []
    while pos + 8 <= len(data):
        typ, misc, sz = struct.unpack_from('<IHH', data, pos)
        if sz < 8:
            break
        if typ == 9:  # PERF_RECORD_SAMPLE
            n += 1
            nbytes += sz
            recs.append(data[pos:pos + sz])
        elif typ == 81:  # PERF_RECORD_COMPRESSED: record without -z
            sys.exit('stacks.py: %s is compressed' % path)
        pos += sz
    print(n, nbytes, zsize(recs))


def dump_bytes(comm):
    """perf script -D: "... [0xSIZE]: PERF_RECORD_SAMPLE(...): PID/TID: IP period: P ..."
    and "... PERF_RECORD_COMM[ exec]: COMM:PID/TID" (the last name of a pid wins
    for the samples after it)."""
    names = {}
    n = nbytes = 0
    size_re = re.compile(r' \[0x([0-9a-f]+)\]: PERF_RECORD_(SAMPLE|COMM)')
    hex_re = re.compile(r'^\.  [0-9a-f]{4}:  ((?:[0-9a-f]{2} ){1,16})')
    raw = bytearray()
    recs = []
    for line in sys.stdin:
        h = hex_re.match(line)
        if h:
            raw += bytes.fromhex(h.group(1))
            continue
        if line.startswith('. ... raw event'):
            raw = bytearray()
            continue
        m = size_re.search(line)
        if not m:
            continue
        if m.group(2) == 'COMM':
            c = line.split('PERF_RECORD_COMM', 1)[1].split(': ', 1)[1].strip()
            name, _, ids = c.rpartition(':')
            names[int(ids.split('/')[0])] = name
            continue
        rest = line.split('): ', 1)[1]
        pid = int(rest.split('/')[0])
        period = re.search(r' period: (\d+)', rest)
        if period and int(period.group(1)) > 1 and names.get(pid) == comm:
            n += 1
            nbytes += int(m.group(1), 16)
            if len(raw) != int(m.group(1), 16):
                sys.exit('stacks.py: a record of %d bytes dumped as %d' %
                         (int(m.group(1), 16), len(raw)))
            recs.append(bytes(raw))
    print(n, nbytes, zsize(recs))


def user_paths(path):
    """The folded file's stacks without their kernel frames, as shares of its weight."""
    w = {}
    for line in open(path):
        stack, _, n = line.rstrip('\n').rpartition(' ')
        if not stack or not n.isdigit():
            continue
        frames = [f for f in stack.split(';') if not f.endswith('_[k]')]
        key = tuple(frames)
        w[key] = w.get(key, 0) + int(n)
    total = sum(w.values()) or 1
    return {k: v / total for k, v in w.items()}


def folded_same(a, b):
    """Prints "paths covered_a covered_b missing": the weight two folded files'
    user stacks share (sum of the smaller share of each stack: 1.0 when alike, lower
    as the phases' shares vary between runs), the share of each file's weight in
    stacks whose every (function, caller) pair the other file has too (a wrong
    caller makes a pair the other lacks), and the heaviest pair (>= 3% of one
    file's weight) the other file lacks, or "-"."""
    pa, pb = user_paths(a), user_paths(b)
    paths = sum(min(v, pb.get(k, 0)) for k, v in pa.items())

    def pairs(p):
        out = {}
        for k, v in p.items():
            for i in range(1, len(k)):
                out[(k[i], k[i - 1])] = out.get((k[i], k[i - 1]), 0) + v
        return out

    def covered(p, q):
        return sum(v for k, v in p.items()
                   if all((k[i], k[i - 1]) in q for i in range(1, len(k))))
    qa, qb = pairs(pa), pairs(pb)
    missing = '-'
    worst = 0.03
    for x, y in ((qa, qb), (qb, qa)):
        for k, v in x.items():
            if v >= worst and k not in y:
                worst, missing = v, '%s<-%s' % k
    print('%.3f %.3f %.3f %s' % (paths, covered(pa, qb), covered(pb, qa),
                                 missing.replace(' ', '_')))


if __name__ == '__main__':
    if sys.argv[1] == 'folded-same':
        folded_same(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == 'dump-bytes':
        dump_bytes(sys.argv[2])
    else:
        {'rsp-reach': rsp_reach, 'perf-reach': perf_reach,
         'perf-bytes': perf_bytes}[sys.argv[1]](sys.argv[2])
