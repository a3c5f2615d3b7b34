#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-lua.sh [BUILD]
#
# Real ARM32 code for table tests, demos and benchmarks:
#   BUILD/arm/lua-gcc/lua, BUILD/arm/lua-clang/lua   lua5.4 from Debian's
#       source package, Thumb-2, -O2 -g (so with .debug_frame), one build per
#       compiler;
#   BUILD/arm/libc6/lib/arm-linux-gnueabihf/libc.so.6   Debian's own armhf
#       libc, which carries only .ARM.exidx/.ARM.extab.
#
# Idempotent: each step is skipped when its output exists.  Needs deb-src for
# bookworm (added to the apt sources below if missing), dpkg-dev,
# gcc-arm-linux-gnueabihf, clang, and the armhf foreign architecture.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$here/build}}
src_dir=$BUILD/src
arm_dir=$BUILD/arm
mkdir -p "$src_dir" "$arm_dir"

say() { echo "build-lua: $*" >&2; }

. "$here/scripts/apt.sh"

# build_lua NAME CC CFLAGS...: the lua interpreter, all of the core and the
# standard libraries in one executable.
build_lua() {
	local name=$1 cc=$2
	shift 2
	local out=$arm_dir/lua-$name
	if [ -x "$out/lua" ]; then
		return 0
	fi
	say "building lua-$name"
	mkdir -p "$out/obj"
	# Debian's build system generates this header; luaconf.h includes it.
	echo '#define DEB_HOST_MULTIARCH "arm-linux-gnueabihf"' \
		>"$out/obj/lua5.4-deb-multiarch.h"
	local s
	for s in "$lua_src"/src/*.c; do
		case $(basename "$s") in luac.c|onelua.c) continue ;; esac
		"$cc" "$@" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I"$out/obj" -c "$s" \
			-o "$out/obj/$(basename "${s%.c}").o"
	done
	"$cc" "$@" -o "$out/lua.tmp" "$out"/obj/*.o -lm -ldl
	mv "$out/lua.tmp" "$out/lua"
}

fetch_libc() {
	local out=$arm_dir/libc6
	if [ -f "$out/lib/arm-linux-gnueabihf/libc.so.6" ]; then
		return 0
	fi
	say "fetching Debian's libc6:armhf"
	mkdir -p "$out/deb"
	(cd "$out/deb" && apt-get download -q libc6:armhf >&2)
	dpkg -x "$out"/deb/libc6_*_armhf.deb "$out"
	[ -f "$out/lib/arm-linux-gnueabihf/libc.so.6" ] ||
		{ say "libc.so.6 missing from the libc6:armhf package"; exit 1; }
}

lua_src=$(fetch_source lua5.4 'lua5.4-*')
# -funwind-tables adds .ARM.exidx/.ARM.extab beside .debug_frame: both
# sources on one binary, and a size comparison for --stats.
common=(-O2 -g -mthumb -funwind-tables)
build_lua gcc arm-linux-gnueabihf-gcc "${common[@]}"
build_lua clang clang --target=arm-linux-gnueabihf -march=armv7-a \
	-mfloat-abi=hard "${common[@]}" -fuse-ld=bfd \
	--gcc-toolchain=/usr
fetch_libc
say "done: $arm_dir/lua-gcc/lua $arm_dir/lua-clang/lua" \
	"$arm_dir/libc6/lib/arm-linux-gnueabihf/libc.so.6"
