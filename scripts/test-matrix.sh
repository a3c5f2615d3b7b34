#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test-matrix: on every test kernel, set-up, the module build (a
# warning fails it) and the VM tests (selftests, chain_test's eight builds,
# record/report end to end).  One line per kernel: the module build, the
# selftests passed of all, chain_test's lowest exact match, record/report's
# checks passed of all, the seconds it took, and its "N passed, N failed";
# then the total.  KERNELS= picks a subset; logs in build/matrix/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/counts.sh
MAKE=${MAKE:-make}
KERNELS=${KERNELS:-armmp-5.10 armmp-6.1 armmp-6.12 lpae-6.1 rt-6.1 arm64-6.1}
log_dir=${BUILD:-$top/build}/matrix
mkdir -p "$log_dir"
lines=()

# The kselftest "# Totals:" lines of LOG added up: "passed/total".
selftests_of() {
	grep -oE '# Totals: .*' "$1" 2>/dev/null | awk '{
		for (i = 3; i <= NF; i++) { split($i, kv, ":"); n[kv[1]] += kv[2] }
	} END {
		printf "%d/%d", n["pass"], n["pass"] + n["fail"] + n["skip"] + n["error"] + n["xfail"] + n["xpass"]
		if (n["skip"]) printf " (%d skipped)", n["skip"]
	}'
}

# One kernel's line: what each part gave, the time, then its counts.
summary_of() {
	local k=$1 vm=$log_dir/$1.vm.log module=$2 secs=$3 min builds rec
	min=$(sed -n 's/.*samples in the chain match it down to root (\([0-9.]*\)%).*/\1/p' \
		"$vm" 2>/dev/null | sort -n | head -n 1)
	builds=$(grep -c 'samples in the chain match it down to root' "$vm" 2>/dev/null)
	rec=$(sed -n 's/^record_vm.sh: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' \
		"$vm" 2>/dev/null | tail -n 1)
	[ -z "$rec" ] || rec="$(cut -d' ' -f1 <<<"$rec")/$(( $(tr ' ' + <<<"$rec") ))"
	echo "$k: module $module, selftests $(selftests_of "$vm"), chain_test min" \
		"${min:-none}% (${builds:-0} builds), record/report ${rec:-none}, ${secs} s"
}

for k in $KERNELS; do
	log=$log_dir/$k.log
	rm -f "$log_dir/$k.vm.log"
	before_p=$count_passed before_f=$count_failed
	t0=$(date +%s)
	echo "=== $k"
	module=failed
	if ! $MAKE --no-print-directory setup KERNEL="$k" >"$log" 2>&1; then
		module="not set up"
		count_failed=$((count_failed + 1))
	elif $MAKE --no-print-directory module KERNEL="$k" >>"$log" 2>&1 &&
	     ! grep -q 'warning:' "$log"; then
		module=ok
		count_passed=$((count_passed + 1))
		$MAKE --no-print-directory test-vm KERNEL="$k" >"$log_dir/$k.vm.log" 2>&1
		count_add "$log_dir/$k.vm.log" $?
	else
		count_failed=$((count_failed + 1))
	fi
	counts="$((count_passed - before_p)) passed, $((count_failed - before_f)) failed"
	lines+=("$(summary_of "$k" "$module" $(( $(date +%s) - t0 ))): $counts")
	echo "${lines[-1]}"
done
printf '%s\n' "${lines[@]}"
count_line test-matrix
[ "$count_failed" -eq 0 ]
