#!/bin/sh
# rsp set-up for Debian 12, as root.  Idempotent: safe to run again.
#
#   ./setup.sh          install what is missing, build (build/, warnings are errors)
#   ./setup.sh demo     ... then record the demo workload and explain it
#   ./setup.sh test     ... then run the whole test suite, the unit and fuzz
#                       suites and the bad-input matrix again under
#                       AddressSanitizer/UBSan (build-asan/), and
#                       the unit tests of threaded code under ThreadSanitizer
#                       (build-tsan/: loading's threads, the writer, the unwinder's, the layout's)
#
# What it does: installs the Debian build dependencies that are missing;
# builds libperf from Debian's linux-source-6.1 into /usr/local when
# pkg-config finds no libperf; mounts tracefs if needed; configures and builds
# with meson.
set -eu

cd "$(dirname "$0")"
MODE=${1:-build}
case "$MODE" in
build|demo|test) ;;
*) echo "usage: $0 [build|demo|test]" >&2; exit 2 ;;
esac

say() { printf 'setup: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  say "run as root: rsp installs packages, builds libperf into /usr/local and records with perf"
  exit 1
fi

# --- Debian packages ------------------------------------------------------------
# libbpf-dev, bpftool (and clang): rsp record's BPF program (collector/sched.bpf.c);
# protobuf-c: rsp export --pprof; protoc, python3-protobuf and golang-go (go tool pprof):
# its tests read the profiles back.  groff, zsh, desktop-file-utils, appstream,
# shared-mime-info, gio: the install test reads the man pages, completions and desktop files;
# dpkg-dev, debhelper, fakeroot, lintian: the Debian packages (scripts/deb.sh);
# redis-server, redis-tools, postgresql, nginx, apache2-utils (ab): record-daemons records
# real servers (each its own instance on 127.0.0.1, started and stopped by the test);
# nodejs: record-jit records a JIT runtime (--perf-basic-prof); time: record-cmdline
# measures each compile of its build with /usr/bin/time
PKGS="meson ninja-build pkg-config gcc g++ clang python3 libc6-dev binutils
  libtraceevent-dev libtracefs-dev libelf-dev libdw-dev libdebuginfod-dev libglib2.0-dev
  libbpf-dev bpftool
  libzstd-dev zlib1g-dev libbz2-dev liblzma-dev libcairo2-dev libgtk-4-dev linux-source-6.1 flex bison make xz-utils
  xvfb xauth xdotool imagemagick x11-apps libxml2-utils
  libclang-rt-14-dev linux-perf
  libprotobuf-c-dev protobuf-c-compiler protobuf-compiler python3-protobuf golang-go
  groff-base zsh desktop-file-utils appstream shared-mime-info libglib2.0-bin
  dpkg-dev debhelper fakeroot lintian libpango1.0-dev
  redis-server redis-tools postgresql nginx apache2-utils nodejs time"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
if [ -n "$missing" ]; then
  say "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # no recommends: dbus-x11 would start a session bus for every GTK test
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- libperf (not packaged in Debian 12) ----------------------------------------
export PKG_CONFIG_PATH="/usr/local/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if ! pkg-config --exists libperf; then
  src=/usr/src/linux-source-6.1.tar.xz
  [ -r "$src" ] || { say "$src missing: apt-get install linux-source-6.1"; exit 1; }
  work=$(mktemp -d /tmp/rsp-libperf.XXXXXX)
  say "building libperf from $src"
  tar -xJf "$src" -C "$work" --wildcards 'linux-source-6.1/tools/*' \
    'linux-source-6.1/include/uapi/*' 'linux-source-6.1/arch/x86/include/uapi/*' \
    'linux-source-6.1/scripts/*'
  # a fresh tree: a stale libperf.pc would carry an old prefix
  make -s -C "$work/linux-source-6.1/tools/lib/perf" prefix=/usr/local libdir=/usr/local/lib \
    install_lib install_headers install_pkgconfig >"$work/build.log" 2>&1 ||
    { tail -20 "$work/build.log" >&2; say "libperf build failed (log above)"; exit 1; }
  ldconfig
  rm -rf "$work"
  pkg-config --exists libperf || { say "libperf installed but pkg-config cannot find it"; exit 1; }
fi

# --- tracefs ----------------------------------------------------------------------
if [ ! -e /sys/kernel/tracing/events ]; then
  mount -t tracefs nodev /sys/kernel/tracing ||
    { say "cannot mount tracefs on /sys/kernel/tracing"; exit 1; }
fi

# --- build --------------------------------------------------------------------------
configure() { # dir, meson options...
  dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
}
say "building build/"
configure build -Dwerror=true

case "$MODE" in
demo)
  out=${TMPDIR:-/tmp}/rsp-demo.data
  say "recording the demo workload (RPC chain: client -> server over TCP -> backend + fsync)"
  build/cli/rsp record -o "$out" -- build/tests/workloads/rpcchain
  if [ -x build/cli/rsp ] && build/cli/rsp report --help >/dev/null 2>&1; then
    build/cli/rsp report "$out"
  elif build/cli/rsp info --help >/dev/null 2>&1; then
    build/cli/rsp info "$out"
  fi
  ;;
test)
  meson test -C build --print-errorlogs
  say "building build-asan/ (AddressSanitizer + UBSan)"
  configure build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debug -Db_lto=false
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs --suite unit --suite fuzz --suite matrix
  say "building build-tsan/ (ThreadSanitizer)"
  configure build-tsan -Dwerror=true -Db_sanitize=thread -Dviewer=disabled -Db_lto=false
  TSAN_OPTIONS=halt_on_error=1 \
    meson test -C build-tsan --print-errorlogs unit-timeline unit-collector unit-symbols
  # the running view's layout shared with a second thread
  TSAN_OPTIONS=halt_on_error=1:suppressions="$PWD/tests/gui/tsan.supp" \
    meson test -C build-tsan --print-errorlogs gui-render --test-args '-p /render/running/parallel'
  ;;
esac
