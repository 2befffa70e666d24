#!/bin/sh
# Known answers (issue 12): each truth* workload measures itself (CPU per named
# function with CLOCK_THREAD_CPUTIME_ID, its waits with CLOCK_MONOTONIC) and
# writes its numbers to a side file; rsp's explanation of a recording of it must
# agree within the tolerances of tests/record/truth.py (docs/TESTING.md).  At
# --target-freq 9999: how exact rsp is when the target's short runs are sampled
# (the default, 999 Hz, costs less and estimates more: bench/explain.sh).
. "$(dirname "$0")/lib.sh"

status=0
# CPU time the hypervisor stole from this VM's CPUs while a recording ran, as a
# share of their busy time (an idle vCPU has nothing stolen): 'ticks_stolen
# ticks_busy' of /proc/stat, differenced (truth.py widens its CPU checks by it:
# a program's thread clock leaves out stolen time, a run on a CPU holds it)
ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) if (i != 5 && i != 6) t += $i; print $9, t }' /proc/stat; }
steal_since() {
  set -- $1 $(ticks)
  awk -v s0=$1 -v t0=$2 -v s1=$3 -v t1=$4 'BEGIN { printf "%.4f", (t1 > t0 ? (s1 - s0) / (t1 - t0) : 0) }'
}
for spec in "truthrpc 120" "truthpipe 80" "truthpoll 60" "truthfork 40"; do
  set -- $spec
  w=$1
  t0=$(ticks)
  RSP_TRUTH="$T/$w.jsonl" "$RSP" record --target-freq 9999 -o "$T/$w.data" -- "$WL/$w" "$2" \
    >"$T/$w.rec" 2>&1 ||
    { cat "$T/$w.rec"; fail "$w: rsp record failed"; }
  export TRUTH_STEAL=$(steal_since "$t0")
  [ -s "$T/$w.jsonl" ] || fail "$w: no side file"
  "$RSP" report "$T/$w.data" --format json --top 1000 >"$T/$w.json" || fail "$w: rsp report failed"
  "$RSP" export "$T/$w.data" --folded pseudo -o "$T/$w.folded" || fail "$w: rsp export failed"
  "$RSP" export "$T/$w.data" --chrome -o "$T/$w.chrome.json" || fail "$w: rsp export failed"
  if ! python3 "$(dirname "$0")/truth.py" "$w" "$T/$w.json" "$T/$w.folded" "$T/$w.jsonl" \
    "$T/$w.chrome.json"; then
    sed 's/^/#   /' "$T/$w.rec"
    status=1
  fi
done
# a daemon DAEMON started before the recording, its side file SIDE, and its
# options (--udp): $server
start_daemon() {
  rm -f "$T/port"
  RSP_TRUTH="$2" timeout 100 "$WL/$1" ${3-} "$T/port" >"$T/serve.out" 2>&1 &
  server=$!
  i=0
  while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -s "$T/port" ] || { kill $server 2>/dev/null; cat "$T/serve.out"; fail "$1 did not start"; }
}
# rsp's explanation of NAME's recording against its side file (the daemon sampled at -F 4999)
judge() {
  "$RSP" report "$T/$1.data" --format json --top 1000 >"$T/$1.json" || fail "$1: rsp report failed"
  "$RSP" export "$T/$1.data" --folded pseudo -o "$T/$1.folded" || fail "$1: rsp export failed"
  "$RSP" export "$T/$1.data" --chrome -o "$T/$1.chrome.json" || fail "$1: rsp export failed"
  if ! TRUTH_SYSTEM_HZ=4999 python3 "$(dirname "$0")/truth.py" "$1" "$T/$1.json" \
    "$T/$1.folded" "$T/$1.jsonl" "$T/$1.chrome.json"; then
    sed 's/^/#   /' "$T/$1.rec"
    status=1
  fi
}
# a daemon started before the recording, as users run them (issue 20): a client's
# 300 requests to truthserve (an epoll loop, CPU in named functions and an
# fdatasync per request); the client is the target, the server is no child of it
# and a thread-pool daemon (issue 20): an I/O thread hands each request to one of
# two workers through a condition variable; they contend for a mutex around their
# fdatasync
# and truthserve over UDP: one socket for every peer, no connection, a datagram
# each way (the client's wait is linked to the server's send of each reply)
for w in truthserve truthpool truthserve-udp; do
  daemon=${w%-udp} opt=
  [ $w = $daemon ] || opt=--udp
  start_daemon $daemon "$T/$w.jsonl" $opt
  t0=$(ticks)
  # the daemon is no process of the target's: -F samples it (4999 Hz, as a user
  # measuring a daemon's functions would raise it; truth.py's tolerances follow)
  RSP_TRUTH="$T/$w.jsonl" "$RSP" record -F 4999 --target-freq 9999 -o "$T/$w.data" -- \
    "$WL/truthclient" $opt --stop "$T/port" 300 \
    >"$T/$w.rec" 2>&1 || { kill $server 2>/dev/null; cat "$T/$w.rec"; fail "$w: rsp record failed"; }
  wait $server || { cat "$T/serve.out"; fail "$w did not stop cleanly"; }
  export TRUTH_STEAL=$(steal_since "$t0")
  judge $w
