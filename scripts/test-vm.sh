#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-vm.sh SELFTEST_DIR RUNNER [SRC:DST...]
# Boots the VM with the selftests and runs them, then runs each script in
# $VM_TEST_SCRIPTS (which boot VMs of their own).  Adds up the kselftest
# "# Totals:" lines and the scripts' "N passed, N failed" lines, and ends
# with "test-vm: N passed, N failed, N skipped".  A VM that times out,
# shows a kernel splat or exits non-zero with no failed test counts as one
# more failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
dir=$1 runner=$2
shift 2
adds=(--add "$dir:/selftests" --add "$runner:/run-in-vm.sh")
for f in "$@"; do adds+=(--add "$f"); done
mkdir -p "$BUILD/vm"
out=$BUILD/vm/test-vm.log
"$top/scripts/vm.sh" --timeout "${UWPROF_VM_TIMEOUT:-600}" --mem 1024 \
	"${adds[@]}" -- /run-in-vm.sh | tee "$out"
rc=${PIPESTATUS[0]}
sum() { grep -oE "# Totals: .*" "$out" | grep -oE "$1:[0-9]+" | cut -d: -f2 |
	awk '{s += $1} END {print s + 0}'; }
pass=$(sum pass) fail=$(( $(sum fail) + $(sum error) )) skip=$(sum skip)
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "# test-vm: the VM run failed (exit $rc) with no failed test counted"
	fail=$((fail + 1))
fi
for script in ${VM_TEST_SCRIPTS:-}; do
	echo "== $script"
	"$script" 2>&1 | tee "$BUILD/vm/script.log"
	src=${PIPESTATUS[0]}
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$BUILD/vm/script.log" | tail -n 1)
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	[ "$src" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "test-vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
