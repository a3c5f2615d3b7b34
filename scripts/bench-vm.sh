#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-vm.sh --root DIR [options] -- COMMAND
#
# Boots the test kernel KERNEL (default armmp-6.1, Debian's armmp kernel
# under qemu-system-arm; arm64-6.1, Debian's arm64 kernel under
# qemu-system-aarch64 with the armhf programs as compat tasks: the names
# and machines of scripts/vm-kernel.sh) on machine "virt"
# with the armhf root file system DIR as its initramfs
# (made by scripts/make-perf-root.sh, plus whatever the caller put in it),
# runs COMMAND with /bin/sh inside, and powers off.  Unlike scripts/vm.sh,
# which boots a small busybox root, this one is for the benchmark: a full
# Debian root with perf, 2 GiB of memory, and a host directory shared over
# virtio-9p at /out for results of any size.
#
#   --root DIR      the root file system (required); /init is written into
#                   the initramfs, DIR itself is not changed
#   --share DIR     host directory mounted read-write at /out in the guest
#   --timeout S     default 1800
#   --mem MB        default 2048
#   --smp N         default 2
#   --log FILE      keep the whole console log there
#   --plugin SO     load a QEMU TCG plugin (SO,ARG=VALUE... as -plugin
#                   takes it; bench/profile/ uses one)
#   --icount        count instructions: -icount shift=0,sleep=off makes guest
#                   time advance one nanosecond per guest instruction, so
#                   guest CPU and wall times are instruction counts,
#                   repeatable to about 0.1% whatever the host's load
#
# Exit status: COMMAND's; 124 if the VM did not finish in time; 125 if the
# kernel log shows a BUG, WARNING, Oops or call trace.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
timeout_s=1800 mem=2048 smp=2 log= share= root= icount=() plugin=()
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=$2; shift 2 ;;
	--share) share=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--icount) icount=(-icount shift=0,sleep=off); shift ;;
	--plugin) plugin=(-plugin "$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "bench-vm.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "bench-vm.sh: no command" >&2; exit 2; }
[ -n "$root" ] && [ -d "$root" ] || { echo "bench-vm.sh: --root DIR needed" >&2; exit 2; }
KERNEL=${KERNEL:-armmp-6.1}
. "$top/scripts/vm-kernel.sh"
vm_kernel "$KERNEL"
busybox=$BUILD/arm/root/bin/busybox
[ -e "$kernel" ] && [ -f "$kernel_dir/release" ] && [ -x "$busybox" ] ||
	{ echo "bench-vm.sh: no $KERNEL kernel or busybox under $BUILD; run 'make setup KERNEL=$KERNEL'" >&2; exit 2; }
# The kernel's own virtio and 9p modules (Debian's root package of it).
moddir=$kernel_dir/root/lib/modules/$(cat "$kernel_dir/release")/kernel

work=$(mktemp -d "${TMPDIR:-/tmp}/uwprof-bench-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
extra=$work/extra
mkdir -p "$extra/bench-vm/modules" "$extra/out"
cp "$busybox" "$extra/bench-vm/busybox"
# virtio-mmio and 9p for the shared directory, in load order.
for m in drivers/virtio/virtio_mmio.ko fs/netfs/netfs.ko fs/fscache/fscache.ko \
	net/9p/9pnet.ko net/9p/9pnet_virtio.ko fs/9p/9p.ko; do
	cp "$moddir/$m" "$extra/bench-vm/modules/"
done
printf '%s\n' "$@" >"$extra/bench-vm/cmd"
cat >"$extra/init" <<'EOF'
#!/bin/sh
bb=/bench-vm/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sys /sys
$bb mount -t devtmpfs dev /dev
$bb mount -t tmpfs tmp /tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
for m in virtio_mmio netfs fscache 9pnet 9pnet_virtio 9p; do
	$bb insmod /bench-vm/modules/$m.ko 2>/dev/null
done
if grep -q out /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null; then
	$bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out ||
		echo "bench-vm: cannot mount /out"
fi
cd /
sh -c "$(cat /bench-vm/cmd)"
rc=$?
sync
$bb umount /out 2>/dev/null
echo "UWPROF-DMESG-BEGIN"
$bb dmesg
echo "UWPROF-DMESG-END"
echo "UWPROF-EXIT $rc"
$bb poweroff -f
EOF
chmod +x "$extra/init"
# The root as is, then the additions (later cpio members win).
{ (cd "$root" && find . -path ./init -prune -o -print | cpio -o -H newc --quiet)
  (cd "$extra" && find . | cpio -o -H newc --quiet); } >"$work/initrd"

args=()
if [ -n "$share" ]; then
	mkdir -p "$share"
	args+=(-fsdev "local,id=out,path=$share,security_model=none"
		-device virtio-9p-device,fsdev=out,mount_tag=out)
fi
console=$work/console
set +e
timeout --kill-after=5 "$timeout_s" "${qemu[@]}" \
	-smp "$smp" -m "$mem" "${icount[@]}" "${plugin[@]}" -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 quiet" "${args[@]}" \
	-nic none -display none -monitor none -serial stdio -no-reboot </dev/null |
	tr -d '\r' | tee "$console" | awk '
		/^UWPROF-DMESG-BEGIN/{skip=1} /^UWPROF-DMESG-END/{skip=0; next}
		!skip'
status=("${PIPESTATUS[@]}")
set -e
[ -z "$log" ] || cp "$console" "$log"
if [ "${status[0]}" -eq 124 ] || [ "${status[0]}" -eq 137 ]; then
	echo "bench-vm.sh: the VM did not finish within ${timeout_s}s" >&2
	exit 124
fi
if "$top/scripts/kernel-problems.sh" "$console" >&2; then
	echo "bench-vm.sh: the kernel log shows the problem above" >&2
	exit 125
fi
rc=$(sed -n 's/^UWPROF-EXIT \([0-9]*\)$/\1/p' "$console" | tail -n 1)
[ -n "$rc" ] || { echo "bench-vm.sh: the VM stopped before the command finished" >&2; exit 125; }
exit "$rc"
