#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/perf/bench.sh: what "make bench" runs after building its inputs.
#
#   1. host packages the analysis needs (python3-capstone, -pyelftools);
#   2. the VM root: Debian's armhf root with perf (scripts/make-perf-root.sh)
#      plus /bench: the workloads stripped, their unstripped copies where
#      perf looks for debug files (/usr/lib/debug/.build-id), the static
#      uwprof and timeit, the tables, the workload scripts;
#   3. one VM boot that runs bench/perf/run-vm.sh;
#   4. the checker and the page: bench/perf/analyze.py writes
#      docs/BENCHMARKS.md.
#
# Environment: BENCH_REPS (default 5), BENCH_FREQS (default "100 1000 4000"),
# BENCH_PROGRAMS (default lua and sqlite, gcc and clang, and node, the
# Chrome-sized workload; the corpus of scripts/build-corpus.sh,
# $CORPUS_PROGRAMS of bench/perf/workloads.sh, when named), BENCH_NODE_ROUNDS
# (node's bench/big/work.js rounds, default 12: 0.9 s of guest time),
# BENCH_PROFILERS (default "uwprof fp dwarf"), BENCH_TIMEOUT (seconds for
# the VM; default 90 per run), BENCH_DOC (default docs/BENCHMARKS.md),
# BENCH_LUA_SCALE (bench.lua's scale, default 8: 2.7 s of guest time),
# BENCH_ICOUNT (default 1: the guest counts instructions, -icount
# shift=0,sleep=off, DESIGN.md section 5; 0: plain TCG), BENCH_KERNEL (the
# test kernel the VM boots, scripts/vm-kernel.sh; default armmp-6.1) and
# BENCH_MODULE (a uwprof.ko built for it; default the tree's), BENCH_SMP (vCPUs;
# default 1 with BENCH_ICOUNT, so the recorder's work lands in the
# workload's time, else 2), BENCH_SUMMARY (also write the headline
# figures there as JSON, for bench/perf/bench-kernels.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
reps=${BENCH_REPS:-5}
freqs=${BENCH_FREQS:-100 1000 4000}
. "$top/bench/perf/workloads.sh"
progs=${BENCH_PROGRAMS:-lua-gcc lua-clang sqlite-gcc sqlite-clang node}
progs=$(echo $progs)
profilers=${BENCH_PROFILERS:-uwprof fp dwarf}
doc=${BENCH_DOC:-$top/docs/BENCHMARKS.md}
lua_scale=${BENCH_LUA_SCALE:-8}
icount=${BENCH_ICOUNT:-1}
if [ "$icount" = 1 ]; then smp=${BENCH_SMP:-1}; vmopt=(--icount); else smp=${BENCH_SMP:-2}; vmopt=(); fi
kname=${BENCH_KERNEL:-armmp-6.1}
. "$top/scripts/vm-kernel.sh"
vm_kernel "$kname"
ko=${BENCH_MODULE:-$top/uwprof.ko}
[ -f "$ko" ] && vm_module_fits "$ko" ||
	{ echo "bench: $ko is not a uwprof.ko for $kname; run 'make module KERNEL=$kname MODULE_OUT=DIR' and pass BENCH_MODULE=DIR/uwprof.ko" >&2; exit 1; }
# Each kernel's runs apart, so that a loop over kernels keeps them all.
bdir=$BUILD/bench-perf
[ "$kname" = armmp-6.1 ] || bdir=$BUILD/bench-perf-$kname
root=$bdir/vmroot
out=$bdir/out
CROSS=${CROSS_COMPILE:-arm-linux-gnueabihf-}
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

say() { echo "bench: $*" >&2; }
t_start=$(date +%s)

# 1. host packages for the checker (system python3, where Debian's modules go)
PY=/usr/bin/python3
if ! $PY -c 'import capstone, elftools' 2>/dev/null; then
	say "installing python3-capstone python3-pyelftools"
	$SUDO apt-get install -y -q --no-install-recommends python3-capstone \
		python3-pyelftools >/dev/null ||
		{ $SUDO apt-get update -q >/dev/null 2>&1 || true
		  $SUDO apt-get install -y -q --no-install-recommends \
			python3-capstone python3-pyelftools >/dev/null; }