done
# two clients of truthserve at once (issue 20): the target's requests queue behind
# the other client's; the server measures that queueing per connection (over UDP,
# per peer: one socket serves both, its requests told apart by the socket each
# datagram was sent from).  And of truthpool: there the target's request waits in
# the queue while the worker that takes it serves the other's, and for store_lock
# while the other's request holds it
for w in truthserve2 truthserve2-udp truthpool2; do
  opt= daemon=truthserve
  [ $w != truthserve2-udp ] || opt=--udp
  [ $w != truthpool2 ] || daemon=truthpool
  start_daemon $daemon "$T/$w.jsonl" $opt
  # the other client outlives the recorded one whatever the recorder's set-up took
  # (1500 requests were over before it on a loaded machine: nothing queued), then
  # is stopped; its side file is not read (no line: it was killed)
  timeout 100 "$WL/truthclient" $opt "$T/port" 20000 >"$T/other.out" 2>&1 &
  other=$!
  sleep 0.1
  t0=$(ticks)
  RSP_TRUTH="$T/$w.jsonl" "$RSP" record -F 4999 --target-freq 9999 -o "$T/$w.data" -- \
    "$WL/truthclient" $opt "$T/port" 300 >"$T/$w.rec" 2>&1 ||
    { kill $other $server 2>/dev/null; cat "$T/$w.rec"; fail "$w: rsp record failed"; }
  kill -0 $other 2>/dev/null || { cat "$T/other.out"; kill $server 2>/dev/null; fail "the other client ended early"; }
  kill $other
  wait $other 2>/dev/null || true
  "$WL/truthclient" $opt --stop "$T/port" 1 >/dev/null 2>&1 || { kill $server 2>/dev/null; fail "stop"; }
  wait $server || { cat "$T/serve.out"; fail "$daemon did not stop cleanly"; }
  export TRUTH_STEAL=$(steal_since "$t0")
  judge $w
done
# a daemon whose main thread hands each request to its own fsync thread and waits for
# it (issue 45), recorded as its users record a daemon: `rsp record -p` of it while a
# truthclient sends 300 requests (the daemon exits at the client's stop request, and
# the recording with it)
w=truthfsyncd
start_daemon $w "$T/$w.jsonl"
dpid=$(pgrep -P "$server" -x truthfsyncd) || { kill $server; fail "$w: no daemon under timeout"; }
t0=$(ticks)
timeout --foreground 100 "$RSP" record -v -F 4999 --target-freq 9999 -p "$dpid" -o "$T/$w.data" \
  >"$T/$w.rec" 2>&1 &
rec=$!
i=0
while ! grep -q 'set up in' "$T/$w.rec" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
grep -q 'set up in' "$T/$w.rec" || { kill $server $rec; cat "$T/$w.rec"; fail "$w: rsp record -p did not start"; }
RSP_TRUTH="$T/$w.jsonl" timeout 100 "$WL/truthclient" --stop "$T/port" 300 >"$T/client.out" 2>&1 ||
  { kill $server $rec 2>/dev/null; cat "$T/client.out"; fail "$w: the client failed"; }
wait $server || { cat "$T/serve.out"; kill $rec 2>/dev/null; fail "$w did not stop cleanly"; }
wait $rec || { cat "$T/$w.rec"; fail "$w: rsp record failed"; }
export TRUTH_STEAL=$(steal_since "$t0")
judge $w
exit $status
