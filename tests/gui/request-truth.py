#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What rsp report --requests says of each request of a server, for the viewer's test.

    request-truth.py RSP FILE TARGET

Runs `RSP report FILE --requests --target TARGET --top 0 --format json` (every
request explained alone, as its "slowest" entries are) and prints it as a GLib
key file the widget test reads (GLib has no JSON parser): a group per request,
"request N", with its window and latency, the table's totals, the
nanoseconds of each non-zero category (cat_KEY), their contributors' estimated
and inferred parts (est_KEY, inf_KEY) and the top contributor's name (top_KEY).
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: request-truth.py RSP FILE TARGET")
    rsp, path, target = sys.argv[1:]
    out = subprocess.run([rsp, "report", path, "--requests", "--target", target, "--top", "0",
                          "--format", "json"], check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    lines = []
    for q in d["slowest"]:
        lines.append("[request %d]" % q["index"])
        for k in ("start_ns", "end_ns", "latency_ns", "wall_ns", "total_ns", "explained_ns", "tid"):
            lines.append("%s=%d" % (k, q[k]))
        lines.append("connection=%d" % q["connection"])
        for c in q["categories"]:
            if not c["ns"]:
                continue
            key = c["key"]
            lines.append("cat_%s=%d" % (key, c["ns"]))
            lines.append("est_%s=%d" % (key, sum(k["ns_estimated"] for k in c["contributors"])))
            lines.append("inf_%s=%d" % (key, sum(k["ns_inferred"] for k in c["contributors"])))
            if c["contributors"]:
                # a key file value: no newline, and a leading blank would be dropped
                lines.append("top_%s=%s" % (key, c["contributors"][0]["what"].replace("\n", " ")))
        lines.append("")
    conns = d["connections"]
    lines.append("[connections]")
    for i, c in enumerate(conns):
        name = "%s <- %s" % (c["local"], c["remote"]) if c["local"] else "socket " + c["socket"]
        lines.append("c%d=%s" % (i, name))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
