#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Three programs of the corpus (scripts/build-corpus.sh), stripped, recorded
# with "uwprof record -F 1000" in the VM on their bench workloads
# (bench/perf/workloads.sh): zstd built by gcc, static, compressing the 4
# MiB input with four worker threads; bzip2 built by clang, dynamic,
# single-threaded; leveldb's db_bench built by gcc, C++, dynamic, its
# threads started by std::thread in Debian's libstdc++.so.6.  Tables as
# make demo makes them (--prologue-analysis; the C library with its
# libc6-dbg debug file; libstdc++ and libgcc_s from their own .ARM.exidx).
# Every sample is judged by the call-site checker of make bench
# (bench/perf/analyze.py --check), main thread and other threads apart.
# Boots one VM (about a minute).
#
# Thresholds, in tenths of a per cent: all four at issue 10's bar, 99.5%.
# docs/BENCHMARKS-corpus.md shows 99.9-100.0% for these programs' threads
# (zstd-gcc 100.0%, bzip2-clang 100.0%, leveldb-gcc's other threads
# 100.0%, at 1 and 4 kHz), and three runs of this test on armmp-6.1 gave:
# zstd-gcc's workers 100.00%, 100.00%, 99.93%; zstd-gcc overall 99.73%,
# 99.95%, 99.79%; bzip2-clang 99.96%, 99.72%, 99.91%; leveldb-gcc's
# std::thread threads 99.96%, 99.96%, 99.95% (2,200-15,200 samples each).
# The misses are a few samples a run at start-up and exit (ld.so,
# __libc_start_call_main); the 0.2-0.5 point left below the worst run is
# that noise (5-12 samples of zstd's or bzip2's ~2,500).  Below it the
# thread entries, the clone paths, the C library's or libstdc++'s tables,
# or clang's code and lld broke.
set -u
. "$(dirname "$0")/lib.sh"
th_init
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
dbg=$BUILD/arm/dbg/usr/lib/debug
libgcc=/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1	# the busybox root lacks it
libstdcxx=$BUILD/arm/cxx/usr/lib/arm-linux-gnueabihf/libstdc++.so.6	# likewise
PY=/usr/bin/python3
MT=zstd-gcc ST=bzip2-clang CXX=leveldb-gcc
# fully unwound, at least, in tenths of a per cent: MT's other threads,
# MT overall, ST, CXX's other threads
MT_OTHER_MIN=995 MT_ALL_MIN=995 ST_MIN=995 CXX_OTHER_MIN=995
MIN_SAMPLES=500

need_vm "corpus in the VM" "make setup module uwprof-arm corpus-check-arm" "$arm_uwprof" \
	"$libdir/libc.so.6" "$dbg" "$libgcc" "$libstdcxx" \
	"$BUILD/arm/corpus/$MT/${MT%-*}" "$BUILD/arm/corpus/$ST/${ST%-*}" \
	"$BUILD/arm/corpus/$CXX/${CXX%-*}"
need_checker

