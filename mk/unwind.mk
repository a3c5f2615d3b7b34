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

# The real stacks are captured once and committed (BENCH_REAL_INPUT: the
# replay file and the tables it was unwound with), so that every tree's
# figures are of the same stacks and a fresh clone reproduces them: its
# frames were found by the unwinder of the day, and every later unwinder
# must reproduce them.  make bench-unwind-capture captures anew and
# rewrites the archive (needs lua-arm and qemu-arm-static).
BENCH_REAL_INPUT := bench/data/lua-real.tar.xz

$(BENCH_REAL)/lua.uwr: $(BENCH_REAL_INPUT)
	@rm -rf $(BENCH_REAL) && mkdir -p $(BENCH_REAL)
	$(Q)tar -xJf $< -C $(BENCH_REAL) && touch $@

bench-unwind-capture:
	$(Q)$(MAKE) --no-print-directory lua-arm tools $(BENCH_CAPTURE)
	@rm -rf $(BUILD)/bench/capture
	$(Q)BUILD=$(BUILD) bench/capture-lua.sh $(BENCH_CAPTURE) $(UWPROF) $(BUILD)/bench/capture
	@mkdir -p $(dir $(BENCH_REAL_INPUT))
	$(Q)cd $(BUILD)/bench/capture && tar --sort=name --owner=0 --group=0 --mtime=@0 \
		-cf - lua.uwr *.uwt | xz -9 >$(CURDIR)/$(BENCH_REAL_INPUT)
	@echo "bench-unwind-capture: wrote $(BENCH_REAL_INPUT)"

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

# The figures, written into docs/UNWIND-COST.md (scripts/doc-section.sh) with
# the commit they were measured on; without valgrind or qemu-arm-static
# (make setup) the run fails.
bench-unwind: $(BENCH_UNWIND) $(BENCH_UNWIND_ARM) $(BENCH_REAL)/lua.uwr
	$(Q)bench/run.sh $(BENCH_UNWIND) $(BUILD)/bench $(BENCH_REAL) \
		$(BENCH_UNWIND_ARM)
	$(Q)scripts/doc-section.sh bench-unwind $(BUILD)/bench/figures.txt docs/UNWIND-COST.md

.PHONY: bench-unwind bench-unwind-capture
