#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-many.sh LABEL SECONDS WORKROOT NAME:FUZZER:SEEDS[:MAXLEN[:SECS]]...:
# run.sh for each harness (SECONDS each unless SECS is given, working
# files in WORKROOT/NAME) and end with one "LABEL: N passed, N failed"
# over all of them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/counts.sh"
label=$1 seconds=$2 root=$3
shift 3
for spec in "$@"; do
	IFS=: read -r name fuzzer seeds maxlen secs <<<"$spec"
	mkdir -p "$root/$name"
	FUZZ_MAX_LEN=${maxlen:-4096} "$here/run.sh" "$name" "$fuzzer" \
		"${secs:-$seconds}" "$root/$name" "$seeds" >"$root/$name.out" 2>&1
	rc=$?
	cat "$root/$name.out"
	count_add "$root/$name.out" "$rc" "$name"
done
count_line "$label"
[ "$count_failed" -eq 0 ]
