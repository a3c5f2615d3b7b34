#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh LABEL PROGRAM...
# Runs each test program, shows its output and how long it took, and
# adds up the "N passed, N failed[, N skipped]" line each one ends with.
# A program that exits non-zero without counting a failure counts as one
# failure.  Ends with "LABEL: N passed, N failed, N skipped" and exits 1 if
# anything failed.
set -u
. "$(dirname "$0")/counts.sh"
label=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for prog in "$@"; do
	echo "== $prog"
	t0=$SECONDS
	"$prog" >"$log" 2>&1
	rc=$?
	cat "$log"
	count_add "$log" "$rc" "$prog"
	# where a run's minutes go
	echo "# $(basename "$prog"): $((SECONDS - t0)) s"
done
count_line "$label"
[ "$count_failed" -eq 0 ]
