// SPDX-License-Identifier: GPL-2.0
/*
 * The library of the APK test (tests/host/apk_vm.sh): a few functions
 * calling each other in a hot loop, built Thumb-2 without the C library
 * (-nostdlib) so that apk_loader needs no symbol resolution: static
 * functions call each other directly, and hot_run, the ELF's entry point,
 * is all the loader calls.
 */
#define NOINLINE __attribute__((noinline))

static NOINLINE unsigned int hot_leaf(unsigned int x)
{
	for (int i = 0; i < 64; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

static NOINLINE unsigned int hot_mid_b(unsigned int x)
{
	unsigned int y = hot_leaf(x);

	return (y ^ hot_leaf(y + 1)) + 1;
}

static NOINLINE unsigned int hot_mid_a(unsigned int x)
{
	unsigned int y = hot_mid_b(x);

	return hot_mid_b(y) + 3;
}

unsigned int hot_run(unsigned int n)
{
	unsigned int x = n;

	for (unsigned int i = 0; i < n; i++)
		x = hot_mid_a(x) + 1;
	return x;
}
