# SPDX-License-Identifier: GPL-2.0
# Ground truth under qemu-user: tests/gt/gt.c unwinds its own threads with
# the tables uwprof builds and judges every sample (tests/host/ground_truth.sh).
# make check runs it with GT_SAMPLES=1000 per routine and build, the full
# run with 100000, both on per-thread 10 kHz timers (routine clone on
# ITIMER_PROF, in a run of its own).
# tests/host/ground_truth_step.sh runs the clang builds single-stepped
# (every instruction sampled, epilogues too), 1000 samples per routine.

HOST_TEST_SCRIPTS += tests/host/ground_truth.sh tests/host/ground_truth_step.sh

ground-truth: $(UWPROF)
	$(Q)GT_SAMPLES=$${GT_SAMPLES:-100000} GT_TIMER=$${GT_TIMER:-thread} \
		UWPROF=$(UWPROF) BUILD=$(BUILD) \
		tests/host/ground_truth.sh
.PHONY: ground-truth
