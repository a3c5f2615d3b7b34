#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# capture-lua.sh CAPTURE_SO UWPROF OUTDIR: real stacks for make bench-unwind.
# Runs BUILD/arm/lua-gcc/lua on bench/perf/bench.lua under qemu-arm with
# tests/gt/capture.c preloaded, tables for lua and the C libraries it maps
# built as make demo builds them.  Leaves OUTDIR/lua.uwr and the tables
# (OUTDIR/*.uwt) the replay loads; bench/bench_unwind.c reads them.
set -euo pipefail
so=$1 uwprof=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
root=$BUILD/arm/root
lua=$BUILD/arm/lua-gcc/lua
libdir=$root/lib/arm-linux-gnueabihf
libgcc=/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1	# the root lacks it
dbg=$BUILD/arm/dbg/usr/lib/debug
mkdir -p "$out"

for f in "$lua" "$libdir/libc.so.6" "$libdir/libm.so.6" "$libgcc" \
	"$libdir/ld-linux-armhf.so.3"; do
	[ -f "$f" ] || { echo "capture-lua: no $f (make lua-arm setup)" >&2; exit 1; }
done
spec=
for f in "$lua" "$libdir/libc.so.6" "$libdir/libm.so.6" "$libgcc" \
	"$libdir/ld-linux-armhf.so.3"; do
	name=$(basename "$f")
	[ "$f" = "$lua" ] && name=main
	"$uwprof" table "$f" --debug-dir "$dbg" --prologue-analysis \
		-o "$out/$name.uwt" >/dev/null 2>"$out/$name.table.log" ||
		{ echo "capture-lua: no table for $name" >&2; continue; }
	spec+="${spec:+;}$name=$out/$name.uwt"
done
# qemu-user hands its environment to the program (-E would split at commas);
# ITIMER_PROF every 1 ms of CPU time, UWCAP_SAMPLES at most
UWCAP_OUT=$out/lua.uwr.tmp UWCAP_TABLES=$spec \
	UWCAP_SAMPLES=${UWCAP_SAMPLES:-2000} \
	LD_LIBRARY_PATH=$(dirname "$libgcc") \
	qemu-arm-static -L "$root" -E LD_PRELOAD="$so" \
	"$lua" "$top/bench/perf/bench.lua" "${UWCAP_SCALE:-6}" >"$out/lua.log"
mv "$out/lua.uwr.tmp" "$out/lua.uwr"
