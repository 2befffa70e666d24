#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages, built as a user builds them (scripts/deb.sh: dpkg-buildpackage
# -b -us -uc, lintian with no error), then checked without touching the machine:
# - rsp's dependencies, followed recursively, reach no GTK; rsp-viewer's do
# - apt would install each (`apt-get install --simulate ./rsp_*.deb` resolves)
# - the packaged rsp runs (`rsp --version` says the project's version) with no
#   libperf of its own (linked in: no libperf in `ldd`), and reads a trace
# - the files are split: the viewer's (binary, desktop entry, metainfo, icon, MIME
#   type, man page) in rsp-viewer, the rest (man pages of rsp and every verb,
#   completions, cause rules) in rsp
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
SRC=$1
TRACE=$2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (apt-get build-dep)"; exit 77; }
command -v dpkg-buildpackage >/dev/null || { echo "SKIP: not Debian"; exit 77; }
T=$(mktemp -d /tmp/rsp-pkg.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$SRC/scripts/deb.sh" "$T/out" >"$T/deb.log" 2>&1 || { cat "$T/deb.log"; fail "scripts/deb.sh"; }
grep '^[WIE]: ' "$T/out/lintian.txt" | sed 's/^/# lintian: /' || true
RSP_DEB=$(ls "$T"/out/rsp_*.deb)
VIEWER_DEB=$(ls "$T"/out/rsp-viewer_*.deb)
note "built $(basename "$RSP_DEB") ($(stat -c %s "$RSP_DEB") bytes), $(basename "$VIEWER_DEB") ($(stat -c %s "$VIEWER_DEB") bytes)"

closure() { # a package's Depends, followed recursively
  deps=$(dpkg-deb -f "$1" Depends | sed 's/([^)]*)//g; s/|/ /g; s/,/ /g')
  # shellcheck disable=SC2086
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $deps 2>/dev/null | grep -v '^ ' | sort -u
}
closure "$RSP_DEB" >"$T/rsp.closure"
closure "$VIEWER_DEB" >"$T/viewer.closure"
[ -s "$T/rsp.closure" ] || fail "rsp: no dependency found"
! grep -i '^libgtk' "$T/rsp.closure" || fail "rsp pulls GTK"
grep -q '^libgtk-4-1' "$T/viewer.closure" || fail "rsp-viewer does not depend on GTK 4 (the check cannot see it)"
note "rsp's dependency closure: $(wc -l <"$T/rsp.closure") packages, no GTK; rsp-viewer's has libgtk-4-1"

for d in "$RSP_DEB" "$VIEWER_DEB"; do
  apt-get install --simulate -qq "$d" >"$T/sim.log" 2>&1 || { cat "$T/sim.log"; fail "apt-get install --simulate $d"; }
done
note "apt-get install --simulate: both resolve"

dpkg-deb -x "$RSP_DEB" "$T/rsp"
want=$(sed -n "s/^project('rsp'.*//; s/^  version: '\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -1)
got=$("$T/rsp/usr/bin/rsp" --version)
[ "$got" = "rsp $want" ] || fail "packaged rsp --version: '$got', want 'rsp $want'"
! ldd "$T/rsp/usr/bin/rsp" | grep -q libperf || fail "packaged rsp links a libperf library"
"$T/rsp/usr/bin/rsp" info "$TRACE" >"$T/info.txt" 2>/dev/null || fail "packaged rsp info"
grep -q '^file ' "$T/info.txt" || fail "packaged rsp info: no file line"
note "packaged rsp: '$got', libperf linked in, reads a trace"

dpkg-deb -c "$RSP_DEB" | awk '{print $6}' | sed 's|^\./||' >"$T/rsp.files"
dpkg-deb -c "$VIEWER_DEB" | awk '{print $6}' | sed 's|^\./||' >"$T/viewer.files"
for f in usr/bin/rsp usr/share/man/man1/rsp.1.gz usr/share/bash-completion/completions/rsp \
  usr/share/zsh/vendor-completions/_rsp usr/share/rsp/latency-causes.conf; do
  grep -qx "$f" "$T/rsp.files" || fail "rsp lacks $f"
done
for v in $("$T/rsp/usr/bin/rsp" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
  grep -qx "usr/share/man/man1/rsp-$v.1.gz" "$T/rsp.files" || fail "rsp lacks rsp-$v.1"
done
for f in usr/bin/rsp-viewer usr/share/man/man1/rsp-viewer.1.gz \
  usr/share/applications/org.rsp.Viewer.desktop usr/share/metainfo/org.rsp.Viewer.metainfo.xml \
  usr/share/icons/hicolor/scalable/apps/org.rsp.Viewer.svg usr/share/mime/packages/rsp.xml; do
  grep -qx "$f" "$T/viewer.files" || fail "rsp-viewer lacks $f"
  ! grep -qx "$f" "$T/rsp.files" || fail "rsp has the viewer's $f"
done
note ok
