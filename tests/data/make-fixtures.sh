#!/bin/sh
# Re-record the small fixture traces in tests/data (as root, from the source
# tree, after ./setup.sh):  tests/data/make-fixtures.sh [BUILD_DIR]
#
# The fixtures are real recordings of the workloads in tests/workloads, made
# with frame-pointer stacks and without kallsyms so they stay small; the GUI
# and export tests assert on their shape (the target first, its peers in its
# chains, disk and network boxes for rpcchain, timeouts for pollwait, the
# peer's work inside the waits for pass), never on exact times.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
build=${1:-$src/../../build}
rsp=$build/cli/rsp
wl=$build/tests/workloads
rec() { # name, args...
  n=$1; shift
  "$rsp" record -q --no-kallsyms --call-graph fp -o "$src/$n.data" -- "$wl/$n" "$@"
  chmod 0644 "$src/$n.data"
  rm -f "$src/$n.data.old"
}
rec rpcchain
rec pass 300
rec pollwait
ls -l "$src"/*.data
