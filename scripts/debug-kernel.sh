#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: builds the debug kernel (KERNEL=debug-6.1) from Debian's
# linux-source-6.1 into build/debug-kernel/:
#   src/      the unpacked source
#   obj/      the build tree (O=), also the KDIR uwprof.ko builds against
#   vmlinuz   the zImage scripts/vm.sh boots
# The configuration is allnoconfig plus scripts/debug-kernel.config; every
# line of the fragment must survive olddefconfig, or the build stops.  The
# build runs under nice so that other VM tests on the machine keep their
# timing.  A second run with nothing changed returns at once.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
dk=$BUILD/debug-kernel
frag=$top/scripts/debug-kernel.config
JOBS=${JOBS:-$(nproc)}
kmake=(nice -n 10 make -C "$dk/src" O="$dk/obj" ARCH=arm
	CROSS_COMPILE=arm-linux-gnueabihf- -j"$JOBS")

if [ -f "$dk/vmlinuz" ] && [ "$dk/vmlinuz" -nt "$frag" ] &&
   [ -f "$dk/obj/Module.symvers" ]; then
	exit 0
fi
for t in flex bison bc arm-linux-gnueabihf-gcc; do
	command -v $t >/dev/null || { echo "debug-kernel: no $t; run 'make setup'" >&2; exit 1; }
done
if [ ! -f "$dk/src/Makefile" ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || { echo "debug-kernel: no linux-source-6.1 in /usr/src" >&2; exit 1; }
	echo "debug-kernel: unpacking $tarball"
	rm -rf "$dk/src"
	mkdir -p "$dk/src"
	tar -xJf "$tarball" -C "$dk/src" --strip-components=1
fi
mkdir -p "$dk/obj"
start=$(date +%s)
"${kmake[@]}" -s allnoconfig
(cd "$dk/obj" && "$dk/src/scripts/kconfig/merge_config.sh" -m .config "$frag" >/dev/null)
"${kmake[@]}" -s olddefconfig
# merge_config.sh only warns; a checker silently dropped would void the run.
lost=0
while IFS= read -r line; do
	case $line in CONFIG_*=n) want="# ${line%=n} is not set" ;; CONFIG_*) want=$line ;; *) continue ;; esac
	grep -qxF "$want" "$dk/obj/.config" || { echo "debug-kernel: '$line' did not survive olddefconfig" >&2; lost=1; }
done <"$frag"
[ $lost -eq 0 ] || exit 1
"${kmake[@]}" zImage modules
ln -sf obj/arch/arm/boot/zImage "$dk/vmlinuz"
"${kmake[@]}" -s kernelrelease >"$dk/release"
echo "debug-kernel: built $(cat "$dk/release") in $(( $(date +%s) - start )) s"
