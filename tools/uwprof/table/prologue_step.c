// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis, the walker at one instruction: its frame form
 * classified (prologue_dp.c, prologue_ldst.c) and applied
 * (prologue_frame.c), its register writes checked against what the frame
 * needs kept, conditional frame changes, APCS returns, the new thread's
 * path in a clone wrapper; branches go on to prologue_jump.c.  Frame
 * changes, returns, calls, computed jumps and what refuses a function are
 * listed in docs/TABLES.md ("Prologue analysis").
 */
#include "table/prologue_int.h"

/*
 * The new thread's path: the outermost frame, whatever it does.  Every
 * instruction of it is followed (direct branches and calls inside the
 * function too), and it may end anywhere: it ends in the exit system
 * call, which never returns.
 */
static int flow_child(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const struct tb_insn *in = &fl->ins[i];
	u32 t = pa_branch_target(in);
	bool pc = pa_bit(pa_write_mask(in), 15), more;

	/* Calls come back, conditional branches may fall through. */
	more = !pc || pa_is_call(in) || pa_conditional(in) ||
	       in->id == ARM_INS_CBZ || in->id == ARM_INS_CBNZ;
	if (pc && t >= fl->lo && t < fl->hi && pa_reach(fl, in, t, st))
		return -1;
	return more && i + 1 < fl->n ? pa_next(fl, i, st) : 0;
}

static enum pa_kind classify(const struct tb_insn *in, bool thumb, int *regs, int *n,
			     s32 *imm);

/*
 * Does @in return on @changed, the frame as the instructions before it
 * on its condition left it ("popeq {r4-r7, pc}", "bxeq lr"), or branch
 * in it ("ldmiaeq.w sp!, {r4-r7, lr}; beq.w f", a tail call, in clang's
 * stack protector epilogue)?  1 if it does, 0 if it is neither, -1 if
 * it returns with the frame up or the branch refuses.  A branch after a
 * run that left the frame as it was (@orig: a copy of the frame pointer
 * alone, "addls.w r6, r7, #176; bls.n 1f" in glibc's argp_parse) is no
 * end of one: an ordinary conditional branch.
 */
static int cond_return(struct pa_flow *fl, const struct tb_insn *in,
		       struct pa_state changed, const struct pa_state *orig)
{
	int regs[48], n = 0;
	s32 imm = 0;
	enum pa_kind k = classify(in, fl->thumb, regs, &n, &imm);

	if (in->id == ARM_INS_BX && in->detail->arm.operands[0].reg == ARM_REG_LR)
		return pa_ret_ok(fl, in, &changed) ? -1 : 1;
	if (in->id == ARM_INS_B && pa_branch_target(in)) {
		if (pa_frame_eq(&changed, orig))
			return 0;
		return pa_branch_to(fl, in, pa_branch_target(in), &changed) ? -1 : 1;
	}
	if (k != PA_POP || regs[n - 1] != 15)
		return 0;
	if (!pa_pop_frame(&changed, regs, n, imm) || pa_ret_ok(fl, in, &changed))
		return pa_fail(fl, in, "return that does not undo the frame");
	return 1;
}

/* an epilogue's worth of instructions after the first: two IT blocks */
#define PA_MAX_COND_RUN	9

/*
 * A conditional frame change that starts a conditional return: the
 * instructions right after it, on the same condition and setting no
 * flags, undo the frame and the last returns (clang's stack protector
 * in Thumb code: "ittt eq; addeq sp, #N; ldmiaeq.w sp!, {r8-r11}; popeq
 * {r4-r7, pc}", then the call to __stack_chk_fail).  The condition-true
 * path ends in the return; the false path goes on after it with the
 * frame unchanged.  The instructions after the first change are reached
 * with either frame, so their rows refuse.  0 when the code is no such
 * run (nothing reached), 1 when it is, -1 on failure.
 */
