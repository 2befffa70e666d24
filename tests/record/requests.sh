#!/bin/sh
# rsp report --requests against a server's own account (issue 20): truthserve, an
# epoll daemon started before the recording as daemons are, recorded with
# `rsp record -p PID` while truthclient makes N requests, one at a time, wholly
# inside the recording; the recorder is stopped (SIGINT) after the client is done.
# The server times each request itself (CLOCK_MONOTONIC from after the recv() to
# after the reply's send(); its fdatasync() calls too); tests/record/requests.py
# compares: the count exactly, the percentiles and the fdatasync share within the
# tolerances it states.
. "$(dirname "$0")/lib.sh"

N=400
# no timeout(1) around it: -p takes its pid (it gives up by itself after 120 s)
RSP_TRUTH="$T/serve.jsonl" "$WL/truthserve" "$T/port" >"$T/serve.out" 2>&1 &
server=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$T/port" ] || { kill $server 2>/dev/null; cat "$T/serve.out"; fail "truthserve did not start"; }
# -v says "set up in ..." once the events are on: the client starts after it
timeout 100 "$RSP" record -v --target-freq 999 -p $server -o "$T/s.data" >"$T/rec.out" 2>&1 &
rec=$!
i=0
while ! grep -q 'set up in' "$T/rec.out" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
grep -q 'set up in' "$T/rec.out" || { kill $server $rec 2>/dev/null; cat "$T/rec.out"; fail "rsp record did not start"; }
sleep 0.2
RSP_TRUTH="$T/client.jsonl" timeout 60 "$WL/truthclient" "$T/port" $N >"$T/client.out" 2>&1 ||
  { kill $server $rec 2>/dev/null; cat "$T/client.out"; fail "truthclient failed"; }
sleep 0.2
kill -INT $rec
wait $rec || { kill $server 2>/dev/null; cat "$T/rec.out"; fail "rsp record failed"; }
# SIGTERM: the server writes its side file and exits 0
kill -TERM $server
wait $server || { cat "$T/serve.out"; fail "truthserve did not stop cleanly"; }
"$RSP" report "$T/s.data" --requests --format json --top 3 >"$T/req.json" ||
  fail "rsp report --requests failed"
"$RSP" report "$T/s.data" --requests >"$T/req.txt" || fail "rsp report --requests (text) failed"
sed -n '1,20p' "$T/req.txt" | sed 's/^/# /'
"$RSP" export "$T/s.data" --folded pseudo -o "$T/s.folded" || fail "rsp export failed"
python3 "$(dirname "$0")/requests.py" "$T/req.json" "$T/s.folded" "$T/serve.jsonl" \
  "$T/client.jsonl" $N