# The guest's files: /bench/bin (stripped), /bench/work, /bench/tables; the
# checker reads the same files from $tmp/root, with the unstripped builds
# in $tmp/unstripped.
root=$tmp/root
mkdir -p "$root/bench/bin" "$root/bench/work" "$root/bench/tables" "$tmp/unstripped"
mkdir -p "$root/lib/arm-linux-gnueabihf"
ln -s "$libdir"/* "$libgcc" "$root/lib/arm-linux-gnueabihf/"
ln -s "$(readlink -f "$libstdcxx")" "$root/lib/arm-linux-gnueabihf/libstdc++.so.6"
for p in $MT $ST $CXX; do
	s=$BUILD/arm/corpus/$p/${p%-*}
	cp "$s" "$tmp/unstripped/$p"
	arm-linux-gnueabihf-strip -o "$root/bench/bin/$p" "$s"
	"$UWPROF" table "$s" --build-id-dir "$root/bench/tables" \
		--prologue-analysis >/dev/null || fail "uwprof table $p"
done
for l in libc.so.6 libm.so.6 ld-linux-armhf.so.3; do
	"$UWPROF" table "$libdir/$l" --build-id-dir "$root/bench/tables" \
		--debug-dir "$dbg" --prologue-analysis >/dev/null ||
		fail "uwprof table $l"
done
"$UWPROF" table "$libgcc" --build-id-dir "$root/bench/tables" \
	--prologue-analysis >/dev/null || fail "uwprof table libgcc_s.so.1"
"$UWPROF" table "$libstdcxx" --build-id-dir "$root/bench/tables" \
	--prologue-analysis >/dev/null || fail "uwprof table libstdc++.so.6"
$PY "$top/bench/perf/corpus-input.py" 4 "$tmp/corpus.in"

cat >"$tmp/run.sh" <<EOF
#!/bin/sh
insmod /uwprof.ko || exit 1
. /bench/workloads.sh
for p in $MT $ST $CXX; do
	uwprof record -F 1000 --tables /bench/tables -o /out/\$p.data -- \\
		\$(workload \$p) >/dev/null 2>/out/\$p.log
	echo \$? >/out/\$p.rc
done
exit 0
EOF
chmod +x "$tmp/run.sh"
run_vm 400 --add "$arm_uwprof:/usr/bin/uwprof" --add "$root/bench:/bench" \
	--add "$top/bench/perf/workloads.sh:/bench/workloads.sh" \
	--add "$tmp/corpus.in:/bench/work/corpus.in" \
	--add "$libgcc:/lib/arm-linux-gnueabihf/libgcc_s.so.1" \
	--add "$(readlink -f "$libstdcxx"):/lib/arm-linux-gnueabihf/libstdc++.so.6"
out=$tmp/out

# judge PROG: the checker's counts as variables all_n all_ok main_n ...
judge() {
	local k n ok
	$PY "$top/bench/perf/analyze.py" --check "$out/$1.data" --root "$root" \
		--unstripped "$tmp/unstripped" >"$tmp/$1.check" 2>&1 ||
		{ fail "$1: the checker failed: $(tail -n 1 "$tmp/$1.check")"; return 1; }
	while read -r k n ok; do
		case $k in all|main|other) eval "${k}_n=$n ${k}_ok=$ok" ;; esac
	done <"$tmp/$1.check"
}
# at_least WHAT N OK MIN-PERMILLE
at_least() {
	local min="$(( $4 / 10 )).$(( $4 % 10 ))%"
	if [ "$2" -gt 0 ] && [ $(( $3 * 1000 / $2 )) -ge "$4" ]; then
		ok "$1: $3 of $2 fully unwound (at least $min)"
	else
		fail "$1: $3 of $2 fully unwound (below $min)"
		grep '^where' "$tmp/${1%% *}.check" | head -n 8 | sed 's/^/#   /'
	fi
}

for p in $MT $ST $CXX; do
	if [ "$(cat "$out/$p.rc" 2>/dev/null)" = 0 ] &&
		! grep -q 'exited with status' "$out/$p.log"; then
		ok "$p ran to the end under uwprof record"
	else
		fail "$p under uwprof record: $(cat "$out/$p.log")"
	fi
done
all_n=0 all_ok=0 main_n=0 main_ok=0 other_n=0 other_ok=0
if judge $MT; then
	at_least "$MT other threads" "$other_n" "$other_ok" $MT_OTHER_MIN
	# zstd's workers run for seconds: fewer samples mean threads went
	# unsampled, which the module's following of threads rules out
	if [ "$other_n" -ge "$MIN_SAMPLES" ]; then
		ok "$MT: $other_n samples on its worker threads"
	else
		fail "$MT: only $other_n samples on its worker threads (threads went unsampled)"
	fi
	at_least "$MT overall" "$all_n" "$all_ok" $MT_ALL_MIN
fi
all_n=0 all_ok=0 main_n=0 main_ok=0 other_n=0 other_ok=0
if judge $ST; then
	[ "$all_n" -ge "$MIN_SAMPLES" ] && ok "$ST: $all_n samples" ||
		fail "$ST: only $all_n samples"
	expect "$ST: every sample on the main thread" "$all_n" "$main_n"
	at_least "$ST main thread" "$main_n" "$main_ok" $ST_MIN
fi
all_n=0 all_ok=0 main_n=0 main_ok=0 other_n=0 other_ok=0
if judge $CXX; then
	if [ "$other_n" -ge "$MIN_SAMPLES" ]; then
		ok "$CXX: $other_n samples on its std::thread threads"
	else
		fail "$CXX: only $other_n samples on its std::thread threads"
	fi
	at_least "$CXX other threads" "$other_n" "$other_ok" $CXX_OTHER_MIN
fi
finish
