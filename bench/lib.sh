# Shared by bench/record.sh and bench/cost.sh: their arguments (BUILD_DIR,
# ROUNDS) and checks, a scratch directory (W) and its cleanup, the event set,
# the floor, the servers, the workloads' commands and their figures.  Sourced
# with the script's arguments after `here` (bench/) and WORKLOADS are set.
me=$(basename "$0")
B=$(cd "${1:-$here/../build}" && pwd)
ROUNDS=${2:-5}
RSP=$B/cli/rsp
TCP=$B/bench/tcp-pingpong
[ "$(id -u)" -eq 0 ] || { echo "$me: run as root (the recorders trace system-wide)" >&2; exit 1; }
[ -x "$RSP" ] && [ -x "$TCP" ] || { echo "$me: build first: ./setup.sh" >&2; exit 1; }
command -v perf >/dev/null || { echo "$me: perf not found: apt-get install linux-perf" >&2; exit 1; }
TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS

# scratch on a real disk: O_DIRECT needs one, and the recordings are large
W=$(mktemp -d /var/tmp/rsp-bench.XXXXXX)
chmod 755 "$W" # the servers' users read their files here
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
cleanup() {
  [ -n "${PGBIN:-}" ] && [ -d "$W/pg" ] && su postgres -c "$PGBIN/pg_ctl -D $W/pg -m fast stop" >/dev/null 2>&1 || true
  [ -f "$W/nginx.pid" ] && kill "$(cat "$W/nginx.pid")" 2>/dev/null || true
  [ -d "$TRACEFS/instances/rsp-floor-$$" ] && { echo 0 >"$TRACEFS/instances/rsp-floor-$$/tracing_on"; rmdir "$TRACEFS/instances/rsp-floor-$$"; } 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT INT TERM

# rsp's event set, as perf -e arguments and as tracefs paths: the tracepoints this kernel has
EV=""
for e in $(awk '!/^#/ && NF >= 3 && $1 != "alt" && $2 ~ /:/ { print $2 }' "$here/../probes/events.conf"); do
  sys=${e%%:*}; name=${e#*:}
  [ -d "$TRACEFS/events/$sys/$name" ] && EV="$EV,$e"
done
EV=${EV#,}
PERF_EV="$EV,cpu-clock/period=1001001/"

floor_on() {
  f=$TRACEFS/instances/rsp-floor-$$
  mkdir "$f"
  for e in $(echo "$EV" | tr , ' '); do echo 1 >"$f/events/${e%%:*}/${e#*:}/enable"; done
  echo 1 >"$f/tracing_on"
}
floor_off() {
  f=$TRACEFS/instances/rsp-floor-$$
  echo 0 >"$f/tracing_on"
  rmdir "$f"
}

# --- the servers -------------------------------------------------------------------
needs() { # workload -> 0 if it can run here, else a line why
  case $1 in
  pgbench*) [ -n "$PGBIN" ] && command -v pgbench >/dev/null || { echo "no PostgreSQL (apt-get install postgresql)"; return 1; } ;;
  nginx*) command -v nginx >/dev/null && command -v ab >/dev/null || { echo "no nginx or ab (apt-get install nginx apache2-utils)"; return 1; } ;;
  make) command -v make >/dev/null && command -v gcc >/dev/null || { echo "no make or gcc"; return 1; } ;;
  esac
  return 0
}

pg_start() {
  mkdir -p "$W/pg" && chown postgres "$W" "$W/pg"
  su postgres -c "$PGBIN/initdb -D $W/pg -A trust" >"$W/pg.init" 2>&1
  su postgres -c "$PGBIN/pg_ctl -D $W/pg -o '-p 5499 -k $W -c listen_addresses= -c synchronous_commit=on' -w start" >"$W/pg.start" 2>&1
  su postgres -c "createdb -h $W -p 5499 bench && pgbench -q -i -s 2 -h $W -p 5499 bench" >"$W/pg.initb" 2>&1
  PGPID=$(head -1 "$W/pg/postmaster.pid")
}
nginx_start() {
  mkdir -p "$W/www" && head -c 4096 /dev/urandom >"$W/www/f"
  cat >"$W/nginx.conf" <<EOF
worker_processes 2;
pid $W/nginx.pid;
error_log $W/nginx.err;
events { worker_connections 256; }
http {
  access_log off;
  server { listen 127.0.0.1:8099; root $W/www; }
}
EOF
  nginx -c "$W/nginx.conf"
  for i in $(seq 50); do [ -s "$W/nginx.pid" ] && break; sleep 0.1; done
  NGPID=$(cat "$W/nginx.pid")
}
make_tree() { # eight C files, each a fraction of a second of -O2
  mkdir -p "$W/tree"
  for i in $(seq 1 8); do
    {
      echo "int f$i(int x);"
      for j in $(seq 1 40); do
        echo "static int g${j}(int x) { int s = 0; for (int k = 0; k < x; k++) s += (k * $j) ^ (s >> 3); return s; }"
      done
      echo "int f$i(int x) { return 0"
      for j in $(seq 1 40); do echo " + g${j}(x + $j)"; done
      echo "; }"
    } >"$W/tree/f$i.c"
  done
  echo "int main(void) { return 0; }" >"$W/tree/main.c"
  printf 'OBJ = %s main.o\nall: prog\nprog: $(OBJ)\n\t$(CC) -o $@ $(OBJ)\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\nclean:\n\trm -f *.o prog\n' \
    "$(seq -f 'f%g.o' 1 8 | tr '\n' ' ')" >"$W/tree/Makefile"
}

