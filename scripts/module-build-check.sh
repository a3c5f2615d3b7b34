#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# module-build-check.sh KERNEL: uwprof.ko built for a kernel build tree the
# two ways README ("Building the module for a real device") documents, on a
# test kernel's headers (armmp-6.1 or arm64-6.1, unpacked by make setup):
#
#   make module KDIR=<tree> MODULE_OUT=<scratch>   (nothing else: the tree's
#                                                   .config gives ARCH)
#   dkms add + dkms build -k <release> --kernelsourcedir <tree>, with a
#   scratch --sourcetree and --dkmstree, CROSS_COMPILE in its environment
#
# Each must give a uwprof.ko for that kernel: its ELF machine, and a
# vermagic naming its release.  Nothing system-wide is written (module
# signing is turned off, so DKMS makes no key under /var/lib/dkms).  Ends
# with "module-build-check.sh: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/host/lib.sh"
BUILD=${BUILD:-$top/build}
MAKE=${MAKE:-make}
kernel=${1:?usage: module-build-check.sh KERNEL}
case $kernel in
armmp-6.1) dir=$BUILD/kernel cross=arm-linux-gnueabihf- machine=ARM dkms_arch=armv7l ;;
arm64-6.1) dir=$BUILD/kernel-arm64-6.1 cross=aarch64-linux-gnu- machine=AArch64 dkms_arch=aarch64 ;;
*) echo "module-build-check.sh: no case for kernel '$kernel'" >&2; exit 2 ;;
esac
rel=$(cat "$dir/release" 2>/dev/null)
kdir=$dir/root/usr/src/linux-headers-$rel
out=$BUILD/module-check/$kernel
rm -rf "$out"
mkdir -p "$out"
if [ -z "$rel" ] || [ ! -f "$kdir/Makefile" ]; then
	fail "$kernel: no kernel build tree ($kdir; make setup KERNEL=$kernel)"
	finish
	exit 1
fi

# check_ko NAME FILE: an ELF module for this kernel.
check_ko() {
	local m v
	m=$(readelf -h "$2" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	v=$(modinfo -F vermagic "$2" 2>/dev/null)
	if [ "$m" = "$machine" ] && [ "${v%% *}" = "$rel" ]; then
		ok "$1: $(basename "$2") for $rel ($m)"
	else
		fail "$1: ${2}: machine '${m:-none}' (want $machine), vermagic '${v:-none}' (want $rel ...)"
	fi
}

# dkms.conf's version is the uwprof command's.
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
want=$(sed -n 's/^#define UWPROF_VERSION[[:space:]]*"\(.*\)"$/\1/p' "$top/tools/uwprof/uwprof.h")
expect "dkms.conf's PACKAGE_VERSION is UWPROF_VERSION" "$want" "$ver"

# 1. make module KDIR= into a scratch output.
if $MAKE -C "$top" --no-print-directory module KDIR="$kdir" MODULE_OUT="$out/make" \
	>"$out/make.log" 2>&1; then
	check_ko "make module KDIR=<$kernel headers>" "$out/make/uwprof.ko"
else
	fail "make module KDIR=$kdir MODULE_OUT=$out/make"
	tail -n 15 "$out/make.log" | sed 's/^/#   /'
fi

# 2. dkms build, from the sources make module-source stages.
if ! command -v dkms >/dev/null; then
	fail "dkms build: no dkms (scripts/packages.txt lists it; make setup installs it)"
	finish
	exit 1
fi
src=$out/dkms-source tree=$out/dkms-tree
dk=(--sourcetree "$src" --dkmstree "$tree")
mkdir -p "$tree"
if $MAKE -C "$top" --no-print-directory module-source MODULE_SRC="$src/uwprof-$ver" \
	>"$out/dkms.log" 2>&1 &&
	sign_file=/nonexistent dkms add -m uwprof -v "$ver" "${dk[@]}" >>"$out/dkms.log" 2>&1 &&
	sign_file=/nonexistent CROSS_COMPILE=$cross dkms build -m uwprof -v "$ver" \
		-k "$rel/$dkms_arch" --kernelsourcedir "$kdir" "${dk[@]}" >>"$out/dkms.log" 2>&1; then
	check_ko "dkms build -k $rel" "$tree/uwprof/$ver/$rel/$dkms_arch/module/uwprof.ko"
else
	fail "dkms build -k $rel (log: $out/dkms.log)"
	tail -n 15 "$out/dkms.log" | sed 's/^/#   /'
	find "$tree" -name make.log -exec tail -n 15 {} \; 2>/dev/null | sed 's/^/#   /'
fi
finish
