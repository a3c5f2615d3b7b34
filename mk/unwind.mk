# SPDX-License-Identifier: GPL-2.0
#
# The unwinder core (unwind_v2.c): host tests, the uwprof unwind command,
# the fuzz target and the benchmark.

TOOL_SRCS	+= unwind_v2.c tools/uwprof/inspect/cmd_unwind.c
HOST_TESTS	+= test_unwind_v2
test_unwind_v2_SRCS := unwind_v2.c tests/host/test_unwind_v2_gen.c \
		       tools/uwprof/lib/ehabi.c
HOST_TEST_SCRIPTS += tests/host/unwind_cli.sh

# libFuzzer over (table, registers, stack): make fuzz FUZZ_SECONDS=N
FUZZ_SECONDS	?= 600
FUZZ_UNWIND	:= $(FUZZ_OUT)/fuzz_unwind_v2

$(FUZZ_UNWIND): fuzz/fuzz_unwind_v2.c unwind_v2.c unwind_v2.h
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -I$(CURDIR)/tools/include -I$(CURDIR) \
		-o $@ fuzz/fuzz_unwind_v2.c unwind_v2.c

fuzz: $(FUZZ_UNWIND)
	$(Q)fuzz/run.sh fuzz $(FUZZ_UNWIND) $(FUZZ_SECONDS) $(FUZZ_OUT)/unwind

# The unwinder for 60 s, then each tool harness (mk/hostile.mk) for
# FUZZ_SMOKE_SECONDS (8): about 2 minutes in all.
fuzz-smoke: $(FUZZ_UNWIND) fuzz-tools-build
	$(Q)FUZZ_FLAGS="-close_fd_mask=2" fuzz/run-many.sh fuzz-smoke \
		$(FUZZ_SMOKE_SECONDS) $(FUZZ_OUT) \
		unwind:$(FUZZ_UNWIND):$(CURDIR)/fuzz/corpus:4096:60 $(FUZZ_TOOL_SPECS)

.PHONY: fuzz fuzz-smoke

# Synthetic stacks and real ones (lua5.4 under qemu-user, captured by
# tests/gt/capture.c) through unwind_v2: ns/frame, instructions/frame, lookup.
BENCH_UNWIND	:= $(BUILD)/bench/bench_unwind
BENCH_CAPTURE	:= $(BUILD)/bench/uwcap.so
BENCH_REAL	:= $(BUILD)/bench/real

$(BENCH_UNWIND): bench/bench_unwind.c bench/replay.h unwind_v2.c unwind_v2.h \
		tests/host/test_unwind_v2_gen.c tests/host/test_unwind_v2_gen.h \
		tools/uwprof/lib/uwt.c
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Itests/host -Ibench -o $@ \
		bench/bench_unwind.c unwind_v2.c tests/host/test_unwind_v2_gen.c \
		tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c

$(BENCH_CAPTURE): tests/gt/capture.c bench/replay.h unwind_v2.c unwind_v2.h \
		tools/uwprof/lib/uwt.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -O2 -g -mthumb -shared -fPIC -pthread -Wall -Wextra \
		-D_GNU_SOURCE -I$(CURDIR) -I$(CURDIR)/tools/include \
		-I$(CURDIR)/tools/uwprof -I$(CURDIR)/bench -o $@ \
		tests/gt/capture.c unwind_v2.c tools/uwprof/lib/uwt.c \
		tools/uwprof/lib/regfile.c

# Captured once and kept while the capture itself is unchanged, not remade
# when unwind_v2.c changes: its frames were found by the unwinder of the
# day, and every later unwinder must reproduce them, on the same stacks.
$(BENCH_REAL)/lua.uwr: tests/gt/capture.c bench/replay.h bench/capture-lua.sh \
		bench/perf/bench.lua
	$(Q)$(MAKE) --no-print-directory lua-arm tools $(BENCH_CAPTURE)
	$(Q)BUILD=$(BUILD) bench/capture-lua.sh $(BENCH_CAPTURE) $(UWPROF) $(BENCH_REAL)

# The same bench for armhf, counted under qemu-arm (bench/tb-count.py).
BENCH_UNWIND_ARM := $(BUILD)/bench/bench_unwind.arm

$(BENCH_UNWIND_ARM): bench/bench_unwind.c bench/replay.h unwind_v2.c unwind_v2.h \
		tests/host/test_unwind_v2_gen.c tests/host/test_unwind_v2_gen.h \
		tools/uwprof/lib/uwt.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -O2 -mthumb -static -std=gnu11 -Wall -Wextra \
		-I$(CURDIR)/tools/include -I$(CURDIR) -I$(CURDIR)/tools/uwprof \
		-Itests/host -Ibench -o $@ bench/bench_unwind.c unwind_v2.c \
		tests/host/test_unwind_v2_gen.c tools/uwprof/lib/uwt.c \
		tools/uwprof/lib/regfile.c

# Without qemu-user or lua the real stacks are named as skipped by run.sh.
bench-unwind: $(BENCH_UNWIND) $(BENCH_UNWIND_ARM)
	$(Q)$(MAKE) --no-print-directory $(BENCH_REAL)/lua.uwr || \
		echo "bench-unwind: capturing real stacks failed"
	$(Q)bench/run.sh $(BENCH_UNWIND) $(BUILD)/bench $(BENCH_REAL) \
		$(BENCH_UNWIND_ARM)

.PHONY: bench-unwind
