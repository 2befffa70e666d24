#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Variants of symbols-helper for test-symbols:
#   MINI      stripped, with MiniDebugInfo (.gnu_debugdata: an xz'd ELF holding the
#             function symbols .dynsym lacks), the recipe of Fedora's find-debuginfo
#   STRIPPED  stripped, nothing else
#   DEBUG     the separate debug file (objcopy --only-keep-debug)
# usage: make-symbols-helpers.sh IN MINI STRIPPED DEBUG
set -eu
in=$1 mini=$2 stripped=$3 debug=$4
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
