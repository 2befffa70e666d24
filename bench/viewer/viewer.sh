#!/bin/sh
# The real viewer on a large recording, under a private Xvfb (tests/gui/xvfb-run.sh):
#
#  1. time to the first frame as a user gets it, `rsp view FILE` (its check of
#     the file, then the app: its READY line, from the app's main() to the
#     first painted frame of the running view; and the whole command's wall
#     time, which ends just after that frame), against `rsp report` on the
#     same file (`rsp info` for a file without a target), interleaved, RUNS
#     times (goal: at most 1.5x + 0.5 s);
#  2. redraws in the app, in the running view, then in the target's
#     chronological and consolidated flame views (opened by clicking the
#     target's name, then the toggle): Ctrl+plus zooms from the whole,
#     arrow-key pans, pointer moves (hover), a selection dragged along the
#     ruler; the app's REBUILD lines (lay out + render the texture) and PAINT
#     lines (the frame: snapshot + GSK + present): p50, p90 and max per kind
#     (goal: p90 <= 16 ms, max <= 33 ms).
#
# What a user gets: the window at 1600x1000 (the whole of the Xvfb screen),
# the renderer the viewer chooses (GSK_RENDERER unset: xvfb-run.sh's cairo is
# not forced; BENCH_GSK_RENDERER=gl|ngl|cairo to compare).
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

# the renderer the viewer picks itself, unless one is asked for
if [ -n "${BENCH_GSK_RENDERER:-}" ]; then
	export GSK_RENDERER="$BENCH_GSK_RENDERER"
else
	unset GSK_RENDERER
fi

ms() { date +%s%3N; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# against `rsp report`; for a file that records no target (rsp record -a), where the
# viewer shows every thread without an analysis, `rsp info` (the load)
verb=report
"$rsp" report "$file" >/dev/null 2>"$tmp/err" || {
	grep -q 'records no target' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	verb=info
}
echo "viewer.sh: $file ($(du -h "$file" | cut -f1)), $runs runs, interleaved, against rsp $verb"
: >"$tmp/ratios"
i=0
while [ $i -lt "$runs" ]; do
	t0=$(ms)
	"$rsp" "$verb" "$file" >/dev/null 2>&1
	rep=$(($(ms) - t0))
	t0=$(ms)
	RSP_VIEWER_TEST=1 RSP_VIEWER_EXIT_AFTER_READY=1 "$rsp" view "$file" >"$tmp/log" 2>&1
	wall=$(($(ms) - t0))
	ready=$(grep '^READY' "$tmp/log" | head -n1)
	r=$(echo "$ready" | cut -d' ' -f2)
	echo "  run $((i + 1)): rsp $verb $rep ms; rsp view: wall $wall ms, the app's first frame $r ms ($ready)"
	echo "$wall $rep" >>"$tmp/ratios"
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mv=$(cut -d' ' -f1 "$tmp/ratios" | med)
mr=$(cut -d' ' -f2 "$tmp/ratios" | med)
awk -v f="$mv" -v r="$mr" -v verb="$verb" 'BEGIN { printf "  median: rsp view to its first frame %.0f ms, rsp %s %.0f ms: ratio %.2f; goal <= 1.5 x + 500 ms: %s\n",
	f, verb, r, f / r, (f <= 1.5 * r + 500) ? "ok" : "OVER" }'

echo
echo "redraws in the app at 1600x1000, per view (zoom: Ctrl+plus x14; pan: Right x8; hover: 40 pointer moves over the fitted view, tooltips included; drag: a selection dragged over the ruler in 40 steps)"
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
grep '^RENDERER' "$tmp/log" | sed 's/^/  /'
win=$(xdotool search --sync --onlyvisible --class rsp-viewer | head -n1)
# a maximised window: the whole screen (no window manager under Xvfb to ask)
xdotool windowmove "$win" 0 0 windowsize --sync "$win" 1600 1000
sleep 0.5
mark() { wc -l <"$tmp/log" >"$tmp/mark.$1"; }
section() { # FROM TO: the log lines between two marks
	sed -n "$(($(cat "$tmp/mark.$1") + 1)),$(cat "$tmp/mark.$2")p" "$tmp/log"
}
stats() { # LABEL PATTERN: count, p50, p90 and max of the lines' second field
	grep "$2" | cut -d' ' -f2 | sort -n | awk -v label="$1" '{ v[NR] = $1 } END {
		if (!NR) { printf "  %-34s none\n", label; exit }
		p50 = v[int((NR * 50 + 99) / 100)]; p90 = v[int((NR * 90 + 99) / 100)]
		printf "  %-34s n=%3d  p50 %6.2f  p90 %6.2f  max %6.2f ms  %s\n", label, NR,
			p50, p90, v[NR], (p90 <= 16 && v[NR] <= 33) ? "ok" : "OVER" }'
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
	# a selection dragged along the ruler (the top 20 px of the view)
	xdotool mousemove --window "$win" 400 "$ruler_y" mousedown 1
	sleep 0.2
	mark drag
	k=0
	while [ $k -lt 40 ]; do
		xdotool mousemove --window "$win" $((400 + k * 20)) "$ruler_y"
		sleep 0.05
		k=$((k + 1))
	done
	sleep 0.2
	mark end
	xdotool mouseup 1
	sleep 0.3
	xdotool key --window "$win" Escape
	sleep 0.3
	echo " $1 view:"
	section zoom pan | stats "zoom: lay out + render (REBUILD)" '^REBUILD'
	section zoom pan | stats "zoom: frame (PAINT)" '^PAINT'
	# the whole frame of a zoom: the rebuild runs in the frame's update phase, then the paint
	section zoom pan | awk '/^REBUILD/ { r = $2 } /^PAINT/ { print "SUM", r + $2; r = 0 }' |
		stats "zoom: whole frame (REBUILD+PAINT)" '^SUM'
	section pan hover | stats "pan: render (REBUILD)" '^REBUILD'
	section pan hover | stats "pan: frame (PAINT)" '^PAINT'
	section pan hover | awk '/^REBUILD/ { r = $2 } /^PAINT/ { print "SUM", r + $2; r = 0 }' |
		stats "pan: whole frame (REBUILD+PAINT)" '^SUM'
	section hover drag | stats "hover: frame (PAINT)" '^PAINT'
	section drag end | stats "selection drag: frame (PAINT)" '^PAINT'
	section zoom end | grep '^REBUILD' | sort -t' ' -k2 -n | tail -n1 | sed 's/^/  slowest: /'
}
# the ruler's row in window coordinates: the top of the view (its CANVAS line), + 12 px
ruler() { ruler_y=$(($(grep '^CANVAS' "$tmp/log" | tail -n1 | cut -d' ' -f3) + 12)); }
ruler
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
	ruler
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
