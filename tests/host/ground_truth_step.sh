#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The ground truth single-stepped (tests/host/ground_truth.sh with
# GT_SINGLESTEP=1): qemu samples every instruction, not mostly those that
# start a block, so the stretch between an epilogue's pop and its tail
# call or return is judged too, where CFI with prologue rows only (clang's)
# would give a wrong frame.  The clang builds, whose own CFI has that
# shape, 1000 samples per routine each, in build/gt-step.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
GT_SINGLESTEP=1 GT_VARIANTS=${GT_VARIANTS:-clang-static clang-dynamic} \
	GT_SAMPLES=${GT_SAMPLES:-1000} GT_TIMER=${GT_TIMER:-thread} \
	GT_OUT=${GT_OUT:-${BUILD:-$top/build}/gt-step} \
	exec "$here/ground_truth.sh"
