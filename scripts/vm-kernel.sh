# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # sets variables for the script that sources it
#
# Sourced by scripts/vm.sh and scripts/bench-vm.sh: where a test kernel's
# files are and which QEMU runs it.  vm_kernel NAME sets
#   kernel_dir  the directory scripts/setup.sh (or debug-kernel.sh) filled
#   kernel      its image
#   qemu        the QEMU command line up to the machine and CPU
# NAME is as `make setup KERNEL=NAME` takes it: armmp-6.1 (Debian's armmp
# kernel, the default), debug-6.1 (scripts/debug-kernel.sh), arm64-*
# (Debian's arm64 kernel under qemu-system-aarch64, on a CPU that runs
# AArch32 at EL0 so the armhf user space runs as compat tasks), any other
# (an armhf kernel in build/kernel-NAME).
vm_kernel() {
	case $1 in
	armmp-6.1)	kernel_dir=$BUILD/kernel ;;
	debug-6.1)	kernel_dir=$BUILD/debug-kernel ;;
	*)		kernel_dir=$BUILD/kernel-$1 ;;
	esac
	kernel=$kernel_dir/vmlinuz
	case $1 in
	arm64-*)	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57) ;;
	*)		qemu=(qemu-system-arm -M virt -cpu cortex-a15) ;;
	esac
}

# vm_module_fits KO: whether KO was built for the architecture qemu runs.
vm_module_fits() {
	local want="ARM,"
	[ "${qemu[0]}" = qemu-system-aarch64 ] && want="ARM aarch64,"
	file -b "$1" | grep -q "$want"
}
