#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-sqlite.sh [BUILD]
#
# sqlite3 (the command-line shell with the library linked in) from Debian's
# source package, for armhf, like build-lua.sh does for lua5.4:
#   BUILD/arm/sqlite-gcc/sqlite3, BUILD/arm/sqlite-clang/sqlite3
# Thumb-2, -O2 -g (so with .debug_frame) and -funwind-tables (so with
# .ARM.exidx/.ARM.extab too, for table size comparisons), dynamically linked
# against the armhf C library; Debian's own compile-time options
# (debian/rules) less those that need other libraries.
#
# The amalgamation (sqlite3.c, shell.c) is generated on this machine with
# the host compiler and tclsh (package tcl, installed if missing).
# Idempotent: each step is skipped when its output exists.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$here/build}}
src_dir=$BUILD/src
arm_dir=$BUILD/arm
mkdir -p "$src_dir" "$arm_dir"

say() { echo "build-sqlite: $*" >&2; }

. "$here/scripts/apt.sh"

# The amalgamation, generated out of tree with the host toolchain.
amalgamation() {
	local a=$src_dir/sqlite3-amalgamation
	if [ -f "$a/sqlite3.c" ] && [ -f "$a/shell.c" ]; then
		return 0
	fi
	command -v tclsh >/dev/null || {
		say "installing tcl (to generate the amalgamation)"
		$SUDO apt-get install -y -q --no-install-recommends tcl >/dev/null; }
	say "generating the amalgamation"
	rm -rf "$a.tmp"
	mkdir -p "$a.tmp"
	(cd "$a.tmp" && "$sqlite_src/configure" --disable-tcl >/dev/null &&
		make -j2 sqlite3.c shell.c >/dev/null 2>&1) ||
		{ say "amalgamation failed in $a.tmp"; exit 1; }
	mkdir -p "$a"
	cp "$a.tmp/sqlite3.c" "$a.tmp/sqlite3.h" "$a.tmp/shell.c" "$a/"
	rm -rf "$a.tmp"
}

defs=(-DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
	-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS
	-DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_UNLOCK_NOTIFY
	-DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
	-DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
	-DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1
	-DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1
	-DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1
	-DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_PREUPDATE_HOOK
	-DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB
	-DSQLITE_MAX_VARIABLE_NUMBER=250000 -DHAVE_USLEEP -DHAVE_READLINE=0)

# build NAME CC FLAGS...
build() {
	local name=$1 cc=$2
	shift 2
	local out=$arm_dir/sqlite-$name a=$src_dir/sqlite3-amalgamation
	[ -x "$out/sqlite3" ] && return 0
	say "building sqlite-$name"
	mkdir -p "$out/obj"
	"$cc" "$@" -fno-strict-aliasing "${defs[@]}" -I"$a" -c "$a/sqlite3.c" -o "$out/obj/sqlite3.o"
	"$cc" "$@" -fno-strict-aliasing "${defs[@]}" -I"$a" -c "$a/shell.c" -o "$out/obj/shell.o"
	"$cc" "$@" -o "$out/sqlite3.tmp" "$out/obj/shell.o" "$out/obj/sqlite3.o" -lpthread -ldl -lm
	mv "$out/sqlite3.tmp" "$out/sqlite3"
}

sqlite_src=$(fetch_source sqlite3 'sqlite3-[0-9]*')
amalgamation
common=(-O2 -g -mthumb -funwind-tables)
build gcc arm-linux-gnueabihf-gcc "${common[@]}"
build clang clang --target=arm-linux-gnueabihf -march=armv7-a \
	-mfloat-abi=hard "${common[@]}" -fuse-ld=bfd --gcc-toolchain=/usr
say "done: $arm_dir/sqlite-gcc/sqlite3 $arm_dir/sqlite-clang/sqlite3"
