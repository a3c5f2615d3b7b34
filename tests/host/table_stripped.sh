#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Function discovery (tools/uwprof/table/discover*.c) on a program shipped
# as distributions ship them: built without unwind tables or CFI, then
# stripped.  Its functions are reached by calls, a noreturn call at a
# function's end, a switch (tbb), a tail call and a pointer only (a qsort
# comparator).  The table from the stripped file alone must find starts
# only where the unstripped copy has function symbols, most of them, and
# cover most of .text; MiniDebugInfo (.gnu_debugdata) names them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
CROSS=arm-linux-gnueabihf-
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v ${CROSS}gcc >/dev/null || { skip "no ${CROSS}gcc"; finish; exit; }

cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile int sink;
__attribute__((noinline)) static int by_pointer(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}
__attribute__((noinline, noreturn)) static void die(const char *why)
{
	fprintf(stderr, "%s\n", why);
	exit(3);
}
__attribute__((noinline)) static int pick(int k, int x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x / 5;
	case 6: return x % 11;
	default: return 0;
	}
}
__attribute__((noinline)) static int checked(int x)
{
	if (x == 12345)
		die("impossible");
	return pick(x & 7, x);
}
__attribute__((noinline)) int tail(int x)
{
	return checked(x + 1);
}
int main(int argc, char **argv)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = tail(i * argc) + (int)strlen(argv[0]);
	qsort(v, 64, sizeof(v[0]), by_pointer);
	sink = v[3];
	return 0;
}
C
if ! ${CROSS}gcc -O2 -mthumb -g0 -fno-unwind-tables \
	-fno-asynchronous-unwind-tables -o "$tmp/prog" "$tmp/prog.c" \
	2>"$tmp/cc.log"; then
	fail "program does not build: $(head -n 3 "$tmp/cc.log")"
	finish
	exit
fi
${CROSS}strip -o "$tmp/stripped" "$tmp/prog"

# the function symbols of the unstripped copy in .text, .init and .fini
# (_init and _fini: the dynamic section's DT_INIT and DT_FINI name
# them), Thumb bit cleared
${CROSS}readelf -SW "$tmp/prog" |
	awk '$2 == ".text" || $2 == ".init" || $2 == ".fini" { print $4, $6 }' \
	>"$tmp/ranges"
