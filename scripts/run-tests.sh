#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh LABEL PROGRAM...
# Runs each test program, shows its output, and adds up the
# "N passed, N failed[, N skipped]" line each one ends with.  A program that
# exits non-zero without a count line counts as one failure.  Ends with
# "LABEL: N passed, N failed, N skipped" and exits 1 if anything failed.
set -u
label=$1
shift
passed=0 failed=0 skipped=0
for prog in "$@"; do
	echo "== $prog"
	out=$("$prog" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '([[:alnum:]_./-]+: )?[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "# $prog: exit $rc and no count line"
		failed=$((failed + 1))
		continue
	fi
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
	s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $prog: exit $rc with no failed test"
		failed=$((failed + 1))
	fi
done
echo "$label: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
