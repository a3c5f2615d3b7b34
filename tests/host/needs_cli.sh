#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The files record expects a program's loader to map, whose tables it
# uploads as the program starts (tools/uwprof/record/needs.c): ARM
# programs and libraries built here, their DT_NEEDED names found as
# glibc's loader finds them.  A library's DT_RPATH comes before
# LD_LIBRARY_PATH, which comes before DT_RUNPATH; $ORIGIN is the
# directory of the object that asks; a file of another machine in an
# earlier directory is passed over; a name found nowhere is left out;
# the interpreter is listed, each file once by its real path.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PROBE=${BUILD:-$here/../../build}/host/tests/needs_probe CC=arm-linux-gnueabihf-gcc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v "$CC" >/dev/null || ! command -v cc >/dev/null || [ ! -x "$PROBE" ]; then
	skip "record's list of needed files: no $CC, cc or $PROBE (make setup test-host)"
	finish
	exit 0
fi
d=$(cd "$tmp" && pwd -P)
mkdir -p "$d/bin" "$d/lib/a" "$d/lib/b" "$d/lib/x86" "$d/gone"
so() {	# so OUT [LDFLAGS...]: an ARM library with one function
	local out=$1
	shift
	echo "int f_$(basename "$out" .so | tr -c 'a-z0-9\n' _)(void) { return 1; }" >"$tmp/src.c"
	"$CC" -shared -fPIC -Wl,--no-as-needed -o "$out" "$tmp/src.c" "$@" || fail "build $out"
}
so "$d/lib/a/libbar.so"
so "$d/lib/b/libbar.so"
echo 'int f(void) { return 0; }' >"$tmp/x86.c"
cc -shared -fPIC -o "$d/lib/x86/libbar.so" "$tmp/x86.c" || fail "build the x86 libbar.so"
so "$d/gone/libgone.so"
# libfoo: DT_RPATH $ORIGIN/../b, so its libbar is b's whatever the path
so "$d/lib/a/libfoo.so" -L"$d/lib/a" -lbar -Wl,--disable-new-dtags \
	-Wl,-rpath,'$ORIGIN/../b'
# libqux: DT_RUNPATH $ORIGIN/../b, after LD_LIBRARY_PATH
so "$d/lib/a/libqux.so" -L"$d/lib/a" -lbar -Wl,--enable-new-dtags \
	-Wl,-rpath,'$ORIGIN/../b'
cp "$d/lib/a/libbar.so" "$d/ld.so"	# an interpreter: only listed
echo 'int main(void) { return 0; }' >"$tmp/main.c"
"$CC" -o "$d/bin/main" "$tmp/main.c" -Wl,--no-as-needed -Wl,--dynamic-linker="$d/ld.so" \
	-L"$d/lib/a" -L"$d/gone" -lfoo -lqux -lgone -Wl,--enable-new-dtags \
	-Wl,-rpath,'$ORIGIN/../lib/a' || fail "build main"
rm "$d/gone/libgone.so"

# (libc.so.6, which every program needs, is the host's business: left out)
got=$(LD_LIBRARY_PATH="$d/lib/x86:$d/lib/a" "$PROBE" "$d/bin/main" | grep "^$d/")
expect "main's files: the program, its interpreter, libfoo and libqux by its DT_RUNPATH (\$ORIGIN), libfoo's libbar by its DT_RPATH before LD_LIBRARY_PATH, libqux's by LD_LIBRARY_PATH before its DT_RUNPATH, past an x86 file; libgone nowhere" \
	"$d/bin/main
$d/ld.so
$d/lib/a/libfoo.so
$d/lib/a/libqux.so
$d/lib/b/libbar.so
$d/lib/a/libbar.so" "$got"
got=$(LD_LIBRARY_PATH= "$PROBE" "$d/bin/main" | grep "^$d/")
expect "without LD_LIBRARY_PATH, libqux's libbar comes from its DT_RUNPATH" \
	"$d/bin/main
$d/ld.so
$d/lib/a/libfoo.so
$d/lib/a/libqux.so
$d/lib/b/libbar.so" "$got"
if "$PROBE" "$d/lib/x86/libbar.so" >/dev/null; then
	fail "an x86 file is read as a program"
else
	ok "an x86 file is no program of record's"
fi
finish
