#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof table -j N: prologue analysis on N threads gives the table one
# thread gives, byte for byte, with the same --stats and --report (whose
# notes come in the order the functions were merged).  A synthetic
# library of 40,000 functions that only prologue analysis describes
# (mkelf.py: every exidx entry CANTUNWIND, a fifth with DWARF CFI the
# analysis checks) spans several of the pass's batches of 16,384; Debian's
# libc.so.6 (as make demo unpacks it), when there, tabled without its
# debug file, has function discovery, refusals and their notes; with it,
# DWARF CFI the analysis checks, replaces and patches.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
BUILD=${BUILD:-$here/../../build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# same_for_jobs NAME FILE OPTION...: -j 1 against -j 2 and -j 3
same_for_jobs() {
	local name=$1 file=$2 j k
	shift 2
	for j in 1 2 3; do
		"$UWPROF" table "$file" --prologue-analysis "$@" -j $j --stats \
			--report "$tmp/$name.j$j.rep" -o "$tmp/$name.j$j.uwt" \
			>"$tmp/$name.j$j.stats"
		expect "$name: -j $j exits 0" 0 $?
	done
	for j in 2 3; do
		for k in uwt rep stats; do
			if cmp -s "$tmp/$name.j1.$k" "$tmp/$name.j$j.$k"; then
				ok "$name: -j $j's $k is -j 1's"
			else
				fail "$name: -j $j's $k is not -j 1's"
			fi
		done
	done
}

# prologue_funcs STATS: functions the analysis gave rows
prologue_funcs() {
	sed -n 's/.* \([0-9]*\) from prologue-analysis.*/\1/p' "$1" | head -n 1
}

n=40000
python3 "$here/mkelf.py" "$tmp/big.so" --funcs $n --varied \
	--cantunwind-every 1 --dwarf-every 5
same_for_jobs synthetic "$tmp/big.so"
got=$(prologue_funcs "$tmp/synthetic.j1.stats")
if [ "${got:-0}" -ge $((n * 4 / 5)) ]; then
	ok "synthetic: $got of $n functions analysed (several batches)"
else
	fail "synthetic: ${got:-no} functions analysed, not the $((n * 4 / 5)) CANTUNWIND ones"
fi

libc=$BUILD/arm/root/lib/arm-linux-gnueabihf/libc.so.6
if [ -f "$libc" ]; then
	same_for_jobs libc "$libc" --no-debug-file
	notes=$(grep -c prologue-refused "$tmp/libc.j1.rep")
	if [ "$notes" -gt 0 ]; then
		ok "libc.so.6: $notes functions refused, their notes in order"
	else
		fail "libc.so.6: no function refused: the notes' order is not tested"
	fi
else
	skip "libc.so.6: no $libc (make demo unpacks it)"
fi
# with libc6-dbg's debug file: its CFI checked against the code, some
# replaced or patched (notes), on the threads too
dbgdir=$BUILD/arm/dbg/usr/lib/debug
if [ -f "$libc" ] && [ -d "$dbgdir" ]; then
	same_for_jobs libc-dbg "$libc" --debug-dir "$dbgdir"
	grep -q "DWARF CFI against the code: [1-9][0-9]* functions agree, [1-9]" \
		"$tmp/libc-dbg.j1.stats" &&
		ok "libc.so.6 with its debug file: CFI checked, some contradicted" ||
		fail "libc.so.6 with its debug file: $(grep "DWARF CFI" "$tmp/libc-dbg.j1.stats")"
else
	skip "libc.so.6 with its debug file: no $dbgdir (make demo unpacks it)"
fi

"$UWPROF" table "$tmp/big.so" --prologue-analysis -j 0 -o "$tmp/x.uwt" \
	2>"$tmp/err"
expect "-j 0: usage error (exit 2)" 2 $?
grep -q -- "--jobs wants 1 to" "$tmp/err" && ok "-j 0: says what -j wants" ||
	fail "-j 0: no message ($(cat "$tmp/err"))"
finish
