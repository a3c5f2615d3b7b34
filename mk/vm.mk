# SPDX-License-Identifier: GPL-2.0
# Selftests and programs for the emulated ARM machine, and the VM targets.

SELFTEST_SRCS	:= $(filter-out selftests/chain_test.c selftests/procs_test.c selftests/jit_test.c,$(wildcard selftests/*_test.c))
SELFTEST_BINS	:= $(patsubst selftests/%.c,$(ARM_OUT)/selftests/%,$(SELFTEST_SRCS))

# The check every VM run ends with (scripts/kernel-problems.sh).
HOST_TEST_SCRIPTS += tests/host/kernel_problems.sh

# Extra files a later fragment wants in the test VM, as SRC:DST pairs.
VM_TEST_FILES	?=

$(ARM_OUT)/selftests/%: selftests/%.c $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(ARM_CFLAGS) -Wno-unused-parameter -Wno-sign-compare -D_GNU_SOURCE -I$(KSELFTEST_DIR) -I$(CURDIR) \
		-Iselftests -I$(CURDIR)/tools/include -o $@ $< -lpthread

# A 64-bit program for the compat tests on arm64 kernels; on a 32-bit
# kernel it does not run and those tests say they are skipped.
AARCH64_CC	?= aarch64-linux-gnu-gcc
SPIN64		:= $(ARM_OUT)/selftests/spin64
$(SPIN64): selftests/spin64.c
	@mkdir -p $(dir $@)
	$(Q)$(AARCH64_CC) -O2 -Wall -Wextra -static -nostdlib -ffreestanding \
		-fno-stack-protector -o $@ $<

# A test-only kernel module for selftests/follow_fail_test.c
# (selftests/kfail/), built for KERNEL in a tree of its own and copied
# beside the selftests each time (Kbuild makes it once per kernel).
KFAIL_DIR	:= $(BUILD)/kfail/$(KERNEL)
KFAIL_KO	:= $(ARM_OUT)/selftests/uwprof_kfail.ko
kfail-module:
	@mkdir -p $(KFAIL_DIR) $(dir $(KFAIL_KO))
	$(Q)cp -p selftests/kfail/uwprof_kfail.c selftests/kfail/Kbuild $(KFAIL_DIR)/
	$(Q)$(MAKE) -s -C $(KDIR) M=$(KFAIL_DIR) ARCH=$(ARCH) \
		CROSS_COMPILE=$(CROSS_COMPILE) $(MODULE_CC) modules
	$(Q)cp $(KFAIL_DIR)/uwprof_kfail.ko $(KFAIL_KO)

selftests: $(SELFTEST_BINS) $(SPIN64) kfail-module

# Shell tests that boot VMs of their own (each ends "N passed, N failed").
VM_TEST_SCRIPTS	?=
# Samples taken in a trapped VFP instruction's window (sampler.c).
VM_TEST_SCRIPTS	+= tests/host/vfptrap_vm.sh

test-vm: module selftests $(VM_TEST_DEPS)
	$(Q)VM_TEST_SCRIPTS="$(VM_TEST_SCRIPTS)" UWPROF=$(UWPROF) BUILD=$(BUILD) \
		scripts/test-vm.sh $(ARM_OUT)/selftests/. selftests/run-in-vm.sh \
		$(VM_TEST_FILES)

# The VM test scripts alone, without the selftests' own boot:
# VM_SCRIPTS="tests/host/record_vm.sh ..." picks some (default: all of them).
VM_SCRIPTS	?= $(VM_TEST_SCRIPTS)
test-vm-scripts: module selftests $(VM_TEST_DEPS)
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh test-vm-scripts \
		$(VM_SCRIPTS)

.PHONY: selftests kfail-module test-vm-scripts

# Every test kernel in turn (scripts/test-matrix.sh; KERNELS= for a subset).
test-matrix: tools
	$(Q)scripts/test-matrix.sh

.PHONY: test-matrix
