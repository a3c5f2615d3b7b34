// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis, the walker's paths: reaching an instruction in a
 * state (the first path sets it, later ones must agree or, for what may
 * differ, are followed again with the two joined), going on to the next
 * instruction, and the ends of a path (a return, code that never returns).
 * Failures are recorded here with the instruction that caused them.
 */
#include <stdio.h>
#include "table/prologue_int.h"

int pa_fail(struct pa_flow *fl, const struct tb_insn *in, const char *what)
{
	char text[CS_MNEMONIC_SIZE + 160 + 2];

	pa_insn_text(fl, in, text, sizeof(text));
	snprintf(fl->why, fl->wlen, "%s at 0x%x (%s)", what, (u32)in->address,
		 text);
	return -1;
}

/* The instruction at @addr, or -1 (not an instruction start). */
long pa_index_of(const struct pa_flow *fl, u32 addr)
{
	u32 lo = 0, hi = fl->n;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (fl->ins[mid].address < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fl->n && fl->ins[lo].address == addr ? (long)lo : -1;
}

/*
 * Paths that meet after an alloca on one of them (glibc's open_verify),
 * or with sp lowered by different constants (an alloca of a constant size
 * in a loop: glibc's dl_main): both keep the frame pointer fp = CFA -
 * fp_off, so "CFA = fp + fp_off" holds on both, while sp is not one
 * offset from the CFA.  Do they meet so, all else alike?
 */
static bool alloca_meet(const struct pa_state *old, const struct pa_state *st)
{
	/* most paths meet with one frame pointer or none */
	if (old->fp < 0 || old->fp != st->fp || old->fp_off != st->fp_off ||
	    (old->on_fp == st->on_fp && (old->on_fp || old->cfa == st->cfa)))
		return false;
	/* the same frame with both on fp (sp's offset then not used) */
	return pa_frame_eq_on_fp(old, st);
}

/*
 * @st as a path after an alloca has it (alloca_meet), with @other's
 * copy of the frame (spreg) only where both paths have it.
 */
static void on_fp(struct pa_state *st, const struct pa_state *other)
{
	st->on_fp = true;
	st->cfa = other->cfa;
	if (st->spreg != other->spreg || st->spreg_off != other->spreg_off)
		st->spreg = -1;
}

bool pa_alloca_join(struct pa_state *old, struct pa_state *st,
		    bool *old_changed)
{
	*old_changed = false;
	if (!alloca_meet(old, st))
		return false;
	*old_changed = !old->on_fp;
	if (!old->on_fp)
		on_fp(old, st);
	on_fp(st, old);
	return true;
}

bool pa_noreturn_call(const struct pa_flow *fl, const struct tb_insn *in)
{
	for (u32 k = 0; k < fl->nnoret; k++)
		if (fl->noret[k] == in->address)
			return true;
	return false;
}

/*
 * Paths meet at instruction @i with different frames, one of them
 * falling through an unconditional call right before it: that call
 * never returns (node::OnFatalError, called with the frame up; the code
 * after it a branch target in the caller's frame), or the code after it
 * would run in a frame the compiler did not make.  It ends its path
 * from now on and the function is walked again (fl->again), once per
 * such call; the paths left must then agree.  False if @i is no such
 * instruction.
 */
static bool never_returns(struct pa_flow *fl, long i)
{
	const struct tb_insn *call = i > 0 ? &fl->ins[i - 1] : NULL;

	if (!call || call->address + call->size != fl->ins[i].address ||
	    !pa_is_call(call) || pa_conditional(call) ||
	    pa_noreturn_call(fl, call) || fl->nnoret == PA_MAX_NORET)
		return false;
	fl->noret[fl->nnoret++] = (u32)call->address;
	fl->again = true;
	return true;
}

/* Reach instruction @i in state @st: the first path sets it, later ones
 * must agree, since one row holds for every path through an address. */
static int reach_at(struct pa_flow *fl, long i, const struct pa_state *st)
{
	if (fl->have[i]) {
		struct pa_state *old = &fl->st[i], m;
		bool again = false, same;

		/* sp unknown here from now on: follow again (most paths
		 * meet otherwise: no copy) */
		if (alloca_meet(old, st)) {
			m = *st;
			pa_alloca_join(old, &m, &again);
			st = &m;
		}
		same = pa_frame_eq(old, st) && old->clone == st->clone;
		if (!same && !never_returns(fl, i))
			return pa_fail(fl, &fl->ins[i], "paths arrive with different frames");
		if (!same)
			return -1;	/* walked again (fl->again) */
		/* paths that know different frame pointers know none:
		 * forget it here and follow again (once per instruction) */
		if (old->fp >= 0 && (old->fp != st->fp || old->fp_off != st->fp_off)) {
			old->fp = -1;
			old->fp_off = 0;
			again = true;
		}
		/* a register written on either path is written here (once
		 * per instruction and register) */
		if (st->dirty & ~old->dirty) {
			old->dirty |= st->dirty;
			again = true;
		}
		if (again)
			fl->work[fl->nwork++] = i;
		return 0;
	}
	/* pa_flow_insn() may have made the state in place */
	if (st != &fl->st[i])
		pa_state_copy(&fl->st[i], st);
	fl->have[i] = true;
	fl->work[fl->nwork++] = i;
	return 0;
}

/* Reach @addr in state @st (reach_at() at its instruction). */
int pa_reach(struct pa_flow *fl, const struct tb_insn *from, u32 addr,
	     const struct pa_state *st)
{
	long i = pa_index_of(fl, addr);

	if (i < 0)
		return pa_fail(fl, from, "branch into the middle of an instruction");
	return reach_at(fl, i, st);
}

/*
 * A path that runs through padding to the function's end, past a 4-byte
 * nop: the nop is the linker's for a call to an undefined weak function
 * (static glibc's __libc_cleanup_pop_restore ends so), and nothing after
 * it runs.
 */
static bool ends_in_weak_call(const struct pa_flow *fl, u32 i)
{
	for (;; i--) {
		const struct tb_insn *in = &fl->ins[i];

		if (!pa_is_padding(in))
			return false;
		if (in->id == ARM_INS_NOP && in->size == 4)
			return true;
		if (!i || fl->ins[i - 1].address + fl->ins[i - 1].size !=
			  in->address)
			return false;
	}
}

/*
 * A path that ends where nothing returns (a trap, a call that never
 * returns).  In code no symbol names, only returns show the frame it is
 * entered with was the caller's: such an end refuses.
 */
int pa_path_end(struct pa_flow *fl, const struct tb_insn *in)
{
	if (fl->text && fl->text->gap)
		return pa_fail(fl, in, "a path that does not return, in code no symbol names");
	return 0;
}

int pa_next(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	/* a removed call may end a function that returns elsewhere: it
	 * does not lift the callee-saved rule (returns stays as found) */
	if (i + 1 >= fl->n && fl->text && fl->text->sized &&
	    ends_in_weak_call(fl, i)) {
		fl->returns = true;
		return pa_path_end(fl, &fl->ins[i]);
	}
	if (i + 1 >= fl->n)
		return pa_fail(fl, &fl->ins[i], "falls off the end of the function");
	if (fl->ins[i + 1].address != fl->ins[i].address + fl->ins[i].size)
		return pa_fail(fl, &fl->ins[i], "runs into a literal pool");
	/* the next instruction: no search for its address */
	return reach_at(fl, i + 1, st);
}

/* A return: the frame must be gone and the return address in lr. */
int pa_ret_ok(struct pa_flow *fl, const struct tb_insn *in,
	      const struct pa_state *st)
{
	if (!pa_ra_in_lr(st))
		return pa_fail(fl, in, "return with the frame still up");
	fl->returns = true;
	return 0;
}

/*
 * Nothing but padding after instruction @i, then data or the end: code
 * that cannot go on past @i (glibc's "bl abort; nop" before a pool).
 */
bool pa_falls_into_data(const struct pa_flow *fl, u32 i)
{
	for (; i + 1 < fl->n; i++) {
		if (fl->ins[i + 1].address !=
		    fl->ins[i].address + fl->ins[i].size)
			return true;
		if (!pa_is_padding(&fl->ins[i + 1]))
			return false;
	}
	return true;
}
