#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Crafted files against uwprof table and report: each case here crashed or
# hung the tools once.  ELFs come from mkelf.py; the report cases use the
# recorded fixture with hostile files where its symbols are looked for.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
mkelf="python3 $here/mkelf.py"
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: the exit status, 124 on a hang, >= 128 on a crash.
run() { timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"; }

# The good file first, so the hostile cases below compare with it.
$mkelf "$tmp/good.so" --funcs 8 --extab-every 2
run "$UWPROF" table "$tmp/good.so" -o "$tmp/good.uwt" --report "$tmp/good.rep"
expect "extab entries: table built" 0 $?
expect "extab entries decoded: nothing reported" "" \
	"$(grep -v '^#' "$tmp/good.rep" | grep -v 'ehabi-only')"

# .ARM.extab at address 0 and an exidx entry pointing at 0xfffffffe:
# the offset check wrapped and the reader went 4 GiB past the section.
$mkelf "$tmp/wrap.so" --funcs 8 --extab-every 2 --extab-addr-zero \
	--extab-target 0xfffffffe
run "$UWPROF" table "$tmp/wrap.so" -o "$tmp/wrap.uwt" --report "$tmp/wrap.rep"
expect "extab at 0, entry at the top of memory: exit 0" 0 $?
expect "that entry is reported undecodable" "f0 0x1000 0x1000 ehabi-undecodable" \
	"$(grep '^f0 .*undecodable' "$tmp/wrap.rep" | cut -d' ' -f1-4)"

# A NOBITS .ARM.extab has a size but no bytes.
$mkelf "$tmp/nobits.so" --funcs 8 --extab-every 2 --extab-nobits
run "$UWPROF" table "$tmp/nobits.so" -o "$tmp/nobits.uwt" --report "$tmp/nobits.rep"
expect "NOBITS .ARM.extab: exit 0" 0 $?
expect "its users are reported undecodable, the others are not" \
	"f0 f2 f4 f6" "$(awk '$4 == "ehabi-undecodable" {print $1}' "$tmp/nobits.rep" | paste -sd' ')"
"$UWPROF" dump "$tmp/nobits.uwt" >"$tmp/dump"
# (the opcodes in the body, after the push; the entry's row at +0)
expect "inline entries still encoded" "+0x4 pop {r4, lr}; finish
+0x0 finish" \
	"$(sed -n '/^0x1008/,/^0x/{/^  +/p}' "$tmp/dump" | awk '{$2 = $3 = ""; print}' | tr -s ' ')"

# An FDE whose range is nearly 4 GiB (fuzz_table's finding, kept in
# fuzz/regress/table): libdw gave rows a few bytes long all the way, and
# the reader took gigabytes before it gave up.
run "$UWPROF" table "$here/../../fuzz/regress/table/fde-range-4gib.so" \
	-o "$tmp/fde.uwt" --no-debug-file --report "$tmp/fde.rep"
expect "FDE over 4 GiB: exit 0 at once" 0 $?
expect "that FDE is left out as empty" 1 \
	"$(awk '$4 == "empty"' "$tmp/fde.rep" | wc -l)"

# DW_CFA_register naming register 238942451 (fuzz_table again): libdw
# sizes its state by the largest register named and took 1.8 GB for a
# file of 1.5 KB.  A file this small is read in a few MB.
/usr/bin/time -f %M -o "$tmp/rss" timeout 20 "$UWPROF" table \
	"$here/../../fuzz/regress/table/cfa-register-huge.so" -o "$tmp/reg.uwt" \
	--no-debug-file --report "$tmp/reg.rep" >/dev/null 2>&1
expect "a huge DWARF register number: exit 0" 0 $?
rss=$(tail -n 1 "$tmp/rss")
if [ "${rss:-999999}" -lt 100000 ] && grep -q ' empty ' "$tmp/reg.rep"; then
	ok "a huge DWARF register number: ${rss} KB at most, its FDE left out"
else
	fail "a huge DWARF register number: ${rss:-?} KB"
fi

# Breakpad rows going back in address (fuzz_breakpad): the generator made
# a table its own check refused, "internal error ... please report this";
# now an error naming the row.
run "$UWPROF" table --breakpad "$here/../../fuzz/regress/breakpad/rows-out-of-order.sym" \
	--text-start 0x1000 -o "$tmp/bp.uwt"
expect "breakpad rows out of order: exit 2" 2 $?
grep -q 'STACK CFI row at 0x2010 is before the row above it' "$tmp/err" &&
	! grep -q 'internal error' "$tmp/err" &&
	ok "breakpad rows out of order: the line named" ||
	fail "breakpad rows out of order: $(cat "$tmp/err")"

# INIT records at an odd address (the Thumb bit) or of an odd size, and
# two that overlap (fuzz_breakpad): tables the generator's own check
# refused.
run "$UWPROF" table --breakpad "$here/../../fuzz/regress/breakpad/init-odd-address.sym" \
	--text-start 0x1000 -o "$tmp/bp.uwt"
expect "breakpad INIT at an odd address: taken as even, exit 0" 0 $?
run "$UWPROF" table --breakpad "$here/../../fuzz/regress/breakpad/init-odd-size.sym" \
	--text-start 0x1000 -o "$tmp/bp.uwt"
expect "breakpad INIT of one byte at an odd address: a whole halfword, exit 0" 0 $?
run "$UWPROF" table --breakpad "$here/../../fuzz/regress/breakpad/init-overlap.sym" \
	--text-start 0x1000 -o "$tmp/bp.uwt"
expect "breakpad INIT records that overlap: exit 2" 2 $?
grep -q 'STACK CFI INIT records at 0x1000 and 0x1010 overlap' "$tmp/err" &&
	ok "breakpad INIT records that overlap: both named" ||
	fail "breakpad INIT records that overlap: $(cat "$tmp/err")"

# An FDE that runs over the next functions (fuzz_table with FUZZ_STRICT;
# remade here with mkelf.py and one FDE's range patched): the layout
# leaves the later functions out, noted, but the generator's own check
# still looked for their rows: "internal error", exit 3.
run "$UWPROF" table "$here/../../fuzz/regress/table/fde-overlaps-next.so" \
	-o "$tmp/ov.uwt" --no-debug-file --report "$tmp/ov.rep"
expect "an FDE over the next function: exit 0" 0 $?
expect "the later functions noted as overlapped" "f4 f6" \
	"$(awk '$4 == "overlap" {print $1}' "$tmp/ov.rep" | paste -sd' ')"

# The same after a DW_CFA_set_loc (fuzz_table, a 10 s timeout): the check
# of the registers stopped at the encoded address, and libdw, given
# DW_CFA_restore_extended r182452215 after it, took 8.5 s and 1.4 GB for a
# file of 1.1 KB.  Its only FDE is now refused: nothing to encode.
/usr/bin/time -f %M -o "$tmp/rss" timeout 20 "$UWPROF" table \
	"$here/../../fuzz/regress/table/set-loc-then-huge-register.so" \
	-o "$tmp/setloc.uwt" --no-debug-file >/dev/null 2>"$tmp/err"
expect "a huge register after DW_CFA_set_loc: exit 1 (an empty table)" 1 $?
rss=$(tail -n 1 "$tmp/rss")
if [ "${rss:-999999}" -lt 100000 ] && grep -q 'no function could be encoded' "$tmp/err"; then
	ok "a huge register after DW_CFA_set_loc: ${rss} KB at most"
else
	fail "a huge register after DW_CFA_set_loc: ${rss:-?} KB, $(cat "$tmp/err")"
fi

# An FDE for 0xa0..0xb8 naming r238942460, and a sane one for 0xb0..0xb8
# (fuzz_table, out of memory): the first was left out, but libdw, asked
# for 0xb0 while the second was walked, ran the first's instructions and
# took 1.9 GB.  An FDE that overlaps an insane one is now left out too.
/usr/bin/time -f %M -o "$tmp/rss" timeout 20 "$UWPROF" table \
	"$here/../../fuzz/regress/table/overlapping-fde-huge-register.so" \
	-o "$tmp/ovl.uwt" --no-debug-file --report "$tmp/ovl.rep" >/dev/null 2>&1
expect "an FDE over an insane one: exit 0" 0 $?
rss=$(tail -n 1 "$tmp/rss")
if [ "${rss:-999999}" -lt 100000 ] &&
   [ "$(awk '$4 == "empty" {print $2}' "$tmp/ovl.rep" | paste -sd' ')" = "0xa0 0xb0" ]; then
	ok "an FDE over an insane one: ${rss} KB at most, both left out"
else
	fail "an FDE over an insane one: ${rss:-?} KB, $(grep empty "$tmp/ovl.rep")"
fi

# .ARM.extab entries popping D registers past D15 (B3 79 and the like;
# fuzz_table with FUZZ_STRICT): the opcode walker took them, the table
# failed its own validation, "internal error", exit 3.  Their functions
# are now left out as undecodable.
run "$UWPROF" table "$here/../../fuzz/regress/table/vfp-range-past-d15.so" \
	-o "$tmp/vfp.uwt" --no-debug-file --report "$tmp/vfp.rep"
expect "a VFP range past D15: exit 0" 0 $?
expect "its functions left out as undecodable" "f0 f3 f6" \
	"$(awk '$4 == "ehabi-undecodable" {print $1}' "$tmp/vfp.rep" | paste -sd' ')"

# A .plt of odd size (0x39 bytes; fuzz_table with FUZZ_STRICT): the
# part no stub covers became a 1-byte refused function at 0x98 and the
# filler after it started at 0x99, the same halfword offset: "internal
# error", exit 3.  Functions now end on a whole halfword.
run "$UWPROF" table "$here/../../fuzz/regress/table/plt-odd-size.so" \
	-o "$tmp/odd.uwt" --no-debug-file
expect "a .plt of odd size: exit 0" 0 $?
run "$UWPROF" dump "$tmp/odd.uwt"
expect "the odd byte's function covers its whole halfword" 1 \
	"$(grep -c '^0x98\.\.0x9a: ' "$tmp/out")"

# DWARF rows at odd bytes (fuzz_table with FUZZ_STRICT): a CIE with code
# alignment 1 advancing to 0x85 in the function at 0x80, and an FDE at
# the odd address 0x535 whose row libdw also gave for 0x548, the next
# function's start.  Rows at +0x4 and +0x5 (+0x0 and +0x1) went into the
# table as two pairs at the same halfword: a function offset list that
# fails validation, or a row the table does not give back; "internal
# error", exit 3.  A row at an odd byte now holds from the next halfword.
run "$UWPROF" table "$here/../../fuzz/regress/table/cfi-row-odd-offset.so" \
	-o "$tmp/oddrow.uwt" --no-debug-file
expect "a CFI row at an odd offset: exit 0" 0 $?
run "$UWPROF" dump "$tmp/oddrow.uwt"
expect "the row at 0x85 holds from 0x86" "+0x6 +0x4 +0x0" \
	"$(sed -n '/^0x80\.\./,/^0x/{/^  +/p}' "$tmp/out" | awk '{print $1}' | paste -sd' ')"
run "$UWPROF" table "$here/../../fuzz/regress/table/fde-odd-end-row.so" \
	-o "$tmp/oddrow.uwt" --no-debug-file --prologue-analysis
expect "a neighbour FDE's row at an odd byte: exit 0" 0 $?

# An executable section at an odd address right after .text (fuzz_table's
# input with its .plt moved to 0x2c1): the refused code there started at
# 0x2c1, one byte after .text's end, and the filler before it at 0x2c0
# had the same halfword offset: "internal error", exit 3.  The layout
# now places entries by halfword, not by byte.
run "$UWPROF" table "$here/../../fuzz/regress/table/section-odd-address.so" \
	-o "$tmp/oddsec.uwt" --no-debug-file
expect "a code section at an odd address: exit 0" 0 $?
run "$UWPROF" dump "$tmp/oddsec.uwt"
expect "its code starts in the halfword at 0x2c0, once" 1 \
	"$(grep -c '^0x2c0\.\.' "$tmp/out")"

# The same .plt at 0x5f, the lowest code of .text's segment, as fuzz_table
# found it: the table counted halfwords from an odd start, a byte off all
# code at even addresses ("internal error", exit 3, before the layout
# worked in halfwords; after it, neighbouring functions looked like
# overlaps).  An odd text start, from the ELF or --text-start, is an error.
run "$UWPROF" table "$here/../../fuzz/regress/table/plt-odd-address.so" \
	-o "$tmp/oddplt.uwt" --no-debug-file
expect "code starting at an odd address: exit 2" 2 $?
grep -q 'odd address 0x5f (.plt)' "$tmp/err" &&
	ok "code starting at an odd address: the section named" ||
	fail "code starting at an odd address: $(cat "$tmp/err")"
printf '%s\n' 'STACK CFI INIT 1000 10 .cfa: sp 0 + .ra: lr' \
	'STACK CFI 1004 .cfa: sp 8 + lr: .cfa -4 + ^' \
	'STACK CFI INIT 1010 8 .cfa: sp 0 + .ra: lr' >"$tmp/two.sym"
run "$UWPROF" table --breakpad "$tmp/two.sym" --text-start 0xfff \
	-o "$tmp/bp.uwt"
expect "an odd --text-start: exit 2" 2 $?
grep -q -- '--text-start 0xfff is odd' "$tmp/err" &&
	ok "an odd --text-start: named" ||
	fail "an odd --text-start: $(cat "$tmp/err")"

# A mapping's file found as a FIFO (or a device) where symbols are looked
# for: report opened it and waited for a writer forever.
mkdir "$tmp/symfs"
mkfifo "$tmp/symfs/fixture"
run "$UWPROF" report -q --symfs "$tmp/symfs" -f folded "$data/fixture.data"
rc=$?
expect "FIFO named like the mapping: report does not block" 0 $rc
grep -q '^\[fixture\]\|;\[fixture\]' "$tmp/out" && ok "FIFO skipped: frames named [fixture]" ||
	fail "FIFO skipped: frames named [fixture]"
rm "$tmp/symfs/fixture"
ln -s /dev/zero "$tmp/symfs/fixture"
run "$UWPROF" report -q --symfs "$tmp/symfs" -f folded "$data/fixture.data"
expect "a device named like the mapping: report finishes" 0 $?

# The data file itself as a FIFO or a directory: a clear error, exit 2.
mkfifo "$tmp/data.fifo"
run "$UWPROF" report "$tmp/data.fifo"
expect "data file is a FIFO: exit 2" 2 $?
grep -q "not a regular file" "$tmp/err" && ok "message says not a regular file" ||
	fail "message says not a regular file: $(cat "$tmp/err")"
run "$UWPROF" table "$tmp/data.fifo" -o "$tmp/x.uwt"
expect "table of a FIFO: exit 2" 2 $?
run "$UWPROF" dump "$tmp/data.fifo"
expect "dump of a FIFO: exit 2" 2 $?
finish
