# SPDX-License-Identifier: GPL-2.0
#
# The unwinder core (unwind_v2.c): host tests, the uwprof unwind command,
# the fuzz target and the benchmark.

TOOL_SRCS	+= unwind_v2.c
HOST_TESTS	+= test_unwind_v2
test_unwind_v2_SRCS := unwind_v2.c tests/host/test_unwind_v2_gen.c
