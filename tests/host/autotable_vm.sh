#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Tables made on the device (issue 23): in the VM, with an empty --tables
# directory and a fresh table cache, "uwprof record" makes the tables of
# lua (build/arm/lua-gcc, an own build with -g, as record_vm.sh pushes
# its fixture), Debian's C library, libm and loader and libgcc_s as shipped
# (stripped), and the kernel's vDSO, from the files themselves, caches them and uploads them; a second run takes them from
# the cache.  Both are judged by the call-site checker of make bench
# (bench/perf/analyze.py --check) against a run with tables made on the
# host from the same files ("uwprof table FILE --prologue-analysis
# --no-debug-file", what a user without debug files would make): the same
# success rate, within RATE_TOL tenths of a point, on the first and on the
# cached run.  A small program spinning on clock_gettime (the vDSO) is
# unwound through the vDSO on both runs.  The cache holds every table
# afterwards, each the same bytes as the host's.  Boots one VM (about two
# minutes under TCG: the first run makes six tables; the three lua runs
# take about 15 s each).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
arm_uwprof=$BUILD/arm/uwprof
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
libgcc=/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1	# lua links it; busybox root lacks it
lua=$BUILD/arm/lua-gcc/lua
PY=/usr/bin/python3
# In tenths of a point (or three standard deviations of the sampled
# difference, if larger: same_rate).  Not the issue's 0.5-point bar: two
# runs of this workload whose tables were byte-identical differed by 1.3
# points (CI: 93.50% of 32,139 samples against 92.23% of 38,806), so
# the workload itself varies that much from run to run.  The proof that
# the device makes the host's tables is the byte comparison below; the
# rates catch samples lost to tables that came too late.
RATE_TOL=${RATE_TOL:-20}
# lua's workload: 30,000 to 65,000 samples a run at 4 kHz under TCG (at
# scale 12, make check's runs of dd4cd4c had 62,000 to 130,000), so the
# rates compare tables, not sampling noise: one standard deviation of the
# difference of two rates near 88% is then at most 0.3 points, the bar
# (RATE_TOL) about seven of them; near 100%, as now, far less
LUA_SCALE=${LUA_SCALE:-6} HZ=${HZ:-4000}
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"' EXIT

[ -e "$top/uwprof.ko" ] || [ ! -e "$BUILD/kernel/vmlinuz" ] ||
	make -C "$top" --no-print-directory module >/dev/null 2>&1
for need in "$BUILD/kernel/vmlinuz" "$top/uwprof.ko" "$arm_uwprof" "$lua" \
	"$libdir/libc.so.6" "$libgcc"; do
	if [ ! -e "$need" ]; then
		skip "tables made on the device: no $need (make setup module uwprof-arm lua-arm)"
		finish
		exit 0
	fi
done
need_checker

# The guest's files, as the checker reads them too: /data/lua,
# /data/clockspin, the libraries, and [vdso].
croot=$tmp/root
mkdir -p "$croot/data" "$croot/lib/arm-linux-gnueabihf" "$tmp/unstripped" \
	"$tmp/host-tables" "$tmp/empty"
ln -s "$libdir"/* "$croot/lib/arm-linux-gnueabihf/"
ln -sf "$libgcc" "$croot/lib/arm-linux-gnueabihf/libgcc_s.so.1"
cp "$lua" "$tmp/unstripped/lua"
cp "$lua" "$croot/data/lua"
cp "$top/bench/perf/bench.lua" "$croot/data/bench.lua"
cat >"$tmp/clockspin.c" <<'C'
#include <stdlib.h>
#include <time.h>
/* Spin on clock_gettime (the vDSO's) for @ms milliseconds. */
static __attribute__((noinline)) long spin(long ms)
{
	struct timespec t0, t;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
		n++;
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return n;
}

int main(int argc, char **argv)
{
	return spin(argc > 1 ? atol(argv[1]) : 500) > 0 ? 0 : 1;
}
C
if ! arm-linux-gnueabihf-gcc -O2 -g -mthumb -Wl,--build-id -o "$tmp/unstripped/clockspin" \
	"$tmp/clockspin.c" 2>"$tmp/err"; then
	fail "build clockspin: $(cat "$tmp/err")"
	finish
	exit 1
fi
cp "$tmp/unstripped/clockspin" "$croot/data/clockspin"

# The host's tables, from the same files the guest runs.
for f in "$croot/data/lua" "$croot/data/clockspin" "$libdir/libc.so.6" \
	"$libdir/libm.so.6" "$libdir/ld-linux-armhf.so.3" "$libgcc"; do
	"$UWPROF" table "$f" --prologue-analysis --no-debug-file \
		--build-id-dir "$tmp/host-tables" >/dev/null 2>"$tmp/err" ||
		fail "uwprof table $f: $(cat "$tmp/err")"
done
vdso=
if "$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" \
	"$tmp/vdso.so" 2>"$tmp/vdso.err"; then
	"$UWPROF" table "$tmp/vdso.so" --prologue-analysis --no-debug-file \
		--build-id-dir "$tmp/host-tables" >/dev/null || fail "uwprof table vdso.so"
	vdso=1
	cp "$tmp/vdso.so" "$croot/[vdso]"
