#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-stock.sh WORKDIR PACKAGE...: Debian armhf packages exactly as
# shipped, downloaded with "apt-get download" into WORKDIR/debs and
# unpacked with "dpkg -x" into WORKDIR/root (never installed, no
# maintainer scripts run).  The one place uwprof's scripts fetch stock
# packages (scripts/stock-coverage.sh, scripts/build-stock.sh).  A package
# already unpacked there (WORKDIR/unpacked/PACKAGE) is left alone, so a
# later caller with a longer list fetches only what it adds.  Needs the
# armhf architecture in dpkg (make setup).
set -euo pipefail
work=$1
shift
mkdir -p "$work/debs" "$work/root" "$work/unpacked"

want=()
for p in "$@"; do
	[ -e "$work/unpacked/$p" ] || want+=("$p")
done
[ ${#want[@]} -gt 0 ] || exit 0

# apt-get download fails now and then while a mirror syncs: once more
# after an update before giving up.
dl() { (cd "$work/debs" && apt-get download -q "${want[@]/%/:armhf}" >/dev/null); }
if ! dl; then
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q >/dev/null 2>&1 || true
	dl || { echo "fetch-stock: apt-get download ${want[*]} failed (is armhf added? run make setup)" >&2; exit 1; }
fi
for p in "${want[@]}"; do
	# the newest .deb of that package (names are PACKAGE_VERSION_armhf.deb)
	deb=$(ls -t "$work/debs/${p}_"*_armhf.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || { echo "fetch-stock: no .deb for $p" >&2; exit 1; }
	dpkg -x "$deb" "$work/root"
	basename "$deb" >"$work/unpacked/$p"
done
