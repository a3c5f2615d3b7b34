// SPDX-License-Identifier: GPL-2.0
/*
 * The program behind tests/data/report/fixture.data: a known call tree
 * for the report tests, recorded once in the VM (see
 * tests/host/report_cli.sh for how to record it again).
 *	main -> run -> work_a -> spin	(about half the time)
 *	main -> run -> work_b -> spin	(about a third)
 *	main -> run -> work_b -> deep(3) -> deep(2) -> deep(1) -> spin
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned int sink;

NOINLINE void spin(unsigned int n)
{
	unsigned int x = n;

	for (unsigned int i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	sink = x;
}

NOINLINE void deep(int level, unsigned int n)
{
	if (level)
		deep(level - 1, n);
	else
		spin(n);
	__asm__ volatile("");
}

NOINLINE void work_a(unsigned int n)
{
	spin(3 * n);
	__asm__ volatile("");
}

NOINLINE void work_b(unsigned int n)
{
	spin(2 * n);
	deep(3, n);
	__asm__ volatile("");
}

NOINLINE void run(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		work_a(100000);
		work_b(100000);
	}
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atoi(argv[1]) : 100);
	return 0;
}
