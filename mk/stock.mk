# SPDX-License-Identifier: GPL-2.0
# The stock corpus: Debian armhf packages exactly as shipped, with every
# library they load (bench/stock/programs.sh, scripts/build-stock.sh, into
# build/stock), tabled from the shipped files alone and recorded in the VM.
# make check runs a short form (tests/host/stock_vm.sh: five programs at
# 1 kHz); make bench-stock runs all six at 1 and 4 kHz and writes the
# figures into docs/BENCHMARKS-corpus.md.

stock-arm:
	$(Q)scripts/build-stock.sh $(BUILD)

VM_TEST_SCRIPTS	+= tests/host/stock_vm.sh
VM_TEST_DEPS	+= stock-arm $(ARM_UWPROF) $(UWPROF)

STOCK_BENCH_PROGS ?= pbzip2 xz zstd lua5.4 sqlite3 gzip
STOCK_BENCH_FREQS ?= 1000 4000
bench-stock: module tools uwprof-arm stock-arm
	$(Q)STOCK_PROGS="$(STOCK_BENCH_PROGS)" STOCK_FREQS="$(STOCK_BENCH_FREQS)" \
		STOCK_FIGURES=$(BUILD)/stock/bench.md UWPROF=$(UWPROF) BUILD=$(BUILD) \
		STOCK_COMMAND="make bench-stock" tests/host/stock_vm.sh
	$(Q)scripts/doc-section.sh bench-stock $(BUILD)/stock/bench.md \
		docs/BENCHMARKS-corpus.md markdown

.PHONY: stock-arm bench-stock
