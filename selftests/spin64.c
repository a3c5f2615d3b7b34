// SPDX-License-Identifier: GPL-2.0
/*
 * A 64-bit (AArch64) process for compat_test and record_vm.sh on arm64
 * kernels: it spins in user space until it is killed.  The VM has only the
 * armhf C library, so this is built with none: _start is the program.
 */
void _start(void);

void _start(void)
{
	for (;;)
		__asm__ volatile("" ::: "memory");
}
