// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: what one instruction does to the flow, whatever its
 * frame effect: whether it is conditional, whether and where it branches
 * (direct, call, computed jump), which registers it writes (with what
 * capstone 4 leaves out), and whether it is alignment padding.  The walker
 * (prologue_step.c, prologue_jump.c) asks these; they know no path.
 */
#include <string.h>
#include "table/prologue_int.h"

/*
 * Does @in change the flow?  By instruction id for branches, and by a
 * destination (first operand) or load list naming pc otherwise; "add r1,
 * pc" reads pc, "push {lr}"/"str pc" store it.
 */
static bool writes_pc(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;

	switch (in->id) {
	case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BLX: case ARM_INS_BX:
	case ARM_INS_BXJ: case ARM_INS_CBZ: case ARM_INS_CBNZ:
	case ARM_INS_TBB: case ARM_INS_TBH:
	case ARM_INS_BKPT: case ARM_INS_UDF: case ARM_INS_TRAP:
		return true;
	case ARM_INS_PUSH: case ARM_INS_STR: case ARM_INS_STM:
	case ARM_INS_STMDB: case ARM_INS_STMDA: case ARM_INS_STMIB:
	case ARM_INS_CMP: case ARM_INS_CMN: case ARM_INS_TST: case ARM_INS_TEQ:
		return false;
	default:
		break;
	}
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG &&
		    a->operands[i].reg == ARM_REG_PC &&
		    (i == 0 || in->id == ARM_INS_POP || in->id == ARM_INS_LDM ||
		     in->id == ARM_INS_LDMDA || in->id == ARM_INS_LDMDB ||
		     in->id == ARM_INS_LDMIB))
			return true;
	return false;
}

/*
 * pa_slot_of() as a bit of a mask, by register number: the write mask
 * asks it of every operand of every instruction walked, and a load costs
 * the device less than the tests and a 64-bit shift.  Filled before
 * main(), so the analysis's threads only read it.
 */
static uint64_t slot_bits[ARM_REG_ENDING];

static void __attribute__((constructor)) slot_bits_fill(void)
{
	for (unsigned int r = 0; r < ARM_REG_ENDING; r++) {
		int s = pa_slot_of(r);

		slot_bits[r] = s >= 0 ? 1ull << s : 0;
	}
}

/* Register @reg's slot as a bit of a mask, 0 for none. */
static uint64_t slot_bit(unsigned int reg)
{
	return reg < ARM_REG_ENDING ? slot_bits[reg] : 0;
}

uint64_t pa_listed_writes(const struct tb_insn *in)
{
	const struct tb_detail *d = in->detail;
	const struct tb_arm *a = &d->arm;
	uint64_t m = 0;

	for (int i = 0; i < d->regs_write_count; i++)
		m |= slot_bit(d->regs_write[i]);
	for (int i = 0; i < a->op_count; i++) {
		const struct tb_dec_op *o = &a->operands[i];

		if (o->type == ARM_OP_REG && (o->access & CS_AC_WRITE))
			m |= slot_bit(o->reg);
		else if (o->type == ARM_OP_MEM && a->writeback &&
			 o->mem.base != ARM_REG_INVALID)
			m |= slot_bit(o->mem.base);
	}
	return m;
}

/* Which of the slots of @in's register operands. */
static uint64_t operand_slots(const struct tb_arm *a)
{
	uint64_t m = 0;

	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG)
			m |= slot_bit(a->operands[i].reg);
	return m;
}

uint64_t pa_write_mask(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	uint64_t m = 0;

	/* capstone 4 leaves sp out of vpush/vpop's written registers, so
	 * any write-back to sp counts, whatever capstone lists. */
	if (in->id == ARM_INS_VPUSH || in->id == ARM_INS_VPOP)
		m |= 1ull << 13;
	for (int i = 0; a->writeback && i < a->op_count; i++)
		if ((a->operands[i].type == ARM_OP_MEM &&
		     a->operands[i].mem.base == ARM_REG_SP) ||
		    (i == 0 && a->operands[i].type == ARM_OP_REG &&
		     a->operands[i].reg == ARM_REG_SP))
			m |= 1ull << 13;
	/* Nor does it list pc for branches, or for a load into pc. */
	if (writes_pc(in))
		m |= 1ull << 15;
	if (!in->id) {
		/* Unknown writes (capstone lists none for an id of 0): the
		 * worst. */
		m |= 7ull << 13;
	} else {
		m |= pa_listed_writes(in);
		/* capstone 4 lists no written register for these: their
		 * register operands are all destinations */
		if (in->id == ARM_INS_MRC || in->id == ARM_INS_MRRC ||
		    in->id == ARM_INS_LDREXD || in->id == ARM_INS_LDAEXD)
			m |= operand_slots(a);
		/* capstone has svc write lr; a system call preserves all
		 * but r0. */
		if (in->id == ARM_INS_SVC)
			m = 1;
	}
	return m & ((1ull << TB_NREGS) - 1);
}

