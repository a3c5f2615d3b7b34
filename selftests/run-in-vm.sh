#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: every selftest binary in turn, then a last unload,
# and on a kernel with kmemleak (the debug kernel) a leak scan after it.
# The host adds up the "# Totals:" lines; a missing line is a failure.
rc=0
mount -t debugfs none /sys/kernel/debug 2>/dev/null
leaks=/sys/kernel/debug/kmemleak
# What boot left behind is not the module's.
[ -e $leaks ] && echo clear >$leaks
for t in /selftests/*_test; do
	echo "# selftest: $t"
	"$t" || rc=1
done
if grep -q '^uwprof ' /proc/modules && ! rmmod uwprof; then
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0 (final rmmod)"
	rc=1
fi
if [ -e $leaks ]; then
	# An object is reported once unreferenced for 5 s: wait, scan twice.
	sleep 6
	echo scan >$leaks
	sleep 1
	echo scan >$leaks
	# a debugfs file has no size: its text is the test
	report=$(cat $leaks)
	if [ -n "$report" ]; then
		echo "$report"
		echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0 (kmemleak)"
		rc=1
	else
		echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0 (kmemleak: no leaks)"
	fi
fi
exit $rc
