/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth: CFI in clang's shape, rows for the prologue only.
 * gt_cfi_tail(i) pushes r4 and lr, with CFI for the push, and picks one
 * of four cases by a table jump (tbb, as clang compiles a switch: the
 * analysis assumes the state at its targets, so it cannot replace the
 * CFI as a whole).  Each case works, pops the frame and then returns
 * or tail-calls gt_cfi_work, with no CFI row after the pop: clang
 * writes none.  A row that holds to the function's end unwinds the
 * popped frame there, a wrong frame (docs/TABLES.md).  The branch after
 * each pop makes the next instruction start a block, which qemu
 * samples without -singlestep (signals arrive between blocks).
 * gt_cfi_work comes first: in the stripped builds, where discovery finds
 * it as a tail call's target, no walk of gt_cfi_tail runs into it.
 * Called from gt.c's leaf (routine cfi-tail).
 */
	.syntax unified
	.thumb
	.cfi_sections .debug_frame

	.text
	.balign	4
	.globl	gt_cfi_work
	.type	gt_cfi_work, %function
	.thumb_func
gt_cfi_work:			@ (x r0): a few rounds of mixing, a leaf
	.cfi_startproc
	movs	r1, #8
1:	eor	r0, r0, r0, lsl #13
	eor	r0, r0, r0, lsr #17
	eor	r0, r0, r0, lsl #5
	subs	r1, r1, #1
	bne	1b
	bx	lr
	.cfi_endproc
	.size	gt_cfi_work, . - gt_cfi_work

	.balign	4
	.globl	gt_cfi_tail
	.type	gt_cfi_tail, %function
	.thumb_func
gt_cfi_tail:			@ (i r0): a sum
	.cfi_startproc
	push	{r4, lr}
	.cfi_def_cfa_offset 8
	.cfi_offset lr, -4
	.cfi_offset r4, -8
	mov	r4, r0
	and	r2, r0, #3
	tbb	[pc, r2]
1:	.byte	(2f - 1b) / 2, (3f - 1b) / 2, (4f - 1b) / 2, (8f - 1b) / 2
2:	@ the body's work, the pop ("ldmia.w sp!, {r4, lr}") and a tail call
	adds	r0, r4, #1
	eor	r0, r0, r4, lsl #3
	add	r0, r0, r4, lsr #2
	eor	r0, r0, r0, lsl #5
	add	r0, r0, r0, lsr #7
	pop	{r4, lr}
	b	5f
5:	b.w	gt_cfi_work
3:	@ a short body, then the same epilogue
	mul	r0, r4, r4
	ror	r0, r0, #11
	ldmia.w	sp!, {r4, lr}
	b	6f
6:	b.w	gt_cfi_work
4:	@ the pop into lr, then a return by bx lr
	eor	r0, r4, r4, lsl #4
	mla	r0, r0, r4, r4
	pop	{r4, lr}
	b	7f
7:	bx	lr
8:	@ an epilogue in two steps: r4 popped, then lr loaded
	adds	r0, r4, #3
	eor	r0, r0, r4, lsl #5
	add	r0, r0, r4, lsr #4
	eor	r0, r0, r0, lsl #2
	pop	{r4}
	b	9f
9:	ldr	lr, [sp], #4
	b	10f
10:	b.w	gt_cfi_work
	.cfi_endproc
	.size	gt_cfi_tail, . - gt_cfi_tail

	.section .note.GNU-stack, "", %progbits
