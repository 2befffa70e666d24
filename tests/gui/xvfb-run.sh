#!/bin/sh
# Run a command on a private Xvfb display (GUI-TESTING.md): Xvfb picks a free
# display itself and writes its number to -displayfd, so tests run side by side
# without racing for one.  Exit 77 (skipped) only if Xvfb is not installed.
#
#   xvfb-run.sh COMMAND [ARGS...]
set -u

if ! command -v Xvfb >/dev/null 2>&1; then
	echo "Xvfb is not installed (apt-get install xvfb): skipping" >&2
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/rsp-xvfb.XXXXXX") || exit 1
mkdir -m 700 "$dir/run" "$dir/data" "$dir/config" "$dir/cache"
: >"$dir/display"
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$dir/display" \
	>"$dir/xvfb.log" 2>&1 &
xpid=$!
cleanup() {
	kill "$xpid" 2>/dev/null
	wait "$xpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
n=0
while [ ! -s "$dir/display" ]; do
	if ! kill -0 "$xpid" 2>/dev/null || [ $n -ge 100 ]; then
		echo "Xvfb did not start:" >&2
		cat "$dir/xvfb.log" >&2
		exit 1
	fi
	sleep 0.1
	n=$((n + 1))
done
DISPLAY=":$(head -n1 "$dir/display")"
# GUI-TESTING.md: no session bus, no accessibility bus, settings in memory,
# cairo rendering; recent files and caches in the scratch directory
export DISPLAY GDK_BACKEND=x11 GTK_A11Y=none DBUS_SESSION_BUS_ADDRESS=disabled: \
	GSETTINGS_BACKEND=memory GSK_RENDERER=cairo XDG_RUNTIME_DIR="$dir/run" \
	XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" XDG_CACHE_HOME="$dir/cache"
"$@"
