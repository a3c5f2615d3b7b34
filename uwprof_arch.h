/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels uwprof runs on: a 32-bit ARM kernel,
 * where every user task is AArch32, and an arm64 kernel, where only compat
 * tasks are.  The unwinder sees AArch32 registers either way.
 */
#ifndef _UWPROF_ARCH_H
#define _UWPROF_ARCH_H

#include <linux/compat.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "unwind_v2.h"

#ifdef CONFIG_ARM64

/* On arm64, AArch32 r0..r14 are x0..x14 and the pc is the pc. */
static inline bool uwprof_arch_regs(const struct pt_regs *regs,
				    struct uw2_regs *out)
{
	int i;

	for (i = 0; i < 15; i++)
		out->r[i] = lower_32_bits(regs->regs[i]);
	out->r[15] = lower_32_bits(regs->pc);
	return compat_thumb_mode(regs);
}

static inline bool uwprof_arch_task_is_32bit(struct task_struct *task)
{
	return is_compat_thread(task_thread_info(task));
}

/* A 32-bit task's VFP instructions do not trap here (sampler.c). */
#define UWPROF_ARCH_VFP_TRAPS	0

static inline bool uwprof_arch_vfp_moves_sp(u32 insn, bool thumb)
{
	return false;
}

/* Where the kernel mapped @mm's vDSO (the AArch32 one for compat tasks). */
static inline unsigned long uwprof_arch_vdso(struct mm_struct *mm)
{
	return (unsigned long)mm->context.vdso;
}

#else /* 32-bit ARM: every user task is AArch32 */

static inline bool uwprof_arch_regs(const struct pt_regs *regs,
				    struct uw2_regs *out)
{
	/*
	 * r0..r15 lead struct pt_regs, as in struct uw2_regs.  Four blocks
	 * of four words, each one ldm and one stm: the 64-byte memcpy() was
	 * a loop of about 40 instructions, in every sample.
	 */
	struct uwprof_arch_quad { u32 w[4]; };
	const struct uwprof_arch_quad *from = (const void *)regs->uregs;
	struct uwprof_arch_quad *to = (void *)out->r;

	BUILD_BUG_ON(sizeof(regs->uregs[0]) != sizeof(out->r[0]) ||
		     sizeof(regs->uregs) < sizeof(out->r) ||
		     sizeof(out->r) != 4 * sizeof(*to));
	to[0] = from[0];
	to[1] = from[1];
	to[2] = from[2];
	to[3] = from[3];
	return regs->ARM_cpsr & PSR_T_BIT;
}

static inline bool uwprof_arch_task_is_32bit(struct task_struct *task)
{
	return true;
}

/*
 * The first VFP instruction after a context switch traps: VFP is off,
 * and the undefined-instruction entry saves the pc of the instruction
 * after the trapped one, with interrupts on, until the VFP handler has
 * turned VFP on and set the pc back to run it.  A sample taken in the
 * kernel in that window sees a pc past an instruction that has not run.
 * The rows there are still right unless it moves sp, which only a VFP
 * load or store multiple with writeback does: then they read the frame
 * 8 or more bytes off (a wrong frame, or a word 0 taken for the
 * outermost frame).  Nothing tells the window from an interrupt after
 * such an instruction ran, so the sampler refuses both.
 */
#define UWPROF_ARCH_VFP_TRAPS	IS_ENABLED(CONFIG_VFP)

/*
 * Is @insn, the word before the saved pc (a Thumb-2 instruction's first
 * halfword in bits 0-15, as a little-endian word holds it), a VFP load
 * or store multiple that writes sp back: vpush, vpop, vstmdb sp!,
 * vldmia sp!?  "110P UDWL Rn" in bits 27-20 (Thumb: of the first
 * halfword) and coprocessor 10 or 11; W set, P unlike U, Rn sp.
 */
static inline bool uwprof_arch_vfp_moves_sp(u32 insn, bool thumb)
{
	if (thumb) {
		insn = insn << 16 | insn >> 16;
		if (insn >> 29 != 7)	/* no 32-bit instruction */
			return false;
	}
	return (insn & 0x0e2f0e00) == 0x0c2d0a00 &&
	       !(insn >> 24 & 1) != !(insn >> 23 & 1);
}

static inline unsigned long uwprof_arch_vdso(struct mm_struct *mm)
{
#ifdef CONFIG_VDSO
	return mm->context.vdso;
#else
	return 0;
#endif
}

#endif

#endif /* _UWPROF_ARCH_H */
