// SPDX-License-Identifier: GPL-2.0
/*
 * EHABI-only functions (an .ARM.exidx entry is all that describes them:
 * prologue analysis refused them or did not run): their opcodes state the
 * frame after the prologue, wrong at the function's first instructions,
 * where the push has not run yet, and after an epilogue's first pop.
 *
 * The opcodes are read as the prologue steps they undo (a push of the
 * registers a pop names, a vpush, "sub sp, #N" for "vsp += N", the frame
 * pointer set from sp for "vsp = rN"), and the function's first
 * instructions must be exactly those steps, in that order; between them
 * only instructions that touch neither sp, lr, pc nor a register a later
 * step saves.  Then every instruction gets the state it proves:
 *
 *   - at the entry, the return address in lr and sp unchanged; after each
 *     prologue instruction, the steps done so far (the tail of the
 *     opcodes, which undoes exactly those);
 *   - in the body, the opcodes;
 *   - an epilogue that undoes the steps in reverse ("add sp", the pop of
 *     the pushed registers, lr's slot popped into pc to return) walks the
 *     states back; anything else that moves sp (or the frame pointer of a
 *     frame kept in one) refuses up to the end of its path.
 *
 * After a return or an unconditional branch the next instruction is
 * taken to be reached by branches from the body alone, so a branch taken
 * from any other state into the function (a shrink-wrapped early exit, a
 * jump out of an epilogue), a call made while lr holds the return
 * address, or a prologue that is not the opcodes' refuses the whole
 * function: nothing proves the state at its target.
 */
#include <stdlib.h>
#include <string.h>
#include "lib/ehabi.h"
#include "table/elf.h"
#include "table/prologue_int.h"

enum eh_kind { EH_PUSH, EH_VPUSH, EH_SUB, EH_FP };

/* One prologue step and where, in the opcodes, its undoing starts and ends. */
struct eh_step {
	u8 kind;
	u8 reg;			/* EH_FP: the frame pointer */
	u32 mask;		/* EH_PUSH: core registers, bit n = rn */
	u8 first, count;	/* EH_VPUSH: d[first] to d[first + count - 1] */
	s32 bytes;		/* EH_SUB */
	u32 at, end;		/* its opcodes: ops[at, end) */
};

#define EH_MAX_STEPS	16

/* A function's opcodes as steps, in the prologue's order. */
struct eh_frame {
	const u8 *ops;
	u32 nops;
	struct eh_step step[EH_MAX_STEPS];
	u32 n;
	bool fp;		/* the last step sets the frame pointer */
};

/* Where a path is: s steps done, and @part bytes of step s's "sub sp". */
struct eh_pos {
	u32 s;
	s32 part;
	bool unknown;		/* refused until the path ends */
};

static bool add_step(struct eh_frame *fr, const struct eh_step *st)
{
	if (fr->n == EH_MAX_STEPS)
		return false;
	fr->step[fr->n++] = *st;
	return true;
}

/*
 * The opcodes as steps, in the order they undo them (the last prologue
 * step first), then reversed.  Adjacent vsp increments are one "sub sp"
 * and adjacent pops of ascending registers one push (r0-r3 and r4-r14 are
 * two opcodes for "push {r0-r4, lr}").  False for anything else.
 */
