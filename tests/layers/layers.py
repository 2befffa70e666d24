#!/usr/bin/env python3
"""The model's rooms keep their order (docs/DESIGN.md, model/meson.build).

  layers.py MODEL_LIB.a MODEL_SRC_DIR

From the library's objects (nm): which file calls which.  Fails if two files
call each other through any circle, or if a folder calls a folder listed after
it.  From the sources: fails if a file includes a header of a folder after its
own, or a public header (rsp-*.h) of a later folder.  TAP output.
"""
import collections, os, re, subprocess, sys

ORDER = ['base', 'read', 'symbols', 'timeline', 'analysis', 'aggregate']
# the public headers at model/'s top, and the folder each belongs to
PUBLIC = {'rsp-model.h': 'timeline', 'rsp-analysis.h': 'analysis', 'rsp-frames.h': 'aggregate',
          'rsp-causes.h': 'aggregate', 'rsp-offcpu.h': 'aggregate', 'rsp-folded.h': 'aggregate',
          'rsp-requests.h': 'timeline'}

lib, src = sys.argv[1], sys.argv[2]
out = subprocess.run(['nm', '-A', lib], capture_output=True, text=True, check=True).stdout
defs, uses = {}, collections.defaultdict(set)
for line in out.splitlines():
    # archive:member: [addr] type name
    parts = line.split(':', 2)
    if len(parts) < 3:
        continue
    member = os.path.basename(parts[1])
    f = member[:-len('.c.o')] if member.endswith('.c.o') else member
    fields = parts[2].split()
    if len(fields) == 3 and fields[1] in 'TDBRC':
        defs[fields[2]] = f
    elif len(fields) == 2 and fields[0] == 'U':
        uses[f].add(fields[1])

def folder(f):
    return f.split('_', 1)[0]

edges = collections.defaultdict(set)
for f, us in uses.items():
    for u in us:
        g = defs.get(u)
        if g and g != f:
            edges[f].add((g, u))

results = []
bad = [(f, g, u) for f, es in edges.items() for g, u in es
       if folder(g) in ORDER and folder(f) in ORDER and ORDER.index(folder(g)) > ORDER.index(folder(f))]
results.append((not bad, 'no folder calls a folder after it',
                ['%s calls %s (%s)' % (f, g, u) for f, g, u in sorted(bad)]))

# circles between files: strongly connected components of more than one file
graph = {f: {g for g, _ in es} for f, es in edges.items()}
index, low, stack, on, sccs = {}, {}, [], set(), []
def strong(v, counter=[0]):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in list(graph):
    if v not in index:
        strong(v)
results.append((not sccs, 'no circle of calls between files', [' <-> '.join(c) for c in sccs]))

inc_bad = []
for fol in ORDER:
    d = os.path.join(src, fol)
    for name in sorted(os.listdir(d)):
        if not name.endswith(('.c', '.h')):
            continue
        for m in re.finditer(r'#include "([^"]+)"', open(os.path.join(d, name)).read()):
            h = m.group(1)
            to = h.split('/', 1)[0] if '/' in h else PUBLIC.get(h)
            if to in ORDER and ORDER.index(to) > ORDER.index(fol):
                inc_bad.append('%s/%s includes %s' % (fol, name, h))
results.append((not inc_bad, 'no file includes a header of a folder after its own', inc_bad))

print('1..%d' % len(results))
for i, (ok, what, detail) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
    for d in detail:
        print('#   ' + d)
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