fi

# narrowed: the BENCH_* settings of this run, as a command prefix; the
# kernels those of the whole make bench run (bench/perf/bench-kernels.sh)
narrowed() {
	local v BENCH_KERNEL=${BENCH_KERNELS_RUN:-${BENCH_KERNEL:-}}
	for v in BENCH_KERNEL BENCH_PROGRAMS BENCH_PROFILERS BENCH_FREQS BENCH_REPS BENCH_ICOUNT BENCH_SMP BENCH_LUA_SCALE BENCH_NODE_ROUNDS; do
		[ -z "${!v:-}" ] || [ "$v=$(echo ${!v})" = "BENCH_KERNEL=armmp-6.1 arm64-6.1" ] ||
			[ "$v=${!v}" = BENCH_REPS=3 ] || printf "%s='%s' " "$v" "$(echo ${!v})"
	done
}
summary=()
[ -z "${BENCH_SUMMARY:-}" ] || summary=(--summary "$BENCH_SUMMARY")

if [ -n "${BENCH_ANALYZE_ONLY:-}" ]; then	# re-check the last run's results
	exec $PY "$top/bench/perf/analyze.py" --out "$out" --root "$root" \
		--unstripped "$bdir/unstripped" --tables-log "$bdir/tables.txt" \
		--doc "$doc" --total-seconds "$(cat "$out/total_seconds" 2>/dev/null || echo 0)" \
		--command "$(narrowed)make bench" "${summary[@]}"
fi

# 2. the VM root
"$top/scripts/make-perf-root.sh" "$BUILD/perf-root"
say "assembling the VM root in $root"
rm -rf "$root" "$out"
mkdir -p "$bdir"
cp -a "$BUILD/perf-root" "$root"
B=$root/bench
mkdir -p "$B/bin" "$B/tables" "$B/work" "$bdir/unstripped"
cp "$ko" "$root/uwprof.ko"
cp "$BUILD/arm/uwprof" "$B/uwprof"
cp "$BUILD/arm/bench/timeit" "$B/timeit"
cp "$top/bench/perf/bench.lua" "$top/bench/perf/bench.sql" "$B/work/"
cp "$top/bench/perf/run-vm.sh" "$top/bench/perf/workloads.sh" "$B/"
# The corpus programs' input, generated once
[ -s "$bdir/corpus.in" ] || $PY "$top/bench/perf/corpus-input.py" 4 "$bdir/corpus.in"
cp "$bdir/corpus.in" "$B/work/corpus.in"

src_of() {
	case $1 in
	lua-*) echo "$BUILD/arm/$1/lua" ;;
	sqlite-*) echo "$BUILD/arm/$1/sqlite3" ;;
	*) echo "$BUILD/arm/corpus/$1/${1%-*}" ;;
	esac
}
build_id() {
	${CROSS}readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}
tables_log=$bdir/tables.txt
: >"$tables_log"
for p in $progs; do
	[ "$p" != node ] || continue	# Debian's, as shipped: below
	s=$(src_of "$p")
	[ -f "$s" ] || { say "no $s for $p (make lua-arm sqlite-arm corpus-arm)"; exit 1; }
	cp "$s" "$bdir/unstripped/$p"
	# stripped on the target, as shipped
	${CROSS}strip -o "$B/bin/$p" "$s"
	# where perf (and gdb) find a -dbg package's debug files
	bid=$(build_id "$s")
	mkdir -p "$root/usr/lib/debug/.build-id/${bid:0:2}"
	cp "$s" "$root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	# tables from the unstripped build
	echo "== $p $s" >>"$tables_log"
	"$BUILD/host/uwprof" table "$s" --build-id-dir "$B/tables" \
		--prologue-analysis --stats >>"$tables_log"
