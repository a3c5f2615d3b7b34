# SPDX-License-Identifier: GPL-2.0
# The kernel module.  Kbuild (beside this Makefile) lists its objects.

module:
	$(Q)if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "module: no kernel build tree at '$(KDIR)'." >&2; \
		echo "Run 'make setup' for Debian's armmp kernel, or pass KDIR=<kernel build dir>." >&2; \
		exit 1; fi
	$(Q)$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) modules

CHECKPATCH ?= $(BUILD)/linux-source/scripts/checkpatch.pl
MODULE_SOURCES = $(filter-out %.mod.c,$(wildcard $(CURDIR)/*.c $(CURDIR)/*.h)) uapi/uwprof.h

# The module's sources against the kernel's coding style.
checkpatch:
	$(Q)$(CHECKPATCH) --strict --no-tree --terse --show-types \
		-f $(MODULE_SOURCES)
