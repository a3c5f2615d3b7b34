/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's loads of user stack words in place, for unwind_v2.c's
 * direct walks (struct uw2_stack's direct): one load a word, with an
 * exception-table fixup, inside one user-access window, instead of a copy
 * of the stack.  On 32-bit ARM the loads are the module's own, which
 * check no address: the kernel's __get_user() there is an out-of-line
 * get_user() that switches the user domain on and off around each word.
 * On arm64 they are __get_user(), which checks the address itself.  The
 * sampler sets direct only for a window below TASK_SIZE.  In the
 * interrupt, a load that faults (a page not resident, not readable, not
 * mapped) takes the fixup: the fault handler does not run with interrupts
 * off.  Host builds (unwind_v2.c) stand in the stack's word callback.
 */
#ifndef UNWIND_V2_USER_H
#define UNWIND_V2_USER_H

#include <linux/uaccess.h>

#include "unwind_v2.h"

#ifdef CONFIG_ARM

#include <asm/domain.h>

/* The exception-table entry that sends a fault at 1: to the fixup at 3: */
#define UW2_USER_FIXUP					\
	"	.pushsection __ex_table, \"a\"\n"		\
	"	.align	3\n"					\
	"	.long	1b, 3b\n"				\
	"	.popsection"

/* Open the user-access window (the user domain, on CPU_SW_DOMAIN_PAN). */
static __always_inline unsigned int uw2_user_open(void)
{
	return uaccess_save_and_enable();
}

static __always_inline void uw2_user_close(unsigned int flags)
{
	uaccess_restore(flags);
}

/*
 * The word at user address @addr (aligned, below TASK_SIZE) into *@val,
 * or 0 with *@err set to 1 when the load faulted; *@err is left alone
 * otherwise, so that a run of loads tells its faults once.  The
 * unprivileged load where the kernel uses domains (TUSER), else a plain
 * one, as the kernel's own get_user().
 */
static __always_inline void uw2_user_ldr(u32 addr, u32 *val, u32 *err)
{
	u32 v, e = *err;

	asm volatile("1:	" TUSER(ldr) "	%1, [%2], #0\n"
		     "2:\n"
		     "	.pushsection .text.fixup, \"ax\"\n"
		     "	.align	2\n"
		     "3:	mov	%0, #1\n"
		     "	mov	%1, #0\n"
		     "	b	2b\n"
		     "	.popsection\n"
		     UW2_USER_FIXUP
		     : "+r" (e), "=&r" (v)
		     : "r" (addr));
	*val = v;
	*err = e;
}

/* The word at user address @addr into *@val; false when the load faulted. */
static __always_inline bool uw2_user_load(const struct uw2_stack *st,
					  u32 addr, u32 *val)
{
	u32 err;

	/*
	 * 0 set where the load is, not a constant: the caller loop's rare
	 * loads would have the compiler keep it in a register the loop's
	 * straight line needs.
	 */
	asm volatile("mov	%0, #0" : "=r" (err));
	uw2_user_ldr(addr, val, &err);
	return !err;
}

/*
 * The @count words from user address @addr on into @buf; false when one
 * faulted.  All are loaded and the faults told at the end: a test after
 * each load costs more than the rare fault saves.
 */
static __always_inline bool uw2_user_loads(const struct uw2_stack *st,
					   u32 addr, u32 count, u32 *buf)
{
	u32 k, err = 0;

	for (k = 0; k < count; k++)
		uw2_user_ldr(addr + 4 * k, &buf[k], &err);
	return !err;
}

/*
 * The word at user address @addr (as uw2_user_load()), or 0 when the load
 * faulted: one instruction, for a word whose 0 means stop anyway.
 */
static __always_inline u32 uw2_user_word(const struct uw2_stack *st,
					 u32 addr)
{
	u32 v;

	asm volatile("1:	" TUSER(ldr) "	%0, [%1], #0\n"
		     "2:\n"
		     "	.pushsection .text.fixup, \"ax\"\n"
		     "	.align	2\n"
		     "3:	mov	%0, #0\n"
		     "	b	2b\n"
		     "	.popsection\n"
		     UW2_USER_FIXUP
		     : "=&r" (v)
		     : "r" (addr));
	return v;
}

#else /* arm64: the kernel's __get_user(), an ldtr past access_ok() */

/* Faults disabled, as they are in the interrupt anyway: might_fault() */
static __always_inline unsigned int uw2_user_open(void)
{
	pagefault_disable();
	return 0;
}

static __always_inline void uw2_user_close(unsigned int flags)
{
	pagefault_enable();
}

static __always_inline bool uw2_user_load(const struct uw2_stack *st,
					  u32 addr, u32 *val)
{
	const u32 __user *p = (const u32 __user *)(unsigned long)addr;

	return !__get_user(*val, p);
}

static __always_inline bool uw2_user_loads(const struct uw2_stack *st,
					   u32 addr, u32 count, u32 *buf)
{
	const u32 __user *p = (const u32 __user *)(unsigned long)addr;
	u32 k;
	int err = 0;

	for (k = 0; k < count; k++)
		err |= __get_user(buf[k], p + k);
	return !err;
}

static __always_inline u32 uw2_user_word(const struct uw2_stack *st,
					 u32 addr)
{
	u32 v;

	return uw2_user_load(st, addr, &v) ? v : 0;
}

#endif

#endif /* UNWIND_V2_USER_H */
