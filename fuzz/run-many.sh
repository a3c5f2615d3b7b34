#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-many.sh LABEL SECONDS WORKROOT NAME:FUZZER:SEEDS[:MAXLEN[:SECS]]...:
# run.sh for each harness (SECONDS each unless SECS is given, working
# files in WORKROOT/NAME) and end with one "LABEL: N passed, N failed"
# over all of them.  FUZZ_JOBS=N runs up to N harnesses at once (default
# 1: the smoke run's seconds are per harness, on a shared machine).
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
	FUZZ_MAX_LEN=${maxlen:-4096} "$here/run.sh" "$name" "$fuzzer" \
		"${secs:-$seconds}" "$root/$name" "$seeds" >"$root/$name.out" 2>&1
	echo $? >"$root/$name.rc"
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
count_line "$label"
[ "$count_failed" -eq 0 ]
