# SPDX-License-Identifier: GPL-2.0
# Selftests and programs for the emulated ARM machine, and the VM targets.

SELFTEST_SRCS	:= $(filter-out selftests/chain_test.c,$(wildcard selftests/*_test.c))
SELFTEST_BINS	:= $(patsubst selftests/%.c,$(ARM_OUT)/selftests/%,$(SELFTEST_SRCS))

# Extra files a later fragment wants in the test VM, as SRC:DST pairs.
VM_TEST_FILES	?=

$(ARM_OUT)/selftests/%: selftests/%.c $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -Wno-unused-parameter -Wno-sign-compare -D_GNU_SOURCE -I$(KSELFTEST_DIR) -I$(CURDIR) \
		-Iselftests -I$(CURDIR)/tools/include -o $@ $< -lpthread

selftests: $(SELFTEST_BINS)

test-vm: module selftests $(VM_TEST_DEPS)
	$(Q)scripts/test-vm.sh $(ARM_OUT)/selftests/. selftests/run-in-vm.sh \
		$(VM_TEST_FILES)

.PHONY: selftests

# Until the collector exists, the demo boots the VM, loads the module and
# shows the device answering.  It does its own set-up, so it is the one
# command a newcomer needs.
demo:
	$(Q)$(MAKE) --no-print-directory setup
	$(Q)$(MAKE) --no-print-directory module selftests
	$(Q)scripts/vm.sh --timeout 300 --add $(ARM_OUT)/selftests/device_test:/bin/device_test -- \
		'insmod /uwprof.ko && ls -l /dev/unwind_samples && grep uwprof /proc/modules && device_test'
