# SPDX-License-Identifier: GPL-2.0
#
# uwprof top-level targets.  The kernel module itself is described in Kbuild;
# everything else (host tools, tests, the VM) is driven from here and from the
# fragments in mk/ and beside the code they build.
#
#   make setup       install build dependencies and fetch the ARM kernel
#   make module      build uwprof.ko (KDIR=, ARCH=, CROSS_COMPILE=, MODULE_OUT=
#                    to override; README, "Building the module for a real device")
#   make tools       build the host uwprof command into build/host/
#   make test-host   host unit tests
#   make test-vm     selftests inside the emulated ARM machine
#   make check       all of the above; ends with "N passed, N failed"
#   make demo        boot the VM and show uwprof at work
#   make bench-quick the cost of a sample, in guest instructions, on lua;
#                    BENCH_KERNEL=arm64-6.1 (or a list) boots other kernels
#   make bench       uwprof against perf on lua, sqlite and node on armmp-6.1
#                    and arm64-6.1; writes docs/BENCHMARKS.md (mk/bench.mk)

include mk/config.mk

.PHONY: all setup module tools test-host test-vm check demo clean checkpatch
all: module tools

setup:
	$(Q)scripts/setup.sh

# Each area adds its targets and appends to TOOL_SRCS, HOST_TESTS and
# HOST_TEST_SCRIPTS in its own fragment; mk/host-rules.mk turns those into
# rules, so it comes last.
include $(filter-out mk/config.mk mk/host-rules.mk,$(sort $(wildcard mk/*.mk)))
include mk/host-rules.mk

check:
	$(Q)scripts/check.sh

clean:
	$(Q)if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) \
		CROSS_COMPILE=$(CROSS_COMPILE) clean >/dev/null; fi
	rm -rf $(BUILD)/host $(BUILD)/vm $(BUILD)/arm
