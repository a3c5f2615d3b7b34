# SPDX-License-Identifier: GPL-2.0
# make bench: lua5.4 and sqlite3 (each with gcc and clang) and node, the
# Chrome-sized workload (Debian's armhf node: libnode's 25 MB of code
# under V8's JIT frames; make test-node fetches it), in the emulated ARM
# machine under -icount, unprofiled, under uwprof and under perf (fp and
# dwarf call graphs) at 100 Hz, 1 kHz and 4 kHz, on each test kernel of
# BENCH_KERNEL (default armmp-6.1 and arm64-6.1, one boot each: the armhf
# programs as compat tasks on arm64), chromium's and libnode's tables
# uploaded and timed in each boot; writes docs/BENCHMARKS.md
# (bench/perf/bench-kernels.sh).  Not part of make check.  BENCH_REPS
# defaults to 3 here.  Wall time, estimated from the guest's work (about
# 280 x 10^9 instructions a kernel: lua 2 x 3 x 32, sqlite 2 x 3 x 6, node
# 3 x 13, start-up runs 15) and the rates narrowed runs reached under
# -icount on the shared 2-core host today (0.14 to 0.4 x 10^9
# instructions a second at load averages of 20 to 10; arm64-6.1's boots
# about 40% slower): 30 to 80 minutes, plus tabling libnode once (a minute
# or two).  Measured: 2684 s (45 minutes) at commit 761a1dd under load
# averages of 3 to 7, armmp-6.1's part 1432 s.  BENCH_REPS, BENCH_FREQS,
# BENCH_PROGRAMS (the corpus of scripts/build-corpus.sh: zstd-gcc ...),
# BENCH_PROFILERS, BENCH_NODE_ROUNDS and BENCH_DOC narrow it down
# (bench/perf/bench.sh).

BENCH_TIMEIT	:= $(ARM_OUT)/bench/timeit

# the checker's "where" lines: file offsets (bench/perf/analyze.py --check)
HOST_TEST_SCRIPTS += tests/host/analyze_where.sh
# make bench's one page from several kernels' runs (analyze.py --assemble)
HOST_TEST_SCRIPTS += tests/host/analyze_assemble.sh

$(BENCH_TIMEIT): bench/timeit.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -static -O2 -Wall -Wextra -o $@ $<

sqlite-arm:
	$(Q)scripts/build-sqlite.sh $(BUILD)

perf-root:
	$(Q)scripts/make-perf-root.sh $(BUILD)/perf-root

bench_kernels	= $(or $(BENCH_KERNEL),armmp-6.1 arm64-6.1)
# the corpus programs of BENCH_PROGRAMS, built only when named
bench_corpus	= $(filter-out lua-% sqlite-% node,$(BENCH_PROGRAMS))

bench:
	$(Q)for k in $(bench_kernels); do \
		$(MAKE) --no-print-directory setup KERNEL=$$k || exit 1; done
	$(Q)$(MAKE) --no-print-directory -j2 tools uwprof-arm $(BENCH_TIMEIT) $(BENCH_UPLOAD)
	$(Q)$(MAKE) --no-print-directory lua-arm sqlite-arm perf-root \
		$(if $(bench_corpus),corpus-arm)
	$(Q)$(foreach k,$(bench_kernels),$(call bench_module_make,$(k)) &&) true
	$(Q)BENCH_KERNEL="$(bench_kernels)" BENCH_REPS="$${BENCH_REPS:-3}" \
		BENCH_MODULES="$(foreach k,$(bench_kernels),$(k)=$(call bench_module,$(k)))" \
		bench/perf/bench-kernels.sh

# make bench-profile: where a sample's guest instructions go, by function
# (bench/profile/profile.sh; needs make bench-quick's VM root).
bench-profile:
	$(Q)$(MAKE) --no-print-directory -j2 module uwprof-arm
	$(Q)bench/profile/profile.sh

.PHONY: bench bench-quick bench-profile sqlite-arm perf-root

