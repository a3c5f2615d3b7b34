# SPDX-License-Identifier: GPL-2.0
# Debian's armhf node in the VM, its JIT frames walked and named
# (tests/host/node_vm.sh).  Not part of make check: it fetches node's
# packages (about 30 MB) and boots a VM with a 90 MB guest.

test-node: module tools uwprof-arm
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh test-node \
		tests/host/node_vm.sh

.PHONY: test-node
