#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-stock.sh BUILD [LIST NAME]: the stock corpus (bench/stock/programs.sh,
# or the list LIST in that form, assembled in BUILD/NAME instead of
# BUILD/stock: make test-chromium's bench/chromium/programs.sh) as Debian
# ships it.  Fetches the programs' packages and their libraries'
# (scripts/fetch-stock.sh, into BUILD/stock/debs and BUILD/stock/root,
# the place make stock-coverage uses too), then assembles BUILD/stock/guest:
# the programs at the paths their packages give them, the dynamic loader
# and every shared library they load (DT_NEEDED, closed over, searched in
# the loader's multiarch directories), with the packages' own symbolic
# links, hard-linked from the unpacked packages.  Nothing is rebuilt,
# stripped or added: the files are the packages' bytes.  Fails if a
# program or a needed library is missing, or if a file carries a symbol
# table or a debug file comes along (the corpus must be as shipped).
# Writes BUILD/stock/guest.files: each ELF file of the guest (its real
# path, symbolic links resolved) with the package and version it comes
# from, one a line: what stock_vm.sh tables.
set -euo pipefail
BUILD=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "${2:-$top/bench/stock/programs.sh}"
work=$BUILD/${3:-stock}
root=$work/root
guest=$work/guest
CROSS=${CROSS_COMPILE:-arm-linux-gnueabihf-}
fail() { echo "build-stock: $*" >&2; exit 1; }

pkgs=$(for p in $STOCK_PROGRAMS; do q=${p#*:}; echo "${q%%:*}"; done) 
# shellcheck disable=SC2086
"$top/scripts/fetch-stock.sh" "$work" $pkgs $STOCK_LIBRARIES

# real GUESTPATH: the path GUESTPATH's symbolic links lead to inside the
# unpacked packages (an absolute link is taken from the packages' root)
real() {
	local p=$1 t n=0
	while [ -L "$root$p" ]; do
		t=$(readlink "$root$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		p=$(realpath -m -s "$p")
		n=$((n + 1))
		[ $n -lt 20 ] || fail "$1: a loop of symbolic links"
	done
	# the directories on the way may be links too (bookworm has none)
	echo "$p"
}

# put GUESTPATH: it and, for a link, what it leads to, into the guest
put() {
	local p=$1 t
	while :; do
		[ -e "$root$p" ] || [ -L "$root$p" ] || fail "no $p in the packages"
		mkdir -p "$guest$(dirname "$p")"
		if [ -L "$root$p" ]; then
			cp -a "$root$p" "$guest$p"
			t=$(readlink "$root$p")
			case $t in /*) p=$t ;; *) p=$(realpath -m -s "$(dirname "$p")/$t") ;; esac
		else
			ln -f "$root$p" "$guest$p"
			return
		fi
	done
}

# which package (and version) put each path there
: >"$work/contents"
for p in $pkgs $STOCK_LIBRARIES; do
	deb=$work/debs/$(cat "$work/unpacked/$p")
	v=$(dpkg-deb -f "$deb" Version)
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n "s|^\./\(.*[^/]\)\$|$p $v /\1|p" >>"$work/contents"
done
package_of() { awk -v f="$1" '$3 == f { print $1, $2; exit }' "$work/contents"; }

rm -rf "$guest"
mkdir -p "$guest"
: >"$work/guest.files.tmp"
queue=()
for p in $STOCK_PROGRAMS; do
	queue+=("${p##*:}")
done
seen=" "
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	case $seen in *" $f "*) continue ;; esac
	seen="$seen$f "
	put "$f"
	r=$(real "$f")
	pv=$(package_of "$r")
	[ -n "$pv" ] || fail "$r is in none of the packages' file lists"
	grep -q "^$r " "$work/guest.files.tmp" || echo "$r $pv" >>"$work/guest.files.tmp"
	hdr=$(${CROSS}readelf -W -S -l -d "$root$r" 2>/dev/null) ||
		fail "$f is not an ELF file"
	if grep -qE '\] \.(symtab|debug_[a-z]+) ' <<<"$hdr"; then
		fail "$f has a symbol table or debug sections: not as shipped"
	fi
	interp=$(sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p' <<<"$hdr")
	[ -z "$interp" ] || queue+=("$interp")
	for n in $(sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p' <<<"$hdr"); do
		hit=
		for d in $STOCK_LIBDIRS; do
			if [ -e "$root$d/$n" ]; then hit=$d/$n; break; fi
		done
		[ -n "$hit" ] || fail "$f needs $n, in none of the packages (add its package to STOCK_LIBRARIES)"
		queue+=("$hit")
	done
done
if [ -n "$(find "$guest" -path '*/debug/*' -o -name '*.debug' | head -n 1)" ]; then
	fail "a debug file in the guest"
fi
mv "$work/guest.files.tmp" "$work/guest.files"
echo "build-stock: $(wc -l <"$work/guest.files") ELF files in $guest:"
sed 's/^/  /' "$work/guest.files"
