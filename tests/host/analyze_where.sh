#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The call-site checker's "where" lines (bench/perf/analyze.py --check)
# give a last frame it cannot name as file+0xOFFSET, the offset in the
# file that uw_frames (and every other line about frames) uses, not the
# link address.  The file: the report fixture linked by lld, whose code
# runs 0x10000 above its file offsets, stripped so that no symbol names
# the frame.  The data file is written by uwdata.py: one sample in spin.
set -u
. "$(dirname "$0")/lib.sh"
th_init
need_checker
mkdir -p "$tmp/root/data" "$tmp/none"
exe=$tmp/fixture-lld
build_lld_fixture "$exe" || { finish; exit 1; }
llvm-strip -o "$tmp/root/data/fixture-lld" "$exe"

# spin's link address, and its file offset by the executable PT_LOAD
spin=$(nm "$exe" | awk '$3 == "spin" { print $1 }')
read -r seg_off seg_va < <(readelf -lW "$exe" |
	awk '$1 == "LOAD" && $8 == "E" { print $2, $3 }')
va=$(( (0x$spin & ~1) + 2 ))		# inside spin, past its first instruction
off=$(( va - seg_va + seg_off ))
if [ "$off" = "$va" ]; then
	fail "the fixture's code runs at its file offsets: nothing to tell apart"
	finish
	exit 1
fi

# Loaded at 0x400000: the executable segment's pages from its file page.
bias=$((0x400000))
PYTHONPATH=$here python3 - "$tmp/w.data" $bias $((seg_va & ~0xfff)) \
	$((seg_off & ~0xfff)) $((va | 1)) <<'PY' || { fail "uwdata.py"; finish; exit 1; }
import sys
import uwdata
out, bias, page_va, page_off, pc = sys.argv[1], *map(int, sys.argv[2:])
w = uwdata.Writer(out)
w.process(100, '/data/fixture-lld')
w.mapping(100, bias + page_va, bias + page_va + 0x2000, page_off,
          '/data/fixture-lld', bias=bias)
w.sample(100, 100, 1000, [bias + pc], stop=1)     # no-table, a leaf
w.close()
PY
/usr/bin/python3 "$top/bench/perf/analyze.py" --check "$tmp/w.data" \
	--root "$tmp/root" --unstripped "$tmp/none" >"$tmp/check" 2>&1 ||
	fail "the checker failed: $(tail -n 1 "$tmp/check")"
expect "where: the last frame at its file offset (link address 0x$(printf %x $((va | 1))))" \
	"where main no-table fixture-lld+0x$(printf %x $((off | 1))) 1" \
	"$(grep '^where ' "$tmp/check")"
if head -n 1 "$tmp/check" | grep -q '^# where .*a file offset (not a link address'; then
	ok "the output's header says where lines give file offsets"
else
	fail "no header naming file offsets: $(head -n 1 "$tmp/check")"
fi
finish
