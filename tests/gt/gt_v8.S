/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth: an embedded blob laid out as V8 lays out its builtins in
 * libnode (lib/v8blob.c): the accessors V8 exports, reading variables
 * through the GOT; the code, each builtin padded with 0xcc to 32 bytes;
 * the data, three hashes and a row of seven words per builtin (its code's
 * offset and length first).  Builtin 0 is a frameless leaf, a word copy
 * in the shape of V8's MemCopyUint8Uint8, which C calls through a pointer
 * (gt.c, routine v8-leaf); builtin 1 has a frame and is never run.  Found
 * only where the accessors are exported (the dynamic builds).
 */
	.syntax unified
	.arm

	.text
	.balign	32
	.globl	gt_v8_copy
	.type	gt_v8_copy, %function
gt_v8_code:
gt_v8_copy:			@ (dst r0, src r1, bytes r2)
	bics	ip, r2, #3
	beq	2f
	add	ip, r0, ip
1:	ldr	r3, [r1], #4
	str	r3, [r0], #4
	cmp	r0, ip
	bne	1b
2:	lsls	r2, r2, #31
	ldrhcs	r3, [r1], #2
	strhcs	r3, [r0], #2
	ldrbne	r3, [r1]
	strbne	r3, [r0]
	bx	lr
gt_v8_copy_end:
	.size	gt_v8_copy, gt_v8_copy_end - gt_v8_copy
	.balign	32, 0xcc
gt_v8_framed:
	push	{fp, lr}
	mov	fp, sp
	bl	gt_v8_copy
	pop	{fp, pc}
gt_v8_framed_end:
	.balign	32, 0xcc
gt_v8_code_end:

	.section .rodata
	.balign	4
gt_v8_data:
	.word	0, 0, 0
	.word	0, gt_v8_copy_end - gt_v8_code, 0, 0, 0, 0, 0
	.word	gt_v8_framed - gt_v8_code, gt_v8_framed_end - gt_v8_framed
	.word	0, 0, 0, 0, 0
gt_v8_data_end:

	.data
	.balign	4
gt_v8_code_var:
	.word	gt_v8_code
gt_v8_code_size_var:
	.word	gt_v8_code_end - gt_v8_code
gt_v8_data_var:
	.word	gt_v8_data
gt_v8_data_size_var:
	.word	gt_v8_data_end - gt_v8_data

/* One accessor: the variable @var's value, through its GOT entry. */
	.macro	accessor name, var
	.text
	.balign	4
	.globl	\name
	.type	\name, %function
\name:
	ldr	r3, 1f
	ldr	r2, 2f
3:	add	r3, pc, r3
	ldr	r3, [r3, r2]
	ldr	r0, [r3]
	bx	lr
1:	.word	_GLOBAL_OFFSET_TABLE_ - (3b + 8)
2:	.word	\var(GOT)
	.size	\name, . - \name
	.endm

	accessor _ZN2v88internal23DefaultEmbeddedBlobCodeEv, gt_v8_code_var
	accessor _ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv, gt_v8_code_size_var
	accessor _ZN2v88internal23DefaultEmbeddedBlobDataEv, gt_v8_data_var
	accessor _ZN2v88internal27DefaultEmbeddedBlobDataSizeEv, gt_v8_data_size_var

	.section .note.GNU-stack, "", %progbits
