// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis with capstone (ARM and Thumb), one function from its
 * entry to its rows: decode it, follow every path from its entries until
 * no work is left (computed jumps' possible targets flooded in their
 * state), check that nothing is left unreached, then emit one row where
 * the state changes.  Anything not recognised ends the analysis and the
 * function keeps what it had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"

/*
 * Code that never runs: padding, and a trap right after another
 * (clang's "bl __stack_chk_fail; bkpt; udf #0": the bkpt ends the path
 * of a call that does not return, no path reaches the udf).  Only a
 * branch from outside could, and the trap would end the program there.
 */
static bool never_runs(const struct pa_flow *fl, u32 i)
{
	const struct tb_insn *in = &fl->ins[i], *prev = i ? &fl->ins[i - 1] : NULL;

	if (pa_is_padding(in))
		return true;
	return prev && pa_is_trap(in) && pa_is_trap(prev) &&
	       prev->address + prev->size == in->address;
}

/*
 * After a computed jump the first instruction of each run that no path
 * reached may be one of its targets: it is reached in the jump's state,
 * and the flow from it does the rest (the run's own pops and branches
 * apply).  Returns how many were; called again until none is.
 */
static int flood_jump_targets(struct pa_flow *fl)
{
	struct pa_state flooded;
	bool run = false;	/* the instruction before: in an unreached run */
	int added = 0;

	for (u32 i = 0; i < fl->n; i++) {
		const struct pa_state *st = fl->have_jump ? &fl->jump : NULL;
		bool in_run = run && fl->ins[i - 1].address + fl->ins[i - 1].size ==
				     fl->ins[i].address;
		u32 best = 0;

		run = !fl->have[i] && !never_runs(fl, i);
		/* inside a run the flow from its first instruction goes on */
		if (!run || in_run)
			continue;
		/* the nearest forward jump before it, if any */
		for (u32 k = 0; k < fl->nfwd; k++)
			if (fl->fwd[k].addr < fl->ins[i].address &&
			    fl->fwd[k].addr >= best) {
				best = fl->fwd[k].addr;
				st = &fl->fwd[k].st;
			}
		if (!st)
			continue;
		/* entered from we know not where: every register written */
		flooded = *st;
		flooded.dirty = PA_ALL_WRITTEN;
		if (pa_reach(fl, &fl->ins[i], (u32)fl->ins[i].address, &flooded))
			return -1;
		fl->flooded = true;
		added++;
	}
	return added;
}

/*
 * Code no path reaches must be padding (never_runs()).  Anything else is reached from
 * outside (another function branching into this one, as libgcc's
 * conversions do into __adddf3) in a frame nothing here describes.
 */
static int unreached_ok(struct pa_flow *fl)
{
	for (u32 i = 0; i < fl->n; i++)
		if (!fl->have[i] && !never_runs(fl, i))
			return pa_fail(fl, &fl->ins[i], "code no path reaches");
	return 0;
}

/*
 * Rows in address order: the state before each reachable instruction,
 * one row where it changes.  Padding keeps the rows before it: it never
 * runs.
 */
static int emit_rows(struct pa_flow *fl, struct tb_cfi_func *f)
{
	const struct pa_state *last = NULL;
	uint64_t touched = 0;

	for (u32 i = 0; i < fl->n; i++)
		if (fl->have[i])
			touched |= fl->st[i].touched;
	for (u32 i = 0; i < fl->n; i++) {
		if (!fl->have[i] || (last && pa_frame_eq(last, &fl->st[i])))
			continue;
		if (pa_add_row(f, &fl->st[i], (u32)fl->ins[i].address, touched))
			return -1;
		last = &fl->st[i];
	}
	return 0;
}

/*
 * The second entry hypothesis (ra_on_stack_walk): the caller's return
 * address is the word at sp, as if pushed there ("str lr, [sp, #-4]!" in
 * the code that jumped here: glibc's PLT0 before _dl_runtime_resolve).
 * The CFA is sp + 4, lr holds no return address (written), the entry
 * word is its slot.
 */
static void ra_on_stack_entry(struct pa_state *st)
{
	static const int lr[] = { 14 };

	pa_apply(st, PA_PUSH, lr, 1, 0);
	st->dirty |= 1u << 14;
}

static int run_flow(struct pa_flow *fl, const u32 *entries, u32 nentries)
{
	struct pa_state entry;
	u32 start = 0;

	pa_state_entry(&entry);
	if (fl->ra_on_stack)
		ra_on_stack_entry(&entry);
	/* a state is read only where have[] says a path set it */
	fl->st = malloc(fl->n * sizeof(*fl->st));
	fl->have = calloc(fl->n, sizeof(*fl->have));
	/* Each instruction enters the work list once, once more when its
	 * frame pointer is forgotten and once a register of r0-r14 found
	 * written (pa_reach). */
	fl->work = malloc(17 * (size_t)fl->n * sizeof(*fl->work));
	if (!fl->st || !fl->have || !fl->work)
		return -2;
	/* alignment padding alone between two functions is no code (and
	 * no refusal to note) */
	while (fl->text && fl->text->gap && start < fl->n &&
	       pa_is_padding(&fl->ins[start]))
		start++;
	if (start == fl->n)
		return -1;
	if (pa_reach(fl, &fl->ins[0], fl->lo, &entry))
		return -1;
	/* Other symbols inside are entry points too (__adddf3 inside
	 * __subdf3): the frame there must be the entry frame. */
	for (u32 k = 0; k < nentries; k++)
		if (entries[k] > fl->lo && entries[k] < fl->hi &&
		    pa_reach(fl, &fl->ins[0], entries[k], &entry))
			return -1;
	for (;;) {
		int flooded;

		while (fl->nwork) {
			u32 i = fl->work[--fl->nwork];

			if (pa_flow_insn(fl, i, &fl->st[i]))
				return -1;
		}
		flooded = fl->have_jump || fl->nfwd ? flood_jump_targets(fl) : 0;
		if (flooded < 0)
			return -1;
		if (!flooded)
			break;
	}
	if (fl->clobber && fl->returns)
		return pa_fail(fl, fl->clobber, "callee-saved register written unsaved");
	if (fl->text && fl->text->gap && !fl->returns)
		return pa_fail(fl, &fl->ins[0], "no return in code no symbol names");
	/* every exit popped the entry word: there must be one */
	if (fl->ra_on_stack && !fl->returns)
		return pa_fail(fl, &fl->ins[0], "no exit pops the return address at sp");
	return unreached_ok(fl);
}

