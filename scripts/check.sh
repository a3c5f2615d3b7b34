#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: set-up, host tests, the flame graph in a browser, module
# build (also into a scratch output for a kernel tree named by KDIR=, and
# by dkms build: scripts/module-build-check.sh), checkpatch, the fuzz smoke
# run, the VM selftests and a one-minute ABI fuzz on armmp-6.1, then the
# module builds and the VM selftests on arm64-6.1 (the armhf user space as
# compat tasks).  Every part runs even when an earlier one fails (except
# set-up, which the rest needs).  Then the skips by reason, which fail the
# check if one is on no list of tests/skips/ (scripts/skips.sh).  Ends
# with "check: N passed, N failed, N skipped" and exits 1 on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/counts.sh
MAKE=${MAKE:-make}
failures=()
log_dir=${BUILD:-$top/build}/check
mkdir -p "$log_dir"
rm -f "$log_dir"/*.log	# a part that does not run this time has no log

# A part whose output ends with its own "N passed, N failed" line.
counted() {
	local name=$1
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$log_dir/$name.log"
	count_add "$log_dir/$name.log" "${PIPESTATUS[0]}"
	[ "$count_last_failed" -eq 0 ] || failures+=("$name")
}

# A part that is one pass or fail.
single() {
	local name=$1
	shift
	echo "=== $name"
	if "$@" 2>&1 | tee "$log_dir/$name.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		count_passed=$((count_passed + 1))
	else
		count_failed=$((count_failed + 1))
		failures+=("$name")
	fi
}

# The skips of the parts run so far, and of the parts of each kernel.
skips_before=0
declare -A skips_of
skips_mark() { skips_of[$1]=$((count_skipped - skips_before)); skips_before=$count_skipped; }

$MAKE --no-print-directory setup || { echo "check: set-up failed"; echo "0 passed, 1 failed"; exit 1; }
counted test-host $MAKE --no-print-directory test-host
counted test-browser $MAKE --no-print-directory test-browser
single module $MAKE --no-print-directory module
# The module's and the tools' files call one way, in layers (no circle).
single call-graph $MAKE --no-print-directory call-graph
# The module for a kernel build tree as README documents it: make module
# KDIR= into a scratch output, and dkms build (dkms.conf).
counted module-build scripts/module-build-check.sh armmp-6.1
single checkpatch $MAKE --no-print-directory checkpatch
# The harnesses compile and run a core each, all cores at once (each
# still gets its seconds): one at a time took three minutes on two cores.
cores=$(nproc)
counted fuzz-smoke env FUZZ_JOBS="${FUZZ_JOBS:-$cores}" \
	$MAKE --no-print-directory -j"$cores" fuzz-smoke
counted test-vm $MAKE --no-print-directory test-vm KERNEL=armmp-6.1
# The device ABI fuzzed for a minute (make fuzz-abi runs 100,000 sequences);
# the VM gets ten (its watchdog fails a hang after one).
single fuzz-abi $MAKE --no-print-directory fuzz-abi KERNEL=armmp-6.1 \
	FUZZ_SECONDS=${CHECK_FUZZ_ABI_SECONDS:-60} FUZZ_ABI_TIMEOUT=600 FUZZ_ABI_DOC=
skips_mark armmp-6.1
if $MAKE --no-print-directory setup KERNEL=arm64-6.1; then
	single module-arm64-6.1 $MAKE --no-print-directory module KERNEL=arm64-6.1
	counted module-build-arm64-6.1 scripts/module-build-check.sh arm64-6.1
	counted test-vm-arm64-6.1 $MAKE --no-print-directory test-vm KERNEL=arm64-6.1
else
	echo "check: set-up of arm64-6.1 failed"
	count_failed=$((count_failed + 1))
	failures+=(setup-arm64-6.1)
fi
skips_mark arm64-6.1

# The skips by reason, each kernel's against its list of expected skips
# (tests/skips/): a skip on no list fails make check, so that a test that
# stops running is a visible change, not a quiet one.
echo "=== skips"
skip_logs() { for n in "$@"; do [ ! -f "$log_dir/$n.log" ] || echo "$log_dir/$n.log"; done; }
mapfile -t logs < <(skip_logs test-host test-browser module-build fuzz-smoke test-vm fuzz-abi)
scripts/skips.sh -e tests/skips/host.txt -e tests/skips/armmp-6.1.txt \
	"${skips_of[armmp-6.1]}" "${logs[@]}" || { count_failed=$((count_failed + 1)); failures+=(skips-armmp-6.1); }
mapfile -t logs < <(skip_logs module-arm64-6.1 module-build-arm64-6.1 test-vm-arm64-6.1)
scripts/skips.sh -e tests/skips/arm64-6.1.txt \
	"${skips_of[arm64-6.1]}" "${logs[@]}" || { count_failed=$((count_failed + 1)); failures+=(skips-arm64-6.1); }

# What failed, again at the end, where a reader of a long log looks first:
# each failed part's failure lines (a test's "not ok", a harness's
# verdict, a sanitizer's or libFuzzer's report) and its last lines.
for name in "${failures[@]}"; do
	[ -f "$log_dir/$name.log" ] || continue
	echo "=== $name, what failed:"
	grep -E '^not ok|: 0 passed, [1-9]|ERROR|SUMMARY|deadly signal|Test unit written|^artifact_prefix|BUG|WARNING' \
		"$log_dir/$name.log" | tail -n 20
done
[ ${#failures[@]} -eq 0 ] || echo "check: failed parts: ${failures[*]} (logs in $log_dir)"
count_line check
[ "$count_failed" -eq 0 ]
