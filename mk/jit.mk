# SPDX-License-Identifier: GPL-2.0
# The JIT frame selftest (selftests/jit_test.c): a static Thumb program
# whose ARM code (selftests/jit_code.S) runs from anonymous memory, with
# its table and symbols made at build time as for the chain test.

JIT_TEST	:= $(ARM_OUT)/selftests/jit_test

$(JIT_TEST): selftests/jit_test.c selftests/jit_code.S $(CHAIN_LIB_SRCS) $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CROSS)gcc -mthumb -O2 -g -Wall -static -D_GNU_SOURCE \
		-I$(KSELFTEST_DIR) -I$(CURDIR) -Iselftests -I$(CURDIR)/tools/include \
		-Itools/uwprof -Wno-unused-parameter -o $@ selftests/jit_test.c \
		selftests/jit_code.S $(CHAIN_LIB_SRCS)

jit-test: $(JIT_TEST) $(JIT_TEST).syms $(JIT_TEST).uwt

VM_TEST_DEPS	+= jit-test
.PHONY: jit-test
