#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Variants of symbols-helper for test-symbols:
#   MINI      stripped, with MiniDebugInfo (.gnu_debugdata: an xz'd ELF holding the
#             function symbols .dynsym lacks), the recipe of Fedora's find-debuginfo
#   STRIPPED  stripped, nothing else
#   DEBUG     the separate debug file (objcopy --only-keep-debug)
#   MARKER    IN with a symbol as gcc -flto leaves them (`FILE.c.HASH`: no type, no
#             size, weak, in .debug_info) at rsp_helper_alpha's address + 1
# usage: make-symbols-helpers.sh IN MINI STRIPPED DEBUG MARKER
set -eu
in=$1 mini=$2 stripped=$3 debug=$4 marker=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rsp-helper.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

objcopy --only-keep-debug "$in" "$debug"
strip --strip-all -R .comment -o "$stripped" "$in"

nm -D "$in" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp/dynsyms"
nm "$in" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' |
	sort > "$tmp/funcsyms"
comm -13 "$tmp/dynsyms" "$tmp/funcsyms" > "$tmp/keep"
objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$tmp/keep" "$debug" "$tmp/mini"
xz --threads=1 --format=xz --check=crc64 -c "$tmp/mini" > "$tmp/mini.xz"
objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$stripped" "$mini"

alpha=$(nm "$in" --format=posix --defined-only | awk '$1 == "rsp_helper_alpha" { print $3 }')
objcopy --add-symbol "symbols-helper.c.5eed1e55=.debug_info:0x$(printf '%x' $((0x$alpha + 1))),weak" \
	"$in" "$marker"