# --- one run --------------------------------------------------------------------------
# the workload's command; for a -p workload, its client
workload() {
  case $1 in
  pipe) echo "perf bench sched pipe -l 100000" ;;
  tcp) echo "$TCP 20000" ;;
  dd) echo "dd if=$W/dd.in of=/dev/null bs=4k count=16000 iflag=direct 2>&1" ;;
  messaging) echo "perf bench sched messaging -g 10 -l 100" ;;
  make) echo "sh -c 'make -s -C $W/tree clean; T0=\$(date +%s.%N); make -s -j2 -C $W/tree; echo \"wall \$(date +%s.%N) \$T0\"'" ;;
  pgbench*) echo "su postgres -c 'pgbench -n -N -c 1 -T 4 -h $W -p 5499 bench'" ;;
  nginx*) echo "ab -q -n 20000 -c 2 http://127.0.0.1:8099/f" ;;
  esac
}

# the figure, in seconds per unit of work (more is slower), from the output
figure() {
  sed -n -e 's/.*Total time: *\([0-9.]*\).*/\1/p' \
    -e 's/.*copied, \([0-9.e-]*\) s,.*/\1/p' \
    -e 's/^wall \([0-9.]*\) \([0-9.]*\)$/\1 \2/p' \
    -e 's/^latency average = \([0-9.]*\) ms$/\1/p' \
    -e 's/^Requests per second: *\([0-9.]*\) .*/R \1/p' "$1" | tail -1 |
    awk '$1 == "R" { print 1 / $2; next } NF == 2 { print $1 - $2; next } { print $1 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run WORKLOAD NAME ROUND KIND [ARGS...]: the workload once, as KIND says:
#   base             alone
#   floor            with the floor on (an ftrace instance, nobody reading)
#   perf ARGS        under perf record -a ARGS -e <the event set>
#   rsp ARGS         under rsp record ARGS (ARGS may start with VAR=VALUE words)
# A -p workload's recorder is started before its client (rsp: until it says it
# is set up) and stopped after it.  Appends "NAME figure" to $W/WORKLOAD.times;
# keeps round 1's recording as $W/WORKLOAD.NAME.1.data, its stderr in .rec.
run() {
  w=$1; m=$2; r=$3; kind=$4; shift 4
  out=$W/$w.$m.$r; cmd=$(workload "$w"); envs=""
  while [ $# -gt 0 ] && [ "${1#*=}" != "$1" ]; do envs="$envs $1"; shift; done
  case $w in
  *-p)
    pid=$PGPID; [ "$w" = nginx-p ] && pid=$NGPID
    case $kind in
    perf) perf record -q -a "$@" -e "$PERF_EV" -o "$out.data" >"$out.rec" 2>&1 & rp=$!; sleep 1 ;;
    rsp)
      env $envs "$RSP" record -v -p "$pid" "$@" -o "$out.data" >"$out.rec" 2>&1 & rp=$!
      for i in $(seq 100); do grep -q 'set up in' "$out.rec" && break; sleep 0.1; done ;;
    floor) floor_on ;;
    esac
    sh -c "$cmd" >"$out.out" 2>&1
    case $kind in
    perf | rsp) kill -INT $rp; wait $rp || true ;;
    floor) floor_off ;;
    esac ;;
  *)
    case $kind in
    base) sh -c "$cmd" >"$out.out" 2>&1 ;;
    floor) floor_on; sh -c "$cmd" >"$out.out" 2>&1; floor_off ;;
    perf) perf record -q -a "$@" -e "$PERF_EV" -o "$out.data" -- sh -c "$cmd" >"$out.out" 2>"$out.rec" ;;
    rsp) env $envs "$RSP" record "$@" -o "$out.data" -- sh -c "$cmd" >"$out.out" 2>"$out.rec" ;;
    esac ;;
  esac
  t=$(figure "$out.out")
  [ -n "$t" ] || { echo "bench: $w under $m printed no figure:" >&2; cat "$out.out" "$out.rec" >&2 2>/dev/null || true; exit 1; }
  echo "$m $t" >>"$W/$w.times"
  if [ "$kind" != base ] && [ "$r" -gt 1 ]; then rm -f "$out.data"; fi
}

# The workloads of $1 that can run here (the others said on stderr), their
# servers started and their files made: into RUN
prepare() {
  RUN=""
  for w in $1; do
    if why=$(needs "$w"); then RUN="$RUN $w"; else echo "bench: $w skipped: $why" >&2; fi
  done
  case " $RUN " in *" dd "*) dd if=/dev/urandom of="$W/dd.in" bs=1M count=64 status=none; sync ;; esac
  case " $RUN " in *" make "*) make_tree ;; esac
  case " $RUN " in *" pgbench"*) pg_start ;; esac
  case " $RUN " in *" nginx"*) nginx_start ;; esac
}
