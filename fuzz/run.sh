#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh LABEL FUZZER SECONDS WORKDIR: run a libFuzzer binary for SECONDS on
# the committed seeds (fuzz/corpus, read only) plus a working corpus in
# WORKDIR, and end with "LABEL: 1 passed, 0 failed" or "0 passed, 1
# failed".  A crash, leak, timeout or sanitizer report is a failure; the
# input that caused it is left in WORKDIR/artifacts/.
set -u
label=$1 fuzzer=$2 seconds=$3 work=$4
seeds=$(cd "$(dirname "$0")" && pwd)/corpus
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/$label.log"
"$fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$seeds" >"$log" 2>&1
rc=$?
runs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' | tail -n 1)
tail -n 12 "$log"
echo "# $label: ${runs:-?} executions in ${seconds}s, exit $rc (log: $log)"
if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
	echo "$label: 1 passed, 0 failed"
else
	echo "$label: 0 passed, 1 failed"
	exit 1
fi
