#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The stock corpus in the VM: Debian armhf packages exactly as shipped
# (bench/stock/programs.sh: pbzip2, xz, zstd, lua5.4, sqlite3, gzip), with
# every library they load from Debian's packages as shipped (libc6 without
# libc6-dbg, libstdc++6, libgcc-s1, liblzma5, ...), assembled by
# scripts/build-stock.sh into build/stock/guest.  Tables from the shipped
# files alone: "uwprof table FILE --prologue-analysis" for every ELF file
# the programs load, and for the kernel's vDSO.  Each program runs under
# "uwprof record -F HZ" (the static armhf uwprof, the module) and every
# sample is judged by the call-site checker of make bench
# (bench/perf/analyze.py --check), main thread and other threads apart.
#
# Tables made on the device (issue 23; STOCK_DEVICE=0 leaves them out,
# STOCK_DEVICE_PROGS chooses the programs): each program runs twice more, with an empty --tables directory and a
# table cache that starts empty (one for the corpus, per frequency), so
# that its first run makes on the device every table it needs that no
# program before it made (the program's, its libraries', the vDSO's), and
# its second takes them from the cache.  Every table the cache holds must
# be the host's, byte for byte: a sample then unwinds as with the host's
# tables unless its table was not uploaded yet, which the module stops
# "no-table".  record uploads the tables it has (the cache, --tables) for
# a program, its loader and its libraries as the program starts, before
# the loader maps them, and pauses the command while it makes the others,
# so the no-table stops at code of a mapped file (lib.sh, no_table) of a
# run with tables made on the device may exceed the host run's by 0.5% of
# the samples at most, and on the cached run
# record counts none stopped at a table it uploaded after them (before
# the cached tables were uploaded up front, a fresh-clone make check's
# cached sqlite3 run had 5 of 879, 0.57%).  The success rates are held to
# each other where they can be: under plain TCG the samples of the
# loader's start-up (the failures of these programs' main threads) vary
# from run to run with the emulator's translation (pbzip2: 72 to 159 of
# 3,000 to 5,000 samples in ld.so, with byte-identical tables), a few
# points of the rate, and so did, while glibc's printf refused, the share
# of lua5.4's samples in it (67 and 133 of 1,300 and 1,500 samples in two
# runs: 3.3 points).  Since the tables are the same bytes, a
# sample they refuse would be refused with either; so the runs are
# compared leaving out the samples whose unwind failed in the loader or
# was refused, within 0.5 points, or within three standard deviations of
# the difference of two sampled rates where that is more.
#
# make check runs a short form (one VM boot of 25-50 s without the runs
# with tables made on the device, 131 s with them on a loaded host): STOCK_PROGS (default "pbzip2 xz lua5.4 sqlite3 gzip": C++ with
# threads, C with threads, the interpreter, the SQL shell, plain C) at
# STOCK_FREQS (default 1000).  make bench-stock runs all six at 1 and
# 4 kHz with STOCK_FIGURES=FILE: the figures go to FILE as markdown
# (scripts/doc-section.sh puts them into docs/BENCHMARKS-corpus.md) and
# the thresholds below are not applied.
#
# Two measures per thread kind: fully unwound (the checker accepts every
# frame and the module ended the walk as complete), and "to the entry"
# (the checker accepts every frame up to the thread's outermost one,
# whatever the module's stop).  A stripped program's entry point, found
# by function discovery, is marked root (docs/TABLES.md, "Function
# discovery"); before that, no main-thread sample of a stock program was
# fully unwound, while most checked out frame by frame up to _start.
#
# Thresholds, per mille, are what this test measured minus a noise margin.
# Measured by make bench-stock at 1 and 4 kHz on armmp-6.1 (the earlier
# ranges are in git's history of this file): two runs at 1 kHz and one at
# 4 kHz after discovery learnt computed gotos' and -fPIC switches' tables
# and prologue analysis paths that meet after an alloca, and one at each
# frequency at 3f79ad9 (the generator of 109884c; host load average 17 at
# its end), with make check's short form once more at 1 kHz:
#   pbzip2 other threads  99.9-100.0% full and to the entry; overall 99.4-99.8%
#   xz     other threads  99.9-100.0%;  overall 99.9-100.0%
#   zstd   other threads  99.9-100.0%;  overall 99.6-99.9%
#   lua5.4 main           99.6-99.9% full and to the entry at 3f79ad9
#                         (1,670 and 2,192 samples at 1 kHz, 8,019 at
#                         4 kHz, 1,341 to 2,197 in the runs with tables
#                         made on the device); 92.8-94.1% before, while
#                         glibc's printf refused
#   sqlite3 main          99.4-99.9%
#   gzip   main           99.9-100.0%
# The main threads of the threaded programs, 93.0-99.0% (a few hundred
# samples; what fails is inside clone, whose rows refuse by design, or
# ld.so's start-up), are judged through the overall share.  Margins:
# other threads at issue 21's 99% target, the shares overall 0.9 to 1.5
# points under the lowest run, lua5.4's too: 98.5%, 1.1 points under its
# lowest, leaves room for 20 to 30 failed samples in a 1 kHz run of 1,300
# to 2,200 where the runs at 3f79ad9 (on a host at load average 5 to 17)
# lost 0.1-0.4%: in make bench-stock's, samples in ld.so's start-up,
# which vary from run to run (above), and in one function each of libm,
# libreadline and libtinfo that prologue analysis refuses.  Raise them as
# discovery and prologue analysis improve.
set -u
. "$(dirname "$0")/lib.sh"
th_init
guest=$BUILD/stock/guest
PY=/usr/bin/python3
. "$top/bench/stock/programs.sh"
PROGS=${STOCK_PROGS:-pbzip2 xz lua5.4 sqlite3 gzip}
FREQS=${STOCK_FREQS:-1000}
FIGURES=${STOCK_FIGURES:-}
# STOCK_MIN: PROGRAM:KIND:FULL:ENTRY, the least share (per mille) of the
# samples of KIND fully unwound (FULL) and with every frame checked up to
# the thread's outermost frame (ENTRY; judge() below).  KIND main (the
# main thread), other (the other threads) or all: a program with threads
# is judged on its other threads and overall (its main thread mostly
# waits: a hundred samples or so), a single-threaded one on its main
# thread.
STOCK_MIN="pbzip2:other:990:990 pbzip2:all:985:985 xz:other:990:990
xz:all:985:985 zstd:other:990:990 zstd:all:985:985 lua5.4:main:985:985
sqlite3:main:980:980 gzip:main:985:985"
DEVICE=${STOCK_DEVICE:-1}
DEVRUNS=
[ "$DEVICE" = 0 ] || DEVRUNS="first cached"
# the programs run so: all of them for make bench-stock; make check leaves
# out pbzip2, whose libstdc++ is half the tables' making (53 of 90 s of
# guest CPU under plain TCG on a loaded host)
DEVPROGS=${STOCK_DEVICE_PROGS:-$([ -n "$FIGURES" ] && echo "$PROGS" || echo "$PROGS" | sed 's/pbzip2//')}
# samples a run must have at 1 kHz (fewer: threads or the program went
# unsampled), per thread kind that the thresholds judge
MIN_SAMPLES=300

