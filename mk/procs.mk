# SPDX-License-Identifier: GPL-2.0
# Process tracking in the VM (tests/host/procs_vm.sh, issue 11): uwprof
# record following children, execs, dlopen/dlclose and short-lived
# processes.  Its test programs (tests/procs/), cross-built for armhf.

PROCS_OUT	:= $(ARM_OUT)/procs
PROCS_CFLAGS	:= -O2 -g -funwind-tables -Wall -Wextra -Werror -static-libgcc \
		   -Wl,--build-id
PROCS_BINS	:= $(PROCS_OUT)/procs_fork $(PROCS_OUT)/procs_dl \
		   $(PROCS_OUT)/libprocs_a.so $(PROCS_OUT)/libprocs_b.so \
		   $(PROCS_OUT)/fixture-static

$(PROCS_OUT)/procs_fork: tests/procs/procs_fork.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(PROCS_CFLAGS) -o $@ $<
$(PROCS_OUT)/procs_dl: tests/procs/procs_dl.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(PROCS_CFLAGS) -o $@ $< -ldl
$(PROCS_OUT)/libprocs_%.so: tests/procs/procs_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(PROCS_CFLAGS) -shared -fPIC -DLIB=$* -o $@ $<
# The report fixture linked statically: an exec into it has no loader.
$(PROCS_OUT)/fixture-static: tests/data/report/fixture.c
	@mkdir -p $(dir $@)
	$(Q)$(ARM_CC) $(PROCS_CFLAGS) -static -o $@ $<

procs-arm: $(PROCS_BINS)
.PHONY: procs-arm

VM_TEST_SCRIPTS	+= tests/host/procs_vm.sh
VM_TEST_DEPS	+= procs-arm $(ARM_UWPROF) $(UWPROF)
