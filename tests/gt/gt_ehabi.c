// SPDX-License-Identifier: GPL-2.0
/*
 * A ground-truth routine that only an .ARM.exidx entry describes: built
 * with -funwind-tables and no -g (no DWARF CFI), and with code after its
 * return that no path reaches, as a C++ landing pad is (reached by the
 * unwinder alone), so prologue analysis refuses it and the table has its
 * exidx opcodes only.  Those describe the frame after the prologue;
 * samples at its first instruction (where qemu delivers a signal: a
 * call's target starts a block) find the push not run yet.  Written out,
 * so the prologue is exactly push, vpush and sub sp, each undone by the
 * epilogue; and a shrink-wrapped one, whose early exit runs before the
 * push.
 */
#include "gt_nocfi.h"

static volatile unsigned int ehabi_sink;

/*
 * The personality routines the compact exidx entries name (pr1: more
 * than three opcodes, in .ARM.extab).  Nothing here
 * throws, so it never runs; defined (weak: a static link's libgcc_eh
 * wins if anything pulls it in) so that the dynamic builds need no
 * libgcc_s.so.1, which the ground truth's root does not have.
 */
__attribute__((weak, used)) void __aeabi_unwind_cpp_pr0(void)
{
	__builtin_trap();
}

__attribute__((weak, used)) void __aeabi_unwind_cpp_pr1(void)
{
	__builtin_trap();
}

/* Called from ehabi_work's body (by name from its assembly). */
__attribute__((noinline, noclone, used)) static unsigned int ehabi_leaf(unsigned int x)
{
	ehabi_sink = x;
	return x * 0x9e3779b9u + (x >> 7);
}

__asm__(
"	.text\n"
"	.syntax unified\n"
"	.thumb\n"
"	.p2align 2\n"
"	.global ehabi_work\n"
"	.type ehabi_work, %function\n"
"	.thumb_func\n"
"ehabi_work:\n"
"	.fnstart\n"
"	push {r4, r5, r6, lr}\n"
"	.save {r4, r5, r6, lr}\n"
"	vpush {d8}\n"
"	.vsave {d8}\n"
"	sub sp, #16\n"
"	.pad #16\n"
"	mov r4, r0\n"
"	str r0, [sp, #4]\n"
"	bl ehabi_leaf\n"
"	ldr r1, [sp, #4]\n"
"	add r0, r1\n"
"	add sp, #16\n"
"	vpop {d8}\n"
"	pop {r4, r5, r6, pc}\n"
"	bl abort\n"
"	.fnend\n"
"	.size ehabi_work, . - ehabi_work\n"
/*
 * Shrink-wrapped: an early exit before the push (n a multiple of 8), its
 * "bx lr" reached with the caller's frame; the push a block of its own
 * after the branch, so samples find it too.
 */
"	.p2align 2\n"
"	.global ehabi_shrink\n"
"	.type ehabi_shrink, %function\n"
"	.thumb_func\n"
"ehabi_shrink:\n"
"	.fnstart\n"
"	lsls r1, r0, #29\n"
"	beq 1f\n"
"	push {r4, lr}\n"
"	.save {r4, lr}\n"
"	mov r4, r0\n"
"	bl ehabi_leaf\n"
"	add r0, r4\n"
"	pop {r4, pc}\n"
"1:	adds r0, #1\n"
"	bx lr\n"
"	bl abort\n"
"	.fnend\n"
"	.size ehabi_shrink, . - ehabi_shrink\n"
#ifdef __thumb__
"	.thumb\n"
#else
"	.arm\n"
#endif
);
