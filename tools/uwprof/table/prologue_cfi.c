// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: DWARF CFI checked against the instructions.
 * Hand-written CFI can be wrong at an instruction (glibc's strcmp states
 * the caller's frame at a branch target inside its frame), and clang's
 * describes prologues only: after an epilogue's "pop {r4-r7, lr}" its
 * rows still say the frame is up, up to the tail call or return that
 * ends the path.  This file finds every instruction an analysis reached
 * where the CFI's CFA or return address says another frame, and refuses
 * the CFI there when the analysis cannot replace it (prologue_pass.c
 * decides which).
 */
#include <stdlib.h>
#include <string.h>
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
	if (pa_slot(st, 14) != PA_NONE)
		return ra->kind == TB_R_OFFSET && ra->off == pa_slot(st, 14);
	return ra->kind != TB_R_OFFSET;
}

/* Do the registers @st has saved, and where, match the rules of @r? */
static bool saves_agree(const struct pa_state *st, const struct tb_row *r)
{
	for (int i = 0; i < TB_NREGS; i++) {
		const struct tb_rule *rule = &r->r[i];

		if (i == 13 || i == 14 || i == 15 || i == TB_RA)
			continue;	/* sp, pc: no slots; lr: row_agrees */
		if ((pa_slot(st, i) != PA_NONE) != (rule->kind == TB_R_OFFSET) ||
		    (rule->kind == TB_R_OFFSET && rule->off != pa_slot(st, i)))
			return false;
	}
	return true;
}

/*
 * Does instruction @i go on to the next one (a call returns there, a
 * branch may go to it)?
 */
static bool falls_through(const struct pa_flow *fl, u32 i)
{
	const struct tb_insn *in = &fl->ins[i];
	u32 next = (u32)(in->address + in->size);
	bool w[TB_NREGS];

	if (i + 1 >= fl->n || fl->ins[i + 1].address != next)
		return false;
	pa_writes(in, w, TB_NREGS);
	return !w[15] || pa_conditional(in) || pa_is_call(in) ||
	       pa_branch_target(in) == next;
}

/*
 * Instruction @i's range, into @t->cfi_bad.  A stretch entered only by
 * falling through from an instruction where the analysis and the CFI
 * agree on the whole frame (@agreed) is followed: the CFI proves the
 * frame it starts from, the analysis what each instruction does to it.
 * It goes on while each instruction falls through to the next and no
 * two frames meet (@ambiguous: the analysis refuses there too); any
 * other stretch refuses, and takes adjacent instructions in.
 */
static int add_bad(const struct pa_flow *fl, u32 i, bool agreed,
		   bool ambiguous, struct pa_text *t)
{
	u32 lo = (u32)fl->ins[i].address;
	u32 hi = i + 1 < fl->n ? (u32)fl->ins[i + 1].address : fl->hi;
	bool through = i && falls_through(fl, i - 1);
	struct pa_stretch *v, *last = t->ncfi_bad ?
				      &t->cfi_bad[t->ncfi_bad - 1] : NULL;

	if (last && last->hi == lo &&
	    (!last->follows || (through && !ambiguous))) {
		last->hi = hi;
		return 0;
	}
	v = realloc(t->cfi_bad, (t->ncfi_bad + 1) * sizeof(*v));
	if (!v)
		return -1;
	t->cfi_bad = v;
	t->cfi_bad[t->ncfi_bad++] = (struct pa_stretch){
		lo, hi, agreed && !ambiguous && through };
	return 0;
}

/*
 * Every instruction the analysis reached where the CFI says another frame
 * than the analysis, into @t->cfi_bad (ascending, adjacent ones joined);
 * @t->cfi_wrong is the first, or 0.  Where two frames meet (a
 * conditional pop inside an IT block) no one row is true on both paths:
 * the CFI is wrong there too.  0, or -1 out of memory.
 */
