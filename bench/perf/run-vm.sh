#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark VM (scripts/bench-vm.sh), from /bench:
#	run-vm.sh OUT REPS FREQS PROGRAMS...
# Every program, every repetition: unprofiled, under uwprof record and
# under perf record --call-graph=fp and =dwarf at each frequency, the
# configurations interleaved (one of each per round, the order rotated
# from round to round) so drift in the machine's speed touches all alike.
# Each run is timed by timeit (wall, and CPU of the profiler and the
# workload together).  The first round keeps each profiler's data for the
# success-rate checker: the uwprof data file, and perf script's output.
# Every round keeps the size of each data file and uwprof's data files (with
# the module's stats); perf's event counts come from the first round.
# BENCH_PROFILERS (default "uwprof fp dwarf") narrows the profilers down.
# Before the runs, the tables in /bench/up (Chrome-sized ones: chromium's,
# libnode's) are uploaded by /bench/upload and timed, into OUT/upload.txt.
set -u
out=$1 reps=$2 freqs=$3
shift 3
progs=("$@")
B=/bench
T=$out/times
mkdir -p "$T" "$out/data" "$out/sizes"
work=/tmp/w
mkdir -p "$work"
cd "$work" || exit 1	# where node's jit-PID.dump goes

insmod=insmod
command -v insmod >/dev/null || insmod="/bench-vm/busybox insmod"
$insmod /uwprof.ko || { echo "run-vm: insmod failed"; exit 1; }
# perf as a user would run it as root, without the paranoid limits.
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict

. $B/workloads.sh

# what a Chrome-sized table costs the kernel, before anything else ran
if [ -x $B/upload ] && ls $B/up/*.uwt >/dev/null 2>&1; then
	$B/upload $B/up/*.uwt >"$out/upload.txt" ||
		echo "run-vm: the tables' upload failed"
	echo "run-vm: tables uploaded"
fi

configs=(none)
for f in $freqs; do
	for t in ${BENCH_PROFILERS:-uwprof fp dwarf}; do configs+=("$t-$f"); done
done

{
	echo "kernel=$(uname -r)"
	echo "kernel_version=$(uname -v)"
	echo "cpus=$(grep -c ^processor /proc/cpuinfo)"
	# An arm64 kernel names no model to a task without PER_LINUX32, only
	# the part number (0xd07: Cortex-A57).
	cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
	[ -n "$cpu" ] || cpu="CPU part $(sed -n 's/^CPU part[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cpu=$cpu"
	echo "mem_kb=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
	echo "perf=$(perf --version)"
	echo "perf_max_sample_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	echo "configs=${configs[*]}"
	echo "reps=$reps"
	echo "programs=${progs[*]}"
	echo "node_rounds=${BENCH_NODE_ROUNDS:-12}"
} >"$out/machine.txt"

# run1 PROG CONFIG REP
run1() {
	local prog=$1 cfg=$2 rep=$3 cmd kind hz data rc
	cmd=$(workload "$prog" $B) || return 1
	kind=${cfg%-*} hz=${cfg##*-}
	data=$work/data
	rm -f "$data"
	case $kind in
	none)
		$B/timeit -o "$T/$prog.$cfg" -- $cmd >/dev/null 2>&1 ;;
	uwprof)
		$B/timeit -o "$T/$prog.$cfg" -- $B/uwprof record -F "$hz" \
			$(uwprof_options "$prog" $B) \
			-o "$data" -- $cmd >/dev/null 2>"$work/rec.err" ;;
	fp|dwarf)
		$B/timeit -o "$T/$prog.$cfg" -- perf record -q -e cpu-clock \
			-F "$hz" --call-graph="$kind" -o "$data" -- $cmd \
			>/dev/null 2>"$work/rec.err" ;;
	esac
	rc=$?
	[ $rc -eq 0 ] || { echo "run-vm: $prog $cfg rep $rep: status $rc"; cat "$work/rec.err" 2>/dev/null | tail -n 5; }
	[ "$kind" = none ] && return 0
	echo "$rep $(stat -c %s "$data")" >>"$out/sizes/$prog.$cfg"
	case $kind in
	uwprof)
		cp "$data" "$out/data/$prog.$cfg.rep$rep.uwdata" ;;
	fp|dwarf)
		if [ "$rep" = 1 ]; then
			perf report -i "$data" --stats 2>/dev/null >"$out/data/$prog.$cfg.rep$rep.stats"
			local t0=$(date +%s)
			perf script -i "$data" --no-inline --show-mmap-events \
				-F comm,pid,tid,time,event,ip,dso 2>"$work/script.err" |
				gzip -1 >"$out/data/$prog.$cfg.script.gz"
			echo "$prog $cfg perf script took $(( $(date +%s) - t0 )) s"
		fi ;;
	esac
	rm -f "$data" "$work"/jit-*.dump /tmp/perf-*.map
}

# One recording of nothing per tables directory first, left out: the
# module keeps the tables it validated for the next recording of the same
# user (docs/ABI.md, table_keep_bytes), so without it the first measured
# recording of each directory alone would validate them, and which
# configuration that is would vary with the rotation.  The start-up
# section's runs find them kept as well; a recording's first start-up is
# bench-profile's to measure.
case " ${BENCH_PROFILERS:-uwprof fp dwarf} " in
*" uwprof "*)
	for prog in "${progs[@]}"; do uwprof_options "$prog" $B; done |
		sort -u | while read -r opts; do
			$B/uwprof record -F 1000 $opts -o "$work/warm" -- /bin/true \
				>/dev/null 2>&1 || echo "run-vm: warm-up $opts failed"
			rm -f "$work/warm"
		done ;;
esac

start=$(date +%s)
for rep in $(seq 1 "$reps"); do
	n=${#configs[@]}
	for prog in "${progs[@]}"; do
		for i in $(seq 0 $((n - 1))); do
			cfg=${configs[$(( (i + rep - 1) % n ))]}
			run1 "$prog" "$cfg" "$rep"
		done
	done
	echo "run-vm: round $rep of $reps done at $(( $(date +%s) - start )) s"
done
# Start-up and finish: each profiler on a lua run that does nothing
# (bench.lua 0, a couple of ms), against that run unprofiled, at 1 kHz; a
# first run of each is left out (the files come into the page cache).
startup() {
	local prog=$1 kind=$2 cmd i
	cmd=$(BENCH_LUA_SCALE=0 workload "$prog" $B) || return 1
	for i in 0 1 2 3 4 5; do
		case $kind in
		none) $B/timeit -o "$work/t" -- $cmd ;;
		uwprof) $B/timeit -o "$work/t" -- $B/uwprof record -F 1000 \
				--tables $B/tables -o "$work/data" -- $cmd ;;
		*) $B/timeit -o "$work/t" -- perf record -q -e cpu-clock \
				-F 1000 --call-graph="$kind" -o "$work/data" -- $cmd ;;
		esac >/dev/null 2>&1
		[ $i -eq 0 ] || cat "$work/t" >>"$T/$prog.start-$kind"
		rm -f "$work/t" "$work/data"
	done
}
for prog in "${progs[@]}"; do
	case $prog in lua-*) ;; *) continue ;; esac
	for kind in none ${BENCH_PROFILERS:-uwprof fp dwarf}; do
		startup "$prog" "$kind"
	done
done
echo "run-vm: start-up runs done at $(( $(date +%s) - start )) s"

dmesg | grep -i -E 'perf|uwprof' >"$out/dmesg.txt"
cat /proc/sys/kernel/perf_event_max_sample_rate >"$out/perf_max_sample_rate_after.txt"
echo "run-vm: done in $(( $(date +%s) - start )) s"
