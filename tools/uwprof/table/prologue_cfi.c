// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: DWARF CFI checked against the instructions.
 * Hand-written CFI can be wrong at an instruction (glibc's strcmp states
 * the caller's frame at a branch target inside its frame); this file finds
 * the first instruction an analysis reached where the CFI's CFA or return
 * address says another frame.  prologue_pass.c decides what replaces the
 * CFI then.
 */
#include "table/prologue_int.h"

/*
 * Do the CFA of row @r and the return address rule @ra in force there say
 * what @st knows?  1 yes, 0 no, -1 not comparable: a frame pointer on one
 * side only (both true descriptions after "add r7, sp, #k").
 */
static int row_agrees(const struct pa_state *st, const struct tb_row *r,
		      const struct tb_rule *ra)
{
	int reg = st->on_fp ? st->fp : 13;

	if (r->cfa_kind != TB_CFA_REG || (r->cfa_reg == 13) != (reg == 13))
		return -1;
	if (r->cfa_reg != reg || r->cfa_off != (st->on_fp ? st->fp_off : st->cfa))
		return 0;
	/* an undefined return address (an outermost frame), an expression
	 * or another register: nothing the analysis states */
	if (ra->kind != TB_R_OFFSET && ra->kind != TB_R_UNSET &&
	    ra->kind != TB_R_SAME && !(ra->kind == TB_R_REG && ra->reg == 14))
		return -1;
	if (st->slot[14] != PA_NONE)
		return ra->kind == TB_R_OFFSET && ra->off == st->slot[14];
	return ra->kind != TB_R_OFFSET;
}

/*
 * Hand-written CFI can be wrong at an instruction: glibc's strcmp states
 * the caller's frame at a branch target inside its frame.  The first
 * instruction the analysis reached where the rules to check disagree with
 * it, or 0.
 */
u32 pa_cfi_wrong_at(const struct pa_flow *fl, const struct tb_cfi_func *cfi)
{
	struct tb_row full = { 0 };	/* rows state changes only */
	u32 k = 0;

	full.r[TB_RA] = (struct tb_rule){ TB_R_REG, 14, 0 };
	for (u32 i = 0; i < fl->n; i++) {
		const struct pa_state *st = &fl->st[i];
		u32 a = (u32)fl->ins[i].address;

		for (; k < cfi->nrows && cfi->rows[k].addr <= a; k++)
			tb_state_apply(&full, &cfi->rows[k]);
		if (!fl->have[i] || st->child || st->ambiguous ||
		    pa_is_padding(&fl->ins[i]))
			continue;
		if (!k || !row_agrees(st, &full, &full.r[TB_RA]))
			return a;
	}
	return 0;
}
