#!/bin/sh
# A daemon's own report (issue 45): real servers recorded as their users record them,
# `rsp record -p PID` of a server started first, its clients running part of the
# recording, then plain `rsp report`: its idle time idle, the rest accounted and
# explained, no polling advice, its requests' paragraph first, their count against
# the server's or the client's own.
#   redis      appendonly, an fsync per write (appendfsync always); redis-benchmark
#              -c 1 SETs for 3 s of the 6; truth: the server's count of SETs executed
#   postgres   15, `rsp record -p` of the postmaster while `pgbench -c 2 -T 2` runs
#              (its backends, forked during the recording, serve it); truth: pgbench's
#              transactions, 7 statements each (its built-in tpcb-like script)
#   nginx      a master and 2 workers (forked before the recording), `ab -n 3000 -c 2`
#              of a 4 KiB file; truth: ab's complete requests
# Servers on 127.0.0.1 only, their files in the test's directory, each under
# timeout(1) and stopped after; the checks and their numbers: daemons.py.
. "$(dirname "$0")/lib.sh"

PY="$(dirname "$0")/daemons.py"
status=0
# every server stopped, whatever failed (each also under timeout 120: its wrapper killed)
cleanup() {
  if [ -n "${REDIS_PORT-}" ]; then redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true; fi
  if [ -n "${PG_DIR-}" ]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/db" stop -m immediate >/dev/null 2>&1 || true
  fi
  if [ -n "${NGINX_PID-}" ]; then kill "$NGINX_PID" 2>/dev/null || true; fi
  for w in ${REDIS_BG-} ${PG_BG-} ${NGINX_BG-}; do kill "$w" 2>/dev/null || true; done
  [ -n "${RSP_TEST_KEEP-}" ] || rm -rf "$T"
}
trap cleanup EXIT
# Debian's postgresql: the newest server installed
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
for need in redis-server redis-cli redis-benchmark nginx ab "$PG_BIN/postgres" pgbench; do
  command -v "$need" >/dev/null 2>&1 ||
    skip "$need is not installed (setup.sh installs redis-server, postgresql, nginx, apache2-utils)"
done

# a TCP port on 127.0.0.1 nothing listens on (from one derived from our pid)
free_port() {
  p=$((20000 + ($$ * 7 + $1) % 20000))
  while ss -Htln "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
  echo $p
}

# rsp record -p $1 for $2 s into $3.data; waits until its events are on (its -v line)
record() {
  timeout --foreground 60 "$RSP" record -v -p "$1" -d "$2" -o "$3.data" >"$3.rec" 2>&1 &
  REC=$!
  i=0
  while ! grep -q 'set up in' "$3.rec" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  grep -q 'set up in' "$3.rec" || { cat "$3.rec"; fail "rsp record -p $1 did not start"; }
}

# the report of $1.data in text and JSON, the text's head shown; daemons.py judges them
judge() { # name, truth words...
  n=$1
  shift
  "$RSP" report "$T/$n.data" >"$T/$n.txt" 2>"$T/$n.err" || { cat "$T/$n.err"; fail "rsp report $n"; }
  "$RSP" report "$T/$n.data" --format json --top 0 >"$T/$n.json" 2>/dev/null ||
    fail "rsp report --format json $n"
  note "$n: rsp report's head"
  sed -n '1,12p' "$T/$n.txt" | sed 's/^/#   /'
  python3 "$PY" "$n" "$T/$n.txt" "$T/$n.json" "$@" || status=1
}

# ---- redis: an event loop, its cron every 100 ms, an fsync per write ------------------------
REDIS_PORT=$(free_port 1)
mkdir "$T/redis"
timeout 120 redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$T/redis" --appendonly yes \
  --appendfsync always --save '' --daemonize no >"$T/redis/log" 2>&1 &
REDIS_BG=$!
i=0
while ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rpid=$(redis-cli -p "$REDIS_PORT" info server | tr -d '\r' | sed -n 's/^process_id://p')
[ -n "$rpid" ] || { cat "$T/redis/log"; fail "redis-server did not start"; }
sleep 0.5
# the SETs the server executed (its own count; none before the benchmark)
sets() {
  n=$(redis-cli -p "$REDIS_PORT" info commandstats | tr -d '\r' |
    sed -n 's/^cmdstat_set:calls=\([0-9]*\),.*/\1/p')
  echo "${n:-0}"
}
before=$(sets)
record "$rpid" 6 "$T/redis"
sleep 1.5
# SETs for 3 s (the machine's speed sets how many): over 1.5 s before the recording
# ends, so every command the server counts below was served inside it
rc=0
timeout -s INT 3 redis-benchmark -p "$REDIS_PORT" -c 1 -n 1000000 -t set -q >"$T/redis/bench" 2>&1 ||
  rc=$?
