# SPDX-License-Identifier: GPL-2.0
# Libraries inside APKs (issue 23, item 3): a library stored uncompressed
# and page-aligned in a zip, mapped from the zip at its offset as
# Android's linker maps an APK's library.  The zip reader is
# tools/uwprof/lib/zip.c; docs/USAGE.md, "Libraries inside APKs".

# The host test (tests/host/apk_cli.sh) and its probe of the reader and
# of record's side of it, built from the same sources.
HOST_PROBES	+= zip_probe
zip_probe_SRCS	:= tools/uwprof/lib/zip.c tools/uwprof/lib/elf.c \
		   tools/uwprof/lib/regfile.c tools/uwprof/lib/util.c \
		   tools/uwprof/lib/addrmap.c tools/uwprof/record/archive.c
HOST_TEST_SCRIPTS += tests/host/apk_cli.sh

# The VM test (tests/host/apk_vm.sh): the library (Thumb-2, no C library,
# no relocations but R_ARM_RELATIVE) and the loader that runs it from the
# zip, for armhf.
APK_OUT		:= $(ARM_OUT)/apk
APK_BINS	:= $(APK_OUT)/libhot.so $(APK_OUT)/apk_loader
$(APK_OUT)/libhot.so: tests/apk/libhot.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -O2 -g -mthumb -march=armv7-a+fp -fPIC -shared -nostdlib \
		-Wl,--build-id -Wl,-e,hot_run -Wl,-z,max-page-size=4096 -o $@ $<
$(APK_OUT)/apk_loader: tests/apk/apk_loader.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) -O2 -g -funwind-tables -Wall -Wextra -Werror -static-libgcc \
		-Wl,--build-id -o $@ $<

apk-arm: $(APK_BINS)
.PHONY: apk-arm

VM_TEST_SCRIPTS	+= tests/host/apk_vm.sh
VM_TEST_DEPS	+= apk-arm $(ARM_UWPROF) $(UWPROF)
