// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis of thread entries (clone wrappers): what is known of
 * the clone system call's result along a path ("svc 0", then a test of r0),
 * how a branch on it splits the paths into the caller's and the new
 * thread's (the outermost frame), and whether an analysis found such a
 * path at all.  prologue_thread.c runs the analysis over the entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include "table/prologue_int.h"

/*
 * A conditional branch on the clone system call's result splits the
 * paths: where r0 is 0 runs the new thread (the outermost frame), the
 * other side the caller.  @taken and @fall get each side's state.
 */
void pa_clone_split(const struct tb_insn *in, const struct pa_state *st,
		    struct pa_state *taken, struct pa_state *fall)
{
	const struct tb_arm *a = &in->detail->arm;
	bool zero_taken = false, known = false;

	*taken = *st;
	*fall = *st;
	taken->clone = fall->clone = PA_CL_NONE;
	if (st->clone == PA_CL_FLAGS && (a->cc == ARM_CC_EQ || a->cc == ARM_CC_NE)) {
		zero_taken = a->cc == ARM_CC_EQ;
		known = true;
	} else if (st->clone == PA_CL_R0 &&
		   (in->id == ARM_INS_CBZ || in->id == ARM_INS_CBNZ) &&
		   a->operands[0].type == ARM_OP_REG &&
		   a->operands[0].reg == ARM_REG_R0) {
		zero_taken = in->id == ARM_INS_CBZ;
		known = true;
	}
	if (known)
		(zero_taken ? taken : fall)->child = true;
}

/*
 * The clone system call and the test of its result, in a thread entry:
 * "svc 0", then "cmp r0, #0", "tst r0, r0" or "movs r0, r0" (or a cbz/cbnz
 * on r0) before the branch.  Anything else forgets the result.
 */
void pa_clone_track(const struct pa_flow *fl, const struct tb_insn *in,
		    struct pa_state *st)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands;
	bool r0_first = a->op_count == 2 && op[0].type == ARM_OP_REG &&
			op[0].reg == ARM_REG_R0;
	u8 was = st->clone;

	st->clone = PA_CL_NONE;
	if (!fl->thread_entry || pa_conditional(in))
		return;
	if (in->id == ARM_INS_SVC) {
		st->clone = PA_CL_R0;
	} else if (was == PA_CL_R0 && r0_first &&
		   ((in->id == ARM_INS_CMP && op[1].type == ARM_OP_IMM &&
		     !op[1].imm) ||
		    ((in->id == ARM_INS_TST || (in->id == ARM_INS_MOV &&
						a->update_flags)) &&
		     op[1].type == ARM_OP_REG && op[1].reg == ARM_REG_R0))) {
		st->clone = PA_CL_FLAGS;
	}
}

static bool has_child_row(const struct tb_cfi_func *f)
{
	for (u32 i = 0; i < f->nrows; i++)
		if (f->rows[i].r[TB_RA].kind == TB_R_UNDEF)
			return true;
	return false;
}

/* Without a child path this is no thread entry. */
int pa_child_found(int r, struct tb_cfi_func *f, char *why, size_t wlen)
{
	if (r > 0 && !has_child_row(f)) {
		snprintf(why, wlen, "no clone system call with a test of its result");
		free(f->rows);
		f->rows = NULL;
		f->nrows = 0;
		r = 0;
	}
	return r;
}
