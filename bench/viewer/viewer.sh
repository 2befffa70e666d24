#!/bin/sh
# The real viewer on a large recording, under a private Xvfb (tests/gui/xvfb-run.sh):
#
#  1. time to the first frame (the app's READY line: from main() to the first
#     painted frame of the running view) against `rsp report` on the same
#     file, interleaved, RUNS times (goal: at most 2x);
#  2. redraws in the app, in the running view, then in the target's
#     chronological and consolidated flame views (opened by clicking the
#     target's name, then the toggle): Ctrl+plus zooms from the whole,
#     arrow-key pans, pointer moves (hover); the app's REBUILD lines (lay out
#     + render the texture) and PAINT lines (the frame: snapshot + GSK +
#     present) (goal: 16 ms).
#
#   bench/viewer/viewer.sh FILE [BUILD_DIR] [RUNS]
set -eu
file=$1
build=${2:-build}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
rsp="$build/cli/rsp"
viewer="$build/viewer/rsp-viewer"
[ -x "$viewer" ] || { echo "no $viewer: build the viewer first" >&2; exit 1; }

if [ -z "${DISPLAY:-}" ] || [ -z "${RSP_BENCH_XVFB:-}" ]; then
	RSP_BENCH_XVFB=1 exec "$here/../../tests/gui/xvfb-run.sh" "$0" "$@"
fi

ms() { date +%s%3N; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "viewer.sh: $file ($(du -h "$file" | cut -f1)), $runs runs, interleaved"
: >"$tmp/ratios"
i=0
while [ $i -lt "$runs" ]; do
	t0=$(ms)
	"$rsp" report "$file" >/dev/null
	rep=$(($(ms) - t0))
	t0=$(ms)
	RSP_VIEWER_TEST=1 RSP_VIEWER_EXIT_AFTER_READY=1 "$viewer" "$file" >"$tmp/log" 2>&1
	wall=$(($(ms) - t0))
	ready=$(grep '^READY' "$tmp/log" | head -n1)
	r=$(echo "$ready" | cut -d' ' -f2)
	echo "  run $((i + 1)): rsp report $rep ms; viewer first frame $r ms ($ready); process wall $wall ms"
	echo "$r $rep" >>"$tmp/ratios"
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mv=$(cut -d' ' -f1 "$tmp/ratios" | med)
mr=$(cut -d' ' -f2 "$tmp/ratios" | med)
awk -v f="$mv" -v r="$mr" 'BEGIN { printf "  median: first frame %.0f ms, rsp report %.0f ms: ratio %.2f (goal <= 2): %s\n",
	f, r, f / r, (f / r <= 2) ? "ok" : "OVER" }'

echo
echo "redraws in the app, per view (zoom: Ctrl+plus x14; pan: Right x8; hover: 40 pointer moves over the fitted view, tooltips included)"
RSP_VIEWER_TEST=1 "$viewer" "$file" >"$tmp/log" 2>&1 &
vpid=$!
waitfor() { # PATTERN: until the app logs it
	n=0
	until grep -q "$1" "$tmp/log"; do
		sleep 0.1
		n=$((n + 1))
		[ $n -lt 900 ] || { echo "viewer.sh: no '$1' from the app" >&2; kill $vpid; exit 1; }
	done
}
waitfor '^READY'
win=$(xdotool search --sync --onlyvisible --class rsp-viewer | head -n1)
mark() { wc -l <"$tmp/log" >"$tmp/mark.$1"; }
section() { # FROM TO: the log lines between two marks
	sed -n "$(($(cat "$tmp/mark.$1") + 1)),$(cat "$tmp/mark.$2")p" "$tmp/log"
}
stats() { # LABEL PATTERN: count, median and max of the lines' second field
	grep "$2" | cut -d' ' -f2 | sort -n | awk -v label="$1" '{ v[NR] = $1 } END {
		if (!NR) { printf "  %-34s none\n", label; exit }
		printf "  %-34s n=%3d  median %6.2f ms  max %6.2f ms  %s\n", label, NR,
			v[int((NR + 1) / 2)], v[NR], v[NR] <= 16 ? "ok" : "OVER" }'
}
# zoom in step by step from the whole, pan, hover; then the numbers
drive() { # VIEW
	xdotool mousemove --window "$win" 700 400 click 1 # focus the view
	xdotool mousemove 1590 990 # then the pointer away: no tooltip while zooming and panning
	sleep 0.5
	xdotool key --window "$win" ctrl+0
	sleep 0.5
	mark zoom
	k=0
	while [ $k -lt 14 ]; do
		xdotool key --window "$win" ctrl+plus
		sleep 0.15
		k=$((k + 1))
	done
	mark pan
	k=0
	while [ $k -lt 8 ]; do
		xdotool key --window "$win" Right
		sleep 0.15
		k=$((k + 1))
	done
	# hover over the whole (fit): the most boxes under the pointer's path
	xdotool key --window "$win" ctrl+0
	sleep 0.5
	mark hover
	k=0
	while [ $k -lt 40 ]; do
		xdotool mousemove --window "$win" $((300 + k * 25)) $((150 + (k % 10) * 20))
		sleep 0.05
		k=$((k + 1))
	done
	sleep 0.3
	mark end
	echo " $1 view:"
	section zoom pan | stats "zoom: lay out + render (REBUILD)" '^REBUILD'
	section zoom pan | stats "zoom: frame (PAINT)" '^PAINT'
	# the whole frame of a zoom: the rebuild runs in the frame's update phase, then the paint
	section zoom pan | awk '/^REBUILD/ { r = $2 } /^PAINT/ { print "SUM", r + $2; r = 0 }' |
		stats "zoom: whole frame (REBUILD+PAINT)" '^SUM'
	section pan hover | stats "pan: render (REBUILD)" '^REBUILD'
	section pan hover | stats "pan: frame (PAINT)" '^PAINT'
	section hover end | stats "hover: frame (PAINT)" '^PAINT'
	section zoom end | grep '^REBUILD' | sort -t' ' -k2 -n | tail -n1 | sed 's/^/  slowest: /'
}
drive running
# the target's flame view: click its name (the first row)
set -- $(grep '^ROW 0 ' "$tmp/log" | head -n1)
if [ $# -ge 5 ]; then
	xdotool key --window "$win" ctrl+0
	sleep 0.3
	xdotool mousemove --window "$win" "$4" "$5" click 1
	waitfor '^FLAME READY'
	waitfor '^BUTTON consolidated'
	sleep 0.5
	drive chronological-flame
	set -- $(grep '^BUTTON consolidated' "$tmp/log" | tail -n1)
	xdotool mousemove --window "$win" "$3" "$4" click 1
	waitfor '^VIEW consolidated'
	sleep 0.5
	drive consolidated-flame
else
	echo "viewer.sh: no row for the target: the flame views are not measured" >&2
fi
kill $vpid
wait $vpid 2>/dev/null || true
cp "$tmp/log" "${RSP_BENCH_LOG:-/dev/null}" 2>/dev/null || true
