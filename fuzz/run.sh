#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh LABEL FUZZER SECONDS WORKDIR [SEEDS]: run a libFuzzer binary for
# SECONDS on the seeds (default the committed fuzz/corpus; read only) plus
# a working corpus in WORKDIR, and end with "LABEL: 1 passed, 0 failed" or
# "0 passed, 1 failed".  A crash, leak, timeout or sanitizer report is a
# failure; the input that caused it is left in WORKDIR/artifacts/.
# FUZZ_RUNS=N also stops after N executions; FUZZ_MAX_LEN (default 4096)
# bounds the inputs; FUZZ_FLAGS adds libFuzzer options.
set -u
label=$1 fuzzer=$2 seconds=$3 work=$4
seeds=${5:-$(cd "$(dirname "$0")" && pwd)/corpus}
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/$label.log"
# shellcheck disable=SC2086
"$fuzzer" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" \
	-timeout=10 ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} ${FUZZ_FLAGS:-} \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$seeds" >"$log" 2>&1
rc=$?
runs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' | tail -n 1)
tail -n 12 "$log"
echo "# $label: ${runs:-?} executions (limit ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs}), exit $rc (log: $log)"
if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
	echo "$label: 1 passed, 0 failed"
else
	echo "$label: 0 passed, 1 failed"
	exit 1
fi
