#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The bad-input matrix: every verb against every bad input (docs/TESTING.md).

    matrix.py [-p TEXT] RSP FIXTURE       the reading verbs (suite unit)
    matrix.py [-p TEXT] --record RSP      rsp record's cases (suite record: root)

-p TEXT: only the cases whose name holds TEXT ("report --format", "missing file").

Each case runs one rsp command and asserts
  - its exit status (never 0 for a failure; 2 for a usage error),
  - exactly one line on stderr, "rsp VERB: ...", naming the file (or the
    option) and the problem, with what to do,
  - that every path that existed before is as it was: type, inode, mtime,
    size, contents (/dev/full included: still a character device), and that
    no file was left beside them (no temporary file).
Prints TAP.
"""
import hashlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

N = 0
FAILED = 0
ONLY = None  # -p TEXT


def tap(ok, what, detail=""):
    global N, FAILED
    if ONLY is not None and ONLY not in what:
        return
    N += 1
    if not ok:
        FAILED += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", N, what))
    if not ok and detail:
        for line in detail.rstrip("\n").split("\n"):
            print("#   " + line)


def snapshot(paths):
    """What each path is: type, inode, mtime, size, contents' digest."""
    snap = {}
    for p in paths:
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            snap[p] = None
            continue
        if stat.S_ISDIR(st.st_mode):
            # its entries are compared one by one; its times change with them
            snap[p] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_mode & 0o7777)
            continue
        digest = None
        if stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        snap[p] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_mtime_ns, st.st_size,
                   st.st_mode & 0o7777, digest)
    return snap


def tree(d):
    """Every path under d (a temporary file left anywhere shows)."""
    out = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.append(os.path.join(root, n))
    return sorted(out)


class World:
    """The paths a case must leave as they were."""

    def __init__(self, d, extra):
        self.d = d
        self.extra = extra

    def take(self):
        paths = tree(self.d) + self.extra
        return tree(self.d), snapshot(paths)

    def same(self, before, created=()):
        names0, snap0 = before
        names1, snap1 = self.take()
        bad = []
        for p, s in snap0.items():
            if p in created:
                continue
            if snap1.get(p) != s:
                bad.append("changed: %s %s -> %s" % (p, s, snap1.get(p)))
        new = set(names1) - set(names0) - set(created)
        for p in sorted(new):
            bad.append("left behind: %s" % p)
        return bad


def limit_fsize(n):
    def f():
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    return f


def run(argv, stdout=None, fsize=None, env=None, stdin=None):
    p = subprocess.run(argv, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env,
                       preexec_fn=limit_fsize(fsize) if fsize else None, timeout=600)
    return p.returncode, p.stderr.decode(errors="replace")


def check(world, name, argv, want_rc, verb, names=(), words=(), stdout=None, fsize=None,
          created=(), env=None, warning=False, stdin=None):
    """One case: exit status, one line naming what it must, nothing else touched."""
    if ONLY is not None and ONLY not in name:
        return
    before = world.take()
    rc, err = run(argv, stdout=stdout, fsize=fsize, env=env, stdin=stdin)
    lines = err.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    problems = []
    if rc != want_rc:
        problems.append("exit status %d, want %d" % (rc, want_rc))
    if rc < 0 or rc >= 128:
        problems.append("killed by a signal")
    if len(lines) != 1:
        problems.append("%d lines on stderr, want 1" % len(lines))
    line = lines[0] if lines else ""
    prefix = "rsp %s: %s" % (verb, "warning: " if warning else "")
    if not line.startswith(prefix):
        problems.append("the line does not begin with '%s'" % prefix)
    for n in names:
        if n not in line:
            problems.append("the line does not name '%s'" % n)
    for w in words:
        if w not in line:
            problems.append("the line does not say '%s'" % w)
    if want_rc and not warning and not any(h in line for h in ("try `rsp", "(", ": give", "create it")):
        problems.append("the line does not say what to do")
    problems += world.same(before, created)
    tap(not problems, "%s: exit %d, one line%s" % (name, want_rc, ", nothing touched" if not created else ""),
        "\n".join(problems) + "\ncommand: %s\nstderr:\n%s" % (" ".join(argv), err))


# ---- the reading verbs -------------------------------------------------------------------------

