#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-selftests.sh SELFTEST_DIR RUNNER [SRC:DST...]
# Boots the VM with the selftests and runs them (RUNNER, as
# /run-in-vm.sh).  Adds up the kselftest "# Totals:" lines and ends with
# "selftests: N passed, N failed, N skipped".  A VM that times out, shows
# a kernel splat or exits non-zero with no failed test counts as one more
# failure.  Without arguments, they come from $VM_SELFTESTS, as test-vm.sh
# passes them through run-tests.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/counts.sh"
BUILD=${BUILD:-$top/build}
[ $# -gt 0 ] || eval "set -- $VM_SELFTESTS"
dir=$1 runner=$2
shift 2
adds=(--add "$dir:/selftests" --add "$runner:/run-in-vm.sh"
      --add "$top/selftests/kmemleak.sh:/kmemleak.sh")
for f in "$@"; do adds+=(--add "$f"); done
mkdir -p "$BUILD/vm"
out=$BUILD/vm/selftests-${KERNEL:-vm}.log
"$top/scripts/vm.sh" --timeout "${UWPROF_VM_TIMEOUT:-600}" --mem 1024 \
	"${adds[@]}" -- /run-in-vm.sh | tee "$out"
rc=${PIPESTATUS[0]}
sum() { grep -oE "# Totals: .*" "$out" | grep -oE "$1:[0-9]+" | cut -d: -f2 |
	awk '{s += $1} END {print s + 0}'; }
count_passed=$(sum pass) count_skipped=$(sum skip)
count_failed=$(( $(sum fail) + $(sum error) ))
if [ "$rc" -ne 0 ] && [ "$count_failed" -eq 0 ]; then
	echo "# selftests: the VM run failed (exit $rc) with no failed test counted"
	count_failed=1
fi
count_line selftests
[ "$count_failed" -eq 0 ]