need_vm "stock corpus in the VM" "make setup module tools uwprof-arm stock-arm" \
	"$arm_uwprof" "$UWPROF" "$BUILD/stock/guest.files"
need_checker

# The checker's root: the guest's stock files at their guest paths, and
# the vDSO as "[vdso]" (the name its mapping has).
croot=$tmp/root
cp -al "$guest" "$croot"
mkdir -p "$tmp/tables" "$tmp/stats" "$tmp/reports" "$tmp/work" "$tmp/none"
while read -r f _; do
	"$UWPROF" table "$guest$f" --build-id-dir "$tmp/tables" \
		--prologue-analysis --stats --report "$tmp/reports/$(basename "$f")" \
		>"$tmp/stats/$(basename "$f")" 2>&1 ||
		fail "uwprof table $f: $(tail -n 1 "$tmp/stats/$(basename "$f")")"
done <"$BUILD/stock/guest.files"
if "$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" \
	"$tmp/vdso.so" 2>"$tmp/vdso.err"; then
	"$UWPROF" table "$tmp/vdso.so" --build-id-dir "$tmp/tables" \
		--prologue-analysis --stats --report "$tmp/reports/[vdso]" \
		>"$tmp/stats/[vdso]" 2>&1 ||
		fail "uwprof table vdso.so"
	cp "$tmp/vdso.so" "$croot/[vdso]"
