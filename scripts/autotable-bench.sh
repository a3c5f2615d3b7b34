#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# autotable-bench.sh FIGURES: the start-up cost of tables made on the
# device (make autotable-bench; docs/BENCHMARKS.md "Tables made on the
# device").  In the VM under -icount (one vCPU, one guest nanosecond an
# instruction: DESIGN.md section 5), with the static armhf uwprof:
#
#   lua       build/arm/lua-gcc/lua (stripped) running bench.lua 0: start-up
#             and exit only; it maps lua, libc, libm, libgcc_s, ld.so, vDSO
#   manylibs  a small program of this script linked (--no-as-needed) with
#             thirteen of the C library's other libraries and libgcc_s
#             (18 mappings of code with libc, ld.so, itself and the vDSO),
#             returning at once
#
# each run four ways: alone; "uwprof record" with tables made on the host
# (--tables, --no-auto-tables); the first run with an empty --tables and a
# fresh cache (every table made on the device); the cached run.  Each is
# timed by bench/timeit (CPU of record, the command and the table makers
# it waited for); bytes written are the data file and the cache.  Writes
# FIGURES (markdown) and prints it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
figs=${1:?usage: $0 FIGURES}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
arm_uwprof=$BUILD/arm/uwprof
timeit=$BUILD/arm/bench/timeit
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
libgcc=/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1
lua=$BUILD/arm/lua-gcc/lua
work=$BUILD/autotable-bench
rm -rf "$work"
mkdir -p "$work/data" "$work/host-tables" "$work/lib"

arm-linux-gnueabihf-strip -o "$work/data/lua" "$lua"
cp "$top/bench/perf/bench.lua" "$work/data/bench.lua"
cat >"$work/manylibs.c" <<'C'
/* Maps many libraries (linked --no-as-needed) and returns. */
int main(int argc, char **argv)
{
	(void)argv;
	return argc > 2;
}
C
libs=()
for l in libm.so.6 libresolv.so.2 libanl.so.1 libBrokenLocale.so.1 \
	libnss_files.so.2 libnss_dns.so.2 libnss_compat.so.2 libnss_hesiod.so.2 \
	libutil.so.1 librt.so.1 libdl.so.2 libpthread.so.0 libnsl.so.1; do
	libs+=("$libdir/$l")
done
arm-linux-gnueabihf-gcc -O2 -Wl,--build-id -o "$work/data/manylibs" "$work/manylibs.c" \
	-Wl,--no-as-needed "${libs[@]}" "$libgcc"
arm-linux-gnueabihf-strip "$work/data/manylibs"

for f in "$work/data/lua" "$work/data/manylibs" "${libs[@]}" "$libdir/libc.so.6" \
	"$libdir/ld-linux-armhf.so.3" "$libgcc"; do
	"$UWPROF" table "$f" --prologue-analysis --no-debug-file \
		--build-id-dir "$work/host-tables" >/dev/null
done
if "$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" \
	"$work/vdso.so" 2>/dev/null; then
	"$UWPROF" table "$work/vdso.so" --prologue-analysis --no-debug-file \
		--build-id-dir "$work/host-tables" >/dev/null
fi

cat >"$work/run.sh" <<'EOF'
#!/bin/sh
insmod /uwprof.ko || exit 1
mkdir -p /tmp/empty /out/t
cd /tmp
T=/bench/timeit
for p in lua manylibs; do
	case $p in
	lua) cmd="/data/lua /data/bench.lua 0" ;;
	*) cmd="/data/manylibs" ;;
	esac
	$T -o /out/t/$p.none -- $cmd
	$T -o /out/t/$p.host -- uwprof record -o /tmp/$p.host.data \
		--tables /data/host-tables --no-auto-tables -- $cmd 2>/out/$p.host.log
	$T -o /out/t/$p.first -- uwprof record -o /tmp/$p.first.data \
		--tables /tmp/empty --table-cache /tmp/cache-$p -- $cmd 2>/out/$p.first.log
	$T -o /out/t/$p.cached -- uwprof record -o /tmp/$p.cached.data \
		--tables /tmp/empty --table-cache /tmp/cache-$p -- $cmd 2>/out/$p.cached.log
	for r in host first cached; do
		echo "$p.$r data $(wc -c </tmp/$p.$r.data)" >>/out/sizes
	done
	echo "$p cache $(cat /tmp/cache-$p/*.uwt | wc -c) $(ls /tmp/cache-$p | wc -l)" >>/out/sizes
