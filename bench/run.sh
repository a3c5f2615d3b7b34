#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh BENCH_BINARY OUTDIR [REALDIR]: wall-clock figures from the binary
# itself, then instruction counts from callgrind, which are deterministic:
# each run collects only inside bench_unwind_work(), bench_lookup_work() or
# bench_replay_work().  REALDIR holds lua.uwr, real stacks of lua5.4
# (bench/capture-lua.sh), and the tables they were unwound with.
#
# The counts are of the host (x86-64) build of unwind_v2.c: they rank the
# work and track it from change to change, but an ARM core runs a
# different number of instructions for the same C.
set -eu
bin=$1 out=$2 real=${3:-}
mkdir -p "$out"
"$bin" time

# callgrind_ir FUNC ARGS...: instructions inside FUNC, then the count the
# binary printed (frames or lookups)
callgrind_ir() {
	local func=$1 file="$out/callgrind.$1.out" printed
	shift
	printed=$(valgrind --tool=callgrind --callgrind-out-file="$file" \
		--toggle-collect="$func" "$bin" "$@" 2>"$out/valgrind.log")
	echo "$(grep -E '^(summary|totals):' "$file" | head -n 1 | awk '{print $2}')" \
		"$(awk '{print $2}' <<<"$printed")"
}

if ! command -v valgrind >/dev/null; then
	echo "instructions: valgrind not installed, skipped"
	exit 0
fi
for d in 8 16 32; do
	read -r ir n < <(callgrind_ir bench_unwind_work unwind 4 "$d")
	awk -v ir="$ir" -v n="$n" -v d="$d" \
		'BEGIN { printf "depth %2d: %6.1f instructions/frame (callgrind, %d frames)\n", d, ir / n, n }'
done
read -r ir n < <(callgrind_ir bench_lookup_work lookup 4)
awk -v ir="$ir" -v n="$n" \
	'BEGIN { printf "lookup alone: %6.1f instructions/lookup (callgrind, %d lookups)\n", ir / n, n }'
if [ -z "$real" ] || [ ! -f "$real/lua.uwr" ]; then
	echo "real stacks: skipped (no $real/lua.uwr: qemu-arm-static and make lua-arm make it)"
	exit 0
fi
summary=$("$bin" replay summary "$real/lua.uwr" "$real")
echo "$summary"
# two passes with one lookup cache, as one CPU's would be kept: the first
# fills it.  LINE 0: the stack already in memory (the unwinder alone);
# 1024: the module's reader, a copy of up to 1 KiB per miss (memcpy here,
# copy_from_user_nofault() there: its fixed cost is not in this figure).
for line in 0 1024; do
	read -r ir n < <(callgrind_ir bench_replay_work replay 2 "$real/lua.uwr" "$real" $line)
	awk -v ir="$ir" -v n="$n" -v line="$line" -v f="$(awk '/frames and/ { print $5 }' <<<"$summary")" \
		'BEGIN { printf "real lua stacks, %s: %6.1f instructions/frame, %.0f per %.1f-frame sample (callgrind, %d frames)\n",
			 line ? "1 KiB stack copies" : "stack in memory", ir / n, ir / n * f, f, n }'
done
