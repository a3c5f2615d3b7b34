// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: APCS frames' returns.  An APCS prologue pushes ip
 * (sp's value before the push, the CFA) with the saved registers, and its
 * epilogue loads sp and pc with them, without write-back ("ldm sp, {r4,
 * fp, sp, pc}" or "ldmdb fp, {...}").  This file says which instruction
 * is such a return and whether it undoes the frame; the walker
 * (prologue_step.c) follows it as a return.  The prologue side (mov ip,
 * sp; sub fp, ip, #4) is one of prologue_dp.c's forms.
 */
#include <stddef.h>
#include "table/prologue_int.h"

/*
 * An APCS return loads sp and pc with the saved registers, without
 * write-back: "ldm sp, {r4, fp, sp, pc}" after "sub sp, fp, #k", or
 * "ldmdb fp, {r4, fp, sp, pc}".  Before a tail call the same epilogue
 * loads lr instead of pc ("ldm sp, {r4, r5, fp, sp, lr}; b other").
 */
bool pa_loads_sp_and_pc(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	bool sp = false;

	if ((in->id != ARM_INS_LDM && in->id != ARM_INS_LDMDB) ||
	    a->writeback || a->op_count < 3 ||
	    (a->operands[a->op_count - 1].reg != ARM_REG_PC &&
	     a->operands[a->op_count - 1].reg != ARM_REG_LR))
		return false;
	for (int k = 1; k < a->op_count; k++)
		sp |= a->operands[k].reg == ARM_REG_SP;
	return sp;
}

/*
 * The registers come from their own slots, sp from the slot that holds
 * the CFA (the ip pushed by the prologue) and pc from lr's: the frame is
 * gone and the return address is back in place.  NULL with @after the
 * state past the return, or why the return is refused.
 */
const char *pa_apcs_undo(const struct tb_insn *in, const struct pa_state *st,
			 struct pa_state *after)
{
	const struct tb_arm *a = &in->detail->arm;
	int n = a->op_count - 1;
	s32 at;

	*after = *st;
	if (in->id == ARM_INS_LDM && a->operands[0].reg == ARM_REG_SP &&
	    !st->on_fp)
		at = -st->cfa;
	else if (in->id == ARM_INS_LDMDB && st->fp >= 0 &&
		 pa_slot_of(a->operands[0].reg) == st->fp)
		at = -st->fp_off - 4 * n;
	else
		return "load of sp from an unknown place";
	for (int k = 1; k <= n; k++, at += 4) {
		int r = pa_slot_of(a->operands[k].reg);
		s32 want;

		if (r < 0 || r >= 16)
			return "load of sp from an unknown place";
		want = r == 13 ? st->cfa_copy : pa_slot(st, r == 15 ? 14 : r);
		if (want != at && (r >= 13 || pa_callee_saved(r)))
			return "return that does not undo the frame";
		if (r < 15)	/* the caller's value again */
			after->dirty &= ~(1u << r);
	}
	after->cfa = 0;
	after->on_fp = false;
	after->fp = after->spreg = -1;
	after->cfa_copy = PA_NONE;
	pa_clear_slots(after);
	return NULL;
}
