#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/perf/bench-kernels.sh: what "make bench" runs after building its
# inputs.  bench/perf/bench.sh once for each test kernel of BENCH_KERNEL
# (default "armmp-6.1 arm64-6.1"), each in its own boot, each writing its
# page and its headline figures into build/; then one page, BENCH_DOC
# (default docs/BENCHMARKS.md), by bench/perf/analyze.py --assemble: the
# first kernel's page, the kernels' figures side by side, every other
# kernel's page in its own marked section, and the page's other marked
# sections as they were.
#
# BENCH_MODULES: "KERNEL=PATH ..." the uwprof.ko built for each kernel
# (make bench passes them).  Every other BENCH_* setting goes through to
# bench/perf/bench.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
kernels=${BENCH_KERNEL:-armmp-6.1 arm64-6.1}
doc=${BENCH_DOC:-$top/docs/BENCHMARKS.md}
# the command line bench.sh names on each page: the kernels of the run
export BENCH_KERNELS_RUN="$(echo $kernels)"

module_of() {
	local m
	for m in ${BENCH_MODULES:-}; do
		[ "${m%%=*}" = "$1" ] && { echo "${m#*=}"; return 0; }
	done
	echo "bench: no uwprof.ko for $1 in BENCH_MODULES ('${BENCH_MODULES:-}'); make bench passes them" >&2
	return 1
}

t0=$(date +%s)
args=()
for k in $kernels; do
	ko=$(module_of "$k")
	page=$BUILD/bench-page-$k.md sum=$BUILD/bench-summary-$k.json
	rm -f "$page" "$sum"
	echo "bench: kernel $k" >&2
	BENCH_KERNEL=$k BENCH_MODULE=$ko BENCH_DOC=$page BENCH_SUMMARY=$sum \
		"$top/bench/perf/bench.sh"
	args+=(--page "$k=$page" --kernel-summary "$k=$sum")
done
/usr/bin/python3 "$top/bench/perf/analyze.py" --assemble --doc "$doc" "${args[@]}"
echo "bench: $kernels done in $(( $(date +%s) - t0 )) s; wrote $doc" >&2