fi

cat >"$tmp/run.sh" <<EOF
#!/bin/sh
insmod /uwprof.ko || exit 1
cd /tmp
mkdir -p /tmp/empty
run() {
	name=\$1; shift
	uwprof record -F $HZ -o /out/\$name.data "\$@" >/out/\$name.log 2>&1
	echo \$? >/out/\$name.rc
}
LUA="/data/lua /data/bench.lua $LUA_SCALE"
SPIN="/data/clockspin 1500"
H="--tables /data/host-tables --no-auto-tables"
A="--tables /tmp/empty --table-cache /tmp/cache"
run lua-host \$H -- \$LUA
run spin-host \$H -- \$SPIN
run lua-first \$A -- \$LUA
run spin-first \$A -- \$SPIN
run lua-cached \$A -- \$LUA
run spin-cached \$A -- \$SPIN
mkdir -p /out/cache
cp /tmp/cache/*.uwt /out/cache/
ls /tmp/cache >/out/cache.ls
uwprof vdso -o /out/vdso.so >/out/vdso.log 2>&1
rmmod uwprof
exit 0
EOF
chmod +x "$tmp/run.sh"
if ! "$top/scripts/vm.sh" --timeout 900 --out "$tmp/out" \
	--add "$arm_uwprof:/usr/bin/uwprof" --add "$croot/data/lua:/data/lua" \
	--add "$croot/data/clockspin:/data/clockspin" \
	--add "$croot/data/bench.lua:/data/bench.lua" \
	--add "$tmp/host-tables:/data/host-tables" \
	--add "$libgcc:/lib/arm-linux-gnueabihf/libgcc_s.so.1" \
	--add "$tmp/run.sh:/run.sh" -- /run.sh >"$tmp/vm.log" 2>&1; then
	fail "the VM run failed (or the kernel warned)"
	vm_log_tail "$tmp/vm.log" 20
	finish
	exit 1
fi
out=$tmp/out
[ -n "$vdso" ] || { [ -s "$out/vdso.so" ] && cp "$out/vdso.so" "$croot/[vdso]"; }

for r in lua-host spin-host lua-first spin-first lua-cached spin-cached; do
	if [ "$(cat "$out/$r.rc" 2>/dev/null)" = 0 ]; then
		ok "$r: record exits 0"
	else
		fail "$r: record: $(cat "$out/$r.log" 2>/dev/null | tail -n 5)"
	fi
done

# checked RUN EXE: "SAMPLES UNWOUND" by the checker, over every sample
# (each run checked once: the host run is the reference of two)
checked() {
	[ -s "$tmp/$1.check" ] ||
		$PY "$top/bench/perf/analyze.py" --check "$out/$1.data" --exe "$2" \
			--root "$croot" --unstripped "$tmp/unstripped" \
			>"$tmp/$1.check" 2>"$tmp/$1.err" || { echo "0 0"; return; }
	awk '$1 == "all" {print $2, $3}' "$tmp/$1.check"
}
# same_rate WHAT HOST-RUN RUN EXE
same_rate() {
	local h r hn hu n u hp p d tol
	h=$(checked "$2" "$4") r=$(checked "$3" "$4")
	hn=${h% *} hu=${h#* } n=${r% *} u=${r#* }
	if [ "${hn:-0}" -lt 100 ] || [ "${n:-0}" -lt 100 ]; then
		fail "$1: too few samples judged ($hu of $hn with host tables, $u of $n on the device) $(tail -n 1 "$tmp/$3.err")"
		return
	fi
	# rates in hundredths of a per cent; the difference in tenths of a point
	hp=$((hu * 10000 / hn)) p=$((u * 10000 / n)) d=$(( (p - hp) / 10 ))
	# the bar, or three standard deviations of the difference of the two
	# sampled rates when the runs got fewer samples than meant (a loaded
	# host: plain TCG samples guest time, the workload's share of it
	# shrinks); the tables themselves are compared byte for byte below
	tol=$(rate_tol "$hu" "$hn" "$u" "$n" "$RATE_TOL")
	if [ ${d#-} -le "$tol" ]; then
		ok "$1: $u of $n fully unwound ($((p / 100)).$(printf %02d $((p % 100))))%), with host tables $hu of $hn ($((hp / 100)).$(printf %02d $((hp % 100))))%): within $tol tenths of a point"
	else
		fail "$1: $u of $n fully unwound ($((p / 100)).$(printf %02d $((p % 100))))%), with host tables $hu of $hn ($((hp / 100)).$(printf %02d $((hp % 100))))%): more than $tol tenths of a point apart"
		grep '^where' "$tmp/$3.check" | head -n 8 | sed 's/^/#   /'
	fi
}
same_rate "lua, first run (tables made on the device)" lua-host lua-first /data/lua
same_rate "lua, cached run" lua-host lua-cached /data/lua

# What record says it did: six tables made (lua, libc, libm, ld.so,
# libgcc_s, the vDSO), then from the cache.  The command is paused while
# its tables are made, so at most the samples taken between a mapping and
# record's pause (one in a few thousand) stop at code whose table is being
# made.
made=$(sed -n 's/.*tables made on this device: \([0-9]*\) .*/\1/p' "$out/lua-first.log")
cached=$(sed -n 's/.*, \([0-9]*\) from the cache.*/\1/p' "$out/lua-cached.log")
pend=$(sed -n 's/.*: \([0-9]*\) samples stopped no-table in code whose table was being made$/\1/p' "$out/lua-first.log")
if [ "${made:-0}" -ge 6 ] && [ "${cached:-0}" -ge 6 ]; then
	ok "lua: $made tables made on the first run, $cached from the cache on the next"
