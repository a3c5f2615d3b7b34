#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: set-up, host tests, module build, checkpatch, the fuzz smoke
# run and the VM selftests.  Every part runs even when an earlier one fails
# (except set-up, which the rest needs).  Ends with
# "check: N passed, N failed, N skipped" and exits 1 on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
MAKE=${MAKE:-make}
passed=0 failed=0 skipped=0 failures=()
log_dir=${BUILD:-$top/build}/check
mkdir -p "$log_dir"

# A part whose output ends with its own "N passed, N failed" line.
counted() {
	local name=$1 line p f s rc
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$log_dir/$name.log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([[:alnum:]_./-]+: )?[0-9]+ passed, [0-9]+ failed' "$log_dir/$name.log" | tail -n 1)
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	[ "$f" -eq 0 ] || failures+=("$name")
}

# A part that is one pass or fail.
single() {
	local name=$1
	shift
	echo "=== $name"
	if "$@" 2>&1 | tee "$log_dir/$name.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$name")
	fi
}

$MAKE --no-print-directory setup || { echo "check: set-up failed"; echo "0 passed, 1 failed"; exit 1; }
counted test-host $MAKE --no-print-directory test-host
single module $MAKE --no-print-directory module
single checkpatch $MAKE --no-print-directory checkpatch
if $MAKE -n fuzz-smoke >/dev/null 2>&1; then
	counted fuzz-smoke $MAKE --no-print-directory fuzz-smoke
else
	echo "=== fuzz-smoke: no such target yet, skipped"
	skipped=$((skipped + 1))
fi
counted test-vm $MAKE --no-print-directory test-vm

[ ${#failures[@]} -eq 0 ] || echo "check: failed parts: ${failures[*]} (logs in $log_dir)"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