static int cond_return_run(struct pa_flow *fl, u32 i, const struct pa_state *st,
			   struct pa_state changed)
{
	const struct tb_insn *in = &fl->ins[i];
	struct pa_state both = *st;
	int regs[48], n, r;
	s32 imm;

	both.ambiguous = true;
	for (u32 j = i + 1; j < fl->n && j <= i + PA_MAX_COND_RUN; j++) {
		const struct tb_insn *c = &fl->ins[j];
		enum pa_kind k;

		if (c->address != fl->ins[j - 1].address + fl->ins[j - 1].size)
			return 0;
		/* the next IT block goes on under the same flags */
		if (c->id == ARM_INS_IT)
			continue;
		if (c->detail->arm.cc != in->detail->arm.cc ||
		    c->detail->arm.update_flags)
			return 0;
		r = cond_return(fl, c, changed, st);
		if (r < 0)
			return -1;
		if (r > 0) {
			for (u32 m = i + 1; m <= j; m++)
				if (pa_reach(fl, &fl->ins[m - 1],
					     (u32)fl->ins[m].address, &both))
					return -1;
			return pa_next(fl, j, st) ? -1 : 1;
		}
		n = 0;
		imm = 0;
		k = classify(c, fl->thumb, regs, &n, &imm);
		if ((k != PA_POP && k != PA_ADD_SP && k != PA_SP_FROM_FP &&
		     k != PA_FP_COPY) ||
		    !pa_apply(&changed, k, regs, n, imm))
			return 0;
	}
	return 0;
}

/*
 * A conditional frame change and a branch on the same condition right
 * after it ("popcc {r8}; bcc loop" in glibc's memcpy): the branch goes
 * with the frame changed, the code after it with the frame as it was.
 * The branch instruction itself has both, so its row refuses.  Or the
 * start of a conditional return (cond_return_run).
 */
static int cond_frame_change(struct pa_flow *fl, u32 i, struct pa_state st,
			     enum pa_kind k, const int *regs, int n, s32 imm)
{
	const struct tb_insn *in = &fl->ins[i], *br = i + 1 < fl->n ? &fl->ins[i + 1] : NULL;
	struct pa_state changed = st, both = st;
	u32 t;
	int run;

	if (!br || br->address != in->address + in->size ||
	    br->detail->arm.cc != in->detail->arm.cc ||
	    (br->id != ARM_INS_B && !(br->id == ARM_INS_BX &&
	     br->detail->arm.operands[0].reg == ARM_REG_LR))) {
		if (!pa_apply(&changed, k, regs, n, imm))
			return pa_fail(fl, in, "conditional frame change");
		run = cond_return_run(fl, i, &st, changed);
		return run ? (run < 0 ? -1 : 0) :
		       pa_fail(fl, in, "conditional frame change");
	}
	if (!pa_apply(&changed, k, regs, n, imm))
		return pa_fail(fl, in, "frame change that does not match the frame");
	both.ambiguous = true;
	if (pa_reach(fl, in, (u32)br->address, &both))
		return -1;
	t = br->id == ARM_INS_B ? pa_branch_target(br) : 0;
	if (t ? pa_branch_to(fl, br, t, &changed) : pa_ret_ok(fl, br, &changed))
		return -1;	/* a branch, tail call or return refused */
	return pa_next(fl, i + 1, &st);
}

/*
 * A copy of the frame pointer made under a condition that starts a
 * conditional return ("subeq.w r4, r7, #48; moveq sp, r4; vpopeq
 * {d8-d9}; ..." after an alloca, in clang's stack protector epilogue):
 * the true path restores sp from the copy.  The false path goes on with
 * the register written, as any conditional write.  0 if no such run.
 */
static int cond_fp_copy(struct pa_flow *fl, u32 i, struct pa_state st,
			const int *regs, s32 imm)
{
	struct pa_state changed = st;

	if (!pa_apply(&changed, PA_FP_COPY, regs, 2, imm))
		return 0;
	if (st.spreg == regs[0])
		st.spreg = -1;
	return cond_return_run(fl, i, &st, changed);
}

