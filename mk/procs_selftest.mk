# SPDX-License-Identifier: GPL-2.0
# The process-tracking selftest (selftests/procs_test.c): it reads the static chain program's table
# (mk/chain.mk) through the container reader, so it links lib/uwt.c.

PROCS_TEST	:= $(ARM_OUT)/selftests/procs_test

$(PROCS_TEST): selftests/procs_test.c tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -Wno-unused-parameter -Wno-sign-compare \
		-D_GNU_SOURCE -I$(KSELFTEST_DIR) -I$(CURDIR) -Iselftests \
		-I$(CURDIR)/tools/include -Itools/uwprof -o $@ \
		selftests/procs_test.c tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c -lpthread

VM_TEST_DEPS	+= $(PROCS_TEST) chain-tests