fi
$PY "$top/bench/perf/corpus-input.py" 4 "$tmp/work/corpus.in"
cp "$top/bench/perf/bench.lua" "$top/bench/perf/bench.sql" "$tmp/work/"

cat >"$tmp/run.sh" <<EOF
#!/bin/sh
insmod /uwprof.ko || exit 1
. /stock/programs.sh
mkdir -p /tmp/empty
for hz in $FREQS; do
	for p in $PROGS; do
		uwprof record -F \$hz --tables /stock/tables -o /out/\$p.\$hz.data -- \\
			\$(stock_workload \$p /stock/work) >/dev/null 2>/out/\$p.\$hz.log
		echo \$? >/out/\$p.\$hz.rc
		case " $(echo $DEVPROGS) " in *" \$p "*) ;; *) continue ;; esac
		for r in $DEVRUNS; do
			uwprof record -F \$hz --tables /tmp/empty \\
				--table-cache /tmp/cache-\$hz -o /out/\$p.\$hz.\$r.data -- \\
				\$(stock_workload \$p /stock/work) >/dev/null 2>/out/\$p.\$hz.\$r.log
			echo \$? >/out/\$p.\$hz.\$r.rc
		done
	done
done
mkdir -p /out/cache
cat /tmp/cache-*/*.uwt >/dev/null 2>&1 && cp /tmp/cache-*/*.uwt /out/cache/
exit 0
EOF
chmod +x "$tmp/run.sh"
nruns=$(( ($(echo $PROGS | wc -w) + $(echo $DEVPROGS | wc -w) * $(echo $DEVRUNS | wc -w)) * $(echo $FREQS | wc -w) ))
t0=$(date +%s)
run_vm "${STOCK_TIMEOUT:-$(( 120 + nruns * 60 ))}" --add "$guest/.:/" \
	--add "$arm_uwprof:/usr/bin/uwprof" --add "$tmp/tables:/stock/tables" \
	--add "$tmp/work:/stock/work" --add "$top/bench/stock/programs.sh:/stock/programs.sh"
vm_seconds=$(( $(date +%s) - t0 ))
echo "# the VM ran $vm_seconds s ($(echo $PROGS) at $(echo $FREQS) Hz)"
out=$tmp/out

