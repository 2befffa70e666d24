#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `meson install --destdir` of the build: the files it places, listed, and each checked
# the way its consumer reads it.
#
#   install.sh BUILDDIR TRACE
#
# - the file list: the programs, a man page for rsp and each verb `rsp --help` lists
#   (and rsp-viewer), bash and zsh completions, the desktop entry, AppStream metainfo,
#   icon, MIME type, the cause rules; nothing else
# - man pages: groff renders them without a warning; each names every option its
#   verb's --help has
# - bash completion: run as bash runs it (COMP_WORDS, the function, COMPREPLY) for
#   verbs, a verb's options, an option's choices, traces by name; zsh's: zsh parses it
# - desktop: desktop-file-validate, appstreamcli validate, the MIME XML by
#   update-mime-database; then GIO, as a desktop asks it, finds TRACE's content (copied
#   under a name that says nothing) to be application/x-perf-data, a text file named
#   *.data not, and rsp-viewer's desktop entry the default application for the type
set -eu
B=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TRACE=$2
T=$(mktemp -d /tmp/rsp-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

meson install -C "$B" --no-rebuild --destdir "$T/root" >"$T/install.log" 2>&1 ||
  { cat "$T/install.log"; fail "meson install"; }
opt() { meson introspect "$B" --buildoptions |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"; }
prefix=$(opt prefix)
mandir=$(opt mandir)
mandir=${mandir#"$prefix"/}
R=$T/root$prefix
(cd "$R" && find . -type f -o -type l | sed 's|^\./||' | sort) >"$T/files"
note "installed under $prefix:"
sed 's/^/#   /' "$T/files"

RSP=$R/bin/rsp
[ -x "$RSP" ] || fail "no bin/rsp"
verbs=$("$RSP" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$verbs" ] || fail "rsp --help lists no verb"
{
  echo bin/rsp
  echo "$mandir/man1/rsp.1"
  for v in $verbs; do echo "$mandir/man1/rsp-$v.1"; done
  echo share/bash-completion/completions/rsp
  if [ "$prefix" = /usr ]; then echo share/zsh/vendor-completions/_rsp; else echo share/zsh/site-functions/_rsp; fi
  echo share/rsp/latency-causes.conf
  if [ -e "$R/bin/rsp-viewer" ]; then
    echo bin/rsp-viewer
    echo "$mandir/man1/rsp-viewer.1"
    echo share/applications/org.rsp.Viewer.desktop
    echo share/metainfo/org.rsp.Viewer.metainfo.xml
    echo share/icons/hicolor/scalable/apps/org.rsp.Viewer.svg
    echo share/mime/packages/rsp.xml
  fi
} | sort >"$T/want"
diff -u "$T/want" "$T/files" >"$T/diff" || { cat "$T/diff"; fail "the installed files are not the expected ones"; }
note "file list: $(wc -l <"$T/files") files as expected"

# a verb's options: those of its usage lines and its option lines (not its prose)
help_opts() {
  "$RSP" "$1" --help | awk '/^usage:/ { u = 1 } /^$/ { u = 0 } u || /^ +-/' |
    grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

# --- man pages ---------------------------------------------------------------------------
for page in "$R/$mandir"/man1/*.1; do
  w=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff $page"
  [ -z "$w" ] || fail "groff warns on $(basename "$page"): $w"
done
for v in $verbs; do
  help_opts "$v" | while read -r o; do
    esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
    grep -q -- "$esc" "$R/$mandir/man1/rsp-$v.1" || fail "rsp-$v.1 does not name $o"
  done
  grep -q "^rsp\\\\-$v \\\\- " "$R/$mandir/man1/rsp-$v.1" || fail "rsp-$v.1: no NAME line"
done
note "man pages: groff -ww silent; every verb's page names each of its options"

# --- completions -------------------------------------------------------------------------
BC=$R/share/bash-completion/completions/rsp
mkdir "$T/cwd"
: >"$T/cwd/one.data"
: >"$T/cwd/two.data.zst"
: >"$T/cwd/other.txt"
comp() { # the words typed, the last one being completed: COMPREPLY sorted, one a line
  (cd "$T/cwd" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _rsp; printf "%s\n" "${COMPREPLY[@]}" | sort' comp "$BC" "$@")
}
expect() { # what, got, want
  [ "$2" = "$3" ] || fail "bash completion of $1: got [$2], want [$3]"
}
expect "rsp re" "$(comp rsp re)" "record
report"
expect "rsp export --fo" "$(comp rsp export --fo)" "--folded"
expect "rsp report --format " "$(comp rsp report --format '')" "csv
json
md
text"
expect "rsp export --folded h" "$(comp rsp export --folded h)" "hotcold"
expect "rsp export --pp" "$(comp rsp export --pp)" "--pprof"
mkdir "$T/cwd/dir"
expect "rsp info (a trace)" "$(comp rsp info '')" "dir
one.data
two.data.zst"
rmdir "$T/cwd/dir"
expect "rsp help ex" "$(comp rsp help ex)" "export"
expect "rsp record -o o" "$(comp rsp record -o o)" "one.data
other.txt"
for v in $verbs; do
  got=$(comp rsp "$v" -- | tr '\n' ' ')
  help_opts "$v" | while read -r o; do
    case " $got " in *" $o "*) ;; *) fail "bash completion of rsp $v --: no $o ($got)" ;; esac
  done
done
if command -v zsh >/dev/null; then
  zsh -n "$R"/share/zsh/*/_rsp || fail "zsh cannot parse _rsp"
  # zsh's completion through a pty, TAB pressed: what each line becomes or lists
  (cd "$T/cwd" && timeout 60 zsh -f "$HERE/zsh-complete.zsh" "$(dirname "$R"/share/zsh/*/_rsp)" \
    "rsp ex" "rsp export --pp" "rsp report --format " "rsp info ") >"$T/zsh.out" 2>&1 ||
    { cat "$T/zsh.out"; fail "zsh completion driver"; }
  zpart() { awk -v l="=== $1" '$0 == l { on = 1; next } /^=== end$/ { on = 0 } on' "$T/zsh.out"; }
  zpart "rsp ex" | grep -q 'rsp export ' || { cat "$T/zsh.out"; fail "zsh: rsp ex<TAB> is not rsp export"; }
  zpart "rsp export --pp" | grep -q 'rsp export --pprof' || { cat "$T/zsh.out"; fail "zsh: --pp<TAB> is not --pprof"; }
  for c in csv json md text; do
    zpart "rsp report --format " | grep -v "^BEGIN" | grep -q "$c" || { cat "$T/zsh.out"; fail "zsh: --format lists no $c"; }
  done
  zpart "rsp info " | grep -q 'one.data' && zpart "rsp info " | grep -q 'two.data.zst' &&
    ! zpart "rsp info " | grep -q 'other.txt' || { cat "$T/zsh.out"; fail "zsh: rsp info<TAB> does not list the traces only"; }
  note "completions: bash completes verbs, options, choices, traces; so does zsh (through a pty)"
else
  note "completions: bash completes verbs, options, choices, traces (no zsh here to parse _rsp)"
fi

# --- the desktop -------------------------------------------------------------------------
if [ -e "$R/bin/rsp-viewer" ]; then
  D=$R/share/applications/org.rsp.Viewer.desktop
  M=$R/share/metainfo/org.rsp.Viewer.metainfo.xml
  command -v desktop-file-validate >/dev/null || fail "no desktop-file-validate (setup.sh installs desktop-file-utils)"
  desktop-file-validate "$D" || fail "desktop-file-validate"
  if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "$M" >"$T/as.log" 2>&1 || { cat "$T/as.log"; fail "appstreamcli validate"; }
    note "appstreamcli: $(tail -1 "$T/as.log")"
  fi
  v=$("$RSP" --version | cut -d' ' -f2)
  grep -q "<release version=\"$v\"" "$M" || fail "metainfo has no release $v (rsp --version)"
  grep -q "<launchable type=\"desktop-id\">org.rsp.Viewer.desktop</launchable>" "$M" || fail "metainfo launchable"
  grep -q '^Icon=org.rsp.Viewer$' "$D" || fail "desktop Icon= is not the installed icon"
  python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
    "$R/share/icons/hicolor/scalable/apps/org.rsp.Viewer.svg" || fail "icon: not XML"
  update-mime-database "$R/share/mime" || fail "update-mime-database"
  update-desktop-database "$R/share/applications" 2>/dev/null || fail "update-desktop-database"
  cp "$TRACE" "$T/cwd/recording.bin"
  printf 'some notes\n' >"$T/cwd/notes.data"
  ct() {
    XDG_DATA_HOME=$T/nohome XDG_DATA_DIRS=$R/share:/usr/share GIO_USE_VFS=local \
      gio info -a standard::content-type "$1" | sed -n 's/.*content-type: //p'
  }
  [ "$(ct "$T/cwd/recording.bin")" = application/x-perf-data ] ||
    fail "a perf.data named recording.bin is $(ct "$T/cwd/recording.bin"), not application/x-perf-data"
  [ "$(ct "$T/cwd/notes.data")" != application/x-perf-data ] || fail "a text file named notes.data is taken for perf data"
  PATH=$R/bin:$PATH XDG_DATA_HOME=$T/nohome XDG_CONFIG_HOME=$T/nohome XDG_DATA_DIRS=$R/share:/usr/share \
    gio mime application/x-perf-data >"$T/mime.txt" 2>&1 || true
  grep -q 'Default application .*org.rsp.Viewer.desktop' "$T/mime.txt" ||
    { cat "$T/mime.txt"; fail "GIO does not open application/x-perf-data with org.rsp.Viewer.desktop"; }
  note "desktop: the entry and metainfo validate; GIO: a perf.data by its magic is application/x-perf-data, opened by org.rsp.Viewer.desktop"
fi
note ok
