#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The option reference (docs/cli.md) and `rsp VERB --help` in step.

    synopses.py RSP docs/cli.md

Every synopsis in the page's code blocks ("rsp VERB [...]" and its indented
continuation lines) lists only options `rsp VERB --help` has, and the synopses
of a verb in one code block list all of them.  The options of --help are those
of its usage lines and those its option lines (lines that begin with spaces
and a dash) define; a short option counts as its long name; --help itself is
left out.  Prints TAP.
"""
import re
import subprocess
import sys

OPT = re.compile(r"--[a-z][a-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-([a-zA-Z])\b")
PAIR = re.compile(r"^\s+-([a-zA-Z]), (--[a-z][a-z0-9-]*)")


def options(line, short):
    """The long options of a line, its short ones named by their long names."""
    return set(OPT.findall(line)) | {short.get(c, "-" + c) for c in SHORT.findall(line)}


def help_options(rsp, verb):
    """(long options, {short letter: long option})"""
    p = subprocess.run([rsp, verb, "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, {}  # not built (rsp record without the collector)
    lines = p.stdout.split("\n")
    short = {m.group(1): m.group(2) for m in map(PAIR.match, lines) if m}
    opts, in_usage = set(), False
    for line in lines:
        if line.startswith("usage:"):
            in_usage = True
        elif not line.strip():
            in_usage = False
        if in_usage:
            opts |= options(line, short)
        elif re.match(r"^\s{2,}-", line):
            # the option's name, not the words that describe it
            opts |= options(re.split(r"\s{2,}", line.strip())[0], short)
    return opts - {"--help"}, short


def synopses(path, shorts):
    """[(block number, verb, options, first line)]; @shorts: per verb, its short options"""
    out, block, in_code, cur = [], 0, False, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("```"):
            in_code = not in_code
            block += 1
            cur = None
            continue
        if not in_code:
            continue
        m = re.match(r"^rsp ([a-z]+) .*\[", line)
        if m:
            cur = [block, m.group(1), options(line, shorts.get(m.group(1), {})), line]
            out.append(cur)
        elif cur and line.startswith(" "):
            cur[2] |= options(line, shorts.get(cur[1], {}))
        else:
            cur = None
    return out


def main():
    rsp, doc = sys.argv[1], sys.argv[2]
    n = failed = 0
    verbs = subprocess.run([rsp, "--help"], capture_output=True, text=True).stdout
    listed = re.findall(r"^  ([a-z]+) ", verbs.split("verbs:")[1].split("\n\n")[0], re.M)
    helps, shorts = {}, {}
    for verb in listed + ["record"]:
        helps[verb], shorts[verb] = help_options(rsp, verb)
    syn = synopses(doc, shorts)
    for verb in listed:
        n += 1
        ok = any(v == verb for _, v, _, _ in syn)
        failed += not ok
        print("%s %d - the page has a synopsis of rsp %s" % ("ok" if ok else "not ok", n, verb))
    for verb in sorted(helps):
        have = helps[verb]
        if have is None and verb == "record":
            n += 1
            print("ok %d - rsp %s # SKIP not built" % (n, verb))
            continue
        for block in sorted({b for b, v, _, _ in syn if v == verb}):
            union = set()
            for b, v, opts, first in syn:
                if b != block or v != verb:
                    continue
                union |= opts
                extra = opts - have
                n += 1
                failed += bool(extra)
                print("%s %d - '%s...': no option --help lacks%s" %
                      ("not ok" if extra else "ok", n, first[:40],
                       ": " + " ".join(sorted(extra)) if extra else ""))
            missing = have - union
            n += 1
            failed += bool(missing)
            print("%s %d - rsp %s (code block %d) lists every option of --help%s" %
                  ("not ok" if missing else "ok", n, verb, block,
                   ": missing " + " ".join(sorted(missing)) if missing else ""))
    print("1..%d" % n)
    sys.exit(1 if failed else 0)


main()
