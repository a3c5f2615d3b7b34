# SPDX-License-Identifier: GPL-2.0
# Paths and toolchains shared by every fragment.  Override any on the command
# line: make module KDIR=/path/to/device/kernel CROSS_COMPILE=arm-linux-androideabi-

BUILD		?= $(CURDIR)/build
ARCH		?= arm
CROSS_COMPILE	?= arm-linux-gnueabihf-

# scripts/setup.sh fetches Debian's armmp kernel and records its release here.
KVER		?= $(shell cat $(BUILD)/kernel/release 2>/dev/null)
KDIR		?= $(BUILD)/kernel/root/usr/src/linux-headers-$(KVER)

HOSTCC		?= cc
HOST_CFLAGS	?= -O2 -g -Wall -Wextra -Werror -std=gnu11
HOST_CFLAGS	+= -I$(CURDIR)/tools/include -I$(CURDIR) -I$(CURDIR)/tools/uwprof

# Where things are built.  Fragments use these in rule targets, which make
# expands as it reads them, so they are defined here, before any fragment.
HOST_OUT	:= $(BUILD)/host
UWPROF		:= $(HOST_OUT)/uwprof
ARM_OUT		:= $(BUILD)/arm
KSELFTEST_DIR	:= $(BUILD)/linux-source/tools/testing/selftests
SELFTEST_HDRS	:= $(wildcard selftests/*.h) uapi/uwprof.h
FUZZ_OUT	:= $(BUILD)/fuzz
FUZZ_CC		?= clang

# armhf user programs (selftests, test programs, the device-side uwprof)
ARM_CC		?= $(CROSS_COMPILE)gcc
ARM_CFLAGS	?= -O2 -g -Wall -Wextra -static

ifeq ($(V),1)
Q :=
else
Q := @
endif
