#!/bin/sh
# Record here, explain elsewhere (issue 18): a workload copied into a temporary
# directory is recorded, then its binary is moved away.  The warning names the
# file with its build id, its frames read rpcchain+0xADDR in every output, each
# ADDR inside one of the binary's functions (nm, the ground truth); a file of
# another build at the path is not used ("build id differs"); --symfs,
# --debug-dir (a build-id tree made with objcopy --only-keep-debug) and
# FILE.archive (rsp archive) each give back, byte for byte, the report of the
# recording machine; so does debuginfod (a server on loopback serving the binary
# by build id).  rsp view passes --symfs to the viewer.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 not installed (setup.sh installs it)"
command -v objcopy >/dev/null || fail "objcopy not installed (binutils)"

mkdir -p "$T/bin"
cp "$WL/rpcchain" "$T/bin/rpcchain"
BIN="$T/bin/rpcchain"
ID=$(readelf -n "$BIN" | awk '/Build ID/ { print $3 }')
[ -n "$ID" ] || fail "the workload has no build id"

"$RSP" record -q -o "$T/x.data" -- "$BIN" >/dev/null 2>"$T/rec.err" || { cat "$T/rec.err"; fail "record"; }

# what every reading verb says of x.data, in files named $1.*
outputs() { # name [options...]
  n=$1; shift
  "$RSP" report "$T/x.data" "$@" >"$T/$n.txt" 2>"$T/$n.err" || { cat "$T/$n.err"; fail "$n: report"; }
  "$RSP" report "$T/x.data" -f json "$@" >"$T/$n.json" 2>/dev/null || fail "$n: report json"
  "$RSP" report "$T/x.data" -f csv "$@" >"$T/$n.csv" 2>/dev/null || fail "$n: report csv"
  "$RSP" export "$T/x.data" --folded cpu -o "$T/$n.folded" "$@" 2>/dev/null || fail "$n: folded"
  "$RSP" export "$T/x.data" --chrome-json -o "$T/$n.chrome" "$@" 2>/dev/null || fail "$n: chrome"
  "$RSP" offcpu "$T/x.data" -f json "$@" >"$T/$n.offcpu" 2>/dev/null || fail "$n: offcpu"
  "$RSP" info "$T/x.data" --json "$@" >"$T/$n.info" 2>/dev/null || fail "$n: info"
}
same() { # name: the same outputs as on the recording machine
  for ext in txt json csv folded offcpu; do
    cmp -s "$T/here.$ext" "$T/$1.$ext" || { diff "$T/here.$ext" "$T/$1.$ext" | head -20; fail "$1: $ext differs"; }
  done
  grep -q 'without symbols' "$T/$1.err" && { cat "$T/$1.err"; fail "$1: still warns of missing files"; }
  note "$1: the same report, byte for byte, as where it was recorded"
}

outputs here
grep -q 'client_main' "$T/here.chrome" || fail "the recording machine's stacks name no client_main"
cat "$T"/here.* | grep -q 'rpcchain+0x' && fail "rpcchain has unsymbolized frames where it was recorded"
grep -q 'without symbols' "$T/here.err" && { cat "$T/here.err"; fail "missing files where it was recorded"; }

# --- moved away ---------------------------------------------------------------------
mkdir -p "$T/root$T/bin"
mv "$BIN" "$T/root$BIN"
outputs gone
grep -q "$BIN (build id $ID: not found)" "$T/gone.err" || { cat "$T/gone.err"; fail "the warning names no $BIN with its build id"; }
for ext in txt json csv folded chrome offcpu; do
  grep -q 'rpcchain+0x[0-9a-f]' "$T/gone.$ext" || fail "gone.$ext: no rpcchain+0xADDR frame"
  grep -q '\[rpcchain\]' "$T/gone.$ext" && fail "gone.$ext: a bare [rpcchain] frame"
done
python3 - "$T" "$BIN" "$ID" "$T/root$BIN" <<'EOF' || fail "rpcchain+0xADDR"
import json, re, subprocess, sys
T, path, bid, binary = sys.argv[1:]
info = json.load(open(T + "/gone.info"))
m = [f for f in info["missing_files"] if f["path"] == path]
assert m and m[0]["build_id"] == bid and m[0]["problem"] == "not found", info["missing_files"]
assert m[0]["frames"] > 0 and m[0]["ns"] > 0, m[0]
# nm: the functions of the binary, the ground truth of what an address is
# (nm --synthetic adds the PLT's stubs, "write@plt", as rsp names them; a symbol
# without a size, such as crt's __do_global_dtors_aux, reaches the next symbol
# but not past its section's end, as in rsp's symbolizer: a sample at exit
# lands there)
funcs, bounds = [], []
for line in subprocess.run(["objdump", "-h", binary], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) >= 4 and p[0].isdigit():
        bounds.append(int(p[3], 16) + int(p[2], 16))