python3 - "$tmp/prog" "$tmp/ranges" >"$tmp/real" <<'PY'
import subprocess, sys
ranges = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[2])]
out = set()
for l in subprocess.run(["arm-linux-gnueabihf-nm", sys.argv[1]],
                        capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and f[1] in "tTW":
        a = int(f[0], 16) & ~1
        if any(lo <= a < lo + sz for lo, sz in ranges):
            out.add(a)
for a in sorted(out):
    print(hex(a))
PY

out=$("$UWPROF" table "$tmp/stripped" --prologue-analysis --stats \
	--report "$tmp/report" -o "$tmp/t.uwt" 2>&1) ||
	fail "uwprof table of the stripped program: $out"
# found functions: "?" rows with their source
awk '$1 == "?" && $4 == "prologue-analysis" { print $2 }' "$tmp/report" |
	sort -u >"$tmp/found"
wrong=$(comm -13 "$tmp/real" "$tmp/found" | tr '\n' ' ')
expect "every function start found is a real function's" "" "$wrong"
nreal=$(wc -l <"$tmp/real")
nfound=$(comm -12 "$tmp/real" "$tmp/found" | wc -l)
if [ $((nfound * 100)) -ge $((nreal * 80)) ]; then
	ok "most functions found and justified ($nfound of $nreal)"
else
	fail "most functions found and justified ($nfound of $nreal): missing $(comm -23 "$tmp/real" "$tmp/found" | tr '\n' ' ')"
fi
for fn in by_pointer pick checked tail main; do
	a=$(${CROSS}nm "$tmp/prog" | awk -v f=$fn '$3 == f { print $1 }')
	a=$(printf '0x%x' $((16#$a & ~1)))
	grep -qx "$a" "$tmp/found" && ok "found: $fn" ||
		fail "found: $fn ($a)"
done
pct=$(sed -n 's/^\.text covered: .*(\(.*\)\.[0-9]%)/\1/p' <<<"$out")
if [ "${pct:-0}" -ge 85 ]; then
	ok ".text covered from the stripped file (${pct}%)"
else
	fail ".text covered from the stripped file: ${pct:-?}% < 85%"
fi
grep -q '^functions discovered' <<<"$out" && ok "--stats counts discovered functions" ||
	fail "--stats counts discovered functions"
# --no-discovery: only what a symbol, exidx or the PLT names (nothing
# of the stripped program's own code), as before discovery existed
nod=$("$UWPROF" table "$tmp/stripped" --prologue-analysis --no-discovery \
	--stats -o "$tmp/n.uwt" 2>&1) || fail "uwprof table --no-discovery: $nod"
npct=$(sed -n 's/^\.text covered: .*(\(.*\)\.[0-9]%)/\1/p' <<<"$nod")
if [ "${npct:-100}" -lt 30 ] && ! grep -q '^functions discovered' <<<"$nod"; then
	ok "--no-discovery finds no function (${npct}% covered)"
else
	fail "--no-discovery finds no function: ${npct:-?}% covered, $(grep -c '^functions discovered' <<<"$nod") discovery lines"
fi

# MiniDebugInfo: the function symbols, xz-compressed in .gnu_debugdata
${CROSS}nm "$tmp/prog" | awk '$2 ~ /^[tT]$/ { print $3 }' >"$tmp/keep"
${CROSS}objcopy --only-keep-debug "$tmp/prog" "$tmp/debug"
${CROSS}objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$tmp/keep" "$tmp/debug" "$tmp/mini"
xz -f "$tmp/mini"
cp "$tmp/stripped" "$tmp/minidebug"
${CROSS}objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$tmp/minidebug"
"$UWPROF" table "$tmp/minidebug" --prologue-analysis --report "$tmp/mreport" \
	-o "$tmp/m.uwt" >/dev/null 2>&1 || fail "uwprof table with .gnu_debugdata"
got=$(awk '$4 == "prologue-analysis" && ($1 == "by_pointer" || $1 == "pick") { print $1 }' \
	"$tmp/mreport" | sort | tr '\n' ' ')
expect ".gnu_debugdata names static functions" "by_pointer pick " "$got"
# --no-debug-file reads the file's own MiniDebugInfo all the same ...
"$UWPROF" table "$tmp/minidebug" --prologue-analysis --no-debug-file \
	--report "$tmp/mnreport" -o "$tmp/mn.uwt" >/dev/null 2>&1 ||
	fail "uwprof table --no-debug-file with .gnu_debugdata"
got=$(awk '$4 == "prologue-analysis" && ($1 == "by_pointer" || $1 == "pick") { print $1 }' \
	"$tmp/mnreport" | sort | tr '\n' ' ')
expect "--no-debug-file: .gnu_debugdata still names static functions" \
	"by_pointer pick " "$got"

# ... but looks up no debug file: .gnu_debuglink names one beside the
# file, whose symbols name the functions only without --no-debug-file.
mkdir "$tmp/dl"
cp "$tmp/stripped" "$tmp/dl/prog"
${CROSS}objcopy --only-keep-debug "$tmp/prog" "$tmp/dl/prog.debug"
(cd "$tmp/dl" && ${CROSS}objcopy --add-gnu-debuglink=prog.debug prog)
named() {	# named FLAGS...: the two static functions the report names
	"$UWPROF" table "$tmp/dl/prog" --prologue-analysis "$@" \
		--report "$tmp/dlreport" -o "$tmp/dl.uwt" >/dev/null 2>&1 ||
		fail "uwprof table $* with .gnu_debuglink"
	awk '$1 == "by_pointer" || $1 == "pick" { print $1 }' "$tmp/dlreport" |
		sort -u | tr '\n' ' '
}
expect ".gnu_debuglink: the debug file beside names static functions" \
	"by_pointer pick " "$(named)"
expect "--no-debug-file: no .gnu_debuglink file looked up" "" \
	"$(named --no-debug-file)"

# A program that exports _start (chromium does): .dynsym names it without
# a size, and a sizeless symbol runs to the next one, past crtstuff's and
# the program's own functions.  Discovery bounds it: the root marker is
# in effect at _start and at no function after it.
if ${CROSS}gcc -O2 -mthumb -g0 -fno-unwind-tables \
	-fno-asynchronous-unwind-tables -Wl,--export-dynamic-symbol=_start \
	-o "$tmp/xs" "$tmp/prog.c" 2>"$tmp/cc.log"; then
	${CROSS}strip -o "$tmp/xs.stripped" "$tmp/xs"
	"$UWPROF" table "$tmp/xs.stripped" --prologue-analysis -o "$tmp/xs.uwt" \
		>/dev/null 2>&1 || fail "uwprof table of the program exporting _start"
	"$UWPROF" dump "$tmp/xs.uwt" >"$tmp/xs.dump" 2>&1
	roots=$(${CROSS}nm "$tmp/xs" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' |
		python3 -c '
import re, sys
dump = open(sys.argv[1]).read().splitlines()
funcs = []
for l in dump:
    m = re.match(r"0x([0-9a-f]+)\.\.0x([0-9a-f]+):", l)
    if m:
        funcs.append([int(m.group(1), 16), int(m.group(2), 16), []])
        continue
    m = re.match(r"\s+\+0x([0-9a-f]+)\s+uit \d+\s+(.*)$", l)
    if m and funcs:
        funcs[-1][2].append((int(m.group(1), 16), m.group(2)))
for line in sys.stdin:
    a, name = line.split()
    a = int(a, 16) & ~1
    for lo, hi, rows in funcs:
        if lo <= a < hi:
            ops = [o for off, o in sorted(rows) if off <= a - lo]
            if ops and ops[-1] == "root":
                print(name)
' "$tmp/xs.dump" | sort | tr '\n' ' ')
	expect "exported sizeless _start: root at _start alone" "_start " "$roots"
else
	skip "no --export-dynamic-symbol: $(head -n 1 "$tmp/cc.log")"
fi
finish
