# SPDX-License-Identifier: GPL-2.0
#
# Host builds.  Fragments append to:
#   TOOL_SRCS, TOOL_LIBS        sources and libraries of build/host/uwprof
#   HOST_TESTS                  names N of tests/host/N.c (harness tests)
#   N_SRCS, N_LIBS              what test N links besides its own file
#   HOST_TEST_SCRIPTS           shell tests; each ends "N passed, N failed"

TOOL_SRCS	+= tools/uwprof/uwprof.c
HOST_HDRS	:= $(wildcard *.h tools/uwprof/*.h tests/host/*.h uapi/*.h tools/include/linux/*.h)

tools: $(UWPROF)

$(UWPROF): $(TOOL_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $(TOOL_SRCS) $(TOOL_LIBS)

define host_test_rule
$(HOST_OUT)/tests/$(1): tests/host/$(1).c tests/host/harness.c $$($(1)_SRCS) $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) -Itests/host -o $$@ tests/host/$(1).c \
		tests/host/harness.c $$($(1)_SRCS) $$($(1)_LIBS)
endef
$(foreach t,$(HOST_TESTS),$(eval $(call host_test_rule,$(t))))

HOST_TEST_BINS := $(addprefix $(HOST_OUT)/tests/,$(HOST_TESTS))

test-host: $(HOST_TEST_BINS) $(UWPROF)
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh test-host \
		$(HOST_TEST_BINS) $(HOST_TEST_SCRIPTS)