[ $rc -eq 0 ] || [ $rc -eq 124 ] || { cat "$T/redis/bench"; fail "redis-benchmark failed ($rc)"; }
wait $REC || { cat "$T/redis.rec"; fail "rsp record -p redis failed"; }
after=$(sets)
redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1
REDIS_PORT=
wait "$REDIS_BG" 2>/dev/null || true
REDIS_BG=
# the requests inside the recording: each SET, and the two CONFIG GETs redis-benchmark
# sends together on a connection of its own as it starts (one read, one reply: one request)
note "redis: the server executed $((after - before)) SETs during the recording"
judge redis "requests=$((after - before + 1))" "client=redis-benchmark"

# ---- PostgreSQL: the postmaster, its background processes, the backends it forks -----------
PG_DIR="$T/pg"
PG_PORT=$(free_port 2)
chmod 711 "$T" # the postgres user reaches its directory through ours
mkdir "$PG_DIR"
chown postgres "$PG_DIR"
runuser -u postgres -- "$PG_BIN/initdb" -D "$PG_DIR/db" -A trust >"$PG_DIR/initdb.log" 2>&1 ||
  { cat "$PG_DIR/initdb.log"; fail "initdb failed"; }
runuser -u postgres -- timeout 120 "$PG_BIN/postgres" -D "$PG_DIR/db" -p "$PG_PORT" -k "$PG_DIR" \
  -c listen_addresses=127.0.0.1 >"$PG_DIR/log" 2>&1 &
PG_BG=$!
i=0
while ! "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pm=$(head -1 "$PG_DIR/db/postmaster.pid" 2>/dev/null)
[ -n "$pm" ] || { cat "$PG_DIR/log"; fail "postgres did not start"; }
runuser -u postgres -- timeout 60 pgbench -q -i -s 1 -h 127.0.0.1 -p "$PG_PORT" postgres \
  >"$PG_DIR/init" 2>&1 || { cat "$PG_DIR/init"; fail "pgbench -i failed"; }
sleep 1
record "$pm" 6 "$T/pg"
sleep 1.5
runuser -u postgres -- timeout 30 pgbench -c 2 -T 2 -h 127.0.0.1 -p "$PG_PORT" postgres \
  >"$PG_DIR/bench" 2>&1 || { cat "$PG_DIR/bench"; fail "pgbench failed"; }
wait $REC || { cat "$T/pg.rec"; fail "rsp record -p postmaster failed"; }
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/db" stop -m fast >/dev/null 2>&1
PG_DIR=
wait "$PG_BG" 2>/dev/null || true
PG_BG=
tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pg/bench")
[ -n "$tx" ] || { cat "$T/pg/bench"; fail "no transaction count in pgbench's output"; }
judge pg "statements=$((tx * 7))" "client=pgbench"

# ---- nginx: a master asleep, two workers forked before the recording ------------------------
N_PORT=$(free_port 3)
d="$T/nginx"
mkdir -p "$d/html" "$d/logs" "$d/tmp"
head -c 3072 /dev/urandom | base64 >"$d/html/index.html"
cat >"$d/nginx.conf" <<EOF
worker_processes 2;
pid $d/nginx.pid;
error_log $d/logs/error.log;
daemon off;
events { worker_connections 256; }
http {
  access_log $d/logs/access.log;
  client_body_temp_path $d/tmp; proxy_temp_path $d/tmp; fastcgi_temp_path $d/tmp;
  uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
  server { listen 127.0.0.1:$N_PORT; root $d/html; }
}
EOF
timeout 120 nginx -c "$d/nginx.conf" -p "$d" >"$d/out" 2>&1 &
NGINX_BG=$!
i=0
while [ ! -s "$d/nginx.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
NGINX_PID=$(cat "$d/nginx.pid" 2>/dev/null)
[ -n "$NGINX_PID" ] || { cat "$d/out" "$d/logs/error.log"; fail "nginx did not start"; }
sleep 0.5
record "$NGINX_PID" 6 "$T/nginx"
sleep 1.5
timeout 30 ab -q -n 3000 -c 2 "http://127.0.0.1:$N_PORT/index.html" >"$d/ab" 2>&1 ||
  { cat "$d/ab"; fail "ab failed"; }
wait $REC || { cat "$T/nginx.rec"; fail "rsp record -p nginx failed"; }
kill "$NGINX_PID"
NGINX_PID=
wait "$NGINX_BG" 2>/dev/null || true
NGINX_BG=
done_req=$(sed -n 's/^Complete requests: *\([0-9]*\).*/\1/p' "$d/ab")
[ -n "$done_req" ] || { cat "$d/ab"; fail "no request count in ab's output"; }
judge nginx "requests=$done_req" "client=ab"
exit $status