# make bench-quick: uwprof alone on lua (gcc) at 100 Hz, 1 kHz and 4 kHz in
# one instruction-counting VM boot; prints the per-sample cost figures and
# leaves docs/ alone.  BENCH_KERNEL names the test kernels to boot, one boot
# each, in turn (default armmp-6.1; arm64-6.1 runs the same armhf programs
# as compat tasks on Debian's arm64 kernel).  armmp-6.1's page goes to
# build/bench-quick.md with the tree's uwprof.ko; another kernel's to
# build/bench-quick-KERNEL.md, with a uwprof.ko built for it apart from the
# tree's, in build/bench-module/KERNEL/.
bench_module	= $(if $(filter armmp-6.1,$(1)),$(CURDIR)/uwprof.ko,$(BUILD)/bench-module/$(1)/uwprof.ko)
bench_page	= $(BUILD)/bench-quick$(if $(filter armmp-6.1,$(1)),,-$(1))

bench_quick_kernels = $(or $(BENCH_KERNEL),armmp-6.1)
# The module for kernel $(1), where bench_module names it.
bench_module_make = $(MAKE) --no-print-directory module KERNEL=$(1) \
	$(if $(filter armmp-6.1,$(1)),,MODULE_OUT=$(dir $(call bench_module,$(1))))

bench-quick:
	$(Q)for k in $(bench_quick_kernels); do \
		$(MAKE) --no-print-directory setup KERNEL=$$k || exit 1; done
	$(Q)$(MAKE) --no-print-directory -j2 tools uwprof-arm $(BENCH_TIMEIT)
	$(Q)$(MAKE) --no-print-directory lua-arm perf-root
	$(Q)$(foreach k,$(bench_quick_kernels),$(call bench_quick_one,$(k)) &&) true

# One kernel's run of bench-quick: its module, the VM, the cost section.
bench_quick_one = \
	$(call bench_module_make,$(1)) && \
	BENCH_KERNEL=$(1) BENCH_MODULE=$(call bench_module,$(1)) \
		BENCH_PROGRAMS="$${BENCH_PROGRAMS:-lua-gcc}" \
		BENCH_PROFILERS="$${BENCH_PROFILERS:-uwprof}" \
		BENCH_REPS="$${BENCH_REPS:-1}" BENCH_DOC=$(call bench_page,$(1)).md \
		bench/perf/bench.sh >$(call bench_page,$(1)).log && \
	awk '/^\#\# Cost in guest instructions/ { buf = "" } { buf = buf $$0 "\n" } \
		END { printf "%s", buf }' $(call bench_page,$(1)).log

# make bench-big: the cost of a sample and of a table on Chrome-sized
# code (bench/big/bench-big.sh): node (libnode, 25 MB of code) under
# uwprof at three rates and lua beside it in one instruction-counting
# boot, chromium's and libnode's tables uploaded and timed; prints the
# figures and writes them into docs/BENCHMARKS.md.  Needs make
# test-node's packages (and make test-chromium's table for chromium's).
# Not part of make check (about 20 minutes on a loaded host).
BENCH_UPLOAD	:= $(ARM_OUT)/bench/upload

$(BENCH_UPLOAD): bench/big/upload.c tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c \
		uapi/uwprof.h
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -static -O2 -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR) \
		-Itools/uwprof -o $@ $(filter %.c,$^)

bench-big: module tools uwprof-arm lua-arm $(BENCH_TIMEIT) $(BENCH_UPLOAD)
	$(Q)scripts/setup.sh >/dev/null
	$(Q)BUILD=$(BUILD) UWPROF=$(UWPROF) bench/big/bench-big.sh \
		$(BUILD)/bench-big/figures.md.new
	$(Q)mv $(BUILD)/bench-big/figures.md.new $(BUILD)/bench-big-figures.md
	$(Q)scripts/doc-section.sh bench-big $(BUILD)/bench-big-figures.md \
		docs/BENCHMARKS.md markdown

.PHONY: bench-big
