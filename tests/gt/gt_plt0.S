/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth: a resolver entered with the return address on the
 * stack, in the shape of glibc's _dl_runtime_resolve and the PLT0 that
 * jumps to it (ARM code).  gt_plt0_call(x), called from gt.c's leaf
 * (routine plt0), does what PLT0 does: "str lr, [sp, #-4]!", lr set to
 * a pointer into a table (no return address), ip to the entry, and a
 * jump to gt_rs_resolve.  The resolver pushes r0-r4, calls
 * gt_rs_lookup with the return address in lr already gone, pops r0-r4
 * and the entry word into lr ("pop {r0-r4, lr}": one word more than
 * it pushed) and tail-calls the function found with "bx ip".  Without
 * CFI (the stripped builds) only the second entry hypothesis of prologue
 * analysis (docs/TABLES.md) gives the resolver rows; with CFI, the
 * analysis checks them.  The resolver comes before the trampoline: the
 * trampoline's branch into it with its frame up is a shared tail, whose
 * rows the resolver's analysis, done first, gives.
 */
	.syntax unified
	.arm
	.cfi_sections .debug_frame

	.text
	.balign	4
	.type	gt_rs_target, %function
gt_rs_target:			@ (x r0): the function "resolved", a leaf
	.cfi_startproc
	mov	r1, #12
	mov	r2, r0
1:	mla	r0, r2, r0, r1
	ror	r0, r0, #13
	subs	r1, r1, #1
	bne	1b
	bx	lr
	.cfi_endproc
	.size	gt_rs_target, . - gt_rs_target

	.balign	4
	.type	gt_rs_lookup, %function
gt_rs_lookup:			@ (word r0, index r1): the target, a leaf
	.cfi_startproc
	mov	r2, #12
1:	add	r0, r0, r1, lsl #3
	eor	r0, r0, r0, lsr #7
	subs	r2, r2, #1
	bne	1b
	ldr	r0, 2f
	bx	lr
2:	.word	gt_rs_target
	.cfi_endproc
	.size	gt_rs_lookup, . - gt_rs_lookup

	.balign	4
	.type	gt_rs_resolve, %function
gt_rs_resolve:			@ [sp]: the return address; lr: &gt_rs_got[2]
	.cfi_startproc
	.cfi_def_cfa_offset 4
	.cfi_offset lr, -4
	push	{r0-r4}
	.cfi_adjust_cfa_offset 20
	.cfi_rel_offset r4, 16
	ldr	r0, [lr, #-4]	@ lr read as a pointer, not returned through
	sub	r1, ip, lr
	sub	r1, r1, #4
	add	r1, r1, r1
	bl	gt_rs_lookup
	mov	ip, r0
	pop	{r0-r4, lr}	@ the entry word into lr: sp 4 above entry
	.cfi_def_cfa_offset 0
	.cfi_restore r4
	.cfi_restore lr
	bx	ip
	.cfi_endproc
	.size	gt_rs_resolve, . - gt_rs_resolve

	.balign	4
	.globl	gt_plt0_call
	.type	gt_plt0_call, %function
gt_plt0_call:			@ (x r0): gt_rs_target(x), through the resolver
	.cfi_startproc
	str	lr, [sp, #-4]!
	.cfi_def_cfa_offset 4
	.cfi_offset lr, -4
	adr	lr, gt_rs_got + 8
	add	ip, lr, #4
	b	gt_rs_resolve
	.cfi_endproc
	.size	gt_plt0_call, . - gt_plt0_call

	.balign	4
gt_rs_got:			@ what lr points into: read, never run
	.word	0, 0, 0x5bd1e995, 0
