#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh [-j N] LABEL PROGRAM...
# Runs each test program, shows its output and how long it took, and
# adds up the "N passed, N failed[, N skipped]" line each one ends with.
# A program that exits non-zero without counting a failure counts as one
# failure.  Ends with "LABEL: N passed, N failed, N skipped" and exits 1 if
# anything failed.
#
# -j N runs up to N programs at once, in the order given (the longest
# first packs best).  Each one's output is shown whole when it ends, so
# two never interleave; its seconds are those it took while sharing the
# machine.
set -u
. "$(dirname "$0")/counts.sh"
jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
	[[ $jobs =~ ^[1-9][0-9]*$ ]] ||
		{ echo "run-tests.sh: -j wants a count of 1 or more, not '$jobs'" >&2; exit 2; }
fi
label=$1
shift
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

declare -A name_of start_of
running=0

# Start program number $1 ($2) in the background, its output to a log.
start() {
	local i=$1 prog=$2
	"$prog" >"$logs/$i.log" 2>&1 &
	name_of[$!]=$i:$prog
	start_of[$!]=$SECONDS
	running=$((running + 1))
}

# Wait for one program to end; show its output and count it.
reap() {
	local pid rc i prog
	wait -n -p pid
	rc=$?
	i=${name_of[$pid]%%:*}
	prog=${name_of[$pid]#*:}
	running=$((running - 1))
	echo "== $prog"
	cat "$logs/$i.log"
	count_add "$logs/$i.log" "$rc" "$prog"
	# where a run's minutes go
	echo "# $(basename "$prog"): $((SECONDS - start_of[$pid])) s"
	unset "name_of[$pid]" "start_of[$pid]"
}

n=0
for prog in "$@"; do
	[ "$running" -lt "$jobs" ] || reap
	start "$n" "$prog"
	n=$((n + 1))
done
while [ "$running" -gt 0 ]; do
	reap
done
count_line "$label"
[ "$count_failed" -eq 0 ]
