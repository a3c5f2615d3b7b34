#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Inside the benchmark VM for make bench-profile: "none" runs the lua
# workload $2 (lua-gcc or lua-clang) alone, a frequency runs it under
# uwprof record at that rate; then the kernel's symbols for attribute.py.
insmod=insmod
command -v insmod >/dev/null || insmod="/bench-vm/busybox insmod"
$insmod /uwprof.ko || exit 1
echo 0 >/proc/sys/kernel/kptr_restrict
B=/bench
. $B/workloads.sh
cmd=$(BENCH_LUA_SCALE=8 workload "${2:-lua-gcc}" $B)
cd /tmp || exit 1
if [ "$1" = none ]; then
	$cmd >/dev/null
else
	$B/uwprof record -F "$1" --tables $B/tables -o /tmp/uwprof.data \
		-- $cmd >/dev/null 2>/out/record.txt
fi
cat /proc/kallsyms >/out/kallsyms.txt