# Cut early in the file, before its first event description: "cut short at byte N"
# (model/timeline/trace.c, load()).
CUT_EARLY_WORDS = ("cut short at byte",)


def readers(rsp, fixture):
    d = tempfile.mkdtemp(prefix="rsp-matrix-")
    try:
        readers_in(rsp, fixture, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def readers_in(rsp, fixture, d):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["TMPDIR"] = d  # a temporary file left by --view on a device would show
    data = open(fixture, "rb").read()
    trace = os.path.join(d, "trace.data")
    shutil.copyfile(fixture, trace)
    inputs = {}

    def put(name, content):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(content)
        inputs[name] = p
        return p

    put("empty.data", b"")
    put("text.data", b"this is not a trace\n" * 20)
    put("cut-1k.data", data[:1024])
    put("cut-half.data", data[:len(data) // 2 + 3])
    # inside the tracing data, before the records that name the target
    put("cut-head.data", data[:10000])
    # inside the events: past the header records, off any record boundary
    put("cut-events.data", data[:len(data) * 3 // 4 + 5])
    os.mkdir(os.path.join(d, "dir.data"))
    missing = os.path.join(d, "missing.data")
    outdir = os.path.join(d, "out")
    os.mkdir(outdir)
    existing = os.path.join(d, "existing.out")
    with open(existing, "w") as f:
        f.write("was here before\n")
    fullsvg = os.path.join(d, "full.svg")
    os.symlink("/dev/full", fullsvg)
    world = World(d, ["/dev/full", fixture])

    has_render = "built without cairo" not in run([rsp, "export", trace, "--view", "running", "-o",
                                                    os.path.join(d, "probe.svg")], env=env)[1]
    if os.path.exists(os.path.join(d, "probe.svg")):
        os.unlink(os.path.join(d, "probe.svg"))

    # (verb, the command before FILE, after FILE, output option or None, stdout output?)
    forms = [
        ("report", ["report"], [], None, True),
        ("info", ["info"], [], None, True),
        ("info", ["info", "--format", "json"], [], None, True),
        ("causes", ["causes"], [], "--log", True),
        ("offcpu", ["offcpu"], [], None, True),
        ("export", ["export", "--folded", "cpu"], [], "-o", True),
        ("export", ["export", "--chrome-json"], [], "-o", True),
        ("export", ["export", "--pprof"], [], "-o", True),
        ("view", ["view"], [], None, False),
    ]
    if has_render:
        forms.append(("export", ["export", "--view", "flame"], [], "-o.svg", False))

    for verb, head, tail, out_opt, to_stdout in forms:
        form = " ".join(head)
        # a verb that needs -o gets one that works, so the input is what fails
        ok_out = []
        if out_opt == "-o.svg":
            ok_out = ["-o", os.path.join(outdir, "ok.svg")]
        is_view = verb == "view"

        def cmd(path, *more):
            return [rsp] + head + [path] + list(more) + tail

        # the input
        check(world, "%s: missing file" % form, cmd(missing, *ok_out), 1, verb,
              names=[missing], words=["no such file"], env=env)
        for name, words in (("empty.data", ["empty"]), ("dir.data", ["directory"]),
                            ("text.data", ["not a perf.data file"]),
                            ("cut-1k.data", CUT_EARLY_WORDS)):
            p = os.path.join(d, name)
            check(world, "%s: %s" % (form, name),
                  cmd(p, *ok_out), 1, verb, names=[p], words=words, env=env)
        for name in ("cut-half.data", "cut-events.data"):
            p = os.path.join(d, name)
            created = [ok_out[1]] if ok_out else []
            if is_view:
                # no display here: the file is read, then the display is what fails
                check(world, "%s: %s without a display" % (form, name), cmd(p), 1, verb,
                      names=[p], words=["no display", "rsp export"], env=env)
            else:
                check(world, "%s: %s: output and one warning" % (form, name),
                      cmd(p, *ok_out), 0, verb, names=[p], words=["cut short at byte"],
                      env=env, warning=True, created=created,
                      stdout=subprocess.DEVNULL)
                for c in created:
                    if os.path.exists(c):
                        os.unlink(c)
        # standard input: a pipe-mode trace, or not one
        if not is_view:
            with open(inputs["text.data"], "rb") as f:
                check(world, "%s: text on standard input" % form, cmd("-", *ok_out), 1, verb,
                      names=["standard input"], words=["not a perf.data file"], env=env,
                      stdin=f)
        else:
            check(world, "view: standard input refused", cmd("-"), 2, verb,
                  words=["standard input"], env=env)

        # options
        check(world, "%s: unknown option" % form, cmd(trace, "--bogus", *ok_out), 2, verb,
              names=["--bogus"], words=["try `rsp %s --help`" % verb], env=env)
        if verb in ("report", "offcpu"):
            p = inputs["cut-head.data"]
            check(world, "%s: cut before the target is named" % form, cmd(p), 1, verb,
                  names=[p], words=["cut short before it names a target", "--target"], env=env)
        if verb in ("report", "causes", "offcpu", "export"):
            check(world, "%s: wrong target" % form, cmd(trace, "--target", "nosuchprocess",
                                                         *ok_out), 1, verb,
                  names=["nosuchprocess", trace], env=env)
            check(world, "%s: a pid not in the trace" % form, cmd(trace, "--target", "999999",
                                                                   *ok_out), 1, verb,
                  names=["999999", trace], env=env)
        if verb in ("report", "info", "causes", "offcpu"):
            check(world, "%s: missing value" % form, cmd(trace, "--format"), 2, verb,
                  names=["--format"], words=["needs a value"], env=env)
            check(world, "%s: bad value" % form, cmd(trace, "--format", "xml"), 2, verb,
                  names=["xml"], env=env)
        if verb in ("report", "causes", "offcpu"):
            check(world, "%s: bad --top" % form, cmd(trace, "--top", "many"), 2, verb,
                  names=["many"], env=env)
        if verb == "report":
            check(world, "report: --requests with --threads",
                  cmd(trace, "--requests", "--threads"), 2, verb,
                  names=["--requests", "--threads"], env=env)
        if verb == "causes":
            rules = os.path.join(d, "no-rules.conf")
            check(world, "causes: a missing rule file", cmd(trace, "-c", rules), 1, verb,
                  names=[rules], env=env)
            check(world, "causes: a rule file that is no rule file",
                  cmd(trace, "-c", inputs["text.data"]), 1, verb, names=[inputs["text.data"]],
                  env=env)
        if verb == "export":
            check(world, "%s: missing value" % form, cmd(trace, *ok_out, "-o"), 2, verb,
                  names=["-o"], words=["needs a value"], env=env)
            check(world, "%s: bad value" % form, cmd(trace, "--thread", "x", *ok_out), 2, verb,
                  names=["'x'"], env=env)
            check(world, "%s: an option that does not apply" % form,
                  cmd(trace, "--merge-threads", *ok_out), 2, verb,
                  names=["--merge-threads"], env=env)
        if verb == "view":
            check(world, "view: an extra option", cmd(trace, "--format", "json"), 2, verb,
                  names=["--format"], env=env)

        # outputs
        if out_opt in ("-o", "-o.svg", "--log"):
            suffix = ".svg" if out_opt == "-o.svg" else ".out"
            opt = ["--log", "all"] if out_opt == "--log" else ["-o"]
            nodir = os.path.join(d, "no", "such", "dir", "x" + suffix)
            check(world, "%s: output in a missing directory" % form, cmd(trace, *opt, nodir), 1,
                  verb, names=[nodir], words=["no directory"], env=env)
            dpath = os.path.join(d, "dir.data")
            if suffix == ".svg":
                dpath = os.path.join(d, "dir.svg")
                os.mkdir(dpath)
            check(world, "%s: output is a directory" % form, cmd(trace, *opt, dpath), 1, verb,
                  names=[dpath], words=["is a directory"], env=env)
            if suffix == ".svg":
                os.rmdir(dpath)
            if suffix == ".out":
                check(world, "%s: output is the trace being read" % form,
                      cmd(trace, *opt, trace), 2, verb, names=[trace], words=["being read"],
                      env=env)
            dev = fullsvg if suffix == ".svg" else "/dev/full"
            check(world, "%s: output is /dev/full" % form, cmd(trace, *opt, dev), 1, verb,
                  names=[dev], words=["No space left on device"], env=env)
            # the file-size limit: the file that was there is kept whole
            target = existing if suffix == ".out" else os.path.join(d, "existing.svg")
            if suffix == ".svg":
                shutil.copyfile(existing, target)
            check(world, "%s: file-size limit on an existing output" % form,
                  cmd(trace, *opt, target), 1, verb, names=[target], words=["File too large",
                                                                             "ulimit -f"],
                  fsize=512, env=env)
            if suffix == ".svg":
                os.unlink(target)
            # and a successful write replaces it (created: it changes)
            if out_opt != "-o.svg":
                tgt = os.path.join(outdir, "fine" + suffix)
                before = world.take()
                rc, err = run(cmd(trace, *opt, tgt), stdout=subprocess.DEVNULL, env=env)
                bad = world.same(before, created=[tgt])
                tap(rc == 0 and os.path.getsize(tgt) > 0 and not bad,
                    "%s: a good output is written whole, nothing else left" % form,
                    "exit %d\n%s\n%s" % (rc, err, "\n".join(bad)))
                os.unlink(tgt)
        if to_stdout:
            with open("/dev/full", "wb") as full:
                check(world, "%s: standard output on /dev/full" % form, cmd(trace), 1, verb,
                      names=["standard output"], words=["No space left on device"],
                      stdout=full, env=env)
            sink = os.path.join(outdir, "stdout.txt")
            with open(sink, "wb") as f:
                check(world, "%s: standard output at the file-size limit" % form, cmd(trace), 1,
                      verb, names=["standard output"], words=["File too large"], stdout=f,
                      fsize=512, env=env, created=[sink])
            os.unlink(sink)
    # the command line's own
    before = world.take()
    rc, err = run([rsp, "nosuchverb"], env=env)
    tap(rc == 2 and err.count("\n") == 1 and "nosuchverb" in err and "try `rsp --help`" in err
        and not world.same(before), "an unknown verb: one line, exit 2", err)
    a = subprocess.run([rsp, "help", "report"], capture_output=True, text=True)
    b = subprocess.run([rsp, "report", "--help"], capture_output=True, text=True)
    tap(a.returncode == 0 and a.stdout == b.stdout and a.stdout.startswith("usage: rsp report"),
        "rsp help report is rsp report --help")
    v = subprocess.run([rsp, "-V"], capture_output=True, text=True)
    h = subprocess.run([rsp, "--help"], capture_output=True, text=True)
    tap(v.returncode == 0 and v.stdout.startswith("rsp ") and "-V, --version" in h.stdout,
        "-V prints the version, and --help lists it")
    with open("/dev/full", "wb") as full:
        p = subprocess.run([rsp, "--help"], stdout=full, stderr=subprocess.PIPE, text=True)
    tap(p.returncode == 1 and p.stderr.count("\n") == 1, "rsp --help on /dev/full: exit 1",
        p.stderr)
    # the default file: perf.data when rsp.data is missing, said
    cwd = os.path.join(d, "cwd")
    os.mkdir(cwd)
    shutil.copyfile(fixture, os.path.join(cwd, "perf.data"))
    p = subprocess.run([rsp, "info"], cwd=cwd, capture_output=True, text=True)
    tap(p.returncode == 0 and "read perf.data (there is no rsp.data here)" in p.stderr and
        "perf.data" in p.stdout.split("\n")[0], "no rsp.data, a perf.data: read, and said",
        p.stderr)
    # a trace on standard input reads as the file does
    with open(fixture, "rb") as f:
        a = subprocess.run([rsp, "report", "-", "--format", "json"], stdin=f,
                           capture_output=True)
    b = subprocess.run([rsp, "report", fixture, "--format", "json"], capture_output=True)
    tap(a.returncode == 0 and a.stdout.replace(b'"file": "-"', b"") ==
        b.stdout.replace(('"file": "%s"' % fixture).encode(), b""),
        "report - reads standard input as the file", a.stderr.decode())


# ---- rsp record -----------------------------------------------------------------------------------

def record(rsp):
    if os.geteuid() != 0:
        print("1..0 # SKIP rsp record needs root")
        sys.exit(0)
    d = tempfile.mkdtemp(prefix="rsp-matrix-record-")
    try:
        record_in(rsp, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def record_in(rsp, d):
    world = World(d, ["/dev/full", "/dev/null"])
    out = os.path.join(d, "r.data")
    check(world, "record: unknown option", [rsp, "record", "--bogus", "--", "true"], 2, "record",
          names=["--bogus"], words=["try `rsp record --help`"])
    check(world, "record: missing value", [rsp, "record", "-o"], 2, "record", names=["-o"],
          words=["needs a value"])
    check(world, "record: bad value", [rsp, "record", "-m", "3", "-o", out, "--", "true"], 2,
          "record", names=["'3'"])
    check(world, "record: nothing to record", [rsp, "record", "-o", out], 2, "record",
          words=["nothing to record"])
    missing = os.path.join(d, "no.conf")
    check(world, "record: a missing event set", [rsp, "record", "--probes", missing, "-o", out,
                                                 "--", "true"], 2, "record", names=[missing])
    nodir = os.path.join(d, "no", "dir", "r.data")
    check(world, "record: output in a missing directory",
          [rsp, "record", "-q", "-o", nodir, "--", "true"], 1, "record", names=[nodir],
          words=["no directory"])
    check(world, "record: output is a directory", [rsp, "record", "-q", "-o", d, "--", "true"], 1,
          "record", names=[d], words=["is a directory"])
    check(world, "record: output is /dev/full", [rsp, "record", "-q", "-o", "/dev/full", "--",
                                                 "true"], 1, "record",
          names=["/dev/full"], words=["No space left on device"])
    tap(not os.path.exists("/dev/full.old"), "record: /dev/full never renamed to .old")
    # an existing output is kept as .old, unless .old is no regular file
    with open(out, "w") as f:
        f.write("before\n")
    os.mkdir(out + ".old")
    check(world, "record: FILE.old is a directory", [rsp, "record", "-q", "-o", out, "--", "true"],
          1, "record", names=[out + ".old"], words=["move it away"])
    os.rmdir(out + ".old")
    # the file-size limit: the recording stops, the file holds what fit (above the
    # header records, ~0.7 MB with the kernel symbols' zstd frame; uncompressed, so
    # that the workload's records pass it).  The workload, stopped with the recording, may
    # say so on the same standard error ("the other side went away"): its own
    # words are not rsp's, and go elsewhere
    big = os.path.join(d, "big.data")
    wl = os.environ.get("WL")
    if wl:
        check(world, "record: the file-size limit",
              [rsp, "record", "-q", "--compression-level", "0", "-o", big, "--", "sh", "-c",
               'exec "$0" 20000 2>/dev/null', os.path.join(wl, "pass")],
              1, "record", names=[big], words=["File too large", "opens normally"],
              fsize=8 << 20, created=[big])
    else:
        tap(True, "record: the file-size limit # SKIP no WL (the workloads) in the environment")
    if wl:
        p = subprocess.run([rsp, "info", big], capture_output=True, text=True)
        tap(p.returncode == 0, "record: the file cut at the limit still opens", p.stderr)
    # below the header records (their kernel symbols alone are 0.63 MB of zstd on
    # this project's VM): the file holds none, and says so
    small = os.path.join(d, "small.data")
    check(world, "record: the file-size limit before the first records",
          [rsp, "record", "-q", "-o", small, "--", "true"], 1, "record",
          names=[small], words=["File too large", "holds none"], fsize=128 << 10,
          created=[small])
    # standard output on /dev/full: rsp record prints nothing there
    with open("/dev/full", "wb") as full:
        before = world.take()
        rc, err = run([rsp, "record", "-q", "-o", os.path.join(d, "ok.data"), "--", "true"],
                      stdout=full)
    tap(rc == 0 and err == "", "record: standard output on /dev/full: nothing to write, exit 0",
        "exit %d\n%s" % (rc, err))


def main():
    global ONLY
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    args = sys.argv[1:]
    if "-p" in args[:-1]:  # anywhere: meson's --test-args come last
        i = args.index("-p")
        ONLY = args[i + 1]
        del args[i:i + 2]
    if len(args) == 2 and args[0] == "--record":
        record(os.path.abspath(args[1]))
    elif len(args) == 2:
        readers(os.path.abspath(args[0]), os.path.abspath(args[1]))
    else:
        sys.stderr.write("usage: matrix.py [-p TEXT] RSP FIXTURE | matrix.py [-p TEXT] --record RSP\n")
        sys.exit(2)
    if ONLY is not None and N == 0:
        what, ONLY = ONLY, None
        tap(False, "-p %s: no case's name holds it" % what)
    print("1..%d" % N)
    sys.exit(1 if FAILED else 0)


main()
