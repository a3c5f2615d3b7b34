// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: the state a path carries (struct pa_state in
 * prologue_int.h) and what it states.  Every path through a function is
 * followed from its entry with the CFA as sp + cfa and, for each register,
 * the CFA-relative slot it was saved at; paths that meet must agree, since
 * one row serves every path through an address.  This file owns what that
 * state means: which registers matter to a caller, when two states are
 * the same frame, and the row a state becomes.
 */
#include <stddef.h>
#include <string.h>
#include "table/prologue_int.h"

/* Written since entry: a d register counts as written (not tracked). */
bool pa_is_dirty(const struct pa_state *st, int s)
{
	return s > 14 || (st->dirty >> s) & 1;
}

void pa_clear_slots(struct pa_state *st)
{
	st->saved = 0;
}

void pa_state_copy(struct pa_state *to, const struct pa_state *from)
{
	u32 hi = (u32)(from->saved >> 32), lo = (u32)from->saved;
	u32 n = hi ? 64 - __builtin_clz(hi) : lo ? 32 - __builtin_clz(lo) : 0;

	memcpy(to, from, offsetof(struct pa_state, slot_at) +
	       n * sizeof(from->slot_at[0]));
}

/* The slots the bits of @m name, the same in @a and @b. */
static bool same_in(const s32 *a, const s32 *b, u32 m)
{
	for (; m; m &= m - 1)
		if (a[__builtin_ctz(m)] != b[__builtin_ctz(m)])
			return false;
	return true;
}

/*
 * The same registers saved at the same places (the others all PA_NONE):
 * the mask's halves apart, as the device's registers are 32 bits.
 */
static bool same_slots(const struct pa_state *a, const struct pa_state *b)
{
	return a->saved == b->saved &&
	       same_in(a->slot_at, b->slot_at, (u32)a->saved) &&
	       same_in(a->slot_at + 32, b->slot_at + 32,
		       (u32)(a->saved >> 32));
}

/* The same frame: what a row states. */
bool pa_frame_eq(const struct pa_state *a, const struct pa_state *b)
{
	return a->cfa == b->cfa && a->child == b->child &&
	       a->ambiguous == b->ambiguous && a->on_fp == b->on_fp &&
	       (a->clone == PA_CL_NONE) == (b->clone == PA_CL_NONE) &&
	       (!a->on_fp || (a->fp == b->fp && a->fp_off == b->fp_off)) &&
	       same_slots(a, b);
}

/*
 * pa_frame_eq() of the two as if both were on their frame pointer
 * (on_fp, the CFA offset from sp unused), whose fp and fp_off the
 * caller found equal.
 */
bool pa_frame_eq_on_fp(const struct pa_state *a, const struct pa_state *b)
{
	return a->child == b->child && a->ambiguous == b->ambiguous &&
	       (a->clone == PA_CL_NONE) == (b->clone == PA_CL_NONE) &&
	       same_slots(a, b);
}

/* The same frame and the same knowledge of a clone's result. */
bool pa_state_eq(const struct pa_state *a, const struct pa_state *b)
{
	return pa_frame_eq(a, b) && a->clone == b->clone && a->fp == b->fp &&
	       a->fp_off == b->fp_off && a->spreg == b->spreg &&
	       a->spreg_off == b->spreg_off && a->cfa_copy == b->cfa_copy;
}

/*
 * The row for @st at @addr: every rule stated, so rows never depend on
 * the delta order.  @saved_anywhere: registers some row of the function
 * saves (a scratch register pushed on one path is SAME on the others:
 * an early return placed after the body follows rows that saved it).
 */
int pa_add_row(struct tb_cfi_func *f, const struct pa_state *st, u32 addr,
	       uint64_t saved_anywhere)
{
	/* the registers with a column of their own: not sp, lr or pc */
	const uint64_t cols = ((1ull << TB_RA) - 1) & ~(7ull << 13);
	struct tb_row *r = tb_func_add_row(f);
	uint64_t same;

	if (!r)
		return -1;
	r->addr = addr;
	if (st->child) {
		/* The thread's first frame: nothing called it. */
		r->r[TB_RA].kind = TB_R_UNDEF;
		return 0;
	}
	if (st->ambiguous) {
		r->r[TB_RA].kind = TB_R_AMBIGUOUS;
		return 0;
	}
	/*
	 * Between a clone wrapper's system call and the test of its result
	 * the caller and the new thread run the same code, in frames that
	 * differ (the thread's lr is a stale copy of the caller's).  r0, the
	 * result the path has not changed yet (prologue_clone.c), tells
	 * them apart: 0 in the new thread.  The rules are the caller's.
	 */
	r->clone_r0 = st->clone != PA_CL_NONE;
	r->cfa_kind = TB_CFA_REG;
	r->cfa_reg = st->on_fp ? st->fp : 13;
	r->cfa_off = st->on_fp ? st->fp_off : st->cfa;
	/*
	 * every rule stated: which path reached a row first must not
	 * matter (flooded code has not seen the pushes).  Register s's
	 * rule is r[s], lr's the return address's (TB_RA); sp and pc
	 * have none.
	 */
	same = (st->touched | pa_callee_saved_mask() | saved_anywhere) &
	       ~st->saved;
	for (uint64_t m = st->saved & cols; m; m &= m - 1)
		r->r[tb_ctz64(m)] = (struct tb_rule){ TB_R_OFFSET, 0,
						     st->slot_at[tb_ctz64(m)] };
	for (uint64_t m = same & cols; m; m &= m - 1)
		r->r[tb_ctz64(m)].kind = TB_R_SAME;
	if (pa_bit(st->saved, 14))
		r->r[TB_RA] = (struct tb_rule){ TB_R_OFFSET, 0,
						st->slot_at[14] };
	else if (pa_bit(same, 14))
		r->r[TB_RA].kind = TB_R_SAME;
	else
		r->r[TB_RA] = (struct tb_rule){ TB_R_REG, 14, 0 };
	return 0;
}

void pa_state_entry(struct pa_state *st)
{
	memset(st, 0, sizeof(*st));
	st->fp = -1;
	st->spreg = -1;
	st->cfa_copy = PA_NONE;
	pa_clear_slots(st);
}

bool pa_ra_in_lr(const struct pa_state *st)
{
	return pa_slot(st, 14) == PA_NONE && st->cfa == 0 && !st->on_fp;
}

s32 pa_reg_size(int s)
{
	return s >= TB_D0 ? 8 : 4;
}
