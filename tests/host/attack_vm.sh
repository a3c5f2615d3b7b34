#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The attack selftest (selftests/attack.c) in a VM of its own, one vCPU
# under -icount: the worst tables' upload times and the worst samples'
# handler times are then guest instructions, the same on a loaded host
# as on an idle one.  Ends with the kselftest counts as "N passed, N
# failed".  Boots one VM.
#
# ATTACK_FIGURES=FILE appends the run's figures to FILE as a section named
# by ATTACK_LABEL (default: the commit checked out), with the module it
# ran (UWPROF_MODULE, default the tree's): make attack-figures writes
# docs/ATTACK.md so.
set -u
. "$(dirname "$0")/lib.sh"
th_init
bin=$BUILD/arm/selftests-attack/attack_test
log=$tmp/attack.log

if [ ! -x "$bin" ]; then
	fail "attack selftest: no $bin (make $bin)"
	finish
	exit 1
fi
# fuse.ko of the kernel booted, for the hung-read test's FUSE server
kdir=$(dirname "$("$top/scripts/vm.sh" --print-kernel)")
fuse=$(find "$kdir/root/lib/modules" -name fuse.ko 2>/dev/null | head -n 1)
"$top/scripts/vm.sh" --icount --smp 1 --mem 1024 --timeout 900 \
	--add "$bin:/attack_test" ${fuse:+--add "$fuse:/fuse.ko"} \
	-- /attack_test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ -n "${ATTACK_FIGURES:-}" ]; then
	commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
	{
		echo
		echo "## ${ATTACK_LABEL:-at $commit}"
		echo
		echo "Module: \`${UWPROF_MODULE:-uwprof.ko of the tree at $commit}\`;"
		echo "attack test built at $commit. Guest nanoseconds are instructions."
		echo
		echo '```'
		grep -E '^# (shape|[0-9]+ (bytes|pairs|mappings)|upload|  stop|hung file)' "$log" |
			sed 's/^# //'
		grep -E '^(ok|not ok) ' "$log"
		echo '```'
	} >>"$ATTACK_FIGURES"
fi
totals=$(grep -oE '# Totals: .*' "$log" | tail -n 1)
# " pass:" and " fail:", not xpass: and xfail:
pass=$(echo "$totals" | grep -oE ' pass:[0-9]+' | cut -d: -f2)
failed=$(echo "$totals" | grep -oE ' fail:[0-9]+' | cut -d: -f2)
th_passed=$((th_passed + ${pass:-0}))
th_failed=$((th_failed + ${failed:-0}))
if [ -z "$totals" ] || { [ "$rc" -ne 0 ] && [ "${failed:-0}" -eq 0 ]; }; then
	fail "attack selftest: the VM run failed (exit $rc) with no failed test counted"
fi
finish
