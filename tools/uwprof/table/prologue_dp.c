// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: the data-processing forms that change the frame
 * (ARM and Thumb mov, add, sub): sp moved by an immediate or by a register
 * (alloca), the frame pointer (r7 in Thumb code, r11 in ARM code) set from
 * sp, sp set back from it, and the APCS copies of sp through ip.  Only
 * which form an instruction is; prologue_frame.c applies it.
 */
#include "table/prologue_int.h"

/*
 * Thumb code keeps its frame pointer in r7 (r11 is one more callee-saved
 * register there: glibc's printf points it into a buffer on the stack
 * under a condition); ARM code in r11, or r7.
 */
static bool is_fp_reg(unsigned int reg, bool thumb)
{
	return reg == ARM_REG_R7 || (!thumb && reg == ARM_REG_R11);
}

/* What "add" or "sub" of @k adds, negated as unsigned: #0x80000000 too. */
static s32 added(bool sub, s32 k)
{
	return sub ? (s32)(0u - (u32)k) : k;
}

/*
 * r7 or r11 moved by an immediate, flags set or not ("adds r7, #32" before
 * gcc restores sp from it): PA_FP_COPY into itself; PA_OTHER if not.
 */
static enum pa_kind classify_fp_move(const struct tb_insn *in, bool thumb, int *regs,
				     s32 *imm)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands, *k = &op[a->op_count - 1];
	bool sub = in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW;

	if (a->op_count < 2 || a->op_count > 3 || op[0].type != ARM_OP_REG ||
	    !is_fp_reg(op[0].reg, thumb) || k->type != ARM_OP_IMM ||
	    k->shift.value ||
	    (a->op_count == 3 && (op[1].type != ARM_OP_REG ||
				  op[1].reg != op[0].reg)))
		return PA_OTHER;
	*imm = added(sub, k->imm);
	regs[0] = regs[1] = pa_slot_of(op[0].reg);
	return PA_FP_COPY;
}

/* The frame-pointer forms of add, sub and mov; PA_OTHER if none. */
static enum pa_kind classify_fp(const struct tb_insn *in, bool thumb, int *regs,
				s32 *imm)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands;
	bool sub = in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW;

	if (in->id != ARM_INS_MOV &&
	    classify_fp_move(in, thumb, regs, imm) != PA_OTHER)
		return PA_FP_COPY;
	if (a->update_flags || a->op_count < 2 || op[0].type != ARM_OP_REG ||
	    op[1].type != ARM_OP_REG)
		return PA_OTHER;
	if (a->op_count == 2 && in->id == ARM_INS_MOV) {
		*imm = 0;
		if (is_fp_reg(op[0].reg, thumb) && op[1].reg == ARM_REG_SP) {
			regs[0] = pa_slot_of(op[0].reg);
			return PA_SET_FP;
		}
		if (op[0].reg == ARM_REG_SP && pa_slot_of(op[1].reg) >= 0 &&
		    pa_slot_of(op[1].reg) < 13) {
			regs[0] = pa_slot_of(op[1].reg);
			return PA_SP_FROM_FP;
		}
		/* into a scratch register: a callee-saved one written goes
		 * through the checks of any other write */
		if (op[1].reg == ARM_REG_SP && pa_slot_of(op[0].reg) >= 0 &&
		    (pa_slot_of(op[0].reg) < 4 || pa_slot_of(op[0].reg) == 12)) {
			regs[0] = pa_slot_of(op[0].reg);
			return PA_SP_COPY;
		}
		return PA_OTHER;
	}
	if (a->op_count != 3 || (!sub && in->id != ARM_INS_ADD &&
				 in->id != ARM_INS_ADDW))
		return PA_OTHER;
	if (op[2].type == ARM_OP_IMM && !op[2].shift.value) {
		*imm = added(sub, op[2].imm);
		if (is_fp_reg(op[0].reg, thumb) && op[1].reg == ARM_REG_SP) {
			regs[0] = pa_slot_of(op[0].reg);
			return PA_SET_FP;
		}
		if (op[0].reg == ARM_REG_SP && is_fp_reg(op[1].reg, thumb)) {
			regs[0] = pa_slot_of(op[1].reg);
			return PA_SP_FROM_FP;
		}
		if (is_fp_reg(op[1].reg, thumb) && pa_slot_of(op[0].reg) >= 0 &&
		    pa_slot_of(op[0].reg) < 13) {
			regs[0] = pa_slot_of(op[0].reg);
			regs[1] = pa_slot_of(op[1].reg);
			return PA_FP_COPY;
		}
		if (is_fp_reg(op[0].reg, thumb) && pa_slot_of(op[1].reg) >= 0 &&
		    pa_slot_of(op[1].reg) < 13) {
			regs[0] = pa_slot_of(op[0].reg);
			regs[1] = pa_slot_of(op[1].reg);
			return PA_FP_FROM_COPY;
		}
		return PA_OTHER;
	}
	if (sub && op[2].type == ARM_OP_REG && op[0].reg == ARM_REG_SP &&
	    op[1].reg == ARM_REG_SP)
		return PA_SP_DYN;
	return PA_OTHER;
}

/* The data-processing forms (mov, add, sub); @regs or @imm filled. */
enum pa_kind pa_classify_dp(const struct tb_insn *in, bool thumb, int *regs,
			    s32 *imm)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands;

	switch (in->id) {
	case ARM_INS_MOV:
		return classify_fp(in, thumb, regs, imm);
	case ARM_INS_SUB:
	case ARM_INS_SUBW:
	case ARM_INS_ADD:
	case ARM_INS_ADDW:
		if (classify_fp(in, thumb, regs, imm) != PA_OTHER)
			return classify_fp(in, thumb, regs, imm);
		if (a->update_flags || op[0].type != ARM_OP_REG ||
		    op[0].reg != ARM_REG_SP)
			return PA_OTHER;
		if (a->op_count == 3 && op[1].type == ARM_OP_REG &&
		    op[1].reg == ARM_REG_SP && op[2].type == ARM_OP_IMM &&
		    !op[2].shift.value)
			*imm = op[2].imm;
		else if (a->op_count == 2 && op[1].type == ARM_OP_IMM)
			*imm = op[1].imm;
		else
			return PA_OTHER;
		if (*imm < 0 || (*imm & 3))
			return PA_OTHER;
		return in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW ?
			PA_SUB_SP : PA_ADD_SP;
	default:
		return PA_OTHER;
	}
}
