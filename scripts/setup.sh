#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs what uwprof needs on a Debian bookworm machine and fetches the
# emulated target's kernel.  Idempotent: a second run checks and returns.
#
#   host packages   from scripts/packages.txt (apt-get, as root or via sudo);
#                   with --browser only those of scripts/packages-browser.txt
#                   (make test-browser), and nothing else
#   build/kernel/   Debian's armmp kernel image and headers and the matching
#                   linux-kbuild, unpacked with dpkg -x (nothing is installed)
#   build/arm/root/ busybox-static and libc6 for armhf, unpacked likewise
#   build/arm/dbg/  libc6-dbg for armhf: the C library's separate debug
#                   files, whose .debug_frame the table builder reads
#   build/arm/cxx/  libstdc++6 for armhf, unpacked likewise: the C++
#                   library of the corpus's dynamically linked C++ program,
#                   for the test VM (the benchmark root has its own)
#   build/arm/sysroot/  the static libraries the device-side uwprof links
#                   (libelf, libdw, capstone, zlib, liblzma, libzstd,
#                   libbz2: their armhf -dev packages, unpacked likewise;
#                   mk/uwprof-arm.mk); --device-libs fetches only these
#   build/linux-source/  checkpatch.pl and the kselftest headers
#
# KERNEL names the test kernel (default armmp-6.1, unpacked in build/kernel/;
# the others in build/kernel-KERNEL/): a metapackage, its Debian architecture
# and the suite it comes from.  Kernels from bookworm come through the
# machine's apt sources; those from another suite (bullseye,
# bookworm-backports) through an apt configuration of that suite alone under
# build/apt/SUITE/, so the machine's own sources are left as they are.
# UWPROF_KERNEL_META picks another kernel flavour's metapackage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
KERNEL=${KERNEL:-armmp-6.1}
KSUITE=bookworm
case $KERNEL in
armmp-6.1)	KARCH=armhf; META=linux-image-armmp ;;
arm64-6.1)	KARCH=arm64; META=linux-image-arm64 ;;
lpae-6.1)	KARCH=armhf; META=linux-image-armmp-lpae ;;
rt-6.1)		KARCH=armhf; META=linux-image-rt-armmp ;;
armmp-5.10)	KARCH=armhf; META=linux-image-armmp; KSUITE=bullseye ;;
armmp-6.12)	KARCH=armhf; META=linux-image-armmp; KSUITE=bookworm-backports ;;
*)		echo "setup: unknown KERNEL '$KERNEL'" \
			"(armmp-5.10, armmp-6.1, armmp-6.12, lpae-6.1, rt-6.1, arm64-6.1)" >&2
		exit 1 ;;
esac
META=${UWPROF_KERNEL_META:-$META:$KARCH}
KDIR_OUT=$BUILD/kernel-$KERNEL
[ "$KERNEL" != armmp-6.1 ] || KDIR_OUT=$BUILD/kernel

log() { echo "setup: $*"; }
say() { log "$@"; }
. "$top/scripts/apt.sh"
die() { echo "setup: $*" >&2; exit 1; }