static bool read_steps(struct eh_frame *fr, const u8 *ops, u32 n)
{
	struct uw_eh_op op;

	fr->ops = ops;
	fr->nops = n;
	fr->n = 0;
	fr->fp = false;
	for (u32 i = 0; i < n;) {
		u32 at = i;
		struct eh_step *last = fr->n ? &fr->step[fr->n - 1] : NULL;

		switch (uw_eh_next(ops, n, &i, &op)) {
		case UW_EH_FINISH:
			if (i != n)
				return false;
			for (u32 a = 0, b = fr->n - 1; fr->n && a < b; a++, b--) {
				struct eh_step t = fr->step[a];

				fr->step[a] = fr->step[b];
				fr->step[b] = t;
			}
			return true;
		case UW_EH_VSP_REG:
			if (at || op.reserved || op.val == 13 || op.val == 15)
				return false;
			fr->fp = true;
			if (!add_step(fr, &(struct eh_step){ .kind = EH_FP,
					.reg = op.val, .at = at, .end = i }))
				return false;
			break;
		case UW_EH_VSP_ADD:
			if (op.big || (op.val & 3) || !op.val || op.val > 0x100000)
				return false;
			if (last && last->kind == EH_SUB && last->end == at) {
				last->bytes += op.val;
				last->end = i;
				break;
			}
			if (!add_step(fr, &(struct eh_step){ .kind = EH_SUB,
					.bytes = op.val, .at = at, .end = i }))
				return false;
			break;
		case UW_EH_POP:
			if (op.reserved || (op.val & (1u << 13 | 1u << 15)) || !op.val)
				return false;
			if (last && last->kind == EH_PUSH && last->end == at &&
			    31 - __builtin_clz(last->mask) < __builtin_ctz(op.val)) {
				last->mask |= op.val;
				last->end = i;
				break;
			}
			if (!add_step(fr, &(struct eh_step){ .kind = EH_PUSH,
					.mask = op.val, .at = at, .end = i }))
				return false;
			break;
		case UW_EH_VPOP:
			if (op.reserved || op.fstmx || !op.count)
				return false;
			if (!add_step(fr, &(struct eh_step){ .kind = EH_VPUSH,
					.first = op.first, .count = op.count,
					.at = at, .end = i }))
				return false;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* The opcodes that unwind the state @p: the undoing of its steps. */
static bool pos_seq(const struct eh_frame *fr, const struct eh_pos *p,
		    struct tb_seq *out)
{
	static const u8 finish = 0xb0;
	u32 from = p->s ? fr->step[p->s - 1].at : fr->nops - 1;
	u8 b[8];
	int n;

	out->len = 0;
	if (p->unknown)
		return tb_seq_put(out, tb_ops_refuse, 2);
	if (p->part) {
		n = tb_enc_sp(p->part, b);
		if (n < 0 || !tb_seq_put(out, b, n))
			return false;
	}
	/* with no step done, only the finish */
	if (!p->s)
		return tb_seq_put(out, &finish, 1);
	return tb_seq_put(out, fr->ops + from, fr->nops - from);
}

/* Core registers (bit n = rn) or d registers (bit n = d[n]) of a list. */
static bool list_mask(const int *regs, int n, bool vfp, u32 *mask)
{
	*mask = 0;
	for (int i = 0; i < n; i++) {
		int r = vfp ? regs[i] - TB_D0 : regs[i];

		if (r < 0 || r > (vfp ? 31 : 15) || (vfp != (regs[i] >= TB_D0)))
			return false;
		*mask |= 1u << r;
	}
	return true;
}

static u32 vfp_mask(const struct eh_step *st)
{
	return (st->count >= 32 ? ~0u : (1u << st->count) - 1) << st->first;
}

/* Does @in do step @st (or @bytes of a "sub sp" step)? */
static bool does_step(const struct pa_flow *fl, const struct tb_insn *in,
		      const struct eh_step *st, s32 left, s32 *bytes)
{
	int regs[40], n = 0;
	s32 imm = 0;
	u32 mask;
	enum pa_kind k = pa_classify_mem(in, regs, &n, &imm);

	if (pa_conditional(in))
		return false;
	if (k == PA_OTHER)
		k = pa_classify_dp(in, fl->thumb, regs, &imm);
	switch (st->kind) {
	case EH_PUSH:
		return k == PA_PUSH && list_mask(regs, n, false, &mask) &&
		       mask == st->mask;
	case EH_VPUSH:
		return k == PA_PUSH && list_mask(regs, n, true, &mask) &&
		       mask == vfp_mask(st);
	case EH_SUB:
		*bytes = imm;
		return k == PA_SUB_SP && imm > 0 && imm <= left;
	case EH_FP:
		return k == PA_SET_FP && regs[0] == st->reg && imm == left;
	}
	return false;
}

/* Does @in undo step @st (or @bytes of its "sub sp")?  @ret: into pc. */
static bool undoes_step(const struct pa_flow *fl, const struct tb_insn *in,
			const struct eh_step *st, s32 have, s32 *bytes,
			bool *ret)
{
	int regs[40], n = 0;
	s32 imm = 0;
	u32 mask;
	enum pa_kind k = pa_classify_mem(in, regs, &n, &imm);

	*ret = false;
	if (k == PA_OTHER)
		k = pa_classify_dp(in, fl->thumb, regs, &imm);
	switch (st->kind) {
	case EH_PUSH:
		if (k != PA_POP || imm || !list_mask(regs, n, false, &mask))
			return false;
		/* lr's slot popped into pc: the return */
		if ((mask & 1u << 15) && (st->mask & 1u << 14) &&
		    !(mask & 1u << 14)) {
			mask = (mask & ~(1u << 15)) | 1u << 14;
			*ret = true;
		}
		return mask == st->mask;
	case EH_VPUSH:
		return k == PA_POP && !imm && list_mask(regs, n, true, &mask) &&
		       mask == vfp_mask(st);
	case EH_SUB:
		*bytes = imm;
		return k == PA_ADD_SP && imm > 0 && imm <= have;
	case EH_FP:
		/* "mov sp, r7": sp back where the frame pointer was set */
		return k == PA_SP_FROM_FP && regs[0] == st->reg && !imm;
	}
	return false;
}

/* Is the return address still in lr at @p (lr saved by no step done)? */
static bool ra_in_lr(const struct eh_frame *fr, const struct eh_pos *p)
{
	for (u32 k = 0; k < p->s; k++)
		if (fr->step[k].kind == EH_PUSH && (fr->step[k].mask & 1u << 14))
			return false;
	return true;
}

/* Registers steps @from on save: none may change before they do. */
static u32 saved_from(const struct eh_frame *fr, u32 from)
{
	u32 m = 0;

	for (u32 k = from; k < fr->n; k++)
		if (fr->step[k].kind == EH_PUSH)
			m |= fr->step[k].mask;
	return m;
}

/*
 * The registers @in writes, sp for every push and pop form too (capstone
 * leaves it out of a 16-bit pop's).
 */
static void insn_writes(const struct tb_insn *in, bool *w)
{
	int regs[40], n = 0;
	s32 imm = 0;
	enum pa_kind k = pa_classify_mem(in, regs, &n, &imm);

	pa_writes(in, w, TB_NREGS);
	if (k == PA_PUSH || k == PA_POP || k == PA_STRD)
		w[13] = true;
}

/* A direct branch: b (any condition), cbz, cbnz. */
static bool direct_branch(const struct tb_insn *in)
{
	return in->id == ARM_INS_B || in->id == ARM_INS_CBZ ||
	       in->id == ARM_INS_CBNZ;
}

/* A direct branch's target inside the function, or 0. */
static u32 inner_target(const struct pa_flow *fl, const struct tb_insn *in)
{
	u32 t;

	/* an immediate of anything else is no address */
	if (!direct_branch(in))
		return 0;
	t = pa_branch_target(in);
	return t >= fl->lo && t < fl->hi ? t : 0;
}

#define EH_MAX_BRANCHES	4096

/* A branch inside the function, and the state it takes there. */
struct eh_branch {
	u32 target;
	struct eh_pos p;
	u32 at;
};

/* Per instruction, the state before it; the whole function's verdict. */
struct eh_walk {
	struct eh_pos *pos;
	struct eh_pos *hint;	/* the state a branch from outside the body
				 * brings to an instruction after a path's
				 * end (else the body's) */
	bool *hinted;
	struct eh_branch *br;
	u32 nbr;
	const char *why;	/* refused as a whole: why */
	u32 why_at;
	u32 windows;		/* stretches refused up to their path's end */
};

static bool refuse_all(struct eh_walk *w, const struct tb_insn *in, const char *why)
{
	w->why = why;
	w->why_at = (u32)in->address;
	return false;
}

/* The instruction at @addr, or fl->n when none starts there. */
static u32 insn_at(const struct pa_flow *fl, u32 addr)
{
	long k = pa_index_of(fl, addr);

	return k < 0 ? fl->n : (u32)k;
}

/*
 * A branch from state @p (before it: branches move no sp) to @in's
 * target inside the function, checked once every state is known.  A
 * target after a path's end takes the state of the first branch there
 * that does not come from the body.
 */
static bool note_branch(const struct pa_flow *fl, const struct eh_frame *fr,
			struct eh_walk *wk, const struct tb_insn *in,
			const struct eh_pos *p)
{
	u32 t = inner_target(fl, in), k;

	if (!t)
		return true;
	if (wk->nbr == EH_MAX_BRANCHES)
		return refuse_all(wk, in, "too many branches");
	wk->br[wk->nbr++] = (struct eh_branch){ t, *p, (u32)in->address };
	k = insn_at(fl, t);
	if (k < fl->n && !wk->hinted[k] && (p->s != fr->n || p->part)) {
		wk->hint[k] = *p;
		wk->hinted[k] = true;
	}
	return true;
}

/* Every branch inside finds the state it brings. */
static bool branches_agree(const struct pa_flow *fl, struct eh_walk *wk)
{
	for (u32 b = 0; b < wk->nbr; b++) {
		const struct eh_branch *br = &wk->br[b];
		u32 k = insn_at(fl, br->target);
		const struct eh_pos *q = k < fl->n ? &wk->pos[k] : NULL;

		if (!q || q->unknown || q->s != br->p.s || q->part != br->p.part) {
			wk->why = "a branch meets another frame at its target";
			wk->why_at = br->at;
			return false;
		}
	}
	return true;
}

/*
 * An instruction the prologue may hold between its steps: one that
 * writes neither sp, lr, pc nor a register a later step saves (@keep);
 * a conditional branch inside the function (a shrink-wrapped early
 * exit: noted, checked later); a conditional return while lr holds the
 * return address.
 */
static bool neutral(const struct pa_flow *fl, const struct eh_frame *fr,
		    struct eh_walk *wk, const struct tb_insn *in,
		    const struct eh_pos *p)
{
	u32 keep = saved_from(fr, p->s);
	bool w[TB_NREGS];

	insn_writes(in, w);
	if (in->id == ARM_INS_CBZ || in->id == ARM_INS_CBNZ ||
	    (in->id == ARM_INS_B && pa_conditional(in) && inner_target(fl, in)))
		return inner_target(fl, in) && note_branch(fl, fr, wk, in, p);
	/* a conditional return, or tail call, with the caller's frame */
	if (w[15] && pa_conditional(in) && !w[13] && !p->s && !p->part &&
	    ((in->id == ARM_INS_BX && pa_computed_jump(in) == PA_J_NONE) ||
	     (in->id == ARM_INS_B && pa_branch_target(in))))
		return true;
	if (w[13] || w[14] || w[15])
		return false;
	for (int r = 0; r < 16; r++)
		if (w[r] && (keep & 1u << r))
			return false;
	return true;
}

/* The prologue: steps in order from instruction @i.  Returns the index
 * of the first body instruction, or fl->n + 1 on a mismatch. */
static u32 walk_prologue(const struct pa_flow *fl, const struct eh_frame *fr,
			 struct eh_walk *w, u32 i)
{
	struct eh_pos p = { 0 };

	while (p.s < fr->n) {
		const struct eh_step *st = &fr->step[p.s];
		s32 bytes = 0;

		if (i == fl->n) {
			w->why = "the prologue runs off the function";
			w->why_at = fl->hi;
			return fl->n + 1;
		}
		w->pos[i] = p;
		/*
		 * "add r7, sp, #k" after "sub sp, #N": the opcodes say
		 * vsp = r7, then N - k.  The sub runs on past its step
		 * until the frame pointer's k takes the rest back.
		 */
		if (fr->fp && p.s + 2 == fr->n && st->kind == EH_SUB &&
		    p.part >= st->bytes &&
		    does_step(fl, &fl->ins[i], &fr->step[p.s + 1],
			      p.part - st->bytes, &bytes)) {
			p.s = fr->n;
			p.part = 0;
		} else if (fr->fp && p.s + 2 == fr->n && st->kind == EH_SUB &&
			   does_step(fl, &fl->ins[i], st, st->bytes + 1020 - p.part,
				     &bytes)) {
			p.part += bytes;
		} else if (does_step(fl, &fl->ins[i], st, st->bytes - p.part, &bytes)) {
			if (st->kind == EH_SUB && p.part + bytes < st->bytes) {
				p.part += bytes;
			} else {
				p.s++;
				p.part = 0;
			}
		} else if (!neutral(fl, fr, w, &fl->ins[i], &p)) {
			if (!w->why)
				refuse_all(w, &fl->ins[i],
					   "the prologue is not what the opcodes undo");
			return fl->n + 1;
		}
		i++;
	}
	return i;
}

/* Does @in end its path: a return, an unconditional or computed jump? */
static bool path_ends(const struct tb_insn *in, const bool *w)
{
	return w[15] && !pa_conditional(in) && !pa_is_call(in) &&
	       in->id != ARM_INS_CBZ && in->id != ARM_INS_CBNZ;
}

/*
 * One body instruction from state @p (not unknown): the state after it.
 * False refuses the function.
 */
static bool body_insn(const struct pa_flow *fl, const struct eh_frame *fr,
		      const struct tb_insn *in, const bool *w, struct eh_pos *p,
		      struct eh_walk *wk)
{
	const struct eh_step *st;
	bool body = p->s == fr->n && !p->part, ret;
	s32 bytes = 0;

	if (w[14] && ra_in_lr(fr, p))
		return refuse_all(wk, in, "lr written while it holds the return address");
	if (w[15] && pa_computed_jump(in) != PA_J_NONE && !body)
		return refuse_all(wk, in, "a computed jump outside the body's frame");
	if (!note_branch(fl, fr, wk, in, p))
		return false;
	/* bx lr, mov pc, lr, a load into pc: a return, with lr's value */
	if (w[15] && !w[13] && !pa_is_call(in) && !pa_conditional(in) &&
	    !direct_branch(in) && pa_computed_jump(in) == PA_J_NONE &&
	    !ra_in_lr(fr, p))
		return refuse_all(wk, in, "a return with the frame up");
	/* the frame pointer holds a frame kept in it: sp is free to move */
	if (fr->fp && body && !w[fr->step[fr->n - 1].reg]) {
		if (w[13] && undoes_step(fl, in, &fr->step[fr->n - 1], 0, &bytes, &ret)) {
			if (pa_conditional(in))
				return refuse_all(wk, in, "a conditional epilogue");
			p->s--;
		}
		return true;
	}
	if (fr->fp && body && w[fr->step[fr->n - 1].reg]) {
		p->unknown = true;
		wk->windows++;
		return true;
	}
	if (!w[13])
		return true;
	/* sp moves: it must undo the last step done */
	st = p->part ? &fr->step[p->s] : p->s ? &fr->step[p->s - 1] : NULL;
	if (st && undoes_step(fl, in, st, p->part ? p->part : st->bytes,
			      &bytes, &ret)) {
		if (pa_conditional(in))
			return ret ? true : refuse_all(wk, in, "a conditional epilogue");
		if (ret)
			return true;	/* the path ends: the caller resets */
		if (st->kind == EH_SUB && p->part) {
			p->part -= bytes;
		} else if (st->kind == EH_SUB && bytes < st->bytes) {
			p->s--;
			p->part = st->bytes - bytes;
		} else {
			p->s--;
		}
		return true;
	}
	if (pa_conditional(in))
		return refuse_all(wk, in, "sp moved under a condition");
	p->unknown = true;
	wk->windows++;
	return true;
}

/*
 * The state before every instruction.  False: refuse the function.  A
 * symbol after a path's end starts a function of its own, entered with
 * its caller's frame: GNU ld merges the identical exidx entries of
 * neighbours into one (@start marks the instructions symbols name).  A
 * call right before a symbol ends its function too: it never returns
 * (__stack_chk_fail), as prologue analysis takes a call at the end.
 */
static bool walk(const struct pa_flow *fl, const struct eh_frame *fr,
		 struct eh_walk *wk, const bool *start)
{
	u32 i = walk_prologue(fl, fr, wk, 0);
	struct eh_pos p = { .s = fr->n };
	bool ended = false, last_call = false;

	if (i > fl->n)
		return false;
	for (; i < fl->n; i++) {
		const struct tb_insn *in = &fl->ins[i];
		bool w[TB_NREGS];

		if ((ended || last_call) && start[i]) {
			i = walk_prologue(fl, fr, wk, i);
			if (i > fl->n)
				return false;
			if (i == fl->n)
				break;
			in = &fl->ins[i];
			p = (struct eh_pos){ .s = fr->n };
		} else if (ended && wk->hinted[i]) {
			p = wk->hint[i];
		}
		wk->pos[i] = p;
		insn_writes(in, w);
		if (p.unknown) {
			if ((w[15] && pa_computed_jump(in) != PA_J_NONE) ||
			    (!pa_is_call(in) && inner_target(fl, in)))
				return refuse_all(wk, in, "a jump inside the function from an unknown frame");
		} else if (!body_insn(fl, fr, in, w, &p, wk)) {
			return false;
		}
		if (path_ends(in, w))
			p = (struct eh_pos){ .s = fr->n };
		/* alignment padding after a path's end runs never */
		ended = path_ends(in, w) || (ended && pa_is_padding(in));
		last_call = (pa_is_call(in) && !pa_conditional(in)) ||
			    (last_call && pa_is_padding(in));
	}
	return branches_agree(fl, wk);
}

/*
 * Literal pools the mapping symbols name inside [lo, hi), in @data;
 * the instruction set there, or 0 when it changes (or is unknown).
 */
static char code_ranges(const struct tb_elf *e, u32 lo, u32 hi,
			struct pa_range *data, u32 *ndata)
{
	char mode = tb_elf_map_at(e, lo);

	*ndata = 0;
	for (u32 k = tb_elf_maps_upto(e, lo); k < e->nmaps && e->maps[k].addr < hi;
	     k++) {
		u32 end = k + 1 < e->nmaps && e->maps[k + 1].addr < hi ?
			  e->maps[k + 1].addr : hi;

		if (e->maps[k].kind == 'd') {
			if (*ndata == PA_MAX_POOLS)
				return 0;
			data[(*ndata)++] = (struct pa_range){ e->maps[k].addr, end };
		} else if (e->maps[k].kind != mode) {
			return 0;
		}
	}
	return mode == 'd' ? 0 : mode;
}

/* The function's rows from the states, one pair at each change. */
static int emit_pairs(const struct pa_flow *fl, const struct eh_frame *fr,
		      const struct eh_walk *wk, struct tb_cfi_func *f)
{
	struct tb_pair *v = calloc(fl->n, sizeof(*v));
	u32 n = 0;

	if (!v)
		return -1;
	for (u32 i = 0; i < fl->n; i++) {
		struct tb_seq s;

		if (!pos_seq(fr, &wk->pos[i], &s)) {
			free(v);
			return 0;
		}
		if (n && v[n - 1].seq.len == s.len &&
		    !memcmp(v[n - 1].seq.b, s.b, s.len))
			continue;
		v[n].off = (u32)fl->ins[i].address - f->addr;
		v[n++].seq = s;
	}
	free(f->epairs);
	f->epairs = v;
	f->nepairs = n;
	return 1;
}

struct eh_handles {
	csh cs[2];		/* ARM, Thumb */
	struct tb_dec *dec;	/* the file's instructions decoded once, or
				 * NULL: capstone decodes them */
	struct pa_reuse *reuse;	/* details and instructions kept between
				 * functions */
};

/*
 * One function in mode @thumb: 1 with rows, 0 refused as a whole (@why),
 * -1 on memory.  @why is left NULL when the code does not decode.
 */
static int try_mode(struct tb_elf *e, const struct eh_handles *h,
		    struct tb_cfi_func *f, const struct eh_frame *fr,
		    bool thumb, const struct pa_range *data, u32 ndata,
		    struct eh_walk *wk)
{
	const struct tb_sec *sec = tb_elf_sec(e, f->addr);
	const u8 *text = sec ? tb_elf_sec_bytes(e, sec) : NULL;
	u32 len = sec && f->addr + f->size > sec->addr + sec->size ?
		  sec->addr + sec->size - f->addr : f->size;
	char why[128];
	/* the decoder's forms, as prologue analysis decodes (no other field) */
	struct pa_text pt = { .dec = h->dec, .reuse = h->reuse, .b = text,
			      .addr = sec ? sec->addr : 0,
			      .size = sec ? sec->size : 0 };
	struct pa_flow fl = { .cs = h->cs[thumb], .text = &pt, .lo = f->addr,
			      .hi = f->addr + len, .thumb = thumb,
			      .infer_pools = true, .data = data,
			      .ndata = ndata, .why = why,
			      .wlen = sizeof(why) };
	bool *start = NULL;
	int r = 0;

	wk->why = NULL;
	wk->windows = 0;
	if (!text || !len || (f->addr & (thumb ? 1 : 3)))
		return 0;
	r = pa_decode_all(&fl, text + (f->addr - sec->addr), len);
	if (r == -2)
		r = -1;
	else if (r || !fl.n || fl.ins[0].address != f->addr)
		r = 0;
	else if (!(wk->pos = calloc(fl.n, sizeof(*wk->pos))) ||
		 !(wk->hint = calloc(fl.n, sizeof(*wk->hint))) ||
		 !(wk->hinted = calloc(fl.n, sizeof(*wk->hinted))) ||
		 !(wk->br = malloc(EH_MAX_BRANCHES * sizeof(*wk->br))) ||
		 !(start = calloc(fl.n, sizeof(*start))))
		r = -1;
	else {
		/* the instructions ascend: one bisection, then a cursor */
		u32 k = tb_elf_first_sym(e, (u32)fl.ins[0].address);

		for (u32 i = 0; i < fl.n; i++) {
			u32 a = (u32)fl.ins[i].address;

			while (k < e->nsyms && e->syms[k].addr < a)
				k++;
			start[i] = k < e->nsyms && e->syms[k].addr == a;
		}
		r = walk(&fl, fr, wk, start) ? emit_pairs(&fl, fr, wk, f) : 0;
	}
	if (!r && !wk->why)
		wk->why = "the code does not decode";
	free(start);
	free(wk->pos);
	free(wk->hint);
	free(wk->hinted);
	free(wk->br);
	wk->pos = wk->hint = NULL;
	wk->hinted = NULL;
	wk->br = NULL;
	wk->nbr = 0;
	pa_decode_free(&fl);
	return r;
}

/* Its instruction set: a symbol's, the mapping symbols', else -1. */
static int mode_of(const struct tb_elf *e, u32 addr, char map)
{
	u32 i = pa_sym_at(e, addr);

	if (i < e->nsyms)
		return e->syms[i].thumb;
	if (map == 't' || map == 'a')
		return map == 't';
	return -1;
}

/* The opcodes become a refusal; -1 without memory for its two bytes. */
static int refuse(struct tb_cfi_func *f)
{
	if (f->ehabi_len < 2) {	/* an entry may have held one opcode */
		u8 *ops = realloc(f->ehabi, 2);

		if (!ops)
			return -1;
		f->ehabi = ops;
	}
	f->ehabi[0] = 0x80;
	f->ehabi[1] = 0x00;
	f->ehabi_len = 2;
	return 0;
}

/*
 * One EHABI-only function.  Without a known instruction set, the one set
 * whose decoding shows the opcodes' prologue (at least one step) is taken.
 */
static int one_func(struct tb_elf *e, const struct eh_handles *h,
		    struct tb_cfi_func *f, struct tb_notes *notes,
		    struct tb_ehabi_stats *stats)
{
	struct pa_range data[PA_MAX_POOLS];
	struct eh_frame fr;
	struct eh_walk wk = { 0 };
	u32 ndata = 0;
	char map = e->nmaps ? code_ranges(e, f->addr, f->addr + f->size,
					  data, &ndata) : 0;
	int mode = mode_of(e, f->addr, map), r = 0;

	if (!read_steps(&fr, f->ehabi, f->ehabi_len)) {
		wk.why = "opcodes that are no prologue's undoing";
		wk.why_at = f->addr;
	} else if (e->nmaps && !map) {
		wk.why = "instruction sets mix, or too many literal pools";
		wk.why_at = f->addr;
	} else if (mode >= 0) {
		r = try_mode(e, h, f, &fr, mode, data, ndata, &wk);
	} else if (!fr.n) {
		wk.why = "instruction set unknown";
		wk.why_at = f->addr;
	} else {
		r = try_mode(e, h, f, &fr, true, data, ndata, &wk);
		if (!r) {
			r = try_mode(e, h, f, &fr, false, data, ndata, &wk);
			if (!r)
				wk.why = "instruction set unknown, and neither decodes to the prologue";
		}
	}
	if (r < 0)
		return -1;
	if (r) {
		stats->rows++;
		stats->windows += wk.windows;
		if (!fr.n)
			stats->frameless++;
		return 0;
	}
	stats->refused++;
	tb_note_add(notes, f->addr, wk.why_at, TB_N_EHABI_UNPROVEN, "%s",
		    wk.why);
	return refuse(f);
}

static bool is_refusal(const struct tb_cfi_func *f)
{
	return f->ehabi_len == 2 && f->ehabi[0] == 0x80 && !f->ehabi[1];
}

int tb_ehabi_rows_pass(struct tb_elf *e, struct tb_input *in,
		       struct tb_notes *notes, struct tb_ehabi_stats *stats)
{
	struct pa_reuse reuse = { 0 };
	struct eh_handles h = { .dec = tb_elf_decoder(e), .reuse = &reuse };
	int r = 0;

	memset(stats, 0, sizeof(*stats));
	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &h.cs[0]))
		return -1;
	if (cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &h.cs[1])) {
		cs_close(&h.cs[0]);
		return -1;
	}
	cs_option(h.cs[0], CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(h.cs[1], CS_OPT_DETAIL, CS_OPT_ON);
	for (u32 i = 0; i < in->n && !r; i++) {
		struct tb_cfi_func *f = &in->funcs[i];

		if (f->source != TB_SRC_EHABI || !f->ehabi || is_refusal(f))
			continue;
		/*
		 * A piece after code prologue analysis took: the opcodes
		 * describe the function before it, not this code.
		 */
		if (!f->ehabi_entry) {
			stats->pieces++;
			r = refuse(f);
			continue;
		}
		r = one_func(e, &h, f, notes, stats);
	}
	pa_reuse_free(&reuse);
	cs_close(&h.cs[0]);
	cs_close(&h.cs[1]);
	return r;
}