for line in subprocess.run(["nm", "-S", "--defined-only", "-n", "--synthetic", binary],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) >= 3:
        bounds.append(int(p[0], 16))
    if len(p) == 4 and p[2] in "tTwW":
        funcs.append((int(p[0], 16), int(p[1], 16), p[3]))
    elif len(p) == 3 and p[1] in "tT":
        funcs.append((int(p[0], 16), None, p[2]))
funcs = [(lo, size if size is not None else
          min([b for b in bounds if b > lo] or [lo + 1]) - lo, name) for lo, size, name in funcs]
def func_at(a):
    # a return address may be one past its call's function (a noreturn call)
    for lo, size, name in funcs:
        if lo <= a < lo + size or lo < a == lo + size:
            return name
here = "".join(open("%s/here.%s" % (T, e)).read() for e in ("txt", "folded", "chrome", "offcpu"))
seen = set()
for ext in ("txt", "folded", "chrome", "offcpu"):
    for a in re.findall(r"rpcchain\+0x([0-9a-f]+)", open("%s/gone.%s" % (T, ext)).read()):
        f = func_at(int(a, 16))
        assert f, "rpcchain+0x%s (%s) is in no function of rpcchain" % (a, ext)
        assert f in here, "rpcchain+0x%s is %s, which the recording machine never named" % (a, f)
        seen.add(f)
assert {"client_main", "server_main"} & seen, seen
print("# %d functions of rpcchain behind its file+0xADDR frames: %s" % (len(seen), " ".join(sorted(seen))))
EOF

# --- another build at the path --------------------------------------------------------
cp "$WL/pass" "$BIN"
outputs other
grep -q "$BIN (build id $ID: build id differs)" "$T/other.err" || { cat "$T/other.err"; fail "no 'build id differs' for $BIN"; }
grep -q 'rpcchain+0x' "$T/other.txt" || fail "a file of another build was used"
note "another build at the path: not used, the warning says build id differs"

# --- found again ------------------------------------------------------------------------
outputs symfs --symfs "$T/root"
same symfs

# the viewer, started by rsp view: the same options, the same files said missing
VIEWER="$(dirname "$RSP")/../viewer/rsp-viewer"
XVFB="$(dirname "$0")/../gui/xvfb-run.sh"
if [ -x "$VIEWER" ] && command -v Xvfb >/dev/null 2>&1; then
  view_missing() { # [options...]: the viewer's count of missing files
    # Xvfb may take more than xvfb-run.sh's 10 s on a loaded machine: three tries
    for try in 1 2 3; do
      rm -f "$T/view.log"
      view_once "$@" 2>"$T/xvfb.err"
      [ -s "$T/view.log" ] && break
    done
    [ -s "$T/view.log" ] || { cat "$T/xvfb.err" >&2; fail "rsp view: the viewer did not start"; }
    awk '/^SYMBOLS missing/ { print $3 }' "$T/view.log"
  }
  view_once() {
    GDK_BACKEND=x11 GTK_A11Y=none DBUS_SESSION_BUS_ADDRESS=disabled: GSETTINGS_BACKEND=memory \
    GSK_RENDERER=cairo RSP_VIEWER_TEST=1 timeout 60 "$XVFB" sh -c '
      log=$1; shift
      "$@" >"$log" 2>&1 &
      pid=$!
      n=0
      while ! grep -q "^SYMBOLS" "$log" && [ $n -lt 400 ] && kill -0 $pid 2>/dev/null; do
        sleep 0.1; n=$((n + 1))
      done
      kill $pid 2>/dev/null; wait $pid 2>/dev/null; true' sh "$T/view.log" "$RSP" view "$@" "$T/x.data"
  }
  n=$(view_missing)
  [ "${n:-0}" -ge 1 ] || { cat "$T/view.log"; fail "the viewer finds no missing file"; }
  n=$(view_missing --symfs "$T/root")
  [ "$n" = 0 ] || { cat "$T/view.log"; fail "rsp view --symfs: the viewer still misses $n files"; }
  note "rsp view: the viewer misses the binary, and finds it with --symfs"
else
  note "no viewer or no Xvfb: rsp view not tried"
fi
rm "$BIN"

mkdir -p "$T/debug/.build-id/$(echo "$ID" | cut -c1-2)"
objcopy --only-keep-debug "$T/root$BIN" "$T/debug/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-).debug"
st=0; "$RSP" report "$T/x.data" --debug-dir "$T/none" >/dev/null 2>"$T/none.err" || st=$?
[ "$st" -eq 2 ] && [ "$(wc -l <"$T/none.err")" -eq 1 ] && grep -q "^rsp report: --debug-dir $T/none: " "$T/none.err" ||
  { cat "$T/none.err"; fail "--debug-dir of a missing directory: status $st"; }
