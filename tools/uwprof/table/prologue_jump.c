// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis, the walker at control-flow instructions: calls,
 * returns through lr, traps, direct branches inside and out of the
 * function (tail calls to known starts, shared tails into other analysed
 * functions, GNU ld's Cortex-A8 erratum veneers), and computed jumps,
 * whose targets are taken in the state they leave from.  The frame itself
 * is unchanged here; prologue_step.c handles frame changes.
 */
#include <string.h>
#include "table/decode_once.h"
#include "table/prologue_int.h"
#include "table/elf.h"

/* The first of @e's symbols at @addr, or @e->nsyms. */
u32 pa_sym_at(const struct tb_elf *e, u32 addr)
{
	u32 i = tb_elf_first_sym(e, addr);

	return i < e->nsyms && e->syms[i].addr == addr ? i : e->nsyms;
}

/* A symbol's or found function's start, or a PLT stub (a tail call). */
static bool known_start(const struct tb_elf *e, u32 addr)
{
	const struct tb_sec *sec = tb_elf_sec(e, addr);

	return pa_sym_at(e, addr) < e->nsyms ||
	       (sec && (!strcmp(sec->name, ".plt") || !strcmp(sec->name, ".iplt")));
}

/*
 * A forward computed jump at @in in state @st; followed again (a register
 * found written on another path) it keeps one entry, written registers
 * joined.
 */
static int fwd_jump(struct pa_flow *fl, const struct tb_insn *in,
		    const struct pa_state *arrived)
{
	struct pa_state m = *arrived, *st = &m;
	bool changed;
	u32 k;

	for (k = 0; k < fl->nfwd && fl->fwd[k].addr != in->address; k++)
		;
	if (k == PA_MAX_FWD)
		return pa_fail(fl, in, "too many computed jumps");
	if (k == fl->nfwd) {
		fl->fwd[fl->nfwd].addr = (u32)in->address;
		fl->fwd[fl->nfwd++].st = *st;
		return 0;
	}
	/* code reached in the state before the join would keep it */
	if ((pa_alloca_join(&fl->fwd[k].st, st, &changed) && changed &&
	     fl->flooded) || !pa_frame_eq(&fl->fwd[k].st, st))
		return pa_fail(fl, in, "computed jumps from different frames");
	if (fl->fwd[k].st.fp != st->fp || fl->fwd[k].st.fp_off != st->fp_off) {
		fl->fwd[k].st.fp = -1;
		fl->fwd[k].st.fp_off = 0;
	}
	fl->fwd[k].st.dirty |= st->dirty;
	return 0;
}

/* All computed jumps of a function must leave from one frame. */
static int jump_state(struct pa_flow *fl, const struct tb_insn *in,
		      const struct pa_state *st)
{
	u16 st_dirty = 0;

	if (st->child)
		return 0;
	if (fl->have_jump && !pa_state_eq(&fl->jump, st))
		return pa_fail(fl, in, "computed jumps from different frames");
	if (fl->have_jump)
		st_dirty = fl->jump.dirty;
	fl->jump = *st;
	fl->jump.dirty |= st_dirty;
	fl->have_jump = true;
	return 0;
}

/*
 * A computed jump whose table function discovery read (tb_jump): each
 * target is reached in the jump's state, as a branch's is.  1 when the
 * targets were known and reached, 0 when none is known, -1 on failure.
 */
static int table_targets(struct pa_flow *fl, const struct tb_insn *in,
			 const struct pa_state *st)
{
	const struct tb_jump *j = fl->text ? fl->text->jumps : NULL;
	u32 site = (u32)in->address, lo = 0, hi = j ? fl->text->njumps : 0;

	while (lo < hi) {	/* the first entry of the site */
		u32 mid = lo + (hi - lo) / 2;

		if (j[mid].site < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!j || lo == fl->text->njumps || j[lo].site != site)
		return 0;
	for (; lo < fl->text->njumps && j[lo].site == site; lo++) {
		if (j[lo].target < fl->lo || j[lo].target >= fl->hi)
			return pa_fail(fl, in, "a table's target outside the function");
		if (pa_reach(fl, in, j[lo].target, st))
			return -1;
	}
	return 1;
}

/*
 * GNU ld's Cortex-A8 erratum veneers.  A 32-bit Thumb branch that would
 * straddle a 4 KiB page boundary is replaced by "b.w" to a stub past the
 * code that holds the original branch: "b.w T", or for a conditional one
 * "b<c> 1f; b.w NEXT; 1: b.w T".  Every way out of the stub comes back
 * into the function, in the frame of the branch, as if the branch had
 * stayed in place.  Returns 1 when @t is such a stub and its targets were
 * reached, 0 when it is not one, -1 on failure.
 */
/* What a stub's instruction is to follow_veneer(). */
struct stub_insn {
	u32 addr, target, size;
	unsigned int id;
	bool plain, cond;
};

static void stub_insn_of(const struct tb_insn *in, struct stub_insn *s)
{
	*s = (struct stub_insn){ (u32)in->address, pa_branch_target(in),
				 in->size, in->id, pa_plain_branch(in),
				 pa_conditional(in) };
}

/*
 * Up to three instructions at @t, decoded (@len bytes there) as on a
 * handle of their own: by the thread's decoder where there is one (no
 * capstone decode and print of each, nor cs_disasm()'s allocations).
 */
static u32 stub_decode(struct pa_flow *fl, const u8 *b, size_t len, u32 t,
		       struct stub_insn *s)
{
	struct tb_dec *dec = fl->text->dec;
	struct tb_insn in;
	u32 n = 0;

	if (!dec) {
		cs_insn *v = NULL;
		size_t k = cs_disasm(fl->cs, b, len, t, 3, &v);
		struct tb_dec_form f;

		for (; n < k && tb_insn_of_cs(&v[n], &f, &in); n++)
			stub_insn_of(&in, &s[n]);
		cs_free(v, k);
		return n;
	}
	tb_dec_reset_it(dec);
	while (n < 3 && tb_dec_insn(dec, fl->thumb, b, len, t, &in)) {
		stub_insn_of(&in, &s[n++]);
		b += in.size;
		len -= in.size;
		t += in.size;
	}
	tb_dec_reset_it(dec);
	return n;
}

static int follow_veneer(struct pa_flow *fl, const struct tb_insn *in, u32 t,
			 const struct pa_state *st)
{
	const struct pa_text *x = fl->text;
	u32 to[2], nto = 0, k, n;
	struct stub_insn v[3];

	if (!x || !x->thumb || in->size != 4 || !pa_plain_branch(in) ||
	    t < x->addr || t - x->addr >= x->size)
		return 0;
	n = stub_decode(fl, x->b + (t - x->addr),
			x->size - (t - x->addr) < 10 ? x->size - (t - x->addr) : 10,
			t, v);
	if (n >= 1 && v[0].plain && v[0].size == 4) {
		to[nto++] = v[0].target;
	} else if (n == 3 && v[0].id == ARM_INS_B && v[0].cond &&
		   v[0].target == v[2].addr && v[1].plain && v[2].plain) {
		to[nto++] = v[1].target;
		to[nto++] = v[2].target;
	}
	for (k = 0; k < nto; k++)
		if (to[k] < fl->lo || to[k] >= fl->hi)
			return 0;
	for (k = 0; k < nto; k++)
		if (pa_reach(fl, in, to[k], st))
			return -1;
	return nto ? 1 : 0;
}

/*
 * Does @r (a full state) describe the frame @st knows: the same CFA from
 * sp, the return address and every register saved where @st has it, and
 * nothing else saved?
 */
static bool row_is_frame(const struct tb_row *r, const struct pa_state *st)
{
	if (st->on_fp || r->cfa_kind != TB_CFA_REG || r->cfa_reg != 13 ||
	    r->cfa_off != st->cfa)
		return false;
	for (int i = 0; i < TB_NREGS; i++) {
		int s = i == TB_RA ? 14 : i;
		const struct tb_rule *ru = &r->r[i];

		if (i == 13 || i == 14 || i == 15)
			continue;
		if (pa_slot(st, s) != PA_NONE ?
		    ru->kind != TB_R_OFFSET || ru->off != pa_slot(st, s) :
		    ru->kind == TB_R_OFFSET)
			return false;
	}
	return true;
}

/*
 * A branch out of the function with its frame up, to @t inside another
 * function whose rows (DWARF's or the analysis', not EHABI's) have
 * exactly this frame there: that code runs on in it and returns for both
 * (libgcc's __floatdidf pushes {r4, r5, lr} as __adddf3 does and
 * branches into __adddf3 after its push).
 */
static bool shared_tail(struct pa_flow *fl, u32 t,
			const struct pa_state *st)
{
	const struct tb_cfi_func *g = NULL;
	struct tb_row full = { 0 };
	const struct tb_row *r;
	struct tb_rows_it it;

	/* which rows are the functions' before this one's is not known yet:
	 * this analysis is done again once it is */
	if (fl->text && fl->text->known_later) {
		fl->wants_known = true;
		return false;
	}
	for (int k = 0; fl->text && k < 2 && !g; k++)
		if (fl->text->known[k])
			g = pa_find_first(fl->text->known[k], t, fl->lo);
	if (!g)
		return false;
	tb_rows_begin(&it, g);
	while ((r = tb_rows_next(&it)) && r->addr <= t)
		tb_state_apply(&full, r);
	return row_is_frame(&full, st);
}

int pa_branch_to(struct pa_flow *fl, const struct tb_insn *in, u32 t,
		 const struct pa_state *st)
{
	int r;

	if (t >= fl->lo && t < fl->hi)
		return pa_reach(fl, in, t, st);
	if (st->child)
		return pa_fail(fl, in, "the new thread's path leaves the function");
	r = follow_veneer(fl, in, t, st);
	if (r)
		return r < 0 ? -1 : 0;
	/* where to, and in what frame, only the code that jumps here knows */
	if (fl->text && fl->text->gap)
		return pa_fail(fl, in, "a branch out of code no symbol names");
	if (!pa_ra_in_lr(st) && shared_tail(fl, t, st)) {
		fl->returns = true;	/* that code returns for this one */
		return 0;
	}
	/* a found start may be a label of a function nothing names: what
	 * it "tail-calls" may be that function's own code */
	if (fl->text && fl->text->starts && !known_start(fl->text->starts, t))
		return pa_fail(fl, in, "a branch out to no known function start");
	return pa_ret_ok(fl, in, st);	/* a tail call */
}

/* Branches and calls; the frame itself is unchanged. */
int pa_flow_branch(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const struct tb_insn *in = &fl->ins[i];
	bool cond = pa_conditional(in) || in->id == ARM_INS_CBZ ||
		    in->id == ARM_INS_CBNZ;
	u32 t = pa_branch_target(in);
	struct pa_state taken, fall;
	int r;

	/* a trap (__builtin_trap: udf, "trap" for clang's 0xdefe) never
	 * comes back */
	if (pa_is_trap(in))
		return pa_path_end(fl, in);
	if (pa_is_call(in)) {
		if (pa_slot(st, 14) == PA_NONE)
			return pa_fail(fl, in, "call with the return address in lr");
		/* a call with nothing after it, or data, never returns
		 * (__stack_chk_fail, start_thread's exit) */
		if (!pa_conditional(in) && pa_falls_into_data(fl, i))
			return pa_path_end(fl, in);
		if (pa_noreturn_call(fl, in))
			return pa_path_end(fl, in);
		return pa_next(fl, i, st);
	}
	if (in->id == ARM_INS_BX && in->detail->arm.operands[0].reg == ARM_REG_LR) {
		if (pa_ret_ok(fl, in, st))
			return -1;
		return cond ? pa_next(fl, i, st) : 0;
	}
	/*
	 * Entered with the return address on the stack, "bx rN" is an exit:
	 * an indirect tail call (the resolver's "bx ip" to the function it
	 * found), only with the entry word popped into lr and sp back.
	 */
	if (fl->ra_on_stack && in->id == ARM_INS_BX) {
		if (!pa_ra_in_lr(st))
			return pa_fail(fl, in, "indirect branch with the frame up");
		if (pa_ret_ok(fl, in, st))
			return -1;
		return cond ? pa_next(fl, i, st) : 0;
	}
	switch (pa_computed_jump(in)) {
	case PA_J_FORWARD:
		if (fwd_jump(fl, in, st))
			return -1;
		return cond ? pa_next(fl, i, st) : 0;
	case PA_J_ANY:
		if (fl->text && fl->text->gap)
			return pa_fail(fl, in, "a computed jump in code no symbol names");
		r = table_targets(fl, in, st);
		if (r < 0 || (!r && jump_state(fl, in, st)))
			return -1;
		return cond ? pa_next(fl, i, st) : 0;
	default:
		break;
	}
	if ((in->id != ARM_INS_B && in->id != ARM_INS_CBZ &&
	     in->id != ARM_INS_CBNZ) || !t)
		return pa_fail(fl, in, "indirect or table branch");
	/* no clone result to split on: both sides go on in @st */
	if (st->clone == PA_CL_NONE) {
		if (pa_branch_to(fl, in, t, st))
			return -1;
		return cond ? pa_next(fl, i, st) : 0;
	}
	pa_clone_split(in, st, &taken, &fall);
	if (pa_branch_to(fl, in, t, &taken))
		return -1;
	return cond ? pa_next(fl, i, &fall) : 0;
}
