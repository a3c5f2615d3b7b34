# SPDX-License-Identifier: GPL-2.0
# The kernel module.  Kbuild (beside this Makefile) lists its objects.

# Debian's headers name the compiler their kernel was built with
# (.kernelvariables: CC = $(CROSS_COMPILE)gcc-N).  Where that gcc-N is not
# installed (bullseye's 5.10 was built with gcc 10, bookworm has 12), the
# module is built with the cross compiler's default gcc instead.  CC= on the
# command line wins.
KERNEL_GCC	:= $(shell sed -n 's/^CC = .*(CROSS_COMPILE)\(gcc-[0-9]*\).*/\1/p' \
			$(KDIR)/.kernelvariables 2>/dev/null)
ifneq ($(KERNEL_GCC),)
ifeq ($(origin CC),default)
ifeq ($(shell command -v $(CROSS_COMPILE)$(KERNEL_GCC)),)
MODULE_CC	:= CC=$(CROSS_COMPILE)gcc
endif
endif
endif

# The module's own sources: all a build elsewhere needs (MODULE_OUT=,
# DKMS), with dkms.conf.
MODULE_FILES	= Kbuild $(filter-out %.mod.c,$(wildcard *.c *.h)) uapi/uwprof.h

# MODULE_OUT=DIR builds in DIR, from a copy of the sources (uwprof.ko is
# DIR/uwprof.ko), leaving this tree as it is; by default it builds here.
MODULE_OUT	?= $(CURDIR)
module:
	$(Q)if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "module: no kernel build tree at '$(KDIR)'." >&2; \
		echo "Run 'make setup' for Debian's armmp kernel, or pass KDIR=<kernel build dir>." >&2; \
		exit 1; fi
	$(if $(MODULE_CC),@echo "module: $(KVER) was built with $(KERNEL_GCC)" \
		"(not installed here); building with $(CROSS_COMPILE)gcc")
	$(Q)if [ "$(abspath $(MODULE_OUT))" != "$(CURDIR)" ]; then \
		$(MAKE) --no-print-directory module-source MODULE_SRC=$(MODULE_OUT); fi
	$(Q)$(MAKE) -C $(KDIR) M=$(abspath $(MODULE_OUT)) ARCH=$(ARCH) \
		CROSS_COMPILE=$(CROSS_COMPILE) $(MODULE_CC) modules

# The sources DKMS builds from: make module-source MODULE_SRC=/usr/src/uwprof-0.1
module-source:
	$(Q)if [ -z "$(MODULE_SRC)" ]; then \
		echo "module-source: say where: MODULE_SRC=/usr/src/uwprof-VERSION" >&2; exit 1; fi
	$(Q)mkdir -p $(MODULE_SRC)/uapi
	$(Q)for f in $(MODULE_FILES) dkms.conf; do \
		cmp -s $$f $(MODULE_SRC)/$$f || cp $$f $(MODULE_SRC)/$$f || exit 1; done

.PHONY: module-source

CHECKPATCH ?= $(BUILD)/linux-source/scripts/checkpatch.pl
MODULE_SOURCES = $(filter-out %.mod.c,$(wildcard $(CURDIR)/*.c $(CURDIR)/*.h)) uapi/uwprof.h \
		 selftests/kfail/uwprof_kfail.c

# The module's sources against the kernel's coding style.
checkpatch:
	$(Q)$(CHECKPATCH) --strict --no-tree --terse --show-types \
		-f $(MODULE_SOURCES)
