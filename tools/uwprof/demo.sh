#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh BUILD: profile lua5.4 (Debian's source, built Thumb-2 -O2 -g by
# scripts/build-lua.sh) running a CPU-heavy script in the emulated ARM
# machine, the way a device is profiled:
#   host:   uwprof table --build-id-dir for lua and the C libraries it maps
#   device: uwprof record -- lua workload.lua   (the static armhf uwprof)
#   host:   uwprof report: report.txt, flame.svg, profile.pb.gz in BUILD/demo
# make demo builds what this needs first.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$top/build}
demo=$BUILD/demo
uwprof=$BUILD/host/uwprof
lua=$BUILD/arm/lua-gcc/lua
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
libgcc=/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1	# lua links it; busybox root lacks it
seconds=${UWPROF_DEMO_SECONDS:-8}

say() { echo "demo: $*"; }

# Debian's libc is stripped; its debug symbols (libc6-dbg, by build-id) name
# the functions .dynsym leaves out.  Optional: without them libc frames are
# grouped as [libc.so.6].
fetch_libc_dbg() {
	local d=$demo/dbg
	[ -d "$d/usr/lib/debug/.build-id" ] && return 0
	mkdir -p "$d/deb"
	if (cd "$d/deb" && apt-get download -q libc6-dbg:armhf >/dev/null 2>&1); then
		dpkg -x "$d"/deb/libc6-dbg_*_armhf.deb "$d"
	else
		say "libc6-dbg:armhf not available; libc frames stay unnamed"
	fi
}

# Tables for lua and the C libraries it maps.  Debian's libc.so.6 and
# libm.so.6 carry little or no unwind information themselves (libc's
# exidx marks its asm CANTUNWIND, libm has none); their separate debug
# files (libc6-dbg) hold .debug_frame CFI for nearly every function, found
# by build-id under --debug-dir.  What still has no CFI (libgcc's helpers
# linked into lua) gets rules from prologue analysis where the
# instructions justify them.  UWPROF_DEMO_NO_DEBUG_FILE=1 and
# UWPROF_DEMO_NO_PROLOGUE=1 leave either out, to compare.
make_tables() {
	local f dbg=() pa=(--prologue-analysis)
	[ -n "${UWPROF_DEMO_NO_PROLOGUE:-}" ] && pa=()
	rm -rf "$demo/tables"
	mkdir -p "$demo/tables"
	if [ -n "${UWPROF_DEMO_NO_DEBUG_FILE:-}" ]; then
		dbg=(--no-debug-file)
	else
		[ -d "$demo/dbg/usr/lib/debug" ] && dbg+=(--debug-dir "$demo/dbg/usr/lib/debug")
		[ -d "$BUILD/arm/dbg/usr/lib/debug" ] && dbg+=(--debug-dir "$BUILD/arm/dbg/usr/lib/debug")
	fi
	for f in "$lua" "$libdir/libc.so.6" "$libdir/libm.so.6" \
		"$libdir/ld-linux-armhf.so.3" "$libgcc"; do
		# Without a debug file and prologue analysis libm.so.6 has
		# nothing to build from: say so and go on.
		"$uwprof" table "$f" ${dbg[@]+"${dbg[@]}"} ${pa[@]+"${pa[@]}"} \
			--build-id-dir "$demo/tables" \
			>/dev/null 2>"$demo/table.err" ||
			say "no table for $(basename "$f"): $(head -n 1 "$demo/table.err")"
	done
}

record_in_vm() {
	rm -rf "$demo/vm"
	say "recording lua for ${seconds} s in the VM"
	"$top/scripts/vm.sh" --timeout 600 --out "$demo/vm" \
		--add "$BUILD/arm/uwprof:/usr/bin/uwprof" \
		--add "$lua:/usr/bin/lua" \
		--add "$libgcc:/lib/arm-linux-gnueabihf/libgcc_s.so.1" \
		--add "$demo/tables:/data/uwprof/tables" \
		--add "$top/tests/data/report/workload.lua:/data/workload.lua" -- \
		"insmod /uwprof.ko && cd /out && uwprof record -F 1000 \
		 --tables /data/uwprof/tables -o /out/uwprof.data -- \
		 lua /data/workload.lua $seconds >/tmp/record.log 2>&1; \
		 rc=\$?; cat /tmp/record.log; exit \$rc"
}

report() {
	local symfs=(--symfs "$BUILD/arm/lua-gcc" --symfs "$BUILD/arm/root")
	if [ -d "$demo/dbg/usr/lib/debug" ]; then
		symfs+=(--symfs "$demo/dbg/usr/lib/debug")
	fi
	local data=$demo/vm/uwprof.data
	"$uwprof" report -q "${symfs[@]}" --top 25 -o "$demo/report.txt" "$data"
	"$uwprof" report -q "${symfs[@]}" -f svg --title "lua5.4 in the ARM VM (uwprof)" \
		-o "$demo/flame.svg" "$data"
	"$uwprof" report -q "${symfs[@]}" -f pprof -o "$demo/profile.pb.gz" "$data"
	"$uwprof" report -q "${symfs[@]}" --stats --top 10 -o "$demo/stats.txt" "$data"
}

mkdir -p "$demo"
fetch_libc_dbg
make_tables
record_in_vm
report
echo
sed -n '1,22p' "$demo/report.txt"
echo
grep '^# fully unwound' "$demo/report.txt" | sed 's/^# /demo: /'
say "flame graph: $demo/flame.svg"
say "report:      $demo/report.txt (unwind outcomes: $demo/stats.txt)"
say "pprof:       $demo/profile.pb.gz (go tool pprof -top [-lines] $demo/profile.pb.gz)"
