#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh BENCH_BINARY OUTDIR [REALDIR [ARM_BINARY]]: wall-clock figures from the binary
# itself, then instruction counts from callgrind, which are deterministic.
# Everything it prints also goes to OUTDIR/figures.txt, headed by the tree's
# commit and the replay input's digest: scripts/doc-section.sh writes that
# file into docs/UNWIND-COST.md.  Counts are
# collected only inside bench_unwind_work(), bench_lookup_work(), bench_jit_work() or
# bench_replay_work().  REALDIR holds lua.uwr, real stacks of lua5.4
# (bench/capture-lua.sh), and the tables they were unwound with;
# ARM_BINARY, the bench built for armhf, replays them under qemu-arm too.
#
# The counts are of the host (x86-64) build of unwind_v2.c: they rank the
# work and track it from change to change, but an ARM core runs a
# different number of instructions for the same C.
set -eu
bin=$1 out=$2 real=${3:-} arm_bin=${4:-}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
exec > >(tee "$out/figures.txt.tmp")
tee_pid=$!
# The tree measured ("+changes": with uncommitted ones) and the input.
echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
	git -C "$top" diff --quiet HEAD -- 2>/dev/null || echo +changes)"
if [ -n "$real" ] && [ -f "$real/lua.uwr" ]; then
	echo "replay input: $(cd "$real" && sha256sum lua.uwr *.uwt | sha256sum | cut -c1-16) (sha256 of lua.uwr and its tables)"
fi
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

# The figures file is complete only when the run is: finished() renames it.
finished() { exec >&-; wait "$tee_pid"; mv "$out/figures.txt.tmp" "$out/figures.txt"; exit 0; }
if ! command -v valgrind >/dev/null; then
	echo "instructions: valgrind not installed (scripts/packages.txt)" >&2
	exit 1
fi
for d in 8 16 32; do
	read -r ir n < <(callgrind_ir bench_unwind_work unwind 4 "$d")
	awk -v ir="$ir" -v n="$n" -v d="$d" \
		'BEGIN { printf "depth %2d: %6.1f instructions/frame (callgrind, %d frames)\n", d, ir / n, n }'
done
read -r ir n < <(callgrind_ir bench_lookup_work lookup 4)
awk -v ir="$ir" -v n="$n" \
	'BEGIN { printf "lookup alone: %6.1f instructions/lookup (callgrind, %d lookups)\n", ir / n, n }'
read -r ir n < <(callgrind_ir bench_jit_work jit 4)
awk -v ir="$ir" -v n="$n" \
	'BEGIN { printf "JIT frames (V8 frame chain, 16 deep, then an entry frame): %6.1f instructions/frame (callgrind, %d frames)\n", ir / n, n }'
if [ -z "$real" ] || [ ! -f "$real/lua.uwr" ]; then
	echo "real stacks: no $real/lua.uwr (make bench-unwind unpacks bench/data/lua-real.tar.xz)" >&2
	exit 1
fi
summary=$("$bin" replay summary "$real/lua.uwr" "$real")
echo "$summary"
frames=$(awk '/frames and/ { print $5 }' <<<"$summary")
# One pass with a fresh lookup cache (cold: the first samples a CPU takes
# for a process), and the second pass over the same stacks with the cache
# the first left (warm: the steady state of a CPU sampling one process),
# as the difference of two runs.  LINE 0: the stack already in memory (the
# unwinder alone); 2048: the module's reader, a copy of up to 2 KiB per
# miss (memcpy here, a fault-free user copy there: its fixed cost is
# not in these figures).
for line in 0 2048; do
	read -r ir1 n < <(callgrind_ir bench_replay_work replay 1 "$real/lua.uwr" "$real" $line)
	read -r ir2 n2 < <(callgrind_ir bench_replay_work replay 2 "$real/lua.uwr" "$real" $line)
	awk -v ir1="$ir1" -v ir2="$ir2" -v n="$n" -v f="$frames" \
		-v what="$([ $line = 0 ] && echo "stack in memory" || echo "2 KiB stack copies")" \
		'BEGIN { printf "real lua stacks, %s: %6.1f instructions/frame cold, %6.1f warm, %.0f per %.1f-frame sample warm (callgrind, %d frames a pass)\n",
			 what, ir1 / n, (ir2 - ir1) / n, (ir2 - ir1) / n * f, f, n }'
done
# The same on ARM: the bench built for armhf, its guest instructions
# counted from qemu-user's log of translation blocks (bench/tb-count.py).
if [ -n "$arm_bin" ] && command -v qemu-arm-static >/dev/null; then
	arm_ir() {
		qemu-arm-static -d in_asm,exec,nochain "$arm_bin" replay "$1" \
			"$real/lua.uwr" "$real" "$2" 2>&1 >/dev/null |
			"$(dirname "$0")/tb-count.py"
	}
	for line in 0 2048; do
		a0=$(arm_ir 0 $line) a1=$(arm_ir 1 $line) a2=$(arm_ir 2 $line)
		awk -v a0="$a0" -v a1="$a1" -v a2="$a2" -v n="$n" -v f="$frames" \
			-v what="$([ $line = 0 ] && echo "stack in memory" || echo "2 KiB stack copies")" \
			'BEGIN { printf "real lua stacks on ARM, %s: %6.1f instructions/frame cold, %6.1f warm, %.0f per %.1f-frame sample warm (qemu-arm, Thumb-2 gcc -O2)\n",
				 what, (a1 - a0) / n, (a2 - a1) / n, (a2 - a1) / n * f, f }'
	done
else
	echo "real lua stacks on ARM: no ARM build of the bench or no qemu-arm-static (make setup)" >&2
	exit 1
fi
finished
