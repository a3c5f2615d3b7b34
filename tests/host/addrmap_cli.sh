#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The address model (tools/uwprof/lib/addrmap.c) against real loaders: a
# program and a shared library linked by GNU ld (arm-linux-gnueabihf-gcc)
# and by lld (clang -fuse-ld=lld, whose segments share file pages), PIE
# and not, run under qemu-arm; addrmap_check.py compares record's bias,
# attach's text range and report's names with the true addresses.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
PROBE=$(dirname "$UWPROF")/tests/addrmap_probe
CROSS=arm-linux-gnueabihf-
SYSROOT=/usr/arm-linux-gnueabihf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/lib.c" <<'C'
#include <stdio.h>
/* Ninety functions, so the library's code spans more than one page. */
#define F(n) __attribute__((noinline)) int pad##n(int x) { return x * n + (x >> 3) - n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
__attribute__((noinline)) static int lib_local(int x) { return x * 7 + 3; }
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)
__attribute__((noinline)) int lib_probe(int x) { return lib_local(x) ^ pad11(x) ^ pad99(x); }
void lib_report(void)
{
	/* Printed here: the program taking them would get PLT addresses. */
	printf("func lib_local %p\nfunc lib_probe %p\n", (void *)lib_local, (void *)lib_probe);
	printf("func pad11 %p\nfunc pad99 %p\n", (void *)pad11, (void *)pad99);
}
C
# A small library: with lld its executable segment starts in the first
# file page, the one the read-only segment starts in.
cat >"$tmp/tiny.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int tiny_probe(int x) { return x * 11 + 2; }
void tiny_report(void)
{
	printf("func tiny_probe %p\n", (void *)tiny_probe);
}
C
cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
void lib_report(void);
void tiny_report(void);
int lib_probe(int);
__attribute__((noinline)) static int prog_local(int x) { return x * 5 + 1; }
__attribute__((noinline)) int prog_probe(int x) { return prog_local(x) + lib_probe(x); }
int main(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	printf("func prog_local %p\nfunc prog_probe %p\nfunc main %p\n",
	       (void *)prog_local, (void *)prog_probe, (void *)main);
	lib_report();
	tiny_report();
	while (f && fgets(line, sizeof(line), f))
		printf("map %s", line);
	return prog_probe(1) == 0;
}
C

missing=
for t in ${CROSS}gcc ${CROSS}nm ${CROSS}addr2line clang ld.lld qemu-arm-static; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ] || [ ! -x "$PROBE" ]; then
	skip "address model against real loaders (missing:$missing ${PROBE##*/})"
	finish
	exit
fi

cc_gnu="${CROSS}gcc -O2 -g -Wl,--build-id"
cc_lld="clang --target=arm-linux-gnueabihf -march=armv7-a -mfloat-abi=hard -fuse-ld=lld -O2 -g -Wl,--build-id"
for ld in gnu lld; do
	cc=cc_$ld
	if ! ${!cc} -fPIC -shared -o "$tmp/lib$ld.so" "$tmp/lib.c" 2>"$tmp/err" ||
	   ! ${!cc} -fPIC -shared -o "$tmp/libtiny$ld.so" "$tmp/tiny.c" 2>"$tmp/err"; then
		fail "$ld: build the library: $(cat "$tmp/err")"
		continue
	fi
	for pie in pie nopie; do
		v=$ld-$pie
		flags="-fPIE -pie"
		[ $pie = nopie ] && flags="-fno-pie -no-pie"
		# shellcheck disable=SC2086
		if ! ${!cc} $flags -o "$tmp/$v" "$tmp/prog.c" -L"$tmp" -l$ld -ltiny$ld \
			-Wl,-rpath,"$tmp" 2>"$tmp/err"; then
			fail "$v: build: $(cat "$tmp/err")"
			continue
		fi
		if ! qemu-arm-static -L "$SYSROOT" "$tmp/$v" >"$tmp/$v.out" 2>"$tmp/err"; then
			fail "$v: run under qemu-arm: $(cat "$tmp/err")"
			continue
		fi
		python3 "$here/addrmap_check.py" "$v" "$tmp/$v.out" "$UWPROF" "$PROBE" \
			"$tmp" "$CROSS" >"$tmp/res" 2>"$tmp/err" ||
			fail "$v: addrmap_check.py: $(tail -3 "$tmp/err")"
		while IFS=$'\t' read -r res msg; do
			if [ "$res" = ok ]; then ok "$msg"; else fail "$msg"; fi
		done <"$tmp/res"
	done
done
# lld's layout is the point: its executable segment shares a file page
# with the read-only one, so a match on the page offset alone finds the
# wrong segment.
for lib in liblld.so libtinylld.so; do
	pages=$(${CROSS}readelf -lW "$tmp/$lib" | while read -r type off _; do
		[ "$type" = LOAD ] && echo $((off / 4096))
	done)
	if [ -n "$pages" ] && [ "$(sort <<<"$pages" | uniq -d)" ]; then
		ok "lld: $lib's segments share a file page"
	else
		fail "lld: expected $lib's segments to share a file page (pages: $pages)"
	fi
done
# In the small one the executable segment starts in page 0, where the
# read-only segment does: the offset of its mapping matches both.
if ${CROSS}readelf -lW "$tmp/libtinylld.so" | awk '$1 == "LOAD" && $7 $8 ~ /E/ && length($2) == 8 && $2 ~ /^0x000/ {f = 1} END {exit !f}'; then
	ok "lld: libtinylld.so's executable segment starts in the first file page"
else
	fail "lld: libtinylld.so's executable segment is not in the first page"
	${CROSS}readelf -lW "$tmp/libtinylld.so" | grep LOAD | sed 's/^/#   /'
fi
finish
