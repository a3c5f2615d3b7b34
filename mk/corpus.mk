# SPDX-License-Identifier: GPL-2.0
# The corpus: real programs from Debian source beyond lua and sqlite
# (scripts/build-corpus.sh).  make bench covers all of them; make check
# records two in the VM (tests/host/corpus_vm.sh): one multi-threaded.

CORPUS_CHECK_PROGS := zstd-gcc bzip2-clang

corpus-arm:
	$(Q)scripts/build-corpus.sh $(BUILD)

corpus-check-arm:
	$(Q)scripts/build-corpus.sh $(BUILD) $(CORPUS_CHECK_PROGS)

VM_TEST_SCRIPTS	+= tests/host/corpus_vm.sh
VM_TEST_DEPS	+= corpus-check-arm $(ARM_UWPROF) $(UWPROF)

.PHONY: corpus-arm corpus-check-arm
