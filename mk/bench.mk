# SPDX-License-Identifier: GPL-2.0
# make bench: lua5.4, sqlite3 and the corpus of scripts/build-corpus.sh
# (each with gcc and clang) in the emulated ARM machine,
# unprofiled, under uwprof and under perf (fp and dwarf call graphs); writes
# docs/BENCHMARKS.md.  Not part of make check.  BENCH_REPS, BENCH_FREQS and
# BENCH_PROGRAMS narrow it down (bench/perf/bench.sh).

BENCH_TIMEIT	:= $(ARM_OUT)/bench/timeit

$(BENCH_TIMEIT): bench/timeit.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -static -O2 -Wall -Wextra -o $@ $<

sqlite-arm:
	$(Q)scripts/build-sqlite.sh $(BUILD)

perf-root:
	$(Q)scripts/make-perf-root.sh $(BUILD)/perf-root

bench:
	$(Q)$(MAKE) --no-print-directory setup
	$(Q)$(MAKE) --no-print-directory -j2 module tools uwprof-arm $(BENCH_TIMEIT)
	$(Q)$(MAKE) --no-print-directory lua-arm sqlite-arm corpus-arm perf-root
	$(Q)bench/perf/bench.sh

.PHONY: bench sqlite-arm perf-root
