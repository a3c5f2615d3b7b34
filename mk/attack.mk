# SPDX-License-Identifier: GPL-2.0
# The attack selftest (selftests/attack.c): tables built to be slow to
# validate and to unwind with, timed in a VM of its own under -icount,
# where a guest nanosecond is one instruction (tests/host/attack_vm.sh).

ATTACK_TEST	:= $(ARM_OUT)/selftests-attack/attack_test

$(ATTACK_TEST): selftests/attack.c selftests/worst_tables.h selftests/fuse_hang.h \
		$(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -Wno-unused-parameter -Wno-sign-compare \
		-D_GNU_SOURCE -I$(KSELFTEST_DIR) -I$(CURDIR) -Iselftests \
		-I$(CURDIR)/tools/include -o $@ $< -lpthread

VM_TEST_DEPS	+= $(ATTACK_TEST)
VM_TEST_SCRIPTS	+= tests/host/attack_vm.sh

# The search for the slowest valid table shapes, on the host: prints the
# ten slowest and what climbing from the slowest finds (fuzz/worst_table.c).
WORST_TABLE	:= $(HOST_OUT)/worst_table

$(WORST_TABLE): fuzz/worst_table.c selftests/worst_tables.h unwind_v2.c unwind_v2.h
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Iselftests -o $@ fuzz/worst_table.c unwind_v2.c

worst-tables: $(WORST_TABLE)
	$(Q)$(WORST_TABLE) $(WORST_TABLE_SIZE)

.PHONY: worst-tables

# docs/ATTACK.md, written by the runs that measured it: the attack test on
# this tree's module, and on ATTACK_BEFORE (a uwprof.ko built elsewhere,
# for a before-and-after) if given.
attack-figures: module $(ATTACK_TEST)
	$(Q)printf '%s\n' '# The attack test'"'"'s figures' '' \
		'Written by `make attack-figures` (tests/host/attack_vm.sh, one vCPU' \
		'under `-icount`); docs/HOSTILE.md says what each attack is.' \
		>docs/ATTACK.md
	$(Q)$(if $(ATTACK_BEFORE),ATTACK_FIGURES=$(CURDIR)/docs/ATTACK.md \
		ATTACK_LABEL="Before: $(ATTACK_BEFORE_LABEL)" \
		UWPROF_MODULE=$(ATTACK_BEFORE) tests/host/attack_vm.sh >/dev/null || true;)
	$(Q)ATTACK_FIGURES=$(CURDIR)/docs/ATTACK.md tests/host/attack_vm.sh >/dev/null

.PHONY: attack-figures
