#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-many.sh LABEL SECONDS WORKROOT NAME:FUZZER:SEEDS[:MAXLEN[:SECS]]...:
# run.sh for each harness (SECONDS each unless SECS is given, working
# files in WORKROOT/NAME) and end with one "LABEL: N passed, N failed"
# over all of them.  FUZZ_JOBS=N runs up to N harnesses at once (default
# 1: the smoke run's seconds are per harness, on a shared machine).
# WORKROOT/LABEL.md gets a markdown table of the run (executions, wall
# time and result per harness) headed by the commit run, for the docs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/counts.sh"
label=$1 seconds=$2 root=$3
shift 3
jobs=${FUZZ_JOBS:-1}

run_one() {
	local name fuzzer seeds maxlen secs
	IFS=: read -r name fuzzer seeds maxlen secs <<<"$1"
	mkdir -p "$root/$name"
	date +%s >"$root/$name.t0"
	FUZZ_MAX_LEN=${maxlen:-4096} "$here/run.sh" "$name" "$fuzzer" \
		"${secs:-$seconds}" "$root/$name" "$seeds" >"$root/$name.out" 2>&1
	echo $? >"$root/$name.rc"
	date +%s >"$root/$name.t1"
}

# One row per harness from run.sh's "# NAME: N executions ..." line.
figures() {
	local spec name runs rc
	echo "\`make $label\` at commit $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)$(
		git -C "$here/.." diff --quiet HEAD -- 2>/dev/null || echo +changes)," \
		"$(date -u +%Y-%m-%d), ${seconds} s a harness${FUZZ_RUNS:+ or $FUZZ_RUNS executions}, FUZZ_JOBS=$jobs," \
		"on $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg) at the end):"
	echo
	echo "| harness | executions | wall | result |"
	echo "|---|---:|---:|---|"
	for spec in "$@"; do
		name=${spec%%:*}
		runs=$(sed -n "s/^# $name: \([0-9?]*\) executions.*/\1/p" "$root/$name.out")
		rc=$(cat "$root/$name.rc" 2>/dev/null || echo 1)
		echo "| \`fuzz_$name\` | ${runs:-?} | $(($(cat "$root/$name.t1") - $(cat "$root/$name.t0"))) s |" \
			"$([ "$rc" -eq 0 ] && echo none || echo "FAILED: $root/$name/artifacts") |"
	done
}

for spec in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	run_one "$spec" &
done
wait
# in the order given, whichever finished first
for spec in "$@"; do
	name=${spec%%:*}
	cat "$root/$name.out"
	count_add "$root/$name.out" "$(cat "$root/$name.rc" 2>/dev/null || echo 1)" "$name"
done
figures "$@" >"$root/$label.md"
count_line "$label"
[ "$count_failed" -eq 0 ]
