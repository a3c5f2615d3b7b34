#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test-matrix: on every test kernel, set-up, the module build (a
# warning fails it) and the VM tests (selftests, chain_test's eight builds,
# record/report end to end).  One line per kernel ending in its
# "N passed, N failed", then the total.  KERNELS= picks a subset.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/counts.sh
MAKE=${MAKE:-make}
KERNELS=${KERNELS:-armmp-6.1 lpae-6.1 rt-6.1 arm64-6.1}
log_dir=${BUILD:-$top/build}/matrix
mkdir -p "$log_dir"
lines=()
for k in $KERNELS; do
	log=$log_dir/$k.log
	rm -f "$log_dir/$k.vm.log"
	before_p=$count_passed before_f=$count_failed
	echo "=== $k"
	if ! $MAKE --no-print-directory setup KERNEL="$k" >"$log" 2>&1; then
		count_failed=$((count_failed + 1))
	elif $MAKE --no-print-directory module KERNEL="$k" >>"$log" 2>&1 &&
	     ! grep -q 'warning:' "$log"; then
		count_passed=$((count_passed + 1))
		$MAKE --no-print-directory test-vm KERNEL="$k" >"$log_dir/$k.vm.log" 2>&1
		count_add "$log_dir/$k.vm.log" $?
	else
		count_failed=$((count_failed + 1))
	fi
	min=$(sed -n 's/.*samples match the chain down to root (\([0-9.]*\)%).*/\1/p' \
		"$log_dir/$k.vm.log" 2>/dev/null | sort -n | head -n 1)
	lines+=("$k: chain_test min ${min:-none}%: $((count_passed - before_p)) passed, $((count_failed - before_f)) failed")
	echo "${lines[-1]}"
done
printf '%s\n' "${lines[@]}"
count_line test-matrix
[ "$count_failed" -eq 0 ]
