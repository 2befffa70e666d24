#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build rsp's Debian packages from this checkout and check them with lintian.
#
#   scripts/deb.sh [OUTDIR]      (as root on Debian 12; default OUTDIR: build-deb/)
#
# Installs the build dependencies debian/control names (apt-get build-dep), copies
# the files git tracks (committed or not) to a scratch directory, runs
# `dpkg-buildpackage -b -us -uc` there (libperf is built from linux-source-6.1 and
# linked in statically: scripts/libperf-static.sh), moves rsp_*.deb and
# rsp-viewer_*.deb to OUTDIR, and runs lintian on them: an error fails the script,
# warnings are listed.  Then, on a machine with them: `apt install ./rsp_*.deb`
# (the recorder and CLI, no GTK) and `apt install ./rsp-viewer_*.deb`.
set -eu
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build-deb}")
say() { printf 'deb: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  say "run as root: it installs the build dependencies"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
missing=""
for p in dpkg-dev debhelper lintian fakeroot; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ] || ! dpkg-checkbuilddeps >/dev/null 2>&1; then
  say "installing the build dependencies"
  apt-get update -qq
  [ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
  apt-get build-dep -y -qq --no-install-recommends . >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rsp-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/rsp"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work/rsp"
say "dpkg-buildpackage -b -us -uc in $work/rsp"
(cd "$work/rsp" && dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log" >&2; say "dpkg-buildpackage failed (the log's end above)"; exit 1; }
mkdir -p "$out"
rm -f "$out"/rsp_*.deb "$out"/rsp-viewer_*.deb "$out"/rsp-*dbgsym_*.deb "$out"/rsp_*.changes "$out"/rsp_*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
ls -l "$out"/*.deb >&2
# lintian: errors fail, the rest is listed
lintian --no-tag-display-limit "$out"/rsp_*.changes >"$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt" >&2
if grep -q '^E: ' "$out/lintian.txt"; then
  say "lintian reports errors (above)"
  exit 1
fi
say "lintian: no error ($(grep -c '^W: ' "$out/lintian.txt" || true) warnings); packages in $out"
