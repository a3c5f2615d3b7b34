# SPDX-License-Identifier: GPL-2.0
# The device-side uwprof (make uwprof-arm): one static armhf binary with
# lib/, the device commands (record, vdso, table, and report's model and
# writers: every format but pprof, symbols from the files' own tables
# through symbols_elf.c), the table generator and the unwinder.  Read
# after mk/record.mk and mk/table.mk, whose source lists it takes.
#
# What it may be built from (scripts/check-device-libc.sh checks both, and
# docs/USAGE.md "The device binary" says it): the C library, and the
# static libraries of DEVICE_LIBS, from Debian's armhf -dev packages that
# scripts/setup.sh unpacks into $(ARM_SYSROOT) (nothing is installed on
# the machine).  The sources are compiled with -nostdinc against the C
# library's headers and $(ARM_SYSROOT)/usr/include alone: every #include
# they hold, taken or not, must name a header of the C library, one of
# those packages' headers, or a file of lib/, record/, report/, table/;
# the static link may read libc, libgcc and the archives of DEVICE_LIBS,
# nothing else.
ARM_SYSROOT	:= $(ARM_OUT)/sysroot
# libelf and libdw (elfutils: ELF, DWARF CFI, MiniDebugInfo through
# libdwfl), capstone (prologue analysis, function discovery), and the
# decompressors libdw reads compressed sections and files with.
DEVICE_LIBS	:= dw elf capstone zstd lzma bz2 z
ARM_UWPROF_SRCS	:= tools/uwprof/uwprof.c unwind_v2.c $(UWPROF_LIB_SRCS) \
		   $(RECORD_SRCS) $(REPORT_COMMON_SRCS) tools/uwprof/report/symbols_elf.c \
		   $(TABLE_SRCS) tools/uwprof/table/cmd_table.c
# The C library's headers (beside the libc.a the static link takes) and
# the compiler's own; not /usr/include, where the host's libelf, zlib...
# live.
ARM_LIBC_A	= $(shell $(ARM_CC) -print-file-name=libc.a)
ARM_LIBC_INC	= -nostdinc -isystem $(abspath $(dir $(ARM_LIBC_A))../include) \
		  -isystem $(shell $(ARM_CC) -print-file-name=include) \
		  -isystem $(ARM_SYSROOT)/usr/include
ARM_SYSROOT_LIB	:= $(ARM_SYSROOT)/usr/lib/arm-linux-gnueabihf
# Optimised as one program: the table generator is most of what the
# device binary runs, and its files call each other's small functions
# (docs/BENCHMARKS.md, "Tables made on the device": libc.so.6 tabled in
# 4.7% fewer instructions than at -O2, for 3.6% more bytes).
ARM_UWPROF_OPT	:= -O3 -flto=auto

$(ARM_UWPROF): $(ARM_UWPROF_SRCS) $(HOST_HDRS) scripts/check-device-libc.sh \
		$(ARM_SYSROOT)/.done
	@mkdir -p $(dir $@)
	$(Q)scripts/check-device-libc.sh includes "$(ARM_CC)" $(ARM_SYSROOT) \
		$(ARM_UWPROF_SRCS)
	$(Q)$(ARM_CC) -static $(ARM_UWPROF_OPT) -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
		-DUWPROF_DEVICE_BUILD $(ARM_LIBC_INC) \
		-I$(CURDIR)/tools/include -I$(CURDIR) -I$(CURDIR)/tools/uwprof \
		-o $@.tmp $(ARM_UWPROF_SRCS) -L$(ARM_SYSROOT_LIB) \
		$(addprefix -l,$(DEVICE_LIBS)) -Wl,--trace >$@.link 2>$@.warn || \
		{ cat $@.warn >&2; exit 1; }
	$(Q)scripts/check-device-libc.sh link $@.link $(DEVICE_LIBS) || \
		{ rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@

# The libraries' armhf packages, unpacked (scripts/setup.sh, make setup).
$(ARM_SYSROOT)/.done: scripts/setup.sh
	$(Q)scripts/setup.sh --device-libs

uwprof-arm: $(ARM_UWPROF)
.PHONY: uwprof-arm
