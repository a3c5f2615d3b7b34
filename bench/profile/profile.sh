#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/profile/profile.sh: what make bench-profile runs.  Where the guest
# instructions of a uwprof sample go, function by function: the benchmark
# VM (the root make bench-quick assembled, -icount, one vCPU) boots twice
# with the tbcount plugin (bench/profile/tbcount.c), once running
# BENCH_PROFILE_PROGRAM (default lua-gcc; the root must have it: node
# is there after make bench-quick BENCH_PROGRAMS="lua-gcc node") on its
# workload (bench/perf/workloads.sh) unprofiled and once under uwprof record at
# BENCH_PROFILE_HZ (default 1000); bench/profile/attribute.py prints the
# difference per sample by kernel function (the guest's /proc/kallsyms)
# and by function of the recorder (build/arm/uwprof), largest first.
# BENCH_PROFILE_STARTUP=N profiles start-up and finish instead: N runs
# of lua doing nothing, per run (bench/profile/run-vm.sh).
# The current module and recorder replace the root's.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
hz=${BENCH_PROFILE_HZ:-1000}
prog=${BENCH_PROFILE_PROGRAM:-lua-gcc}
runs=${BENCH_PROFILE_STARTUP:-0}
root=$BUILD/bench-perf/vmroot
out=$BUILD/bench-profile
[ -d "$root/bench/tables" ] ||
	{ echo "bench-profile: no benchmark root in $root; run make bench-quick first" >&2; exit 2; }
mkdir -p "$out"
gcc -shared -fPIC -O2 -Wall -o "$out/tbcount.so" "$top/bench/profile/tbcount.c"
cp "$top/bench/profile/run-vm.sh" "$root/bench/profile-vm.sh"
cp "$top/uwprof.ko" "$root/uwprof.ko"
cp "$BUILD/arm/uwprof" "$root/bench/uwprof"
for cfg in none "$hz"; do
	rm -rf "${out:?}/$cfg"
	mkdir -p "$out/$cfg"
	echo "bench-profile: booting the VM: $cfg" >&2
	"$top/scripts/bench-vm.sh" --root "$root" --share "$out/$cfg" \
		--timeout 900 --smp 1 --icount \
		--plugin "$out/tbcount.so,out=$out/$cfg/blocks.txt" \
		-- "/bench/profile-vm.sh $cfg $prog $runs" >"$out/$cfg/console.txt" 2>&1 ||
		{ echo "bench-profile: the VM failed; see $out/$cfg/console.txt" >&2; exit 1; }
done
/usr/bin/python3 "$top/bench/profile/attribute.py" "$out/none" "$out/$hz" \
	"$BUILD/arm/uwprof" "$runs"
