#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libperf as static libraries, for linking into rsp (Debian 12 does not package it):
# built from Debian's linux-source-6.1 into DIR, with a pkg-config file that names
# only the static archives (libperf.a and the libapi.a it needs), so that meson links
# them into rsp and the package needs no libperf of its own.
#
#   libperf-static.sh DIR      then: PKG_CONFIG_PATH=DIR/lib/pkgconfig meson setup ...
set -eu
dir=$(realpath -m "$1")
src=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
[ -r "$src" ] || { echo "libperf-static.sh: $src missing: apt-get install linux-source-6.1" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rsp-libperf.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xJf "$src" -C "$work" --wildcards 'linux-source-6.1/tools/*' \
  'linux-source-6.1/include/uapi/*' 'linux-source-6.1/arch/x86/include/uapi/*' \
  'linux-source-6.1/scripts/*'
lp=$work/linux-source-6.1/tools/lib/perf
# both built position-independent by their Makefiles (rsp is a PIE); libperf.a
# leaves libapi's fdarray to the linker
{ make -s -C "$lp" prefix="$dir" libdir="$dir/lib" libperf.a install_headers &&
  make -s -C "$lp/../api" libapi.a; } >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log" >&2; exit 1; }
mkdir -p "$dir/lib/pkgconfig"
cp "$lp/libperf.a" "$work/linux-source-6.1/tools/lib/api/libapi.a" "$dir/lib/"
cat >"$dir/lib/pkgconfig/libperf.pc" <<PC
# libperf built by scripts/libperf-static.sh from $(basename "$src"): static only
prefix=$dir
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libperf
Description: perf library (static, with libapi)
Version: 0.0.1
Libs: \${libdir}/libperf.a \${libdir}/libapi.a
Cflags: -I\${includedir}
PC
echo "libperf-static.sh: $dir/lib/libperf.a, libapi.a, pkgconfig/libperf.pc"
