#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: every selftest binary in turn, then a last unload,
# and on a kernel with kmemleak (the debug kernel) a leak scan after it.
# The host adds up the "# Totals:" lines; a missing line is a failure.
rc=0
. /kmemleak.sh
kmemleak_clear
for t in /selftests/*_test; do
	echo "# selftest: $t"
	"$t" || rc=1
done
if grep -q '^uwprof ' /proc/modules && ! rmmod uwprof; then
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0 (final rmmod)"
	rc=1
fi
kmemleak_scan
case $? in
0)	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0 (kmemleak: no leaks)" ;;
1)	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0 (kmemleak)"
	rc=1 ;;
esac
exit $rc
