// SPDX-License-Identifier: GPL-2.0
/*
 * Ground-truth routines in ARM code with APCS frames (gcc -marm
 * -mapcs-frame) and no unwind information, the shape of vDSOs and kernels'
 * user code built with frame pointers for ARM (Debian's 5.10 vDSO): "mov
 * ip, sp; push {..., fp, ip, lr, pc}; sub fp, ip, #4" and back with "sub
 * sp, fp, #k; ldm sp, {..., fp, sp, pc}", sp reloaded from ip's slot.
 * Only prologue analysis gives them rules.
 */
#include "gt_nocfi.h"

static volatile unsigned int apcs_sink;

__attribute__((noinline)) static unsigned int apcs_mix(const unsigned int *v,
						       unsigned int n)
{
	unsigned int h = 0x811c9dc5u;

	for (unsigned int i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x01000193u;
	return h;
}

/* A variable-length array: sp moves by a register, fp keeps the frame. */
__attribute__((noinline)) static unsigned int apcs_scratch(unsigned int n)
{
	volatile unsigned int buf[n + 1];

	for (unsigned int i = 0; i <= n; i++)
		buf[i] = i * 3u;
	return apcs_mix((const unsigned int *)buf, n + 1);
}

unsigned int apcs_work(unsigned int n)
{
	unsigned int v[32];

	for (unsigned int i = 0; i < 32; i++)
		v[i] = n + i * 0x9e3779b9u;
	apcs_sink = apcs_mix(v, 32) + apcs_scratch(n & 63);
	return apcs_sink;
}