uint64_t pa_writes(const struct tb_insn *in, bool *w, u32 nw)
{
	uint64_t m = pa_write_mask(in) &
		     (nw >= 64 ? ~0ull : (1ull << nw) - 1);

	memset(w, 0, nw * sizeof(*w));
	for (uint64_t b = m; b; b &= b - 1)
		w[tb_ctz64(b)] = true;
	return m;
}

/* The direct branch target, or 0. */
u32 pa_branch_target(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;

	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_IMM)
			return (u32)a->operands[i].imm;
	return 0;
}

bool pa_is_call(const struct tb_insn *in)
{
	return in->id == ARM_INS_BL || in->id == ARM_INS_BLX;
}

bool pa_plain_branch(const struct tb_insn *in)
{
	return in->id == ARM_INS_B && !pa_conditional(in);
}

/*
 * Jumps computed from a register.  Forward ones enter code after them:
 * "add pc, pc, r3" (glibc's memcpy and memmove enter unrolled code so)
 * and tbb/tbh with their table after them; code no path reaches after
 * such a jump is taken as its target, in its frame (the nearest jump
 * before it).  Other ones ("mov pc, r3" in libgcc's division, "bx r3",
 * a pc-relative table load) go anywhere: every instruction no path
 * reaches is taken as a target, in the jump's frame (jump_state).  These
 * may as well be tail calls through a pointer, which leave that frame.
 */
enum pa_jump pa_computed_jump(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *last = &a->operands[a->op_count - 1];

	switch (in->id) {
	case ARM_INS_TBB:
	case ARM_INS_TBH:
		return PA_J_FORWARD;
	case ARM_INS_ADD:
		return a->op_count == 3 && a->operands[1].type == ARM_OP_REG &&
		       a->operands[1].reg == ARM_REG_PC &&
		       a->operands[2].type == ARM_OP_REG ? PA_J_FORWARD :
							   PA_J_NONE;
	case ARM_INS_LDR:
		return a->op_count == 2 && a->operands[1].type == ARM_OP_MEM &&
		       a->operands[1].mem.base == ARM_REG_PC &&
		       a->operands[1].mem.index != ARM_REG_INVALID ?
			       PA_J_ANY : PA_J_NONE;
	case ARM_INS_MOV:
	case ARM_INS_BX:
		return last->type == ARM_OP_REG && last->reg != ARM_REG_LR &&
		       last->reg != ARM_REG_PC ? PA_J_ANY : PA_J_NONE;
	default:
		return PA_J_NONE;
	}
}

/* A trap (__builtin_trap: udf, "trap" for clang's 0xdefe, bkpt). */
bool pa_is_trap(const struct tb_insn *in)
{
	return in->id == ARM_INS_UDF || in->id == ARM_INS_TRAP ||
	       in->id == ARM_INS_BKPT;
}

/*
 * Alignment padding: nop, a move of a register to itself, zero fill
 * (ARM's "andeq r0, r0, r0"), or lld's fill 0xd4d4d4d4 (ARM's trap
 * word: "bmi" in Thumb code, "ldrble" in ARM code), which it puts
 * between input sections.
 */
bool pa_is_padding(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	/* the bytes as a number: no library call for four bytes */
	u32 v = in->bytes[0] | (u32)in->bytes[1] << 8, fill = 0xd4d4;

	if (in->size == 4) {
		v |= (u32)in->bytes[2] << 16 | (u32)in->bytes[3] << 24;
		fill = 0xd4d4d4d4;
	}
	if (in->id == ARM_INS_NOP || (in->size == 4 && !v) || v == fill)
		return true;
	return (in->id == ARM_INS_MOV || in->id == ARM_INS_LSL) &&
	       a->op_count == 2 && a->operands[0].type == ARM_OP_REG &&
	       a->operands[1].type == ARM_OP_REG &&
	       a->operands[0].reg == a->operands[1].reg;
}
