# SPDX-License-Identifier: GPL-2.0
# The attack selftest (selftests/attack.c): tables built to be slow to
# validate and to unwind with, timed in a VM of its own under -icount,
# where a guest nanosecond is one instruction (tests/host/attack_vm.sh).

ATTACK_TEST	:= $(ARM_OUT)/selftests-attack/attack_test

$(ATTACK_TEST): selftests/attack.c selftests/worst_tables.h $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -Wno-unused-parameter -Wno-sign-compare \
		-D_GNU_SOURCE -I$(KSELFTEST_DIR) -I$(CURDIR) -Iselftests \
		-I$(CURDIR)/tools/include -o $@ $< -lpthread

VM_TEST_DEPS	+= $(ATTACK_TEST)
VM_TEST_SCRIPTS	+= tests/host/attack_vm.sh