int pa_cfi_check(const struct pa_flow *fl, struct pa_text *t)
{
	const struct tb_cfi_func *cfi = t->cfi;
	struct tb_row full = { 0 };	/* rows state changes only */
	bool agreed = false;	/* at the instruction before */
	u32 k = 0;

	full.r[TB_RA] = (struct tb_rule){ TB_R_REG, 14, 0 };
	for (u32 i = 0; i < fl->n; i++) {
		const struct pa_state *st = &fl->st[i];
		u32 a = (u32)fl->ins[i].address;
		int ok;

		for (; k < cfi->nrows && cfi->rows[k].addr <= a; k++)
			tb_state_apply(&full, &cfi->rows[k]);
		if (!fl->have[i] || st->child || pa_is_padding(&fl->ins[i])) {
			agreed = false;
			continue;
		}
		ok = k && !st->ambiguous ? row_agrees(st, &full, &full.r[TB_RA]) : 0;
		if (!ok && add_bad(fl, i, agreed, st->ambiguous, t))
			return -1;
		agreed = ok == 1 && saves_agree(st, &full);
	}
	t->cfi_wrong = t->ncfi_bad ? t->cfi_bad[0].lo : 0;
	return 0;
}

/* The stretch of @bad (ascending) that holds @a, or NULL. */
static const struct pa_stretch *stretch_at(const struct pa_stretch *bad,
					   u32 nbad, u32 a)
{
	for (u32 j = 0; j < nbad && bad[j].lo <= a; j++)
		if (a < bad[j].hi)
			return &bad[j];
	return NULL;
}

static int u32_cmp(const void *x, const void *y)
{
	u32 a = *(const u32 *)x, b = *(const u32 *)y;

	return a < b ? -1 : a > b;
}

/*
 * The addresses where the rows of @f patched change: its rows', each
 * stretch's ends and the rows of @g inside followed stretches, those
 * inside the function, ascending, once each.
 */
static u32 *cut_points(const struct tb_cfi_func *f, const struct pa_stretch *bad,
		       u32 nbad, const struct tb_cfi_func *g, u32 *n)
{
	u32 *v = malloc((f->nrows + g->nrows + 2 * (size_t)nbad) * sizeof(*v));
	u32 m = 0, end = f->addr + f->size;

	if (!v)
		return NULL;
	for (u32 k = 0; k < f->nrows; k++)
		v[m++] = f->rows[k].addr;
	for (u32 j = 0; j < nbad; j++) {
		v[m++] = bad[j].lo;
		v[m++] = bad[j].hi;
	}
	for (u32 k = 0; k < g->nrows; k++) {
		const struct pa_stretch *b = stretch_at(bad, nbad, g->rows[k].addr);

		if (b && b->follows)
			v[m++] = g->rows[k].addr;
	}
	qsort(v, m, sizeof(*v), u32_cmp);
	*n = 0;
	for (u32 j = 0; j < m; j++)
		if (v[j] >= f->addr && v[j] < end && (!*n || v[*n - 1] != v[j]))
			v[(*n)++] = v[j];
	return v;
}

/* The state rows @f hold at @a, from @k on (rows ascend), into @st. */
static void state_at(const struct tb_cfi_func *f, u32 a, u32 *k,
		     struct tb_row *st)
{
	for (; *k < f->nrows && f->rows[*k].addr <= a; (*k)++)
		tb_state_apply(st, &f->rows[*k]);
}

/*
 * The CFI of @f patched over @bad: in a followed stretch the analysed
 * rows @g, in any other a row whose return address is ambiguous (the
 * refusal, conv.c), after each the CFI's whole state again.  Every row
 * states the whole state, so none depends on the one before.  0, or -1
 * out of memory.
 */
int pa_cfi_patch(struct tb_cfi_func *f, const struct pa_stretch *bad,
		 u32 nbad, const struct tb_cfi_func *g)
{
	struct tb_row cfi = { 0 }, ana = { 0 }, *rows;
	u32 n, k = 0, kg = 0, *at = cut_points(f, bad, nbad, g, &n);

	if (!at)
		return -1;
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		free(at);
		return -1;
	}
	cfi.r[TB_RA] = (struct tb_rule){ TB_R_REG, 14, 0 };
	for (u32 j = 0; j < n; j++) {
		const struct pa_stretch *b = stretch_at(bad, nbad, at[j]);

		state_at(f, at[j], &k, &cfi);
		state_at(g, at[j], &kg, &ana);
		rows[j] = b && b->follows ? ana : cfi;
		rows[j].addr = at[j];
		if (b && !b->follows)
			rows[j].r[TB_RA].kind = TB_R_AMBIGUOUS;
	}
	free(at);
	free(f->rows);
	f->rows = rows;
	f->nrows = n;
	return 0;
}
