#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-debug.sh SELFTEST_DIR [SRC:DST...]  (make test-debug)
# On the debug kernel (KERNEL=debug-6.1, UWPROF_MODULE its uwprof.ko): the
# selftests, fault_test among them (allocation failures), with a kmemleak
# scan after them; the record/report end-to-end test; the ABI fuzz for
# FUZZ_DEBUG_SECONDS, then as long again with allocations of uwprof.ko
# failing at random (-F).  Any checker report in the kernel log fails the
# VM run (scripts/vm.sh).  Ends with "test-debug: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/counts.sh"
BUILD=${BUILD:-$top/build}
: "${KERNEL:?}" "${UWPROF_MODULE:?}" "${ABI_FUZZ:?}"
secs=${FUZZ_DEBUG_SECONDS:-120}
dir=$1
shift
log=$BUILD/vm/test-debug
mkdir -p "$log"
start=$(date +%s)

echo "== selftests on $KERNEL"
UWPROF_VM_TIMEOUT=${UWPROF_VM_TIMEOUT:-2400} VM_TEST_SCRIPTS=tests/host/record_vm.sh \
	"$top/scripts/test-vm.sh" "$dir" "$top/selftests/run-in-vm.sh" "$@" 2>&1 |
	tee "$log/selftests.log"
count_add "$log/selftests.log" "${PIPESTATUS[0]}" selftests

for flags in "" "-F"; do
	name=fuzz-abi${flags:+-faults}
	echo "== $name on $KERNEL: $secs s"
	"$top/scripts/vm.sh" --timeout $((secs * 3 + 600)) --mem 1024 \
		--add "$ABI_FUZZ:/abi_fuzz" --add "$top/fuzz/abi-in-vm.sh:/abi-in-vm.sh" \
		--add "$top/selftests/kmemleak.sh:/kmemleak.sh" \
		-- "/abi-in-vm.sh -s $secs -u 30 $flags" 2>&1 | tee "$log/$name.log"
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		count_passed=$((count_passed + 1))
	else
		count_failed=$((count_failed + 1))
	fi
done
echo "# test-debug: $(( $(date +%s) - start )) s"
count_line test-debug
[ "$count_failed" -eq 0 ]