# judge P HZ [RUN]: the checker's counts (of run RUN: first, cached) into
# all_n all_ok main_n main_ok other_n other_ok (fully unwound) and all_ent
# main_ent other_ent (every frame checks out up to the thread's outermost
# frame, whatever the module's stop: fully unwound, or stopped "refused"
# at a stripped program's _start, which no table row names root); its
# output in $tmp/P.HZ[.RUN].check
judge() {
	local k n ok run=$1.$2${3:+.$3}
	all_n=0 all_ok=0 main_n=0 main_ok=0 other_n=0 other_ok=0
	$PY "$top/bench/perf/analyze.py" --check "$out/$run.data" \
		--exe "$(prog_path "$1")" --root "$croot" --unstripped "$tmp/none" \
		>"$tmp/$run.check" 2>&1 ||
		{ fail "$1 at $2 Hz${3:+, $3 run}: the checker failed: $(tail -n 1 "$tmp/$run.check")"; return 1; }
	while read -r k n ok; do
		case $k in all|main|other) eval "${k}_n=$n ${k}_ok=$ok" ;; esac
	done <"$tmp/$run.check"
	for k in main other; do
		n=$(awk -v k="$k" '$1 == "why" && $2 == k && /\(frames check out\)$/ { n += $3 } END { print n + 0 }' \
			"$tmp/$run.check")
		eval "${k}_ent=\$(( ${k}_ok + n ))"
	done
	all_ent=$(( main_ent + other_ent ))
}
prog_path() {
	local p
	for p in $STOCK_PROGRAMS; do
		[ "${p%%:*}" = "$1" ] && echo "${p##*:}"
	done
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%.1f%%", 100 * a / b; else printf "-" }'; }
# at_least WHAT N OK MIN-PERMILLE CHECKFILE
at_least() {
	local min="$(( $4 / 10 )).$(( $4 % 10 ))%"
	if [ "$2" -gt 0 ] && [ $(( $3 * 1000 / $2 )) -ge "$4" ]; then
		ok "$1: $3 of $2 (at least $min)"
	else
		fail "$1: $3 of $2 (below $min)"
		grep '^where' "$5" | head -n 8 | sed 's/^/#   /'
	fi
}

# set_aside CHECKFILE: samples whose unwind failed in the loader or was
# refused by a table
set_aside() {
	awk '$1 == "where" && ($3 == "refused" || $4 ~ /^ld-linux/) { n += $NF }
		END { print n + 0 }' "$1"
}
# same_rate WHAT N OK LD HN HOK HLD: a device run's rate (OK of N, LD of
# them set aside) against the host run's, both without those set aside
same_rate() {
	local n=$(($2 - $4)) hn=$(($5 - $7)) p hp d tol
	p=$(($3 * 10000 / n)) hp=$(($6 * 10000 / hn)) d=$(( (p - hp) / 10 ))
	tol=$(rate_tol "$6" "$hn" "$3" "$n" 5)
	if [ ${d#-} -le "$tol" ]; then
		ok "$1: $3 of $n fully unwound, leaving out the loader's start-up and refusals ($(pct "$3" "$n")), with host tables $6 of $hn ($(pct "$6" "$hn")): within $tol tenths of a point"
	else
		fail "$1: $3 of $n fully unwound, leaving out the loader's start-up and refusals ($(pct "$3" "$n")), with host tables $6 of $hn ($(pct "$6" "$hn")): more than $tol tenths of a point apart"
	fi
}
# device_runs P HZ HOST_N HOST_OK: P's runs with tables made on the device
# (the first run made them, the cached one read them from the cache)
# against its run with the host's
device_runs() {
	local r hnt nt late hld
	case " $(echo $DEVPROGS) " in *" $1 "*) ;; *) return ;; esac
	hnt=$(no_table "$tmp/$1.$2.check")
	hld=$(set_aside "$tmp/$1.$2.check")
	for r in $DEVRUNS; do
		if [ "$(cat "$out/$1.$2.$r.rc" 2>/dev/null)" != 0 ] ||
			grep -q 'exited with status' "$out/$1.$2.$r.log"; then
			fail "$1 at $2 Hz, $r run with tables made on the device: $(cat "$out/$1.$2.$r.log" 2>/dev/null)"
			continue
		fi
		judge "$1" "$2" "$r" || continue
		nt=$(no_table "$tmp/$1.$2.$r.check")
		echo "# $1 $2 Hz, $r run, tables made on the device: fully unwound" \
			"$(pct "$all_ok" "$all_n") of $all_n, with host tables $(pct "$4" "$3") of $3;" \
			"$(sed -n 's/^uwprof record: tables made on this device: //p' "$out/$1.$2.$r.log")"
		if [ $(( (nt - hnt) * 1000 )) -le $(( all_n * 5 )) ]; then
			ok "$1 at $2 Hz, $r run with tables made on the device: $nt of $all_n samples stopped no-table in a mapped file (with host tables $hnt of $3)"
		else
			fail "$1 at $2 Hz, $r run with tables made on the device: $nt of $all_n samples stopped no-table in a mapped file, more than 0.5% over the host tables' $hnt of $3"
		fi
		# the cached run must say so; a first run that found nothing in
		# the cache has nothing to say
		late=$(late_uploads "$out/$1.$2.$r.log")
		if [ "${late:-0}" = 0 ] && { [ -n "$late" ] || [ "$r" = first ]; }; then
			ok "$1 at $2 Hz, $r run: no sample stopped at a table uploaded after it"
		else
			fail "$1 at $2 Hz, $r run: ${late:-?} samples stopped at a table uploaded after them: $(grep 'uwprof record' "$out/$1.$2.$r.log")"
		fi
		same_rate "$1 at $2 Hz, $r run with tables made on the device" \
			"$all_n" "$all_ok" "$(set_aside "$tmp/$1.$2.$r.check")" \
			"$3" "$4" "$hld"
	done
}

: >"$tmp/results"
for hz in $FREQS; do
	for p in $PROGS; do
		if [ "$(cat "$out/$p.$hz.rc" 2>/dev/null)" = 0 ] &&
			! grep -q 'exited with status' "$out/$p.$hz.log"; then
			ok "$p at $hz Hz ran to the end under uwprof record"
		else
			fail "$p at $hz Hz under uwprof record: $(cat "$out/$p.$hz.log" 2>/dev/null)"
			continue
		fi
		judge "$p" "$hz" || continue
		echo "$p $hz $all_n $all_ok $main_n $main_ok $other_n $other_ok $all_ent $main_ent $other_ent" >>"$tmp/results"
		echo "# $p $hz Hz: fully unwound $(pct "$all_ok" "$all_n") of $all_n;" \
			"main thread $(pct "$main_ok" "$main_n") of $main_n, to the entry $(pct "$main_ent" "$main_n");" \
			"other threads $(pct "$other_ok" "$other_n") of $other_n, to the entry $(pct "$other_ent" "$other_n")"
		hn=$all_n hok=$all_ok
		for m in $STOCK_MIN; do
			[ -z "$FIGURES" ] || break
			IFS=: read -r mp kind full ent <<<"$m"
			[ "$mp" = "$p" ] || continue
			eval "n=\$${kind}_n k_ok=\$${kind}_ok k_ent=\$${kind}_ent"
			if [ "$n" -lt $(( MIN_SAMPLES * hz / 1000 )) ]; then
				fail "$p at $hz Hz: only $n samples ($kind; threads or the program went unsampled)"
				continue
			fi
			at_least "$p at $hz Hz, $kind: fully unwound" "$n" "$k_ok" "$full" "$tmp/$p.$hz.check"
			at_least "$p at $hz Hz, $kind: frames check out to the entry" "$n" "$k_ent" "$ent" "$tmp/$p.$hz.check"
		done
		device_runs "$p" "$hz" "$hn" "$hok"
	done
done

# The cache: every table made on the device is the host's, byte for byte.
if [ -n "$DEVRUNS" ]; then
	n=0 same=0 differ=
	for t in "$out"/cache/*.uwt; do
		[ -e "$t" ] || continue
		n=$((n + 1))
		if cmp -s "$t" "$tmp/tables/$(basename "$t")"; then
			same=$((same + 1))
		else
			differ="$differ $(basename "$t")"
		fi
	done
	if [ "$n" -gt 0 ] && [ "$same" = "$n" ]; then
		ok "the device made $n tables, each the same bytes as the host's"
	else
		fail "the device made $n tables, $same the same bytes as the host's; differ:$differ"
	fi
fi

[ -z "$FIGURES" ] || "$PY" "$top/bench/stock/figures.py" --results "$tmp/results" \
	--checks "$tmp" --stats "$tmp/stats" --reports "$tmp/reports" --files "$BUILD/stock/guest.files" --root "$croot" \
	--vm-seconds "$vm_seconds" \
	--kernel "${KERNEL:-armmp-6.1}" --command "${STOCK_COMMAND:-make bench-stock}" \
	--top "$top" >"$FIGURES" || fail "the figures"
finish
