#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-big.sh FIGURES: what make bench-big runs.  The cost of a sample
# and of a table on Chrome-sized code, in the VM under -icount (one vCPU,
# a guest nanosecond one instruction: docs/DESIGN.md section 5):
#
#   tables   chromium's own table (make test-chromium's, 8 MB in 91 parts,
#            from build/chromium-stock/tables) and libnode's, uploaded
#            part by part by bench/big/upload.c: instructions and kernel
#            memory per table, and the session's memory for one CPU
#   node     Debian's armhf node (libnode.so.108, 25 MB of code; make
#            test-node fetches it) running bench/big/work.js, a fixed
#            amount of work in libnode's C++ under JIT frames, unprofiled
#            and under "uwprof record --jit v8-arm" at BENCH_BIG_FREQS
#            (default 100 1000 4000), tables for every file node maps
#   lua      lua-gcc on bench/perf/bench.lua at 1 kHz in the same boot,
#            as make bench tables it: the per-frame cost to compare with
#
# bench/big/figures.py then writes FIGURES (markdown) and prints it.
# BENCH_BIG_ROUNDS sets work.js's rounds (default 12).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
figs=${1:?usage: $0 FIGURES}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
freqs=${BENCH_BIG_FREQS:-100 1000 4000}
rounds=${BENCH_BIG_ROUNDS:-12}
node=$BUILD/node
work=$BUILD/bench-big
say() { echo "bench-big: $*" >&2; }

[ -x "$node/root/usr/bin/node" ] ||
	{ say "no node in $node/root; run make test-node once (it fetches node's packages)"; exit 2; }
lua=$BUILD/arm/lua-gcc/lua
[ -x "$lua" ] || { say "no $lua; run make lua-arm"; exit 2; }
rm -rf "$work"
mkdir -p "$work/guest/tables" "$work/guest/up" "$work/out"
g=$work/guest

# chromium's table, if make test-chromium made it: the largest real one
chromium=$BUILD/chromium-stock/root/usr/lib/chromium/chromium
if [ -f "$chromium" ]; then
	bid=$(arm-linux-gnueabihf-readelf -n "$chromium" |
		sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
	ct=$(ls "$BUILD"/chromium-stock/tables/*/"$bid".uwt 2>/dev/null | head -n 1)
fi
if [ -n "${ct:-}" ]; then
	cp "$ct" "$g/up/chromium.uwt"
else
	say "skipped: chromium's table (none in $BUILD/chromium-stock/tables; make test-chromium makes it)"
fi

# node's files as shipped, lua's unstripped build and the C library with
# its debug files, as make bench tables them
. "$top/tests/node/files.sh"
say "tables for node's files (libnode's takes a minute or two)"
for f in $NODE_FILES; do
	"$UWPROF" table --prologue-analysis "$node/root/$f" \
		--build-id-dir "$g/tables" >/dev/null
done
libnode_bid=$(arm-linux-gnueabihf-readelf -n "$node/root/usr/lib/arm-linux-gnueabihf/libnode.so.108" |
	sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
cp "$g/tables/$libnode_bid.uwt" "$g/up/libnode.uwt"
dbg=$BUILD/arm/dbg/usr/lib/debug
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
"$UWPROF" table "$lua" --build-id-dir "$g/tables" --prologue-analysis >/dev/null
for l in libc.so.6 libm.so.6 ld-linux-armhf.so.3; do
	"$UWPROF" table "$(readlink -f "$libdir/$l")" --build-id-dir "$g/tables" \
		--debug-dir "$dbg" --prologue-analysis >/dev/null
done
"$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" "$work/vdso.so" &&
	"$UWPROF" table "$work/vdso.so" --prologue-analysis --no-debug-file \
		--build-id-dir "$g/tables" >/dev/null

arm-linux-gnueabihf-strip -o "$g/lua" "$lua"
cp "$BUILD/arm/uwprof" "$BUILD/arm/bench/timeit" "$BUILD/arm/bench/upload" \
	"$top/bench/big/work.js" "$top/bench/perf/bench.lua" "$g/"
cat >"$g/run.sh" <<GUEST
#!/bin/sh
B=/big
insmod /uwprof.ko || exit 1
mkdir -p /out/t /tmp/w && cd /tmp/w
\$B/upload \$B/up/*.uwt >/out/upload.txt || exit 1
export LD_LIBRARY_PATH=/usr/lib/arm-linux-gnueabihf:/nodelib
# one run first, left out: the files come into the page cache
/usr/bin/node \$B/work.js 1 >/dev/null
for c in none $freqs; do
	if [ \$c = none ]; then
		\$B/timeit -o /out/t/node.none -- /usr/bin/node \$B/work.js $rounds >/dev/null
	else
		\$B/timeit -o /out/t/node.\$c -- \$B/uwprof record -q --jit v8-arm \\
			--no-auto-tables --tables \$B/tables -F \$c -o /out/node.\$c.data -- \\
			/usr/bin/node \$B/work.js $rounds >/dev/null
	fi
done
\$B/timeit -o /out/t/lua.1000 -- \$B/uwprof record -q --no-auto-tables \\
	--tables \$B/tables -F 1000 -o /out/lua.1000.data -- \$B/lua \$B/bench.lua 2 >/dev/null
ls -l /out
GUEST
chmod +x "$g/run.sh"
say "running the VM (one vCPU under -icount)"
t0=$(date +%s)
"$top/scripts/vm.sh" --icount --smp 1 --timeout 2400 --mem 1536 --out "$work/out" \
	--add "$node/root/usr/.:/usr" \
	--add "$node/root/lib/arm-linux-gnueabihf:/nodelib" \
	--add "$g:/big" -- /big/run.sh >"$work/vm.log" 2>&1 ||
	{ say "the VM run failed; see $work/vm.log"; tail -n 20 "$work/vm.log" >&2; exit 1; }
say "VM done in $(( $(date +%s) - t0 )) s"
/usr/bin/python3 "$top/bench/big/figures.py" "$work/out" "$freqs" \
	"$(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- \
		. ':!docs' || echo +changes)" >"$figs"
cat "$figs"
