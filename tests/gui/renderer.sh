#!/bin/sh
# Under xvfb-run.sh (Xvfb: GL through Mesa's software rasterizer): the viewer
# draws with cairo when GSK_RENDERER is unset (rsp-renderer.h), and with what
# GSK_RENDERER names when it is set.  The viewer says which renderer drew its
# first frame and why on its RENDERER line (RSP_VIEWER_TEST).
#
#   renderer.sh RSP_VIEWER TRACE
set -u
viewer=$1 trace=$2

log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() { # GSK_RENDERER's value ("" unset): the RENDERER line
	if [ -n "$1" ]; then
		GSK_RENDERER=$1 RSP_VIEWER_TEST=1 RSP_VIEWER_EXIT_AFTER_READY=1 \
			timeout 60 "$viewer" "$trace" >"$log" 2>&1
	else
		env -u GSK_RENDERER RSP_VIEWER_TEST=1 RSP_VIEWER_EXIT_AFTER_READY=1 \
			timeout 60 "$viewer" "$trace" >"$log" 2>&1
	fi
	# no GLib/GTK warning or critical, whichever renderer
	if grep -E -- '-(WARNING|CRITICAL) \*\*' "$log" >&2; then
		echo "FAIL: warnings above (GSK_RENDERER=$1)" >&2
		exit 1
	fi
	grep '^RENDERER' "$log"
}

line=$(run "") || exit 1
echo "unset: $line"
case $line in
"RENDERER cairo (cairo: GL is "*"a software rasterizer)") ;;
"RENDERER "*"GTK's default: GL is "*)
	echo "SKIP: GL here is not a software rasterizer ($line)"
	exit 77 ;;
*) echo "FAIL: GSK_RENDERER unset, software GL: not cairo"; exit 1 ;;
esac
line=$(run gl) || exit 1
echo "gl: $line"
case $line in
"RENDERER gl (gl: GSK_RENDERER is set)") ;;
*) echo "FAIL: GSK_RENDERER=gl not obeyed"; exit 1 ;;
esac
echo "ok"
