#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-vm.sh SELFTEST_DIR RUNNER [SRC:DST...]
# The selftests in the VM (scripts/vm-selftests.sh, given these
# arguments), and each script in $VM_TEST_SCRIPTS (which boot VMs of their
# own), through run-tests.sh: up to $UWPROF_VM_JOBS at once (default: one
# per core; each VM is one emulated CPU, a host thread), the selftests'
# boot first as the longest.  Ends with "test-vm: N passed, N failed,
# N skipped".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
VM_SELFTESTS=$(printf '%q ' "$@")
export VM_SELFTESTS
exec "$top/scripts/run-tests.sh" -j "${UWPROF_VM_JOBS:-$(nproc)}" test-vm \
	"$top/scripts/vm-selftests.sh" ${VM_TEST_SCRIPTS:-}
