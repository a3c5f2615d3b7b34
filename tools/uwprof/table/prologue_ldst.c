// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: the load, store, push and pop forms that change the
 * frame or use it (ARM and Thumb push/pop, vpush/vpop, stmdb/ldm with
 * write-back to sp, str/strd with pre-decrement, ldr/ldrd post-indexed
 * from sp, and str(d)/ldr(d) at [sp, #k]).  Only which form an
 * instruction is, with its registers and offset; prologue_frame.c applies
 * it.
 */
#include "table/prologue_int.h"

/* Registers of a push/pop list, ascending, as slots; -1 if odd. */
static int reg_list(const struct tb_arm *a, int first, int *regs)
{
	int n = 0;

	for (int i = first; i < a->op_count; i++) {
		int s;

		if (a->operands[i].type != ARM_OP_REG)
			return -1;
		s = pa_slot_of(a->operands[i].reg);
		if (s < 0 || s == 13 || (n && s <= regs[n - 1]))
			return -1;
		regs[n++] = s;
	}
	return n;
}

/*
 * A post-indexed [sp], #step of at least @size bytes, a multiple of 4:
 * the memory operand and the immediate after.  @extra gets what the step
 * frees beyond the registers loaded.
 */
static bool post_sp(const struct tb_dec_op *op, s32 size, s32 *extra)
{
	/* ARM's "ldr r4, [sp], #-16" moves sp down: no pop */
	if (op[0].type != ARM_OP_MEM || op[0].mem.base != ARM_REG_SP ||
	    op[0].mem.index != ARM_REG_INVALID || op[0].mem.disp ||
	    op[1].type != ARM_OP_IMM || op[1].subtracted ||
	    op[1].imm < size || (op[1].imm & 3))
		return false;
	*extra = op[1].imm - size;
	return true;
}

/*
 * str/ldr rA, [sp, #k] or strd/ldrd rA, rB, [sp, #k], no writeback, k >= 0:
 * the @nregs registers in @regs, k in @imm.
 */
static bool sp_slot(const struct tb_arm *a, int nregs, int *regs, int *n, s32 *imm)
{
	const struct tb_dec_op *m = &a->operands[nregs];

	if (a->writeback || a->op_count != nregs + 1 || m->subtracted ||
	    m->type != ARM_OP_MEM || m->mem.base != ARM_REG_SP ||
	    m->mem.index != ARM_REG_INVALID || m->mem.disp < 0 ||
	    (m->mem.disp & 3))
		return false;
	for (int i = 0; i < nregs; i++) {
		if (a->operands[i].type != ARM_OP_REG)
			return false;
		regs[i] = pa_slot_of(a->operands[i].reg);
		if (regs[i] < 0 || regs[i] == 13 || regs[i] == 15)
			return false;
	}
	*n = nregs;
	*imm = m->mem.disp;
	return true;
}

/* The load, store, push and pop forms; @regs/@n or @imm filled. */
enum pa_kind pa_classify_mem(const struct tb_insn *in, int *regs, int *n, s32 *imm)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands;

	switch (in->id) {
	case ARM_INS_PUSH:
	case ARM_INS_VPUSH:
		*n = reg_list(a, 0, regs);
		return *n > 0 ? PA_PUSH : PA_OTHER;
	case ARM_INS_POP:
	case ARM_INS_VPOP:
		*n = reg_list(a, 0, regs);
		return *n > 0 ? PA_POP : PA_OTHER;
	case ARM_INS_STMDB:
	case ARM_INS_VSTMDB:
	case ARM_INS_LDM:
	case ARM_INS_VLDMIA:
		if (!a->writeback || op[0].type != ARM_OP_REG ||
		    op[0].reg != ARM_REG_SP)
			return PA_OTHER;
		*n = reg_list(a, 1, regs);
		if (*n <= 0)
			return PA_OTHER;
		return in->id == ARM_INS_STMDB || in->id == ARM_INS_VSTMDB ?
			PA_PUSH : PA_POP;
	case ARM_INS_STR:
		/* str rN, [sp, #-4]!: a one-register push; with a larger
		 * step, a push with room (libgcc's __aeabi_dcmpeq keeps sp
		 * 8-byte aligned so: "str lr, [sp, #-8]!") */
		if (a->writeback && a->op_count == 2 && op[1].type == ARM_OP_MEM &&
		    op[1].mem.base == ARM_REG_SP && op[1].mem.index == ARM_REG_INVALID &&
		    op[1].mem.disp <= -4 && !(op[1].mem.disp & 3) &&
		    op[0].type == ARM_OP_REG) {
			regs[0] = pa_slot_of(op[0].reg);
			*n = 1;
			*imm = -op[1].mem.disp;
			if (regs[0] < 0 || regs[0] == 13)
				return PA_OTHER;
			if (*imm == 4)
				return PA_PUSH;
			return regs[0] != 15 ? PA_STRD : PA_OTHER;
		}
		return sp_slot(a, 1, regs, n, imm) ? PA_STORE : PA_OTHER;
	case ARM_INS_STRD:
		if (a->writeback && a->op_count == 3 && op[2].type == ARM_OP_MEM &&
		    op[2].mem.base == ARM_REG_SP &&
		    op[2].mem.index == ARM_REG_INVALID && op[2].mem.disp <= -8 &&
		    !(op[2].mem.disp & 3)) {
			regs[0] = pa_slot_of(op[0].reg);
			regs[1] = pa_slot_of(op[1].reg);
			*imm = -op[2].mem.disp;
			*n = 2;
			return regs[0] >= 0 && regs[1] >= 0 && regs[0] != 13 &&
			       regs[1] != 13 && regs[0] != 15 && regs[1] != 15 ?
				PA_STRD : PA_OTHER;
		}
		return sp_slot(a, 2, regs, n, imm) ? PA_STORE : PA_OTHER;
	case ARM_INS_LDRD:
		/* ldrd rA, rB, [sp], #8: a pop of two (glibc's strlen); a
		 * larger step frees slots above them too (strcmp's #16) */
		if (a->writeback && a->op_count == 4 && post_sp(&op[2], 8, imm) &&
		    op[0].type == ARM_OP_REG && op[1].type == ARM_OP_REG) {
			regs[0] = pa_slot_of(op[0].reg);
			regs[1] = pa_slot_of(op[1].reg);
			*n = 2;
			return regs[0] >= 0 && regs[1] > regs[0] &&
			       regs[1] < 13 ? PA_POP : PA_OTHER;
		}
		return sp_slot(a, 2, regs, n, imm) ? PA_LOAD : PA_OTHER;
	case ARM_INS_LDR:
		/* ldr rN, [sp], #4: a pop of one (#16: strcmp again) */
		if (a->writeback && a->op_count == 3 && post_sp(&op[1], 4, imm) &&
		    op[0].type == ARM_OP_REG) {
			regs[0] = pa_slot_of(op[0].reg);
			*n = 1;
			return regs[0] >= 0 && regs[0] != 13 ? PA_POP : PA_OTHER;
		}
		return sp_slot(a, 1, regs, n, imm) ? PA_LOAD : PA_OTHER;
	default:
		return PA_OTHER;
	}
}