/* An APCS return (prologue_apcs.c): the frame must be undone. */
static int apcs_return(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const struct tb_insn *in = &fl->ins[i];
	struct pa_state after;
	const char *bad = pa_apcs_undo(in, st, &after);

	if (bad)
		return pa_fail(fl, in, bad);
	/* lr loaded, not pc: the frame is gone and the code goes on */
	if (in->detail->arm.operands[in->detail->arm.op_count - 1].reg ==
	    ARM_REG_LR)
		return pa_conditional(in) ?
		       pa_fail(fl, in, "conditional frame change") :
		       pa_next(fl, i, &after);
	if (pa_ret_ok(fl, in, &after))
		return -1;
	return pa_conditional(in) ? pa_next(fl, i, st) : 0;
}

/* Classify the frame-changing forms; @regs/@n or @imm filled. */
static enum pa_kind classify(const struct tb_insn *in, bool thumb, int *regs, int *n,
			     s32 *imm)
{
	switch (in->id) {
	case ARM_INS_MOV:
	case ARM_INS_SUB:
	case ARM_INS_SUBW:
	case ARM_INS_ADD:
	case ARM_INS_ADDW:
		return pa_classify_dp(in, thumb, regs, imm);
	default:
		return pa_classify_mem(in, regs, n, imm);
	}
}

/*
 * Where instruction @i works on its state: in the next one's, when that
 * is the only successor it can reach and no path has reached it yet, so
 * that reach_at() need not copy it there; else in @local.  An
 * instruction that writes pc may go elsewhere, and one whose frame
 * change is conditional (cond_frame_change(), cond_fp_copy()) hands on
 * copies of its state.
 */
static struct pa_state *scratch(struct pa_flow *fl, u32 i,
				const struct pa_state *before, uint64_t wr,
				struct pa_state *local)
{
	if (pa_bit(wr, 15) || i + 1 >= fl->n || fl->have[i + 1] ||
	    before == &fl->st[i + 1] ||
	    fl->ins[i + 1].address != fl->ins[i].address + fl->ins[i].size)
		return local;
	return &fl->st[i + 1];
}

