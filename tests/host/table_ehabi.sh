#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# EHABI-only functions (tools/uwprof/table/prologue_ehabi.c): functions
# an .ARM.exidx entry alone describes get the entry's row at +0 (return
# address in lr), the partial frame after each prologue instruction, the
# opcodes in the body and their epilogues' states, and a shrink-wrapped
# early exit the caller's frame; a function whose first instructions are
# not the steps its opcodes undo, or where a branch brings another frame
# than its target has, refuses whole, and an epilogue that does not undo
# them refuses up to its return.  The
# rows are read back with uwprof dump and compared with the offsets of
# labels the assembly puts after each instruction.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
CROSS=arm-linux-gnueabihf-
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v ${CROSS}gcc >/dev/null || { skip "no ${CROSS}gcc"; finish; exit; }

cat >"$tmp/t.S" <<'ASM'
	.syntax unified
	.text
	.thumb
	.macro thumb_fn name
	.p2align 2
	.global \name
	.type \name, %function
	.thumb_func
\name:
	.endm

	@ push, vpush, sub sp; the epilogue undoes them; then code no
	@ path reaches (prologue analysis refuses it: EHABI-only there too)
	thumb_fn t_ok
	.fnstart
	push {r4, r5, r6, lr}
	.save {r4, r5, r6, lr}
t_ok_1:	vpush {d8}
	.vsave {d8}
t_ok_2:	sub sp, #16
	.pad #16
t_ok_3:	mov r4, r0
	bl ext
	add sp, #16
t_ok_e1: vpop {d8}
t_ok_e2: pop {r4, r5, r6, pc}
t_ok_x:	bl abort
	.fnend
	.size t_ok, . - t_ok

	@ a tail call after the epilogue: the return address in lr again
	thumb_fn t_tail
	.fnstart
	push {r4, lr}
	.save {r4, lr}
t_tail_1: mov r4, r0
	bl ext
	adds r0, r4
	pop {r4, lr}
t_tail_e1: b.w ext
t_tail_x: nop
	.fnend
	.size t_tail, . - t_tail

	@ the opcodes say r5 is saved too: refused
	thumb_fn t_bad
	.fnstart
	push {r4, lr}
	.save {r4, r5, lr}
	bl ext
	pop {r4, pc}
	.fnend
	.size t_bad, . - t_bad

	@ shrink-wrapped: an early exit before the push, with the
	@ caller's frame
	thumb_fn t_shrink
	.fnstart
	cbz r0, t_shrink_x
	push {r4, lr}
	.save {r4, lr}
t_shrink_1: bl ext
	pop {r4, pc}
t_shrink_x: bx lr
	.fnend
	.size t_shrink, . - t_shrink

	@ the same exit reached from the body too: two frames meet there,
	@ refused
	thumb_fn t_join
	.fnstart
	cbz r0, 1f
	push {r4, lr}
	.save {r4, lr}
	bl ext
	cbnz r0, 1f
	pop {r4, pc}
1:	bx lr
	.fnend
	.size t_join, . - t_join

	@ "add sp" that undoes nothing: refused up to the return
	thumb_fn t_win
	.fnstart
	push {r4, lr}
	.save {r4, lr}
t_win_1: bl ext
	add sp, #8
t_win_b: pop {r4, pc}
t_win_c: bl ext
	pop {r4, pc}
	.fnend
	.size t_win, . - t_win

	@ the frame kept in r7: sp moves freely in the body
	thumb_fn t_fp
	.fnstart
	push {r7, lr}
	.save {r7, lr}
t_fp_1:	sub sp, #8
	.pad #8
t_fp_2:	add r7, sp, #0
	.setfp r7, sp, #0
t_fp_3:	bl ext
	sub sp, #64
	bl ext
	mov sp, r7
t_fp_e1: add sp, #8
t_fp_e2: pop {r7, pc}
	.fnend
	.size t_fp, . - t_fp

	@ ARM code
	.arm
	.p2align 2
	.global a_ok
	.type a_ok, %function
