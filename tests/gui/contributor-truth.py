#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What rsp report says of each contributor's unmeasured time, for the viewer's test.

    contributor-truth.py RSP FILE

Runs `RSP report FILE --top 0 --format json` and prints, one a line, each
contributor with estimated or inferred time (GLib has no JSON parser):

    est<TAB>NS<TAB>COUNT<TAB>WHAT
    inf<TAB>NS<TAB>COUNT<TAB>WHAT

NS is the contributor's ns_estimated (ns_inferred), COUNT its intervals,
WHAT its name; a name in several categories is summed.
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: contributor-truth.py RSP FILE")
    rsp, path = sys.argv[1:]
    out = subprocess.run([rsp, "report", path, "--top", "0", "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    d = json.loads(out)
    sums = {}
    for c in d["categories"]:
        for k in c["contributors"]:
            assert k["ns_sampled"] + k["ns_estimated"] + k["ns_inferred"] == k["ns"], k
            what = k["what"].replace("\t", " ").replace("\n", " ")
            for kind, key in (("est", "ns_estimated"), ("inf", "ns_inferred")):
                if k[key]:
                    s = sums.setdefault((kind, what), [0, 0])
                    s[0] += k[key]
                    s[1] += k["count"]
    for (kind, what), (ns, count) in sorted(sums.items()):
        print("%s\t%d\t%d\t%s" % (kind, ns, count, what))


if __name__ == "__main__":
    main()
