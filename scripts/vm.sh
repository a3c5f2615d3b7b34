#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh [options] -- COMMAND...
#
# Boots the test kernel KERNEL (default armmp-6.1: Debian's armmp kernel
# under qemu-system-arm, as are armmp-5.10, armmp-6.12, lpae-6.1 and rt-6.1;
# arm64-6.1: Debian's arm64 kernel under qemu-system-aarch64, a CPU that
# runs AArch32 at EL0, the same armhf user space as compat tasks) on
# machine "virt" with an
# initramfs of busybox, the armhf C library, uwprof.ko and whatever --add
# puts in, runs COMMAND with /bin/sh inside, and powers off.  The guest's
# console is shown as it runs; the exit status is COMMAND's.  The run fails
# (exit 124) if it does not finish within --timeout seconds, and fails
# (exit 125) if the kernel log shows a BUG, WARNING, Oops or call trace,
# whatever COMMAND returned.
#
#   --add SRC[:DST]   copy a file or directory into the guest (DST default
#                     /SRC's basename); may be repeated
#   --out DIR         guest directory /out is copied back into DIR through
#                     the console, each file gzipped (the console carries
#                     about 250 KB/s: a few MB of data files at most)
#   --timeout S       default 300
#   --mem MB          default 512
#   --smp N           default 2
#   --log FILE        keep the whole console log there
#   --icount          count instructions: -icount shift=0,sleep=off, so a
#                     guest nanosecond is one instruction (DESIGN's cost
#                     model) and guest timings do not depend on the host
#   --print-kernel    print the kernel image $KERNEL boots, and exit
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
timeout_s=300 mem=512 smp=2 log= out= print_kernel=
adds=() icount=()
while [ $# -gt 0 ]; do
	case $1 in
	--add) adds+=("$2"); shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--icount) icount=(-icount shift=0,sleep=off); shift ;;
	--print-kernel) print_kernel=1; shift ;;
	--) shift; break ;;
	*) echo "vm.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
KERNEL=${KERNEL:-armmp-6.1}
. "$top/scripts/vm-kernel.sh"
vm_kernel "$KERNEL"
if [ -n "$print_kernel" ]; then
	echo "$kernel"
	exit 0
fi
[ $# -gt 0 ] || { echo "vm.sh: no command; usage: vm.sh [options] -- COMMAND" >&2; exit 2; }
armroot=$BUILD/arm/root
[ -e "$kernel" ] && [ -x "$armroot/bin/busybox" ] ||
	{ echo "vm.sh: no $KERNEL kernel or busybox under $BUILD; run 'make setup KERNEL=$KERNEL'" >&2; exit 2; }
# UWPROF_MODULE: a uwprof.ko built elsewhere (make test-debug builds one
# for the debug kernel without touching the one in the tree).
ko=${UWPROF_MODULE:-$top/uwprof.ko}
[ -f "$ko" ] || { echo "vm.sh: no $ko; run 'make module KERNEL=$KERNEL'" >&2; exit 2; }
vm_module_fits "$ko" ||
	{ echo "vm.sh: uwprof.ko is not built for $KERNEL; run 'make module KERNEL=$KERNEL'" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/uwprof-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs=$work/root
mkdir -p "$rootfs"/{bin,sbin,dev,proc,sys,tmp,out,lib,usr/bin,usr/sbin}
cp -a "$armroot/bin/busybox" "$rootfs/bin/"
cp -a "$armroot/lib/." "$rootfs/lib/"
cp "$ko" "$rootfs/uwprof.ko"
for a in "${adds[@]+"${adds[@]}"}"; do
	src=${a%%:*}
	dst=/$(basename "$src")
	[ "$a" = "$src" ] || dst=${a#*:}
	mkdir -p "$rootfs$(dirname "$dst")"
	cp -a "$src" "$rootfs$dst"
done
printf '%s\n' "$@" >"$rootfs/cmd"

# The guest's init.  Markers on the console carry the exit status, any
# output files (gzip, then base64: sample data shrinks about eightfold,
# and the console's pace set the time of the VM tests that record) and
# the kernel log back to the host.
cat >"$rootfs/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
cd /
sh -c "$(cat /cmd)"
rc=$?
for f in $(find /out -type f); do
	echo "UWPROF-FILE-BEGIN ${f#/out/}"
	gzip -c "$f" | base64
	echo "UWPROF-FILE-END"
done
echo "UWPROF-DMESG-BEGIN"
dmesg
echo "UWPROF-DMESG-END"
echo "UWPROF-EXIT $rc"
sync
poweroff -f
EOF
chmod +x "$rootfs/init"
(cd "$rootfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd"

console=$work/console
# The console is passed on line by line, as it comes (mawk reads ahead
# in blocks unless told otherwise).
awk_lines=awk
awk -W version 2>&1 | grep -q mawk && awk_lines='awk -W interactive'
set +e
timeout --kill-after=5 "$timeout_s" "${qemu[@]}" \
	-smp "$smp" -m "$mem" "${icount[@]+"${icount[@]}"}" -kernel "$kernel" \
	-initrd "$work/initrd" -append "console=ttyAMA0 rdinit=/init panic=-1 quiet" \
	-nic none -display none -monitor none -serial stdio -no-reboot </dev/null |
	sed -u 's/\r$//' | tee "$console" | $awk_lines '
		/^UWPROF-FILE-BEGIN /{skip=1} /^UWPROF-FILE-END/{skip=0; next}
		/^UWPROF-DMESG-BEGIN/{skip=1} /^UWPROF-DMESG-END/{skip=0; next}
		!skip'
status=("${PIPESTATUS[@]}")
set -e
[ -z "$log" ] || cp "$console" "$log"

if [ "${status[0]}" -eq 124 ] || [ "${status[0]}" -eq 137 ]; then
	echo "vm.sh: the VM did not finish within ${timeout_s}s" >&2
	exit 124
fi
if [ -n "$out" ]; then
	mkdir -p "$out"
	awk -v out="$out" '
		/^UWPROF-FILE-BEGIN /{name=out "/" $2
			d=name; sub("/[^/]*$", "", d); system("mkdir -p \"" d "\"")
			cmd="base64 -d | gzip -dc > \"" name "\""; next}
		/^UWPROF-FILE-END/{close(cmd); cmd=""; next}
		cmd != "" {print | cmd}' "$console"
fi
if "$top/scripts/kernel-problems.sh" "$console" >&2; then
	echo "vm.sh: the kernel log shows the problem above" >&2
	exit 125
fi
rc=$(sed -n 's/^UWPROF-EXIT \([0-9]*\)$/\1/p' "$console" | tail -n 1)
if [ -z "$rc" ]; then
	echo "vm.sh: the VM stopped before the command finished" >&2
	exit 125
fi
exit "$rc"