a_ok:
	.fnstart
	push {r4, r5, r11, lr}
	.save {r4, r5, r11, lr}
a_ok_1:	sub sp, sp, #24
	.pad #24
a_ok_2:	mov r4, r0
	bl ext
	add sp, sp, #24
a_ok_e1: pop {r4, r5, r11, pc}
	.fnend
	.size a_ok, . - a_ok

	@ two functions whose identical entries GNU ld merges into one
	.thumb
	thumb_fn m_one
	.fnstart
	push {r4, lr}
	.save {r4, lr}
m_one_1: bl ext
	pop {r4, pc}
	.fnend
	.size m_one, . - m_one
	thumb_fn m_two
	.fnstart
	push {r4, lr}
	.save {r4, lr}
m_two_1: bl ext
	pop {r4, pc}
	.fnend
	.size m_two, . - m_two
	@ a call that never returns ends a function too
	thumb_fn n_one
	.fnstart
	push {r4, lr}
	.save {r4, lr}
n_one_1: bl ext
	bl abort
	.fnend
	.size n_one, . - n_one
	thumb_fn n_two
	.fnstart
	push {r4, lr}
	.save {r4, lr}
n_two_1: bl ext
	pop {r4, pc}
	.fnend
	.size n_two, . - n_two
ASM
# one exidx entry per function, as a compiler's; then merged as GNU ld
# does by default
if ! ${CROSS}gcc -shared -nostdlib -Wl,--no-merge-exidx-entries \
	-o "$tmp/t.so" "$tmp/t.S" 2>"$tmp/cc.log" ||
   ! ${CROSS}gcc -shared -nostdlib -o "$tmp/merged.so" "$tmp/t.S" \
	2>>"$tmp/cc.log"; then
	fail "does not assemble: $(head -n 3 "$tmp/cc.log")"
	finish
	exit
fi

