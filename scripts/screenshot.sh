#!/bin/sh
# The README's picture of the viewer, docs/viewer.png, made again:
#
#   scripts/screenshot.sh [BUILD [TRACE]]     # as root; BUILD defaults to build/
#
# Records the demo (`./setup.sh demo`'s workload: a client calling a server over TCP,
# which calls a backend that fsyncs) with rsp record, unless TRACE is given, and draws
# its consolidated flame view without a display (`rsp export --view`), as the viewer's
# window shows it beside the explanation table.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RSP=$BUILD/cli/rsp
[ -x "$RSP" ] || { echo "screenshot: no $RSP: build first (./setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/rsp-shot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
TRACE=${2:-}
if [ -z "$TRACE" ]; then
	TRACE=$tmp/demo.data
	"$RSP" record -q -o "$TRACE" -- "$BUILD/tests/workloads/rpcchain" >/dev/null
fi
"$RSP" export "$TRACE" --view consolidated --merge-threads --width 960 \
	-o docs/viewer.png
echo "screenshot: docs/viewer.png ($(wc -c <docs/viewer.png) bytes) from $TRACE" >&2
