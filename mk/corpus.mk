# SPDX-License-Identifier: GPL-2.0
# The corpus: real programs from Debian source beyond lua and sqlite
# (scripts/build-corpus.sh).  make bench covers all of them; make check
# records three in the VM (tests/host/corpus_vm.sh): two multi-threaded,
# one of them C++ with std::thread.

CORPUS_CHECK_PROGS := zstd-gcc bzip2-clang leveldb-gcc

corpus-arm:
	$(Q)scripts/build-corpus.sh $(BUILD)

corpus-check-arm:
	$(Q)scripts/build-corpus.sh $(BUILD) $(CORPUS_CHECK_PROGS)

VM_TEST_SCRIPTS	+= tests/host/corpus_vm.sh
VM_TEST_DEPS	+= corpus-check-arm $(ARM_UWPROF) $(UWPROF)

.PHONY: corpus-arm corpus-check-arm
