# SPDX-License-Identifier: GPL-2.0
# Sourced by setup.sh and the build-*.sh scripts: apt-get as root or
# through sudo, an update that survives a syncing mirror, and deb-src.
# The sourcing script defines say() for its messages (and $src_dir, where
# fetch_source unpacks source packages).

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# apt-get update fails now and then on one index while a mirror syncs; what
# did download is still usable, so retry a few times and carry on.
apt_update() {
	local i
	for i in 1 2 3; do
		if $SUDO apt-get update -q >/dev/null 2>&1; then
			return 0
		fi
		say "apt-get update failed (try $i of 3), retrying"
		sleep $((i * 3))
	done
	say "apt-get update kept failing; continuing with the indexes we have"
}

# ensure_deb_src PACKAGE: make bookworm's source packages reachable, so
# that "apt-get source PACKAGE" works.
ensure_deb_src() {
	if apt-get source --print-uris "$1" >/dev/null 2>&1; then
		return 0
	fi
	say "enabling deb-src for bookworm"
	$SUDO tee /etc/apt/sources.list.d/uwprof-deb-src.sources >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_update
}

# fetch_source PACKAGE DIR-GLOB: the Debian source tree of PACKAGE,
# fetched and unpacked under $src_dir the first time, found there after.
fetch_source() {
	local pkg=$1 glob=$2 d
	d=$(find "$src_dir" -maxdepth 1 -type d -name "$glob" | head -n 1)
	if [ -n "$d" ] && [ -f "$d/debian/control" ]; then
		echo "$d"
		return 0
	fi
	ensure_deb_src "$pkg"
	say "fetching the $pkg source package"
	(cd "$src_dir" && apt-get source -q --download-only "$pkg" >&2 &&
		dpkg-source --no-check -x "${pkg}"_*.dsc >&2)
	d=$(find "$src_dir" -maxdepth 1 -type d -name "$glob" | head -n 1)
	[ -n "$d" ] || { say "no $pkg source tree after extraction"; exit 1; }
	echo "$d"
}