# Is package $1 installed?
installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The packages of list $1 (default scripts/packages.txt) not installed yet;
# of a line "A|B" that has neither, A.
missing_packages() {
	local line p
	grep -v '^\s*#' "${1:-$top/scripts/packages.txt}" | while read -r line; do
		[ -n "$line" ] || continue
		for p in ${line//|/ }; do
			installed "$p" && continue 2
		done
		echo "${line%%|*}"
	done
}

install_packages() {
	local need
	local a
	for a in armhf arm64; do
		dpkg --print-foreign-architectures | grep -qx $a ||
			$SUDO dpkg --add-architecture $a
	done
	need=$(missing_packages "$@")
	[ -n "$need" ] || return 0
	log "installing:" $need
	apt_update
	# shellcheck disable=SC2086
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $need >/dev/null ||
		die "apt-get install failed; run it by hand to see why: apt-get install $need"
}

# apt options for SUITE: none for bookworm (the machine's sources); for
# another suite, its own source list, indexes and cache under build/apt/.
# fetch_kernel sets both for the kernel's suite (KSUITE) alone.
SUITE=bookworm
APT_OPTS=()
suite_apt() {
	local d=$BUILD/apt/$SUITE
	[ "$SUITE" != bookworm ] || return 0
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/parts"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/debian $SUITE main" >"$d/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list"
		-o "Dir::Etc::SourceParts=$d/parts"
		-o "Dir::Etc::Preferences=$d/parts/none"
		-o "Dir::Etc::PreferencesParts=$d/parts"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
		-o "APT::Architectures::=$(dpkg --print-architecture)"
		-o "APT::Architectures::=$KARCH" -o "APT::Sandbox::User=root")
	ls "$d"/lists/*_Packages* >/dev/null 2>&1 || update_indexes
}

update_indexes() {
	local i
	[ "$SUITE" != bookworm ] || { apt_update; return; }
	for i in 1 2 3; do
		apt-get "${APT_OPTS[@]}" update -q >/dev/null 2>&1 && return 0
		say "apt-get update of $SUITE failed (try $i of 3), retrying"
		sleep $((i * 3))
	done
	die "cannot read the package indexes of $SUITE"
}

# apt-get download, retried once after refreshing the indexes.
download() {
	local dir=$1
	shift
	(cd "$dir" && apt-get "${APT_OPTS[@]}" download -q "$@" >/dev/null 2>&1) && return 0
	update_indexes
	(cd "$dir" && apt-get "${APT_OPTS[@]}" download -q "$@" >/dev/null) ||
		die "could not download $*"
}

# The package names PACKAGE:ARCH=VERSION depends on that match PATTERN.
depends_matching() {
	apt-cache "${APT_OPTS[@]}" show "$1" | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',|' '\n\n' | sed 's/^ *//; s/[ (:].*//' | grep -E "$2" || true
}

# The image, the flavour's headers, the common headers and the host's kbuild
# they name, in the versions the metapackage and the headers depend on.
fetch_kernel() {
	local kdir=$KDIR_OUT release ver common kbuild hdr deb SUITE=$KSUITE
	local -a APT_OPTS=()
	[ -f "$kdir/release" ] && [ -f "$kdir/vmlinuz" ] && return 0
	suite_apt
	release=$(apt-cache "${APT_OPTS[@]}" depends "$META" 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([^:]*\).*/\1/p' | head -n 1)
	[ -n "$release" ] || { update_indexes; release=$(apt-cache "${APT_OPTS[@]}" depends "$META" |
		sed -n 's/.*Depends: linux-image-\([^:]*\).*/\1/p' | head -n 1); }
	[ -n "$release" ] || die "cannot resolve the kernel of $META in $SUITE"
	ver=$(apt-cache "${APT_OPTS[@]}" show "linux-image-$release:$KARCH" |
		sed -n 's/^Version: //p' | head -n 1)
	hdr="linux-headers-$release:$KARCH=$ver"
	common=$(depends_matching "$hdr" '^linux-headers-.*-common')
	kbuild=$(depends_matching "$hdr" '^linux-kbuild-')
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		die "cannot tell the common headers and kbuild of linux-headers-$release"
	log "fetching kernel $release ($ver, $SUITE)"
	rm -rf "$kdir"
	mkdir -p "$kdir/debs" "$kdir/root"
	download "$kdir/debs" "linux-image-$release:$KARCH=$ver" "$hdr" \
		"$common=$ver" "$kbuild=$ver"
	for deb in "$kdir"/debs/*.deb; do
		dpkg -x "$deb" "$kdir/root"
	done
	# The flavour's Makefile includes the common headers by absolute path.
	sed -i "s|/usr/src/$common|$kdir/root/usr/src/$common|" \
		"$kdir/root/usr/src/linux-headers-$release/Makefile"
	ln -sf "root/boot/vmlinuz-$release" "$kdir/vmlinuz"
	rm -rf "$kdir/debs"
	echo "$release" >"$kdir/release"
}

# armhf user space for the VM's initramfs: busybox and the C library.
fetch_arm_root() {
	local root=$BUILD/arm/root debs=$BUILD/arm/debs
	[ -x "$root/bin/busybox" ] && [ -f "$root/lib/arm-linux-gnueabihf/libc.so.6" ] && return 0
	log "fetching busybox-static and libc6 for armhf"
	rm -rf "$root" "$debs"
	mkdir -p "$root" "$debs"
	download "$debs" busybox-static:armhf libc6:armhf
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$root"
	done
	cp "$debs"/libc6_*.deb "$BUILD/arm/libc6.deb"
	rm -rf "$debs" "$root/usr/share"
}

# The C library's own .ARM.exidx marks most of it CANTUNWIND; its debug
# files carry full CFI.  Same version as libc6, or the build-ids differ.
fetch_arm_dbg() {
	local dbg=$BUILD/arm/dbg debs=$BUILD/arm/dbg-debs ver
	[ -d "$dbg/usr/lib/debug/.build-id" ] && return 0
	ver=$(dpkg-deb -f "$BUILD/arm/libc6.deb" Version 2>/dev/null ||
		apt-cache show libc6:armhf | sed -n 's/^Version: //p' | head -n 1)
	log "fetching libc6-dbg $ver for armhf"
	rm -rf "$dbg" "$debs"
	mkdir -p "$dbg" "$debs"
	download "$debs" "libc6-dbg:armhf=$ver"
	dpkg -x "$debs"/*.deb "$dbg"
	rm -rf "$debs" "$dbg/usr/share"
}

# Debian's libstdc++.so.6, where std::thread's threads start, and
# libgcc_s.so.1, where C++ programs (and C ones built -shared-libgcc)
# divide.  Their own .ARM.exidx is their only unwind information, and they
# keep only .dynsym: libstdc++6-12-dbg holds another build of the library
# (its own build-id), not this one's debug file.
fetch_arm_cxx() {
	local dir=$BUILD/arm/cxx debs=$BUILD/arm/cxx-debs deb
	[ -f "$dir/usr/lib/arm-linux-gnueabihf/libstdc++.so.6" ] &&
		[ -f "$dir/lib/arm-linux-gnueabihf/libgcc_s.so.1" ] && return 0
	log "fetching libstdc++6 and libgcc-s1 for armhf"
	rm -rf "$dir" "$debs"
	mkdir -p "$dir" "$debs"
	download "$debs" libstdc++6:armhf libgcc-s1:armhf
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$dir"
	done
	rm -rf "$debs" "$dir/usr/share"
}

# The device-side uwprof's static libraries (mk/uwprof-arm.mk DEVICE_LIBS):
# Debian's armhf -dev packages, which ship the .a archives and headers,
# unpacked into a sysroot of their own (no libc6-dev: the C library comes
# from the cross compiler).  The list here and DEVICE_LIBS go together.
DEVICE_DEBS="libelf-dev libdw-dev libcapstone-dev libzstd-dev liblzma-dev libbz2-dev zlib1g-dev"
fetch_device_libs() {
	local dir=$BUILD/arm/sysroot debs=$BUILD/arm/sysroot-debs deb p pkgs=()
	[ -f "$dir/.done" ] && return 0
	log "fetching the device uwprof's static libraries (armhf): $DEVICE_DEBS"
	rm -rf "$dir" "$debs"
	mkdir -p "$dir" "$debs"
	if ! dpkg --print-foreign-architectures | grep -qx armhf; then
		$SUDO dpkg --add-architecture armhf
		apt_update
	fi
	for p in $DEVICE_DEBS; do
		pkgs+=("$p:armhf")
	done
	download "$debs" "${pkgs[@]}"
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$dir"
	done
	rm -rf "$debs" "$dir/usr/share"
	for p in dw elf capstone zstd lzma bz2 z; do
		[ -f "$dir/usr/lib/arm-linux-gnueabihf/lib$p.a" ] ||
			die "the armhf packages gave no lib$p.a"
	done
	touch "$dir/.done"
}

# checkpatch.pl and the kselftest harness come from Debian's kernel source.
extract_linux_source() {
	local dst=$BUILD/linux-source tarball
	[ -f "$dst/scripts/checkpatch.pl" ] && return 0
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-*.tar.xz; is linux-source-6.1 installed?"
	log "extracting checkpatch and kselftest headers from $tarball"
	mkdir -p "$dst"
	tar -xJf "$tarball" -C "$dst" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h'
}

# stackvis from the npm registry into build/npm/ (no global install, no
# install scripts), for tests/host/perf_script_npm.sh, which finds it there.
STACKVIS_VERSION=0.5.0
fetch_stackvis() {
	local dst=$BUILD/npm/stackvis-$STACKVIS_VERSION
	[ -f "$dst/node_modules/stackvis/cmd/stackcollapse-perf" ] && return 0
	command -v npm >/dev/null || die "no npm (scripts/packages.txt installs it)"
	log "installing stackvis@$STACKVIS_VERSION into $dst"
	mkdir -p "$dst"
	timeout 600 npm install --prefix "$dst" --no-save --no-package-lock \
		--ignore-scripts --no-audit --no-fund --loglevel=error \
		"stackvis@$STACKVIS_VERSION" >"$dst.log" 2>&1 ||
		die "npm install stackvis@$STACKVIS_VERSION failed: $(tail -n 5 "$dst.log")"
}

if [ "${1:-}" = --browser ]; then	# make test-browser: its packages only
	install_packages "$top/scripts/packages-browser.txt"
	log "browser test packages ready"
	exit 0
fi
if [ "${1:-}" = --device-libs ]; then	# make uwprof-arm: its libraries only
	fetch_device_libs
	exit 0
fi
install_packages
fetch_kernel
fetch_arm_root
fetch_arm_dbg
fetch_arm_cxx
fetch_device_libs
extract_linux_source
fetch_stackvis
log "ready (kernel $(cat "$KDIR_OUT/release"))"