# $1's rows as "+OFF opcodes", ascending; $2 the table's dump
rows() {
	local a
	a=$(printf '0x%x' "$(addr "$1")")
	awk -v a="$a" 'index($1, a "..") == 1 { on = 1; next }
		/^0x/ { on = 0 }
		on { off = $1; sub(/^ *\+0x[0-9a-f]+ +uit [0-9]+ +/, "");
		     print off, $0 }' "$2" | sort -k1,1
}
addr() { echo $((16#$(${CROSS}nm "$so" | awk -v n="$1" '$3 == n { print $1 }'))); }
# "+OFF" of label $2 in function $1
off() { printf '+0x%x' $(($(addr "$2") - $(addr "$1"))); }
sorted() { printf '%s\n' "$@" | sort -k1,1; }

so=$tmp/t.so
for mode in default prologue; do
	args=()
	[ $mode = prologue ] && args=(--prologue-analysis)
	"$UWPROF" table "$so" "${args[@]}" --report "$tmp/$mode.report" \
		--stats -o "$tmp/$mode.uwt" >"$tmp/$mode.stats" ||
		{ fail "$mode: uwprof table"; continue; }
	"$UWPROF" dump "$tmp/$mode.uwt" >"$tmp/$mode.dump"
	d=$tmp/$mode.dump
	P='pop {r4-r6, lr}; finish'
	expect "$mode: t_ok: entry, each prologue step, body, epilogue" "$(sorted \
		"+0x0 finish" \
		"$(off t_ok t_ok_1) $P" \
		"$(off t_ok t_ok_2) vpop {d8}; $P" \
		"$(off t_ok t_ok_3) vsp += 16; vpop {d8}; $P" \
		"$(off t_ok t_ok_e1) vpop {d8}; $P" \
		"$(off t_ok t_ok_e2) $P" \
		"$(off t_ok t_ok_x) vsp += 16; vpop {d8}; $P")" "$(rows t_ok "$d")"
	[ $mode = prologue ] && continue
	expect "t_tail: lr again at the tail call" "$(sorted \
		"+0x0 finish" \
		"$(off t_tail t_tail_1) pop {r4, lr}; finish" \
		"$(off t_tail t_tail_e1) finish" \
		"$(off t_tail t_tail_x) pop {r4, lr}; finish")" "$(rows t_tail "$d")"
	expect "t_bad: the push is not the opcodes': refused" "+0x0 refuse" \
		"$(rows t_bad "$d")"
	expect "t_shrink: the early exit keeps the caller's frame" "$(sorted \
		"+0x0 finish" \
		"$(off t_shrink t_shrink_1) pop {r4, lr}; finish" \
		"$(off t_shrink t_shrink_x) finish")" "$(rows t_shrink "$d")"
	expect "t_join: two frames meet: refused" "+0x0 refuse" \
		"$(rows t_join "$d")"
	grep -q '^t_bad .* ehabi-unproven the prologue is not what the opcodes undo' \
		"$tmp/$mode.report" &&
		grep -q '^t_join .* ehabi-unproven a branch meets another frame at its target' \
		"$tmp/$mode.report" &&
		ok "the report names both refusals" ||
		fail "the report names both refusals: $(grep unproven "$tmp/$mode.report")"
	expect "t_win: an epilogue step that undoes nothing refuses to the return" "$(sorted \
		"+0x0 finish" \
		"$(off t_win t_win_1) pop {r4, lr}; finish" \
		"$(off t_win t_win_b) refuse" \
		"$(off t_win t_win_c) pop {r4, lr}; finish")" "$(rows t_win "$d")"
	F='pop {r7, lr}; finish'
	expect "t_fp: the frame pointer set last, sp back from it" "$(sorted \
		"+0x0 finish" \
		"$(off t_fp t_fp_1) $F" \
		"$(off t_fp t_fp_2) vsp += 8; $F" \
		"$(off t_fp t_fp_3) vsp = r7; vsp += 8; $F" \
		"$(off t_fp t_fp_e1) vsp += 8; $F" \
		"$(off t_fp t_fp_e2) $F")" "$(rows t_fp "$d")"
	A='pop {r4, r5, fp, lr}; finish'
	expect "a_ok: ARM code" "$(sorted \
		"+0x0 finish" \
		"$(off a_ok a_ok_1) $A" \
		"$(off a_ok a_ok_2) vsp += 24; $A" \
		"$(off a_ok a_ok_e1) $A")" "$(rows a_ok "$d")"
	grep -q '^EHABI-only functions: 10 with rows per state .* 2 refused' \
		"$tmp/$mode.stats" && ok "--stats counts them" ||
		fail "--stats counts them: $(grep EHABI "$tmp/$mode.stats")"
done

# merged: one entry for m_one and m_two; m_two's symbol after m_one's
# return starts it again at its entry
so=$tmp/merged.so
"$UWPROF" table "$so" -o "$tmp/merged.uwt" >/dev/null &&
	"$UWPROF" dump "$tmp/merged.uwt" >"$tmp/merged.dump" ||
	fail "merged: uwprof table"
if [ -n "$(rows m_two "$tmp/merged.dump")" ]; then
	skip "merged: the linker kept m_two's entry apart"
else
	expect "merged entries: each function's entry and push, after a return or a call that never returns" "$(sorted \
		"+0x0 finish" \
		"$(off m_one m_one_1) pop {r4, lr}; finish" \
		"$(off m_one m_two) finish" \
		"$(off m_one m_two_1) pop {r4, lr}; finish" \
		"$(off m_one n_one) finish" \
		"$(off m_one n_one_1) pop {r4, lr}; finish" \
		"$(off m_one n_two) finish" \
		"$(off m_one n_two_1) pop {r4, lr}; finish")" \
		"$(rows m_one "$tmp/merged.dump")"
fi
finish
