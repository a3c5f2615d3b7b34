# SPDX-License-Identifier: GPL-2.0
# Tables made on the device by uwprof record (record/autotable.c; issue 23).

# End to end in the VM: an empty --tables directory and a fresh cache give
# the success rate of tables made on the host, first and cached run, the
# vDSO included (tests/host/autotable_vm.sh).
VM_TEST_SCRIPTS	+= tests/host/autotable_vm.sh
VM_TEST_DEPS	+= lua-arm $(ARM_UWPROF) $(UWPROF)

# make autotable-bench: their start-up cost in the VM under -icount, first
# and cached run of lua and of a program of eighteen code mappings
# (scripts/autotable-bench.sh); prints the figures and writes them into
# docs/BENCHMARKS.md.  Not part of make check (about ten minutes).
# (bench/timeit: mk/bench.mk, read after this file, builds it)
autotable-bench: module tools uwprof-arm lua-arm $(ARM_OUT)/bench/timeit
	$(Q)scripts/setup.sh >/dev/null
	$(Q)BUILD=$(BUILD) UWPROF=$(UWPROF) scripts/autotable-bench.sh \
		$(BUILD)/autotable-bench/figures.md
	$(Q)scripts/doc-section.sh autotable-bench $(BUILD)/autotable-bench/figures.md \
		docs/BENCHMARKS.md markdown
.PHONY: autotable-bench

# The files record expects a program's loader to map (record/needs.c),
# whose tables it uploads as the program starts: tests/host/needs_cli.sh
# and its probe, built from record's sources.
HOST_PROBES	+= needs_probe
needs_probe_SRCS := tools/uwprof/record/needs.c tools/uwprof/lib/elf.c \
		   tools/uwprof/lib/regfile.c tools/uwprof/lib/util.c \
		   tools/uwprof/lib/zip.c tools/uwprof/lib/addrmap.c
HOST_TEST_SCRIPTS += tests/host/needs_cli.sh
