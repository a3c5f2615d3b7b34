// SPDX-License-Identifier: GPL-2.0
/*
 * Ground-truth routines built with no unwind information at all (no
 * -g, no unwind tables), as C library code in libc.a is: only prologue
 * analysis gives them rules.  Their shapes are the ones it must follow:
 * saved registers, a trap on an impossible value, a call that never
 * returns at the end of the function, a call to an undefined weak
 * function that the linker turned into a nop at the end of one (static
 * glibc has such), a literal pool, and a stack allocation of run-time
 * size, whose frame the frame pointer holds and moves.
 */
#include <stdlib.h>

#include "gt_nocfi.h"

static volatile unsigned int nocfi_sink;
static volatile int nocfi_trap;	/* never set: the trap stays in the code */

/* Defined nowhere: a static link leaves a nop where it is called. */
extern void nocfi_absent(unsigned int h) __attribute__((weak, noreturn));

__attribute__((noinline)) static unsigned int mix(const unsigned int *v,
						  unsigned int n)
{
	unsigned int h = 0x811c9dc5u;

	for (unsigned int i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x01000193u;
	if (nocfi_trap == 2)
		nocfi_absent(h);	/* never */
	return h;
}

/*
 * A variable-length array: sp moves by a register, r7 keeps the frame.
 * With fixed locals below the saved registers too, gcc moves r7 back up
 * before sp is restored from it ("adds r7, #32; mov sp, r7").
 */
__attribute__((noinline)) static unsigned int scratch(unsigned int n)
{
	volatile unsigned int fixed[8];
	volatile unsigned int buf[n + 1];

	for (unsigned int i = 0; i <= n; i++)
		buf[i] = i * 3u;
	for (unsigned int i = 0; i < 8; i++)
		fixed[i] = n ^ i;
	return mix((const unsigned int *)buf, n + 1) + fixed[n & 7];
}

unsigned int nocfi_work(unsigned int n)
{
	unsigned int v[32];

	if (n > 4096)
		abort();	/* never: a noreturn call at the end */
	for (unsigned int i = 0; i < 32; i++)
		v[i] = n + i * 0x9e3779b9u;
	if (nocfi_trap)
		__builtin_trap();
	nocfi_sink = mix(v, 32) + scratch(n & 63);
	return nocfi_sink;
}
