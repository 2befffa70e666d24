#!/bin/sh
# End to end, under xvfb-run.sh: the real viewer on a recorded RPC chain.
# Opens it, zooms with Ctrl+scroll, clicks the client process's name (its
# flame view opens in a tab), switches to the consolidated view, opens the
# server's flame tab and its slowest request's own view, back with Alt+Left,
# opens the shortcuts window; a screenshot at each step, kept in OUT_DIR.  The viewer tells where things are and what
# it did on stdout (RSP_VIEWER_TEST), so the script waits on that, not on sleeps.
#
#   e2e.sh RSP_VIEWER TRACE OUT_DIR
set -u
viewer=$1 trace=$2 out=$3
mkdir -p "$out"
rm -f "$out"/*.png
log="$out/viewer.log"

for tool in xdotool import identify convert; do
	command -v $tool >/dev/null 2>&1 || { echo "$tool is not installed: skipping"; exit 77; }
done

fail() {
	echo "FAIL: $*"
	echo "--- viewer log"
	cat "$log"
	exit 1
}

RSP_VIEWER_TEST=1 "$viewer" "$trace" >"$log" 2>&1 &
vpid=$!
trap 'kill $vpid 2>/dev/null' EXIT

waitfor() { # PATTERN [SECONDS]
	n=0
	while ! grep -q "$1" "$log"; do
		kill -0 $vpid 2>/dev/null || fail "the viewer exited while waiting for '$1'"
		[ $n -lt $((${2:-30} * 10)) ] || fail "timed out waiting for '$1'"
		sleep 0.1
		n=$((n + 1))
	done
}

# a screenshot with more than a handful of colours, holding the given ones
shot() { # NAME COLOUR...
	f="$out/$1.png"
	shift
	import -window root "$f" || fail "import $f"
	k=$(identify -format %k "$f")
	[ "$k" -ge 50 ] || fail "$f has $k colours: blank?"
	hist=$(convert "$f" -format %c histogram:info:- | tr 'a-f' 'A-F')
	for c in "$@"; do
		echo "$hist" | grep -q "#$c" || fail "$f: no #$c"
	done
	echo "ok: $f ($k colours${*:+, has $*})"
}

RUN=E0442E SLEEP=3F74D6 GREY=A8A8A8 BOTH=9B4FD0 IO=2FA84F ESTIMATED=F3A08F

waitfor READY
grep READY "$log"
# bounded: an app that died after READY (G_DEBUG=fatal-warnings) has no window to wait for
win=$(timeout 20 xdotool search --sync --onlyvisible --class rsp-viewer | head -n1)
[ -n "$win" ] || fail "no viewer window"
xdotool mousemove 5 995 # park the pointer
sleep 0.3
shot 1-running $RUN

# Ctrl+scroll up over the timeline zooms in at the pointer
spans() { grep -c '^SPAN' "$log"; }
before=$(spans)
xdotool mousemove --window "$win" 400 300 keydown ctrl click 4 click 4 keyup ctrl
n=0
while [ "$(spans)" -lt $((before + 2)) ]; do # two clicks of the wheel
	[ $n -lt 50 ] || fail "Ctrl+scroll did not zoom"
	sleep 0.1
	n=$((n + 1))
done
first=$(grep '^SPAN' "$log" | head -n1 | cut -d' ' -f2)
last=$(grep '^SPAN' "$log" | tail -n1 | cut -d' ' -f2)
[ "$last" -lt "$first" ] || fail "Ctrl+scroll: span $first -> $last, not smaller"
# at the pointer: the time under it stays put, a fifth of the way into the
# timeline (x 400 of a view whose names take 200 px), not at its middle
f=$(grep '^SPAN' "$log" | awk 'NR == 1 { s0 = $2; x0 = $3 } END {
	printf "%.3f", ($3 - x0) / (s0 - $2) }')
echo "$f" | awk '{ exit !($1 > 0.1 && $1 < 0.3) }' ||
	fail "Ctrl+scroll zoomed around $f of the view, not at the pointer (~0.19)"
echo "ok: Ctrl+scroll zoomed in at the pointer ($f of the view), span $first ns -> $last ns"
sleep 0.5
xdotool windowfocus --sync "$win" key ctrl+0 # fit again (keys go to the focused window)
sleep 0.5
shot 2-running-fit $RUN

# click the client's name: its flame view in a new tab
row=$(grep '^ROW .* rpcchain [0-9]*$' "$log" | head -n1)
[ -n "$row" ] || fail "no row for the client rpcchain"
set -- $row
echo "clicking $6 $7 at $4,$5"
xdotool mousemove --window "$win" "$4" "$5" click 1
waitfor "^TAB flame rpcchain"
waitfor "^FLAME READY rpcchain" 60
waitfor "^BUTTON consolidated"
xdotool mousemove 5 995
sleep 0.7
shot 3-flame $RUN $SLEEP $GREY $IO

# switch to the consolidated view
set -- $(grep '^BUTTON consolidated' "$log" | tail -n1)
xdotool mousemove --window "$win" "$3" "$4" click 1
waitfor "^VIEW consolidated"
xdotool mousemove 5 995
sleep 0.7
shot 4-consolidated $RUN $GREY $BOTH

# a server's request: back on the running tab, click rpc-server's name; its flame tab
# lists its requests, the slowest first: clicking it opens that request's own view
# (its runs without samples tinted as estimated), Alt+Left the whole target's again
current() { grep -c '^CURRENT' "$log"; }
before=$(current)
xdotool windowfocus --sync "$win" key ctrl+Page_Up
n=0
while [ "$(current)" -le "$before" ]; do
	[ $n -lt 50 ] || fail "Ctrl+Page_Up did not switch tabs"
	sleep 0.1
	n=$((n + 1))
done
grep '^CURRENT' "$log" | tail -n1 | grep -q 'rpcchain.data$' || fail "not back on the running tab"
row=$(grep '^ROW .* rpc-server [0-9]*$' "$log" | head -n1)
[ -n "$row" ] || fail "no row for the server rpc-server"
set -- $row
sleep 0.5
xdotool mousemove --window "$win" "$4" "$5" click 1
waitfor "^FLAME READY rpc-server" 60
waitfor "^BUTTON request0"
set -- $(grep '^BUTTON request0' "$log" | tail -n1)
sleep 0.5
xdotool mousemove --window "$win" "$3" "$4" click 1
waitfor "^REQUEST VIEW [0-9]"
req=$(grep '^REQUEST [0-9]' "$log" | tail -n1 | cut -d' ' -f2)
grep -q "^REQUEST VIEW $req " "$log" || fail "request $req clicked, another shown"
xdotool mousemove 5 995
sleep 0.7
shot 5-request $RUN $ESTIMATED $GREY
xdotool windowfocus --sync "$win" key alt+Left
waitfor "^REQUEST VIEW whole"
xdotool mousemove 5 995
sleep 0.7
shot 6-request-back $RUN $GREY

# the shortcuts window (F1)
windows() { xdotool search --onlyvisible --class rsp-viewer | wc -l; }
before=$(windows)
xdotool windowfocus --sync "$win" key F1
n=0
while [ "$(windows)" -le "$before" ]; do
	[ $n -lt 50 ] || fail "F1 opened no shortcuts window"
	sleep 0.1
	n=$((n + 1))
done
sleep 0.7
shot 7-shortcuts
xdotool key Escape

kill $vpid
wait $vpid 2>/dev/null
trap - EXIT
# no GLib/GTK warning or critical on the way (G_DEBUG=fatal-warnings also stops the app at one)
if grep -E -- '-(WARNING|CRITICAL) \*\*' "$log"; then
	fail "the viewer printed the warnings above"
fi
echo "ok: no warning or critical in the viewer's output"
echo "screenshots in $out"