done
rmmod uwprof
exit 0
EOF
chmod +x "$work/run.sh"
adds=()
for l in "$libgcc"; do
	adds+=(--add "$l:/lib/arm-linux-gnueabihf/$(basename "$l")")
done
"$top/scripts/vm.sh" --icount --smp 1 --timeout 1800 --out "$work/out" \
	--add "$arm_uwprof:/usr/bin/uwprof" --add "$timeit:/bench/timeit" \
	--add "$work/data:/data" --add "$work/host-tables:/data/host-tables" \
	"${adds[@]}" --add "$work/run.sh:/run.sh" -- /run.sh >"$work/vm.log" 2>&1 ||
	{ tail -n 20 "$work/vm.log" >&2; echo "autotable-bench: the VM run failed" >&2; exit 1; }

out=$work/out
# field FILE KEY: KEY=N of timeit's line
field() { sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$1" | tail -n 1; }
# CPU in 10^6 guest instructions (a microsecond is 1000 of them), wall in ms
cpu_s() { awk -v u="$(field "$1" user_us)" -v s="$(field "$1" sys_us)" \
	'BEGIN { printf "%.1f", (u + s) / 1e3 }'; }
wall_s() { awk -v w="$(field "$1" wall_ns)" 'BEGIN { printf "%.1f", w / 1e6 }'; }
size() { awk -v k="$1" -v f="$2" '$1 == k && $2 == f {print $3}' "$out/sizes"; }
made() { sed -n 's/.*tables made on this device: \([0-9]*\) (\([0-9.]*\) s CPU), \([0-9]*\) from the cache.*/\1 made (\2 s CPU), \3 from the cache/p' "$1"; }
{
	echo "Measured by \`make autotable-bench\` at commit $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- . 2>/dev/null || echo '+changes'), $(date -u +%Y-%m-%d):"
	echo "the VM under \`-icount shift=0,sleep=off\`, one vCPU, so 10^9 guest instructions are"
	echo "one second of guest CPU. CPU is that of \`uwprof record\`, the command and the table"
	echo "makers record waited for (bench/timeit), in 10^6 instructions; wall in ms of guest"
	echo "time; bytes are the data file, and the table cache the first run filled. One run each."
	echo
	echo "| command | run | CPU (10^6 instr) | wall (ms) | data bytes | tables |"
	echo "|---|---|---:|---:|---:|---|"
	for p in lua manylibs; do
		case $p in
		lua) name="\`lua bench.lua 0\` (6 code mappings)" ;;
		*) name="manylibs (18 code mappings)" ;;
		esac
		echo "| $name | alone | $(cpu_s "$out/t/$p.none") | $(wall_s "$out/t/$p.none") | | |"
		echo "| | host tables (\`--tables\`) | $(cpu_s "$out/t/$p.host") | $(wall_s "$out/t/$p.host") | $(size "$p.host" data) | from the host |"
		echo "| | first run, empty cache | $(cpu_s "$out/t/$p.first") | $(wall_s "$out/t/$p.first") | $(size "$p.first" data) | $(made "$out/$p.first.log"); cache $(size "$p" cache) bytes |"
		echo "| | cached run | $(cpu_s "$out/t/$p.cached") | $(wall_s "$out/t/$p.cached") | $(size "$p.cached" data) | $(made "$out/$p.cached.log") |"
	done
} >"$figs"
cat "$figs"