else
	fail "lua: ${made:-?} tables made, ${cached:-?} from the cache: $(grep 'uwprof record' "$out/lua-first.log" "$out/lua-cached.log")"
fi
n=$(sed -n 's/^uwprof record: \([0-9]*\) samples of .*/\1/p' "$out/lua-first.log")
if [ -n "$pend" ] && [ "${n:-0}" -gt 0 ] && [ $((pend * 1000)) -le "$n" ]; then
	ok "lua, first run: $pend of $n samples stopped at code whose table was being made (counted; at most 0.1%)"
else
	fail "lua, first run: ${pend:-?} of ${n:-?} samples stopped at code whose table was being made"
fi
# Tables that exist are uploaded as the program starts (its loader and
# DT_NEEDED closure), so no sample waits for one: no more no-table stops
# than with host tables (which record uploads before the command starts)
# but 0.5% of the samples, and none counted as stopped at a table
# uploaded after it.
hnt=$(no_table "$tmp/lua-host.check")
for r in lua-first lua-cached; do
	nt=$(no_table "$tmp/$r.check")
	n=$(sed -n 's/^uwprof record: \([0-9]*\) samples of .*/\1/p' "$out/$r.log")
	if [ "${n:-0}" -gt 0 ] && [ $(( (nt - hnt) * 1000 )) -le $(( n * 5 )) ]; then
		ok "$r: $nt of $n samples stopped no-table in a mapped file (with host tables $hnt)"
	else
		fail "$r: $nt of ${n:-?} samples stopped no-table in a mapped file, more than 0.5% over the host tables' $hnt"
	fi
done
late=$(late_uploads "$out/lua-cached.log")
up=$(sed -n 's/^uwprof record: \([0-9]*\) tables uploaded as the command started.*/\1/p' "$out/lua-cached.log")
if [ "$late" = 0 ] && [ "${up:-0}" -ge 5 ]; then
	ok "lua, cached run: $up tables uploaded as it started, 0 samples stopped at a table uploaded after them"
else
	fail "lua, cached run: ${up:-?} tables uploaded as it started (lua, ld.so, libc, libm, libgcc_s), ${late:-?} samples stopped at a table uploaded after them"
fi
if grep -q 'tables made on this device: 0 ' "$out/spin-cached.log"; then
	ok "clockspin, cached run: no table made"
else
	fail "clockspin, cached run: $(grep 'tables made' "$out/spin-cached.log")"
fi

# Through the vDSO: of the samples whose stack holds __vdso_clock_gettime,
# at least 99.5% hold spin and main below it.  (clockspin's overall rate
# is no measure: its misses are a fixed hundred-odd samples of the
# loader's start-up over a spin whose sample count varies with the VM's
# pace; its tables are compared byte for byte below.)
mkdir -p "$tmp/symfs/data"
cp "$tmp/unstripped/clockspin" "$tmp/unstripped/lua" "$tmp/symfs/data/"
for r in spin-first spin-cached; do
	"$UWPROF" report -q -f folded --symfs "$tmp/symfs" --symfs "$croot" \
		"$out/$r.data" >"$tmp/$r.folded" 2>"$tmp/$r.rerr"
	nv=$(awk '/__vdso_clock_gettime/ && /main;.*spin/ {n += $NF} END {print n + 0}' "$tmp/$r.folded")
	na=$(awk '/__vdso_clock_gettime/ {n += $NF} END {print n + 0}' "$tmp/$r.folded")
	if [ "$nv" -gt 100 ] && [ $((nv * 1000)) -ge $((na * 995)) ]; then
		ok "$r: $nv of the $na samples in the vDSO unwound through it to spin and main"
	else
		fail "$r: $nv of the $na samples in the vDSO unwound through it: $(grep -m3 vdso "$tmp/$r.folded")"
	fi
done

# The cache: every table, each the host's bytes.
n=0 same=0
for t in "$tmp"/host-tables/*.uwt; do
	b=$(basename "$t")
	n=$((n + 1))
	cmp -s "$t" "$out/cache/$b" && same=$((same + 1))
done
if [ "$n" -ge 6 ] && [ "$same" = "$n" ]; then
	ok "the cache holds the $n tables, each the same bytes as the host makes"
else
	fail "the cache holds $(wc -w <"$out/cache.ls" 2>/dev/null) tables, $same of the host's $n the same: $(cat "$out/cache.ls" 2>/dev/null)"
fi
finish
