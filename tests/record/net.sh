#!/bin/sh
# Record the RPC chain: socket sends, data-ready and state changes carry the
# sockets and the TCP port that connects client and server.
. "$(dirname "$0")/lib.sh"

"$RSP" record -o "$T/r.data" -- "$WL/rpcchain" 2>"$T/sum" || fail "rsp record exited $?"
cat "$T/sum"
perf script -i "$T/r.data" >"$T/script" 2>"$T/err" || fail "perf script failed"
[ ! -s "$T/err" ] || { cat "$T/err"; fail "perf script printed errors or warnings"; }
sends=$(grep -c 'sock:sock_send_length:.*family = AF_INET protocol = IPPROTO_TCP' "$T/script" || true)
[ "$sends" -ge 120 ] || fail "only $sends TCP sends (client and server send 60 each)"
unix=$(grep -c 'sock:sock_send_length:.*family = 0x1 ' "$T/script" || true)
[ "$unix" -ge 120 ] || fail "only $unix unix-socket sends (server and backend send 60 each)"
ready=$(grep -c 'sock:sk_data_ready:' "$T/script" || true)
[ "$ready" -ge 120 ] || fail "only $ready data-ready events"
# the connection: a state change to ESTABLISHED on 127.0.0.1 with both ports
grep -Eq 'inet_sock_set_state:.*sport=[0-9]+ dport=[0-9]+ saddr=127.0.0.1 daddr=127.0.0.1.*newstate=TCP_ESTABLISHED' "$T/script" ||
  fail "no TCP_ESTABLISHED state change on 127.0.0.1"
# the backend's fsync reached the disk
r=$(col "$T/sum" recorded block:block_rq_complete)
[ "$r" -ge 60 ] || fail "only $r block completions for 60 fsyncs"
note "ok: $sends TCP sends, $unix unix sends, $ready data-ready"
