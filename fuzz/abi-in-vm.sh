#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: the ABI fuzzer with the arguments given, then, on a
# kernel with kmemleak, a leak scan once the module is gone.  The host's
# vm.sh checks the kernel log for splats.
mount -t debugfs none /sys/kernel/debug 2>/dev/null
leaks=/sys/kernel/debug/kmemleak
# Whatever boot left behind is not ours.
[ -e $leaks ] && echo clear >$leaks
/abi_fuzz "$@"
rc=$?
if [ -e $leaks ]; then
	# An object is reported once unreferenced for 5 s; scan twice.
	sleep 6
	echo scan >$leaks
	sleep 1
	echo scan >$leaks
	# a debugfs file has no size: its text is the test
	report=$(cat $leaks)
	if [ -n "$report" ]; then
		echo "# abi_fuzz: kmemleak reports:"
		echo "$report"
		rc=1
	else
		echo "# abi_fuzz: kmemleak: no leaks"
	fi
fi
exit $rc
