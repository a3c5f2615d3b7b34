# SPDX-License-Identifier: GPL-2.0
#
# Host builds.  Fragments append to:
#   TOOL_SRCS, TOOL_LIBS        sources and libraries of build/host/uwprof
#   TOOL_OBJS                   objects a fragment makes by its own rule
#                               (generated code), linked like TOOL_LIBS
#   HOST_TESTS                  names N of tests/host/N.c (harness tests)
#   N_SRCS, N_LIBS              what test N links besides its own file
#   HOST_TEST_SCRIPTS           shell tests; each ends "N passed, N failed"
#   HOST_PROBES                 names N of tests/host/N.c, programs a shell
#                               test runs (no harness), linking N_SRCS

TOOL_SRCS	+= tools/uwprof/uwprof.c $(UWPROF_LIB_SRCS)
HOST_HDRS	:= $(wildcard *.h tools/uwprof/*.h tools/uwprof/*/*.h tests/host/*.h uapi/*.h tools/include/linux/*.h)

tools: $(UWPROF)

$(UWPROF): $(TOOL_SRCS) $(TOOL_OBJS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $(TOOL_SRCS) $(TOOL_OBJS) $(TOOL_LIBS)

define host_test_rule
$(HOST_OUT)/tests/$(1): tests/host/$(1).c tests/host/harness.c $$($(1)_SRCS) $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) -Itests/host -o $$@ tests/host/$(1).c \
		tests/host/harness.c $$($(1)_SRCS) $$($(1)_LIBS)
endef
$(foreach t,$(HOST_TESTS),$(eval $(call host_test_rule,$(t))))

define host_probe_rule
$(HOST_OUT)/tests/$(1): tests/host/$(1).c $$($(1)_SRCS) $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) -o $$@ tests/host/$(1).c $$($(1)_SRCS)
endef
$(foreach t,$(HOST_PROBES),$(eval $(call host_probe_rule,$(t))))

HOST_TEST_BINS := $(addprefix $(HOST_OUT)/tests/,$(HOST_TESTS))
test-host: $(addprefix $(HOST_OUT)/tests/,$(HOST_PROBES))

# One test per core at once (UWPROF_TEST_JOBS), ground truth, the longest,
# first.
HOST_TEST_FIRST	:= $(filter %/ground_truth.sh,$(HOST_TEST_SCRIPTS))
test-host: $(HOST_TEST_BINS) $(UWPROF)
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh \
		-j $${UWPROF_TEST_JOBS:-$$(nproc)} test-host $(HOST_TEST_FIRST) \
		$(HOST_TEST_BINS) $(filter-out $(HOST_TEST_FIRST),$(HOST_TEST_SCRIPTS))

# The tool fuzz harnesses (mk/hostile.mk): every tool source but the entry
# point, built once with the sanitizers, then linked per harness.
FUZZ_TOOL_SRCS	:= $(filter-out tools/uwprof/uwprof.c,$(sort $(TOOL_SRCS)))
FUZZ_TOOL_OBJS	:= $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_TOOL_SRCS))

$(FUZZ_OUT)/obj/%.o: %.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_TOOL_CFLAGS) \
		-fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

define fuzz_tool_rule
$(FUZZ_OUT)/fuzz_$(1): fuzz/fuzz_cmd.c $(FUZZ_TOOL_OBJS) $(TOOL_OBJS)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(FUZZ_CC) $$(FUZZ_TOOL_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-DFUZZ_CMD_$(shell echo $(1) | tr a-z A-Z)=1 \
		-DFUZZ_SYMFS='"$(CURDIR)/tests/data/report"' \
		-o $$@ fuzz/fuzz_cmd.c $(FUZZ_TOOL_OBJS) $(TOOL_OBJS) $(TOOL_LIBS)
endef
$(foreach t,$(FUZZ_TOOLS),$(eval $(call fuzz_tool_rule,$(t))))

$(FUZZ_OUT)/fuzz_procmaps: fuzz/fuzz_procmaps.c $(FUZZ_OUT)/obj/tools/uwprof/lib/procmaps.o
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_TOOL_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $^

$(FUZZ_OUT)/fuzz_uwt: fuzz/fuzz_uwt.c $(addprefix $(FUZZ_OUT)/obj/,\
		tools/uwprof/lib/uwt.o tools/uwprof/inspect/dump.o tools/uwprof/lib/ehabi.o \
		tools/uwprof/lib/regfile.o unwind_v2.o)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_TOOL_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $^

FUZZ_REPORT_OBJS := $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,\
		   $(filter-out tools/uwprof/report/cmd_report.c,$(REPORT_SRCS)) \
		   $(UWPROF_LIB_SRCS) unwind_v2.c)

$(FUZZ_OUT)/fuzz_reportmem: fuzz/fuzz_reportmem.c $(FUZZ_REPORT_OBJS) $(TOOL_OBJS)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_TOOL_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $^ $(TOOL_LIBS)

$(FUZZ_OUT)/fuzz_datafile: fuzz/fuzz_datafile.c $(FUZZ_OUT)/obj/tools/uwprof/lib/datafile.o \
		$(FUZZ_OUT)/obj/tools/uwprof/lib/regfile.o $(FUZZ_OUT)/obj/unwind_v2.o
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_TOOL_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $^
