#!/usr/bin/env python3
"""Embed a text file as a C string: embed.py INPUT OUTPUT SYMBOL."""
import sys

src, dst, sym = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, 'rb').read()
with open(dst, 'w') as out:
    out.write('/* generated from %s by scripts/embed.py; do not edit */\n' % src.split('/')[-1])
    out.write('const char %s[] =\n' % sym)
    for line in data.decode('utf-8').splitlines(True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
        out.write('\t"%s"\n' % esc)
    out.write('\t"";\n')
