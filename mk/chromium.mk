# SPDX-License-Identifier: GPL-2.0
# Debian's armhf chromium as shipped in the VM, headless on a page of our
# own, with and without V8's JIT (tests/host/chromium_vm.sh).  Not part
# of make check: it fetches about 110 MB of Debian packages into
# build/chromium-stock, tables every file chromium maps (chromium's own
# takes about six minutes and 1.35 GB the first time, cached after) and
# boots a VM with a 350 MB guest in 3 GB; about 10 minutes on a loaded host.

test-chromium: module tools uwprof-arm
	$(Q)UWPROF=$(UWPROF) BUILD=$(BUILD) scripts/run-tests.sh test-chromium \
		tests/host/chromium_vm.sh

.PHONY: test-chromium
