#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside the benchmark VM for make bench-profile: "none" runs the lua
# workload $2 (lua-gcc, lua-clang, or node when the root has it) alone, a
# frequency runs it under uwprof record at that rate, with the options
# make bench gives it (uwprof_options); then the kernel's symbols for
# attribute.py.
# With $3 = N (BENCH_PROFILE_STARTUP), start-up and finish instead: lua
# doing nothing (bench.lua 0) N times.  Both boots first record lua doing
# nothing once alike: the files come into the page cache and record's
# table cache gets the vDSO's table, as for every run of make
# bench-quick but its first, so the boots differ by the recording (or
# the N start-ups and finishes) alone.
insmod=insmod
command -v insmod >/dev/null || insmod="/bench-vm/busybox insmod"
$insmod /uwprof.ko || exit 1
echo 0 >/proc/sys/kernel/kptr_restrict
B=/bench
. $B/workloads.sh
cd /tmp || exit 1
runs=${3:-0}
prog=${2:-lua-gcc}
record() {
	$B/uwprof record -F "$1" $(uwprof_options "$prog" $B) \
		-o /tmp/uwprof.data -- $cmd >/dev/null 2>/out/record.txt
}
run() {
	if [ "$1" = none ]; then $cmd >/dev/null; else record "$1"; fi
}
cmd=$(BENCH_LUA_SCALE=0 BENCH_NODE_ROUNDS=1 workload "$prog" $B)
record 1000
if [ "$runs" -gt 0 ]; then
	i=0
	while [ $i -lt "$runs" ]; do
		run "$1"
		i=$((i + 1))
	done
else
	cmd=$(BENCH_LUA_SCALE=8 workload "$prog" $B)
	run "$1"
fi
cat /proc/kallsyms >/out/kallsyms.txt
