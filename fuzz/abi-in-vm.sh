#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: the ABI fuzzer with the arguments given, then, on a
# kernel with kmemleak, a leak scan once the module is gone.  The host's
# vm.sh checks the kernel log for splats.
. /kmemleak.sh
kmemleak_clear
/abi_fuzz "$@"
rc=$?
kmemleak_scan
case $? in
0)	echo "# abi_fuzz: kmemleak: no leaks" ;;
1)	echo "# abi_fuzz: kmemleak reported the leaks above"
	rc=1 ;;
esac
exit $rc