/*
 * Forget every path for another walk, after a call was found never to
 * return (pa_reach): what it reached may have spread its frame on.
 */
static void walk_reset(struct pa_flow *fl)
{
	free(fl->st);
	free(fl->have);
	free(fl->work);
	fl->st = NULL;
	fl->have = NULL;
	fl->work = NULL;
	fl->nwork = 0;
	fl->nfwd = 0;
	fl->have_jump = false;
	fl->flooded = false;
	fl->returns = false;
	fl->clobber = NULL;
	fl->again = false;
	fl->why[0] = 0;
}

static const char ra_in_lr_call[] = "call with the return address in lr";

/*
 * A function refused for a call made with the return address in lr may
 * have been entered with it on the stack (ra_on_stack_entry): a resolver
 * that PLT0 jumps to.  Walked again so, it holds only if the code proves
 * it: every exit (a return or tail call, pa_ret_ok) pops the entry word
 * into lr or pc and leaves sp 4 above the entry's, lr is never returned
 * through before (its slot is the entry word), and some path exits.  Not
 * for functions entered in other ways too (inner entries, thread entries,
 * code no symbol names).  0 with rows, -1 refused with the first walk's
 * reason kept.
 */
static int ra_on_stack_walk(struct pa_flow *fl, const u32 *entries,
			    u32 nentries)
{
	char first[160];
	int r;

	if (strncmp(fl->why, ra_in_lr_call, sizeof(ra_in_lr_call) - 1) ||
	    nentries || fl->thread_entry || (fl->text && fl->text->gap))
		return -1;
	snprintf(first, sizeof(first), "%s", fl->why);
	walk_reset(fl);
	fl->nnoret = 0;
	fl->ra_on_stack = true;
	r = run_flow(fl, entries, nentries);
	while (r == -1 && fl->again) {
		walk_reset(fl);
		r = run_flow(fl, entries, nentries);
	}
	if (r == -1)
		snprintf(fl->why, fl->wlen, "%s", first);
	return r;
}

int pa_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
	       const u32 *entries, u32 nentries, bool thread_entry,
	       const struct pa_range *data, u32 ndata,
	       struct pa_text *text,
	       struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_flow fl = { .lo = addr, .hi = addr + len, .why = why,
			      .wlen = wlen, .thread_entry = thread_entry,
			      .data = data, .ndata = ndata, .text = text,
			      .thumb = thumb,
			      .infer_pools = text && text->no_maps };
	int r;

	why[0] = 0;
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->size = len;
	f->source = TB_SRC_PROLOGUE;
	if (cs_open(CS_ARCH_ARM, thumb ? CS_MODE_THUMB : CS_MODE_ARM, &fl.cs))
		return -1;
	cs_option(fl.cs, CS_OPT_DETAIL, CS_OPT_ON);
	r = pa_decode_all(&fl, code, len);
	if (!r && !fl.n)
		r = -1;
	if (!r)
		r = run_flow(&fl, entries, nentries);
	while (r == -1 && fl.again) {
		walk_reset(&fl);
		r = run_flow(&fl, entries, nentries);
	}
	if (r == -1)
		r = ra_on_stack_walk(&fl, entries, nentries);
	/* states after computed jumps or at inner entries are assumed,
	 * not followed: no ground to overrule CFI on as a whole, only
	 * where it follows from agreeing rows (prologue_cfi.c) */
	if (!r && text && text->cfi) {
		text->cfi_followed = !fl.have_jump && !fl.nfwd && !nentries;
		if (pa_cfi_check(&fl, text))
			r = -2;
	}
	if (!r && emit_rows(&fl, f))
		r = -2;
	if (text)
		text->wants_known = fl.wants_known;
	pa_decode_free(&fl);
	free(fl.st);
	free(fl.have);
	free(fl.work);
	cs_close(&fl.cs);
	if (r) {
		free(f->rows);
		f->rows = NULL;
		f->nrows = 0;
	}
	return r == -2 ? -1 : r == -1 ? 0 : (int)len;
}

int tb_prologue_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
			const u32 *entries, u32 nentries,
			struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_text text = { .b = code, .addr = addr, .size = len,
				.thumb = thumb, .sized = true };

	return pa_analyse(code, len, addr, thumb, entries, nentries, false, NULL,
			  0, &text, f, why, wlen);
}
