#!/bin/sh
# Every output of every reading verb on some traces, into one directory per trace,
# to check that a refactor changed no byte:
#
#   scripts/same-output.sh build/cli/rsp /tmp/before  tests/data/*.data MORE.data...
#   (change the code, rebuild)
#   scripts/same-output.sh build/cli/rsp /tmp/after   tests/data/*.data MORE.data...
#   diff -r /tmp/before /tmp/after
#
# Standard error and the exit status are kept too (err-VERB), so a change in a
# warning or a failure shows.  Times that depend on the clock of the run (none of
# rsp's outputs print one) would have to be filtered here.
set -u
RSP=${1:?usage: $0 RSP OUTDIR TRACE...}
OUT=${2:?usage: $0 RSP OUTDIR TRACE...}
shift 2
mkdir -p "$OUT"
# one rule file for both runs (causes names it in its first line)
RULES=${RULES:-$(cd "$(dirname "$0")/.." && pwd)/data/latency-causes.conf}

run() { # name, args...
	name=$1; shift
	"$RSP" "$@" >"$dir/$name" 2>"$dir/err-$name"
	echo "exit $?" >>"$dir/err-$name"
}

for f in "$@"; do
	dir=$OUT/$(basename "$f")
	mkdir -p "$dir"
	run info info "$f"
	run info.json info "$f" --json
	run report report "$f"
	run report.csv report "$f" --format csv
	run report.md report "$f" --format md
	run report.json report "$f" --format json --threads --top 0
	run report-t10 report "$f" --tolerance 10
	run causes causes "$f" -c "$RULES"
	run causes.json causes "$f" -c "$RULES" --format json --threads --state S,D,R,P
	run causes.log causes "$f" -c "$RULES" --log all "$dir/causes-log.txt"
	run offcpu offcpu "$f"
	run offcpu.json offcpu "$f" --format json --all --top 0
	for k in cpu offcpu hotcold offwake pseudo; do
		run "folded-$k" export "$f" --folded "$k" --mark-frames
	done
	run chrome.json export "$f" --chrome-json --all
	for v in running flame consolidated; do
		run "view-$v.svg" export "$f" --view "$v" -o "$dir/$v.svg"
	done
	run view-running-sleeps.svg export "$f" --view running --sleeps --chains-only -o "$dir/running-sleeps.svg"
	run view-cons-merged.svg export "$f" --view consolidated --merge-threads -o "$dir/cons-merged.svg"
done
