# SPDX-License-Identifier: GPL-2.0
# Sourced inside the VM by run-in-vm.sh and fuzz/abi-in-vm.sh: kmemleak's
# check of the module, on a kernel that has kmemleak (the debug kernel).
leaks=/sys/kernel/debug/kmemleak

# Forget what boot left behind: it is not the module's.
kmemleak_clear() {
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ -e $leaks ]; then
		echo clear >$leaks
	fi
}

# Prints what kmemleak reports.  Returns 0 with no report, 1 with one, 2
# on a kernel without kmemleak.
kmemleak_scan() {
	[ -e $leaks ] || return 2
	# An object is reported once unreferenced for 5 s: wait, scan twice.
	sleep 6
	echo scan >$leaks
	sleep 1
	echo scan >$leaks
	# a debugfs file has no size: its text is the test
	report=$(cat $leaks)
	[ -n "$report" ] || return 0
	echo "$report"
	return 1
}
