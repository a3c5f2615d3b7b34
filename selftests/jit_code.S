/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code jit_test.c copies into anonymous executable memory, as a JIT
 * would write it: ARM code that keeps V8's frames on 32-bit ARM, so that
 * no table describes it and the unwinder must follow its frame chain.
 *
 *   jit_entry     native code calls in here: saves r4-r10, d8-d15, then
 *                 pushes its frame (c_entry_fp slot, the type marker
 *                 twice, fp, lr) with fp at the saved fp, and calls
 *   jit_outer     an ordinary frame (push {fp, lr}; mov fp, sp) that calls
 *   jit_inner     an ordinary frame that spins a while in JIT code, then
 *                 calls the native function whose address is in
 *                 jit_native (written by the test), with r11 its own fp
 *
 * It lives in .rodata: the test's own tables never cover it, and the
 * bytes are only run from the copy.  The offsets of the return addresses
 * and of the spin loop are exported for the test to judge frames by.
 */
	.syntax unified
	.arm
	.fpu	vfpv3-d16
	.section .rodata.jit_code, "a"
	.balign	4
	.global	jit_code_start, jit_code_end
	.global	jit_ret_entry, jit_ret_outer, jit_ret_inner
	.global	jit_spin_start, jit_spin_end, jit_native

jit_code_start:
jit_entry:
	push	{r4-r10}
	vpush	{d8-d15}
	mov	r5, #0			@ the c_entry_fp slot
	mov	r6, #2			@ ENTRY's marker (type 1 as a Smi)
	mov	r7, #2
	push	{r5, r6, r7, fp, lr}
	add	fp, sp, #12
	bl	jit_outer
jit_ret_entry:
	pop	{r5, r6, r7, fp, lr}
	vpop	{d8-d15}
	pop	{r4-r10}
	bx	lr

jit_outer:
	push	{fp, lr}
	mov	fp, sp
	sub	sp, sp, #8		@ a context and a function slot
	bl	jit_inner
jit_ret_outer:
	mov	sp, fp
	pop	{fp, pc}

jit_inner:
	push	{fp, lr}
	mov	fp, sp
	sub	sp, sp, #8
	movw	r0, #0x4000
jit_spin_start:
	subs	r0, r0, #1
	bne	jit_spin_start
jit_spin_end:
	ldr	ip, jit_native
	blx	ip
jit_ret_inner:
	mov	sp, fp
	pop	{fp, pc}
jit_native:
	.word	0			@ the native function, written by the test
jit_code_end:

	.section .note.GNU-stack, "", %progbits
