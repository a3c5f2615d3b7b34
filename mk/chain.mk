# SPDX-License-Identifier: GPL-2.0
# The known-chain selftest, built with each compiler, instruction set and
# kind of linking, with its tables made by the host uwprof at build time.

CHAIN_VARIANTS	:= $(foreach cc,gcc clang,$(foreach isa,thumb arm,\
			$(foreach link,static dynamic,$(cc)-$(isa)-$(link))))
CHAIN_CC_gcc	:= $(ARM_CROSS)gcc
CHAIN_CC_clang	:= clang --target=arm-linux-gnueabihf -march=armv7-a -mfloat-abi=hard
CHAIN_LIB_SRCS	:= tools/uwprof/record/attach.c tools/uwprof/lib/addrmap.c tools/uwprof/lib/procmaps.c \
		   tools/uwprof/lib/uwt.c tools/uwprof/lib/regfile.c unwind_v2.c
CHAIN_BINS	:= $(foreach v,$(CHAIN_VARIANTS),$(ARM_OUT)/selftests/chain-$(v)_test)
ARM_LIBC	:= $(BUILD)/arm/root/lib/arm-linux-gnueabihf/libc.so.6

# chain-CC-ISA-LINK_test from chain_test.c
define chain_rule
$(ARM_OUT)/selftests/chain-$(1)-$(2)-$(3)_test: selftests/chain_test.c $(CHAIN_LIB_SRCS) $(SELFTEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CHAIN_CC_$(1)) -m$(2) -O2 -g -Wall $(if $(filter static,$(3)),-static) \
		-D_GNU_SOURCE -I$$(KSELFTEST_DIR) -I$$(CURDIR) -Iselftests \
		-I$$(CURDIR)/tools/include -Itools/uwprof -Wno-unused-parameter \
		-o $$@ selftests/chain_test.c $$(CHAIN_LIB_SRCS)
endef
$(foreach cc,gcc clang,$(foreach isa,thumb arm,$(foreach link,static dynamic,\
	$(eval $(call chain_rule,$(cc),$(isa),$(link))))))

%_test.syms: %_test
	$(Q)$(ARM_CROSS)nm -S --defined-only $< >$@

%_test.uwt: %_test $(UWPROF)
	$(Q)$(UWPROF) table $< -o $@ >/dev/null

$(ARM_OUT)/selftests/libc.so.6.uwt: $(ARM_LIBC) $(UWPROF)
	$(Q)$(UWPROF) table $< --debug-dir $(BUILD)/arm/dbg/usr/lib/debug -o $@ >/dev/null

# The static program's table split into parts by a lowered FOT limit, so
# that procs_test attaches a split table without a program of 100 MB.
CHAIN_SPLIT	:= $(ARM_OUT)/selftests/chain-gcc-thumb-static_test.split.uwt
$(CHAIN_SPLIT): $(ARM_OUT)/selftests/chain-gcc-thumb-static_test $(UWPROF)
	$(Q)$(UWPROF) table $< --test-fot-limit 128 -o $@ >/dev/null

chain-tests: $(CHAIN_BINS) $(CHAIN_BINS:=.syms) $(CHAIN_BINS:=.uwt) \
	$(ARM_OUT)/selftests/libc.so.6.uwt $(CHAIN_SPLIT)

VM_TEST_DEPS	+= chain-tests
.PHONY: chain-tests
