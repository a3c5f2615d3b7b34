# SPDX-License-Identifier: GPL-2.0
# The debug kernel (scripts/debug-kernel.sh): linux-source-6.1 for qemu's
# virt machine with KASAN, lockdep, kmemleak, UBSAN, KFENCE, debug objects
# and fault injection, and the tests that run on it.
#   make debug-kernel   build it into build/debug-kernel/ (once; ~20 min)
#   make debug-module   uwprof.ko for it, in build/debug-kernel/module/
#                       (the tree's own uwprof.ko is left alone;
#                       make module KERNEL=debug-6.1 builds that one)
#   make test-debug     selftests (with fault_test), record/report end to
#                       end, a short ABI fuzz with and without injected
#                       allocation failures, kmemleak: scripts/test-debug.sh

DEBUG_DIR	:= $(BUILD)/debug-kernel
DEBUG_KO	:= $(DEBUG_DIR)/module/uwprof.ko
MODULE_FILES	:= Kbuild $(wildcard *.c *.h) uapi/uwprof.h
FUZZ_DEBUG_SECONDS ?= 120

debug-kernel:
	$(Q)scripts/debug-kernel.sh

$(DEBUG_KO): $(filter-out %.mod.c,$(MODULE_FILES)) $(DEBUG_DIR)/vmlinuz
	@mkdir -p $(DEBUG_DIR)/module/uapi
	$(Q)cp $(filter-out uapi/% %.mod.c $(DEBUG_DIR)/%,$^) $(DEBUG_DIR)/module/
	$(Q)cp uapi/uwprof.h $(DEBUG_DIR)/module/uapi/
	$(Q)$(MAKE) -s -C $(DEBUG_DIR)/obj M=$(DEBUG_DIR)/module ARCH=arm \
		CROSS_COMPILE=arm-linux-gnueabihf- modules

debug-module: debug-kernel $(DEBUG_KO)

test-debug: debug-module selftests $(ABI_FUZZ) $(VM_TEST_DEPS)
	$(Q)$(MAKE) --no-print-directory kfail-module KERNEL=debug-6.1
	$(Q)KERNEL=debug-6.1 UWPROF_MODULE=$(DEBUG_KO) UWPROF=$(UWPROF) BUILD=$(BUILD) \
		FUZZ_DEBUG_SECONDS=$(FUZZ_DEBUG_SECONDS) ABI_FUZZ=$(ABI_FUZZ) \
		scripts/test-debug.sh $(ARM_OUT)/selftests/. $(VM_TEST_FILES)

.PHONY: debug-kernel debug-module test-debug