mkdir -p "$T/empty"
outputs debugdir --debug-dir "$T/empty" --debug-dir "$T/debug"
# a debug file has the symbols but not the binary's .eh_frame (NOBITS there): a
# user-stack copy taken in a function's prologue unwinds without its CFI, and
# may lose that function's caller (a CPU sample in backend_store's first
# instructions: backend_main missing, one sample in a fresh-clone CI run).  So:
# every frame named, the same table by category and the same samples, not
# byte for byte
cat "$T"/debugdir.* | grep -q 'rpcchain+0x' && fail "debugdir: unsymbolized frames with the debug file"
grep -q 'without symbols' "$T/debugdir.err" && { cat "$T/debugdir.err"; fail "debugdir: still warns of missing files"; }
python3 - "$T/here.json" "$T/debugdir.json" "$T/here.folded" "$T/debugdir.folded" <<'PY' ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
cats = lambda r: [(c['key'], c['ns']) for c in r['categories']]
n = lambda f: sum(int(l.rsplit(' ', 1)[1]) for l in open(f) if l.strip())
sys.exit(0 if a['total_ns'] == b['total_ns'] and cats(a) == cats(b) and
         n(sys.argv[3]) == n(sys.argv[4]) else 1)
PY
  { diff "$T/here.folded" "$T/debugdir.folded" | head; fail "debugdir: not the same table or samples"; }
note "debugdir: every frame named, the same table by category and the same samples"

mv "$T/root$BIN" "$BIN"
"$RSP" archive "$T/x.data" >"$T/archive.out" 2>"$T/archive.err" || { cat "$T/archive.err"; fail "rsp archive"; }
tar -tf "$T/x.data.archive" | grep -qx ".build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-)" ||
  fail "the archive holds no $BIN by build id"
note "$(cat "$T/archive.out")"
rm "$BIN"
outputs archive
same archive
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["missing_files"] == []' "$T/archive.info" ||
  fail "rsp info lists missing files with the archive"

# a damaged archive: the members before the damage, never a crash
size=$(stat -c %s "$T/x.data.archive")
head -c $((size / 2 + 100)) "$T/x.data.archive" >"$T/cut.archive"
mv "$T/cut.archive" "$T/x.data.archive"
"$RSP" report "$T/x.data" >/dev/null 2>"$T/cut.err" || { cat "$T/cut.err"; fail "a cut archive"; }
head -c 70000 /dev/urandom >"$T/x.data.archive"
"$RSP" report "$T/x.data" >"$T/junk.txt" 2>"$T/junk.err" || { cat "$T/junk.err"; fail "an archive of junk"; }
grep -q "$BIN (build id $ID: not found)" "$T/junk.err" || { cat "$T/junk.err"; fail "junk archive: the warning"; }
note "a cut archive and one of junk: read up to the damage, the binary said missing"

# debuginfod (DEBUGINFOD_URLS, elfutils' client): a server on loopback that serves
# the binary by build id (the protocol's /buildid/ID/executable), elfutils' cache
# in $T; a progress line per download, the same report
mkdir -p "$T/srv/buildid/$ID"
cp "$WL/rpcchain" "$T/srv/buildid/$ID/executable" # $BIN is gone: the same file
python3 -c '
import http.server, socketserver, sys, os
os.chdir(sys.argv[1])
class Q(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
with socketserver.TCPServer(("127.0.0.1", 0), Q) as s:
    print(s.server_address[1], flush=True)
    s.serve_forever()
' "$T/srv" >"$T/srv.port" &
SRV=$!
n=0
while [ ! -s "$T/srv.port" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
PORT=$(cat "$T/srv.port")
[ -n "$PORT" ] || { kill $SRV; fail "the loopback debuginfod server did not start"; }
rm -f "$T/x.data.archive"
DEBUGINFOD_URLS="http://127.0.0.1:$PORT" DEBUGINFOD_CACHE_PATH="$T/dcache" \
  "$RSP" report "$T/x.data" >"$T/dgd.txt" 2>"$T/dgd.err" || { kill $SRV; cat "$T/dgd.err"; fail "report with debuginfod"; }
kill $SRV
cmp -s "$T/here.txt" "$T/dgd.txt" || { diff "$T/here.txt" "$T/dgd.txt" | head; cat "$T/dgd.err"; fail "debuginfod: not the same report"; }
grep -q "^rsp report: debuginfod: fetching $BIN (build id $ID)" "$T/dgd.err" || { cat "$T/dgd.err"; fail "debuginfod: no progress line"; }
grep -q 'without symbols' "$T/dgd.err" && { cat "$T/dgd.err"; fail "debuginfod: still missing"; }
note "debuginfod on loopback: the binary fetched by build id, the same report"
