# SPDX-License-Identifier: GPL-2.0
# Hostile inputs to the user-space tools: crafted files against the table
# generator and report (tests/host/hostile_cli.sh, test_report_svg) and
# the libFuzzer harnesses in fuzz/ over every reader of untrusted bytes.

HOST_TESTS	+= test_report_svg
test_report_svg_SRCS := tools/uwprof/report/svg.c tools/uwprof/report/model.c \
		   tools/uwprof/report/procs.c tools/uwprof/report/containers.c \
		   tools/uwprof/report/symbols.c tools/uwprof/report/symtab.c \
		   tools/uwprof/report/jitsyms.c \
		   $(UWPROF_LIB_SRCS) unwind_v2.c
test_report_svg_LIBS := -ldw -lelf -lz -lstdc++

HOST_TEST_SCRIPTS += tests/host/hostile_cli.sh
HOST_TEST_SCRIPTS += tests/host/table_scale.sh

HOST_TESTS	+= test_procmaps
test_procmaps_SRCS := tools/uwprof/lib/procmaps.c

# libFuzzer harnesses over the tools (mk/host-rules.mk makes the rules, as
# they need every fragment's TOOL_SRCS): fuzz_NAME runs "uwprof CMD" on
# each input (fuzz/fuzz_cmd.c), fuzz_procmaps parses it as a maps file,
# fuzz_datafile walks it as a data file in memory, fuzz_reportmem runs the
# report model and every writer on it in memory, fuzz_uwt reads it as a
# table in memory (fuzz_dump, the same through the command and a file, is
# built but not run by default: 20 times slower).
FUZZ_TOOLS	:= report dump table breakpad
FUZZ_TOOL_CFLAGS = -g -O1 -std=gnu11 -fno-sanitize-recover=all \
		   -I$(CURDIR)/tools/include -I$(CURDIR) -I$(CURDIR)/tools/uwprof
FUZZ_TOOL_BINS	= $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_TOOLS) procmaps datafile reportmem uwt)
FUZZ_SEEDS	= $(FUZZ_OUT)/seeds.stamp
# Inputs up to this size (ELF and data-file seeds are a few KiB).
FUZZ_TOOL_MAXLEN := 16384
FUZZ_SMOKE_SECONDS ?= 8

FUZZ_SEED_DATA	:= $(wildcard tests/data/report/* tests/data/table/* fuzz/regress/*/*)

# Test data is checked in, never made: without this, make's built-in
# "%: %.c" rule rebuilds tests/data/report/fixture for the host whenever
# fixture.c looks newer (as in a fresh clone).
$(FUZZ_SEED_DATA): ;

$(FUZZ_SEEDS): fuzz/mkseeds-tools.sh tests/host/mkelf.py $(UWPROF) \
		$(FUZZ_SEED_DATA)
	@mkdir -p $(dir $@)
	$(Q)fuzz/mkseeds-tools.sh $(FUZZ_OUT) $(UWPROF)
	$(Q)touch $@

# The harnesses fuzz-tools runs: all but fuzz_dump, or those named
# (make fuzz-tools FUZZ_HARNESSES="table breakpad").
FUZZ_HARNESSES	?= $(filter-out dump,$(FUZZ_TOOLS)) procmaps datafile reportmem uwt
# NAME:FUZZER:SEEDS:MAXLEN for fuzz/run-many.sh
FUZZ_TOOL_SPECS	= $(foreach t,$(FUZZ_HARNESSES),\
		  $(t):$(FUZZ_OUT)/fuzz_$(t):$(FUZZ_OUT)/$(t)/seeds:$(FUZZ_TOOL_MAXLEN))

fuzz-tools-build: $(FUZZ_TOOL_BINS) $(FUZZ_SEEDS)

# Each harness for FUZZ_SECONDS (or FUZZ_RUNS executions, if set first),
# FUZZ_JOBS of them at once.
fuzz-tools: fuzz-tools-build
	$(Q)FUZZ_FLAGS="-close_fd_mask=2 $(FUZZ_FLAGS)" fuzz/run-many.sh fuzz-tools \
		$(FUZZ_SECONDS) $(FUZZ_OUT) $(FUZZ_TOOL_SPECS)
	$(Q)scripts/doc-section.sh fuzz-tools $(FUZZ_OUT)/fuzz-tools.md \
		docs/HOSTILE.md markdown

.PHONY: fuzz-tools fuzz-tools-build
