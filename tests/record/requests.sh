#!/bin/sh
# rsp report --requests against a server's own account (issue 20): truthserve, an
# epoll daemon started before the recording as daemons are, recorded with
# `rsp record -p PID` while truthclient makes N requests, one at a time, wholly
# inside the recording; the recorder is stopped (SIGINT) after the client is done.
# Then the same with two clients at once (two connections served in turn by the
# one thread), and truthpool with one client (its I/O thread receives, one of its
# workers replies: the requests' table follows the hand-off), and truthserve --udp
# with one client and two (one UDP socket for every peer, one datagram each way).
# The server times each request itself (CLOCK_MONOTONIC from after
# the recv() to after the reply's send(); its fdatasync() calls too);
# tests/record/requests.py compares: the count exactly, the percentiles (and each
# client's requests as it saw them against its own latencies) and the
# fdatasync share within the tolerances it states.
. "$(dirname "$0")/lib.sh"

N=400
status=0
# truthpool, the thread-pool daemon (an I/O thread receives, a worker replies), one client
# truthserve --udp with one client and two: one socket for every peer; a request is
# a datagram received to the last reply sent before the next one is received
# "early": the client connects before the recording and starts its requests once
# the recorder is set up (a daemon's long-lived connection: no state change in the
# file names its peer; rsp learns it from the data, builder-net.c)
# "veth": the daemon in a network namespace of its own behind a veth pair, the
# client in this one (two hosts' stacks on one machine; veth delivers as loopback
# does, in a softirq inside the sender's send)
ns=rsp-req-$$ va=rspa$$ vb=rspb$$ net=10.231.$(($$ % 250))
trap 'ip netns del $ns 2>/dev/null || true; ip link del $va 2>/dev/null || true; [ -n "${RSP_TEST_KEEP-}" ] || rm -rf "$T"' EXIT
for run in "truthserve 1" "truthserve 2" "truthpool 1" "truthserve 1 --udp" "truthserve 2 --udp" \
  "truthserve 1 early" "truthserve 1 veth"; do
  set -- $run
  daemon=$1 clients=$2 opt=${3-} early= veth= inns=
  [ "$opt" = early ] && { opt= early=1; }
  [ "$opt" = veth ] && { opt= veth=1; }
  d="$T/$daemon$clients${opt#--}${early:+early}${veth:+veth}"
  mkdir "$d"
  if [ -n "$veth" ]; then
    ip netns add $ns && ip link add $va type veth peer name $vb && ip link set $vb netns $ns &&
      ip addr add $net.1/24 dev $va && ip link set $va up &&
      ip netns exec $ns ip addr add $net.2/24 dev $vb && ip netns exec $ns ip link set $vb up &&
      ip netns exec $ns ip link set lo up || fail "could not make a network namespace with a veth pair"
    export RSP_WL_BIND=$net.2 RSP_WL_HOST=$net.2
    inns="ip netns exec $ns"
  fi
  # no timeout(1) around it: -p takes its pid (it gives up by itself after 120 s);
  # ip netns exec execs it (the same pid)
  RSP_TRUTH="$d/serve.jsonl" $inns "$WL/$daemon" $opt "$d/port" >"$d/serve.out" 2>&1 &
  server=$!
  i=0
  while [ ! -s "$d/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -s "$d/port" ] || { kill $server 2>/dev/null; cat "$d/serve.out"; fail "$daemon did not start"; }
  pids=""
  if [ -n "$early" ]; then
    for c in $(seq $clients); do
      RSP_TRUTH_EACH="$d/each.txt" RSP_TRUTH="$d/client.jsonl" timeout 60 "$WL/truthclient" --go "$d/go" "$d/port" $N \
        >"$d/client$c.out" 2>&1 &
      pids="$pids $!"
    done
    sleep 0.2 # connected
  fi
  # -v says "set up in ..." once the events are on: the clients start after it
  # --foreground: timeout(1) passes our SIGINT to its process group too, and a
  # second signal stops rsp record at once, dropping what is queued (most of
  # the file under load)
  timeout --foreground 100 "$RSP" record -v -p $server -o "$d/s.data" >"$d/rec.out" 2>&1 &
  rec=$!
  i=0
  while ! grep -q 'set up in' "$d/rec.out" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  grep -q 'set up in' "$d/rec.out" ||
    { kill $server $rec 2>/dev/null; cat "$d/rec.out"; fail "rsp record did not start"; }
  sleep 0.2
  if [ -n "$early" ]; then
    touch "$d/go"
  else
    for c in $(seq $clients); do
      RSP_TRUTH_EACH="$d/each.txt" RSP_TRUTH="$d/client.jsonl" timeout 60 "$WL/truthclient" $opt "$d/port" $N >"$d/client$c.out" 2>&1 &
      pids="$pids $!"
    done
  fi
  for p in $pids; do
    wait $p || { kill $server $rec 2>/dev/null; cat "$d"/client*.out; fail "truthclient failed"; }
  done
  sleep 0.2
  kill -INT $rec
  wait $rec || { kill $server 2>/dev/null; cat "$d/rec.out"; fail "rsp record failed"; }
  # SIGTERM: the server writes its side file and exits 0
  kill -TERM $server
  wait $server || { cat "$d/serve.out"; fail "$daemon did not stop cleanly"; }
  # --top 0: every contributor (the fdatasync share sums the CPU ones in it)
  "$RSP" report "$d/s.data" --requests --format json --top 0 >"$d/req.json" ||
    fail "rsp report --requests failed"
  "$RSP" report "$d/s.data" --requests >"$d/req.txt" || fail "rsp report --requests (text) failed"
  note "$daemon${opt:+ $opt}, $clients client(s)${early:+, connected before the recording}${veth:+, over a veth pair from another network namespace}:"
  sed -n '1,20p' "$d/req.txt" | sed 's/^/#   /'
  # the plain report's paragraph of requests (issue 45): only for a process known to
  # serve in the recording (it accepted a connection, or its client was seen
  # connecting): the TCP daemons here (a UDP server accepts nothing: not known, no
  # paragraph yet); not one whose connections all predate the recording (early), nor
  # their client: a client's connection made before the recording looks served (its
  # first call a send answering nothing seen, then a reply received and the next
  # request sent), 399 "requests" without the rule
  "$RSP" report "$d/s.data" >"$d/plain.txt" || fail "rsp report (plain) failed"
  "$RSP" report "$d/s.data" --format json --top 0 >"$d/plain.json" || fail "rsp report --format json failed"
  if [ -n "$early" ]; then
    cpid=$(python3 -c 'import json, sys
print(next(json.loads(l)["pid"] for l in open(sys.argv[1]) if "stats" not in l))' "$d/client.jsonl") ||
      fail "no truthclient line in the side file"
    "$RSP" report "$d/s.data" --target "$cpid" >"$d/client.txt" || fail "rsp report --target $cpid failed"
    "$RSP" report "$d/s.data" --target "$cpid" --format json --top 0 >"$d/client.json" ||
      fail "rsp report --target $cpid --format json failed"
    for f in plain client; do
      who="the server"
      [ $f = plain ] || who="its client"
      ! grep -q '^  A server:' "$d/$f.txt" && ! grep -q '"requests": *{' "$d/$f.json" ||
        { sed -n '1,6p' "$d/$f.txt"; fail "a requests paragraph in the plain report of $who, connected before the recording"; }
    done
    note "no requests paragraph in the plain reports of the server and its client, connected before the recording"
  elif [ -z "$opt" ]; then
    grep -q '^  A server:' "$d/plain.txt" && grep -q '"requests": *{' "$d/plain.json" ||
      { sed -n '1,6p' "$d/plain.txt"; fail "no requests paragraph in the server's plain report"; }
    note "$(grep '^  A server:' "$d/plain.txt" | sed 's/^ *//')"
  fi
  "$RSP" export "$d/s.data" --folded pseudo -o "$d/s.folded" || fail "rsp export failed"
  python3 "$(dirname "$0")/requests.py" "$d/req.json" "$d/s.folded" "$d/serve.jsonl" \
    "$d/client.jsonl" $((N * clients)) $clients $daemon ${opt#--} || status=1
  unset RSP_WL_BIND RSP_WL_HOST
done
# a back end behind a unix socket, called once per request by another process of
# the recording (truthrpc: trpc-server -> trpc-backend); its requests against the
# caller's own timing of its calls
d="$T/callee"
mkdir "$d"
RSP_TRUTH="$d/rpc.jsonl" "$RSP" record -o "$d/r.data" -- "$WL/truthrpc" 120 >"$d/rec.out" 2>&1 ||
  { cat "$d/rec.out"; fail "rsp record -- truthrpc failed"; }
# by its pid: the recording holds every process, another run of truthrpc's too
backend=$(python3 -c 'import json, sys
print(next(json.loads(l)["pid"] for l in open(sys.argv[1]) if "trpc-backend" in l))' "$d/rpc.jsonl") ||
  fail "no trpc-backend line in the side file"
"$RSP" report "$d/r.data" --requests --target "$backend" --format json >"$d/req.json" ||
  fail "rsp report --requests --target $backend (trpc-backend) failed"
note "truthrpc's back end, called over a unix socket:"
"$RSP" report "$d/r.data" --requests --target "$backend" | sed -n '/Latency/,/^$/p' | sed 's/^/#   /'
python3 "$(dirname "$0")/requests.py" --callee "$d/req.json" "$d/rpc.jsonl" trpc-server 120 || status=1
exit $status
