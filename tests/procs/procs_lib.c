// SPDX-License-Identifier: GPL-2.0
/*
 * libprocs_a.so and libprocs_b.so for procs_dl: one source, built with
 * -DLIB=a and -DLIB=b, so the two have the same layout but their own
 * function names (a_spin, a_work; b_spin, b_work).
 */
#define NOINLINE __attribute__((noinline))
#define CAT2(x, y) x##_##y
#define CAT(x, y) CAT2(x, y)

static volatile unsigned int sink;

NOINLINE void CAT(LIB, spin)(unsigned int n)
{
	unsigned int x = n;

	for (unsigned int i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	sink = x;
}

NOINLINE void CAT(LIB, work)(unsigned int n)
{
	CAT(LIB, spin)(n);
	sink++;
}

void lib_entry(unsigned int n)
{
	CAT(LIB, work)(n);
	sink++;
}
