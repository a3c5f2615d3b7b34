/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM code that keeps V8's frames on 32-bit ARM, for jit_test.c, twice:
 *
 *  - jit_code_*, in .rodata: the test copies it into anonymous memory it
 *    maps executable, as a JIT writes its code;
 *  - jit_text_*, in .text: run where it is, as V8's builtins run embedded
 *    in the binary that holds them, inside the range its table covers.
 *
 *   entry     native code calls in here: saves r4-r10, d8-d15, then pushes
 *             its frame (c_entry_fp slot, the type marker twice, fp, lr)
 *             with fp at the saved fp, and calls
 *   outer     an ordinary frame (push {fp, lr}; mov fp, sp) that calls
 *   inner     an ordinary frame that spins a while in this code, then
 *             calls the native function whose address is in the literal
 *             "native" (jit_test.c's native_leaf), with r11 its own fp
 *
 * The offsets of the return addresses and of the spin loop are the same
 * in both; the test judges frames by them.
 */
	.syntax unified
	.arm
	.fpu	vfpv3-d16

	.macro	jit_body p
\p\()_start:
	push	{r4-r10}
	vpush	{d8-d15}
	mov	r5, #0			@ the c_entry_fp slot
	mov	r6, #2			@ ENTRY's marker (type 1 as a Smi)
	mov	r7, #2
	push	{r5, r6, r7, fp, lr}
	add	fp, sp, #12
	bl	\p\()_outer
\p\()_ret_entry:
	pop	{r5, r6, r7, fp, lr}
	vpop	{d8-d15}
	pop	{r4-r10}
	bx	lr

\p\()_outer:
	push	{fp, lr}
	mov	fp, sp
	sub	sp, sp, #8		@ a context and a function slot
	bl	\p\()_inner
\p\()_ret_outer:
	mov	sp, fp
	pop	{fp, pc}

\p\()_inner:
	push	{fp, lr}
	mov	fp, sp
	sub	sp, sp, #8
	movw	r0, #0x4000
\p\()_spin_start:
	subs	r0, r0, #1
	bne	\p\()_spin_start
\p\()_spin_end:
	ldr	ip, \p\()_native
	blx	ip
\p\()_ret_inner:
	mov	sp, fp
	pop	{fp, pc}
\p\()_native:
	.word	native_leaf		@ Thumb bit included by the linker
\p\()_end:
	.endm

	.section .rodata.jit_code, "a"
	.balign	4
	.global	jit_code_start, jit_code_end, jit_code_ret_entry
	.global	jit_code_ret_outer, jit_code_ret_inner
	.global	jit_code_spin_start, jit_code_spin_end
	jit_body jit_code

	.text
	.balign	4
	.global	jit_text_start, jit_text_end
	jit_body jit_text

	.section .note.GNU-stack, "", %progbits