done
# The C library, as Debian ships it, with its libc6-dbg debug files (the
# CFI its own .ARM.exidx lacks), as a user would build them.  perf gets the
# same debug files in its root, where it looks for them.  libstdc++.so.6
# (Debian's libstdc++6, where std::thread's threads start) has no debug
# file to be had (libstdc++6-12-dbg is another build of the library, not
# the shipped one's debug file): its own .ARM.exidx covers it.
dbg=$BUILD/arm/dbg/usr/lib/debug
[ -d "$dbg/.build-id" ] || { echo "bench: no $dbg; run make setup" >&2; exit 1; }
mkdir -p "$root/usr/lib/debug"
cp -a "$dbg/.build-id" "$root/usr/lib/debug/"
for l in libc.so.6 libm.so.6 libgcc_s.so.1 libstdc++.so.6 ld-linux-armhf.so.3; do
	f=$(readlink -f "$root/usr/lib/arm-linux-gnueabihf/$l")
	echo "== $l $f" >>"$tables_log"
	"$BUILD/host/uwprof" table "$f" --build-id-dir "$B/tables" \
		--debug-dir "$dbg" --prologue-analysis --stats \
		>>"$tables_log" 2>&1 || echo "(no table)" >>"$tables_log"
done

# node, the Chrome-sized workload, as Debian ships it (make test-node
# fetched it), and Chrome-sized tables to upload before the runs
case " $progs " in *" node "*) . "$top/bench/perf/bench-node.sh" ;; esac

# 3. the VM
mkdir -p "$out"
nruns=$(( $(echo $progs | wc -w) * reps * (1 + $(echo $freqs | wc -w) * $(echo $profilers | wc -w)) ))
timeout=${BENCH_TIMEOUT:-$(( nruns * 90 > 2400 ? nruns * 90 : 2400 ))}
say "running the benchmark VM ($smp vCPU, icount $icount): programs $progs, profilers $profilers, frequencies $freqs, $reps rounds ($nruns runs, at most $timeout s)"
t_vm=$(date +%s)
set +e
KERNEL=$kname "$top/scripts/bench-vm.sh" --root "$root" --share "$out" --timeout "$timeout" \
	--smp "$smp" "${vmopt[@]}" --log "$bdir/console.log" -- \
	"BENCH_PROFILERS='$profilers' BENCH_LUA_SCALE=$lua_scale BENCH_NODE_ROUNDS=${BENCH_NODE_ROUNDS:-12} /bench/run-vm.sh /out $reps '$freqs' $progs" 2>&1 |
	grep --line-buffered -E '^(run-vm|bench-vm)|perf script took|Kernel panic'
rc=${PIPESTATUS[0]}
set -e
say "VM finished in $(( $(date +%s) - t_vm )) s (status $rc)"
[ "$rc" -eq 0 ] || { say "the VM run failed; console log: $bdir/console.log"; exit 1; }

# 4. check and write the page
{
	echo "host_cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "host_cpus=$(nproc)"
	echo "host_kernel=$(uname -r)"
	echo "qemu=$("${qemu[0]}" --version | head -n 1)"
	echo "gcc=$(${CROSS}gcc --version | head -n 1)"
	echo "clang=$(clang --version | head -n 1)"
	echo "vm_seconds=$(( $(date +%s) - t_vm ))"
	echo "host_loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "icount=$icount"
	echo "smp=$smp"
	# the tree measured: its commit, "+changes" if it had uncommitted ones
	echo "commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
		git -C "$top" diff --quiet HEAD -- 2>/dev/null || echo +changes)"
} >"$out/host.txt"
echo "$(( $(date +%s) - t_start ))" >"$out/total_seconds"
$PY "$top/bench/perf/analyze.py" --out "$out" --root "$root" \
	--unstripped "$bdir/unstripped" --tables-log "$tables_log" \
	--doc "$doc" --total-seconds "$(( $(date +%s) - t_start ))" \
	--command "$(narrowed)make bench" "${summary[@]}"
say "done in $(( $(date +%s) - t_start )) s; wrote $doc"
