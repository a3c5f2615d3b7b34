#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-perf-root.sh [DIR]
#
# An armhf Debian root file system with Debian's perf (linux-perf:armhf) and
# binutils, for the benchmark VM (scripts/bench-vm.sh), made with debootstrap
# (variant minbase).  The second stage runs on this machine through
# qemu-user-static, so binfmt_misc is mounted and the qemu-arm entry of
# /usr/lib/binfmt.d/qemu-arm.conf registered first.  Documentation, locales
# and apt's caches are removed afterwards (~180 MB left).
#
# Default DIR: build/perf-root.  Idempotent: skipped when DIR/.complete
# exists.  Installs debootstrap if missing (apt-get; root or sudo).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
dir=${1:-$BUILD/perf-root}
suite=${UWPROF_PERF_SUITE:-bookworm}
mirror=${UWPROF_MIRROR:-http://deb.debian.org/debian}
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

say() { echo "make-perf-root: $*" >&2; }

[ -f "$dir/.complete" ] && exit 0

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	$SUDO apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
		{ $SUDO apt-get update -q >/dev/null 2>&1 || true
		  $SUDO apt-get install -y -q --no-install-recommends debootstrap >/dev/null; }
fi
[ -x /usr/bin/qemu-arm-static ] || [ -x /usr/bin/qemu-arm ] ||
	{ say "qemu-user-static is missing (make setup installs it)"; exit 1; }

# binfmt_misc with a qemu-arm entry, so armhf programs run here.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
	$SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-arm ]; then
	conf=/usr/lib/binfmt.d/qemu-arm.conf
	[ -f "$conf" ] || { say "no $conf"; exit 1; }
	grep -v '^#' "$conf" | $SUDO tee /proc/sys/fs/binfmt_misc/register >/dev/null
fi

rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
say "debootstrap $suite armhf into $dir (a few minutes)"
$SUDO debootstrap --arch=armhf --variant=minbase \
	--include=linux-perf,binutils "$suite" "$dir" "$mirror" >"$dir.log" 2>&1 ||
	{ tail -n 30 "$dir.log" >&2; say "debootstrap failed (log: $dir.log)"; exit 1; }

# Trim what a benchmark VM never reads.
$SUDO rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
	"$dir"/usr/share/locale/* "$dir"/var/cache/apt/* "$dir"/var/lib/apt/lists/* \
	"$dir"/usr/share/zoneinfo
# bookworm's linux-perf ships /usr/bin/perf; older ones perf_<version>.
if [ ! -x "$dir/usr/bin/perf" ]; then
	perf=$(ls "$dir"/usr/bin/perf_* 2>/dev/null | head -n 1)
	[ -n "$perf" ] || { say "no perf binary in the root"; exit 1; }
	ln -sf "$(basename "$perf")" "$dir/usr/bin/perf"
fi
touch "$dir/.complete"
say "done: $dir ($(du -sh "$dir" | cut -f1))"