/* One instruction in state @st: its successors are reached. */
int pa_flow_insn(struct pa_flow *fl, u32 i, const struct pa_state *before)
{
	const struct tb_insn *in = &fl->ins[i];
	int regs[48], n = 0;
	s32 imm = 0;
	bool cond = pa_conditional(in);
	enum pa_kind k = classify(in, fl->thumb, regs, &n, &imm);
	uint64_t wmask, wr;
	struct pa_state local, *st;

	if (before->child)
		return flow_child(fl, i, before);
	if (before->ambiguous)
		return 0;	/* cond_frame_change() followed both ways */
	wmask = wr = pa_write_mask(in);
	st = scratch(fl, i, before, wr, &local);
	pa_state_copy(st, before);
	/* A branch reads the clone state; everything else updates it. */
	if (!pa_bit(wr, 15))
		pa_clone_track(fl, in, st);
	/* a store or a load where sp is unknown or on one path only saves
	 * and restores nothing; what a load leaves in wr is an ordinary
	 * register write */
	if (k == PA_LOAD && !cond && !st->on_fp) {
		pa_load_slots(st, regs, n, imm, &wr);
		for (int j = 0; j < n; j++)	/* those it took back */
			if (!pa_bit(wr, regs[j]))
				wmask &= ~(1ull << regs[j]);
	}
	if (k == PA_LOAD || (k == PA_STORE && (cond || st->on_fp)))
		k = PA_OTHER;
	/* a push stores its registers and writes sp alone (capstone lists
	 * the stored registers as written too) */
	if (k == PA_PUSH)
		wmask &= 1ull << 13;
	/* r0-r14 but sp written (a pop puts its slots back) */
	st->dirty |= (u16)(wmask & 0x5fff);

	if (pa_loads_sp_and_pc(in))
		return apcs_return(fl, i, st);
	if (k == PA_POP && regs[n - 1] == 15) {
		struct pa_state after = *st;

		if (!pa_pop_frame(&after, regs, n, imm) || pa_ret_ok(fl, in, &after))
			return pa_fail(fl, in, "return that does not undo the frame");
		return cond ? pa_next(fl, i, st) : 0;
	}
	/* r7 set from sp but never saved: an ordinary register write */
	if ((k == PA_SET_FP || (k == PA_FP_COPY && pa_callee_saved(regs[0]))) &&
	    pa_slot(st, regs[0]) == PA_NONE)
		k = PA_OTHER;
	/* arithmetic on r7 or r11 where it is no frame pointer ("add fp, fp,
	 * #1", "addlo r3, r7, #56"): an ordinary register write too */
	if (k == PA_FP_COPY && st->fp != regs[1])
		k = PA_OTHER;
	/* r7 or r11 from a register that holds no copy of sp; and copies
	 * of sp made on one path only, which nothing needs */
	if (k == PA_FP_FROM_COPY &&
	    (st->spreg != regs[1] || pa_slot(st, regs[0]) == PA_NONE))
		k = PA_OTHER;
	if ((k == PA_SP_COPY || k == PA_FP_FROM_COPY) && cond)
		k = PA_OTHER;
	/*
	 * A copy of the frame pointer made on one path only ("subeq r8, fp,
	 * #60", a local's address, in V8's ARM code): no rule reads the
	 * register it writes, whose copy nothing may then use.  Below, as
	 * any write on one path, it is written on both; a conditional move
	 * of the frame pointer itself leaves it known on neither (and
	 * refuses after an alloca, where it holds the CFA).
	 */
	if (k == PA_FP_COPY && cond && regs[0] != st->fp) {
		int run = cond_fp_copy(fl, i, *st, regs, imm);

		if (run)
			return run < 0 ? -1 : 0;
	}
	if (k == PA_FP_COPY && cond)
		k = PA_OTHER;
	if (k != PA_OTHER) {
		if (cond)
			return cond_frame_change(fl, i, *st, k, regs, n, imm);
		if (!pa_apply(st, k, regs, n, imm))
			return pa_fail(fl, in, "frame change that does not match the frame");
		return pa_next(fl, i, st);
	}
	if (st->spreg >= 0 && pa_bit(wr, st->spreg))
		st->spreg = -1;
	if (st->fp >= 0 && pa_bit(wr, st->fp)) {
		if (st->on_fp)
			return pa_fail(fl, in, "frame pointer written after an alloca");
		st->fp = -1;
	}
	if (pa_bit(wr, 15))
		return pa_flow_branch(fl, i, st);
	/* any other change of sp (clang: "sub ip, sp, r3; mov sp, ip") is
	 * an alloca: the frame pointer, if there is one, holds the frame */
	if (pa_bit(wr, 13) && (st->fp < 0 || st->fp == 12))
		return pa_fail(fl, in, "sp changed");
	if (pa_bit(wr, 13))
		st->on_fp = true;
	if (pa_bit(wr, 14) && pa_slot(st, 14) == PA_NONE)
		return pa_fail(fl, in, "lr overwritten while it holds the return address");
	/* the registers written, from r4 up (a mask: most write one) */
	for (uint64_t m = wmask & ~0xfull; m; m &= m - 1) {
		int r = tb_ctz64(m);

		if (!pa_callee_saved(r) || pa_slot(st, r) != PA_NONE)
			continue;
		/*
		 * A function that never returns need not keep its caller's
		 * registers (glibc's start_thread uses r4 unsaved), and only
		 * a frame pointer (r7, r11) can matter to a caller's unwind.
		 */
		if (r == 7 || r == 11)
			return pa_fail(fl, in, "frame pointer written unsaved");
		if (!fl->clobber)
			fl->clobber = in;
	}
	return pa_next(fl, i, st);
}
