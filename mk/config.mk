# SPDX-License-Identifier: GPL-2.0
# Paths and toolchains shared by every fragment.  Override any on the command
# line: make module KDIR=/path/to/device/kernel CROSS_COMPILE=arm-linux-androideabi-

BUILD		?= $(CURDIR)/build

# A kernel tree named on the command line (make module KDIR=...) says its
# own architecture in its .config, unless ARCH= is given too.
ifeq ($(origin KDIR)$(origin ARCH),command lineundefined)
KDIR_ARCH	:= $(shell sed -n 's/^CONFIG_ARM64=y$$/arm64/p; s/^CONFIG_ARM=y$$/arm/p' \
			$(KDIR)/.config 2>/dev/null | head -n 1)
ifneq ($(KDIR_ARCH),)
ARCH		:= $(KDIR_ARCH)
endif
endif

# The test kernel (scripts/setup.sh fetches it and lists them all): armmp-6.1,
# arm64-6.1, armmp-5.10, armmp-6.12, lpae-6.1, rt-6.1.
# ARCH=arm64 alone picks arm64-6.1, for `make module ARCH=arm64`.
ifeq ($(ARCH),arm64)
KERNEL		?= arm64-6.1
endif
KERNEL		?= armmp-6.1
export KERNEL
ifeq ($(KERNEL),armmp-6.1)
KERNEL_DIR	:= $(BUILD)/kernel
else ifeq ($(KERNEL),debug-6.1)
# make debug-kernel builds it (mk/debug.mk); its build tree is the KDIR.
KERNEL_DIR	:= $(BUILD)/debug-kernel
KDIR		?= $(KERNEL_DIR)/obj
else
KERNEL_DIR	:= $(BUILD)/kernel-$(KERNEL)
endif
ifneq ($(filter arm64-%,$(KERNEL)),)
ARCH		?= arm64
else
ARCH		?= arm
endif
ifeq ($(ARCH),arm64)
CROSS_COMPILE	?= aarch64-linux-gnu-
else
CROSS_COMPILE	?= arm-linux-gnueabihf-
endif

# scripts/setup.sh records the kernel's release here.
KVER		?= $(shell cat $(KERNEL_DIR)/release 2>/dev/null)
KDIR		?= $(KERNEL_DIR)/root/usr/src/linux-headers-$(KVER)

HOSTCC		?= cc
HOST_CFLAGS	?= -O2 -g -Wall -Wextra -Werror -std=gnu11
HOST_CFLAGS	+= -I$(CURDIR)/tools/include -I$(CURDIR) -I$(CURDIR)/tools/uwprof

# tools/uwprof/lib/: the libc-only code both the host and the device-side
# uwprof are built from (tools/uwprof/README.md).  Every file of it goes
# into both binaries, so the device build checks all of it.
UWPROF_LIB_SRCS	:= $(sort $(wildcard tools/uwprof/lib/*.c))

# Where things are built.  Fragments use these in rule targets, which make
# expands as it reads them, so they are defined here, before any fragment.
HOST_OUT	:= $(BUILD)/host
UWPROF		:= $(HOST_OUT)/uwprof
ARM_OUT		:= $(BUILD)/arm
KSELFTEST_DIR	:= $(BUILD)/linux-source/tools/testing/selftests
SELFTEST_HDRS	:= $(wildcard selftests/*.h) uapi/uwprof.h
FUZZ_OUT	:= $(BUILD)/fuzz
# The ABI fuzzer (mk/fuzz-abi.mk); here, as mk/debug.mk's test-debug,
# read before it, needs it as a prerequisite.
ABI_FUZZ	:= $(ARM_OUT)/abi_fuzz
FUZZ_CC		?= clang

# armhf user programs (selftests, test programs, the device-side uwprof)
ARM_CROSS	:= arm-linux-gnueabihf-
ARM_CC		?= $(ARM_CROSS)gcc
ARM_CFLAGS	?= -O2 -g -Wall -Wextra -static

ifeq ($(V),1)
Q :=
else
Q := @
endif
