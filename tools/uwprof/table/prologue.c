// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis with capstone (ARM and Thumb).
 *
 * Every path through the function is followed from its entry with a
 * state: the CFA as sp + cfa, and for each register the CFA-relative slot
 * it was saved at.  Paths that meet must agree, since one row serves
 * every path through an address; rows are emitted where the state
 * changes.  Frame changes, returns, calls, computed jumps and what
 * refuses a function are listed in docs/TABLES.md ("Prologue analysis");
 * anything not recognised ends the analysis and the function keeps what
 * it had.  In thread-entry mode the clone system call's result is
 * tracked too, and the new thread's path is the outermost frame.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>
#include "table/prologue.h"

#define PA_NONE	INT32_MIN	/* register not saved */

/* Thread entries: what is known of the clone system call's result. */
enum pa_clone { PA_CL_NONE, PA_CL_R0, PA_CL_FLAGS };

struct pa_state {
	s32 cfa;		/* CFA = sp + cfa */
	s32 slot[TB_NREGS];	/* CFA-relative, or PA_NONE */
	bool touched[TB_NREGS];	/* saved at some point: SAME when back */
	u16 dirty;		/* r0-r14 written since entry and not put
				 * back: no longer the caller's values */
#define PA_ALL_WRITTEN	0x7fff
	bool child;		/* the new thread's path: outermost frame */
	bool ambiguous;		/* two frames meet here: refused */
	s32 fp;			/* r7 or r11 holding CFA - fp_off, or -1 */
	bool on_fp;		/* sp unknown (alloca): CFA = fp + fp_off */
	s32 fp_off;
	s32 spreg;		/* a register set from fp to CFA - spreg_off,
				 * to restore sp from (clang), or -1 */
	s32 spreg_off;
	s32 cfa_copy;		/* CFA-relative slot holding the CFA's value
				 * (APCS: ip = sp pushed), or PA_NONE */
	u8 clone;		/* enum pa_clone */
};

/* capstone register -> row slot (r0-r15, d0-d31), or -1. */
static int slot_of(unsigned int reg)
{
	if (reg >= ARM_REG_R0 && reg <= ARM_REG_R12)
		return reg - ARM_REG_R0;
	if (reg == ARM_REG_SP)
		return 13;
	if (reg == ARM_REG_LR)
		return 14;
	if (reg == ARM_REG_PC)
		return 15;
	if (reg >= ARM_REG_D0 && reg <= ARM_REG_D31)
		return TB_D0 + (reg - ARM_REG_D0);
	return -1;
}

static bool callee_saved(int s)
{
	return (s >= 4 && s <= 11) || (s >= TB_D0 + 8 && s <= TB_D0 + 15);
}

/* Written since entry: a d register counts as written (not tracked). */
static bool is_dirty(const struct pa_state *st, int s)
{
	return s > 14 || (st->dirty >> s) & 1;
}

/* The same frame: what a row states. */
static bool frame_eq(const struct pa_state *a, const struct pa_state *b)
{
	return a->cfa == b->cfa && a->child == b->child &&
	       a->ambiguous == b->ambiguous && a->on_fp == b->on_fp &&
	       (!a->on_fp || (a->fp == b->fp && a->fp_off == b->fp_off)) &&
	       !memcmp(a->slot, b->slot, sizeof(a->slot));
}

/* The same frame and the same knowledge of a clone's result. */
static bool state_eq(const struct pa_state *a, const struct pa_state *b)
{
	return frame_eq(a, b) && a->clone == b->clone && a->fp == b->fp &&
	       a->fp_off == b->fp_off && a->spreg == b->spreg &&
	       a->spreg_off == b->spreg_off && a->cfa_copy == b->cfa_copy;
}

/*
 * The row for @st at @addr: every rule stated, so rows never depend on
 * the delta order.  @saved_anywhere: registers some row of the function
 * saves (a scratch register pushed on one path is SAME on the others:
 * an early return placed after the body follows rows that saved it).
 */
static int add_row(struct tb_cfi_func *f, const struct pa_state *st, u32 addr,
		   const bool *saved_anywhere)
{
	struct tb_row *r = tb_func_add_row(f);

	if (!r)
		return -1;
	memset(r, 0, sizeof(*r));
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
	r->cfa_kind = TB_CFA_REG;
	r->cfa_reg = st->on_fp ? st->fp : 13;
	r->cfa_off = st->on_fp ? st->fp_off : st->cfa;
	for (int i = 0; i < TB_NREGS; i++) {
		int s = i == TB_RA ? 14 : i;

		if (i == 13 || i == 14 || i == 15)
			continue;
		/* every rule stated: which path reached a row first must
		 * not matter (flooded code has not seen the pushes) */
		if (st->slot[s] != PA_NONE)
			r->r[i] = (struct tb_rule){ TB_R_OFFSET, 0, st->slot[s] };
		else if (st->touched[s] || callee_saved(s) ||
			 (saved_anywhere && saved_anywhere[s]))
			r->r[i].kind = TB_R_SAME;
	}
	if (r->r[TB_RA].kind == TB_R_UNSET)
		r->r[TB_RA] = (struct tb_rule){ TB_R_REG, 14, 0 };
	return 0;
}

static bool ra_in_lr(const struct pa_state *st)
{
	return st->slot[14] == PA_NONE && st->cfa == 0 && !st->on_fp;
}

/* Registers of a push/pop list, ascending, as slots; -1 if odd. */
static int reg_list(const cs_arm *a, int first, int *regs)
{
	int n = 0;

	for (int i = first; i < a->op_count; i++) {
		int s;

		if (a->operands[i].type != ARM_OP_REG)
			return -1;
		s = slot_of(a->operands[i].reg);
		if (s < 0 || s == 13 || (n && s <= regs[n - 1]))
			return -1;
		regs[n++] = s;
	}
	return n;
}

static s32 reg_size(int s)
{
	return s >= TB_D0 ? 8 : 4;
}

/* A store-multiple below sp: the lowest register at the lowest address. */
static bool do_push(struct pa_state *st, const int *regs, int n)
{
	s32 total = 0, at;

	for (int i = 0; i < n; i++)
		total += reg_size(regs[i]);
	st->cfa += total;
	at = -st->cfa;
	for (int i = 0; i < n; i++) {
		/* APCS frames push pc too: a word nothing reads back */
		if (regs[i] == 15)
			break;
		/* ip = sp before the push (APCS): this slot holds the CFA */
		if (regs[i] == st->spreg && !st->spreg_off)
			st->cfa_copy = at;
		/* A second save of the same register: the first one's slot
		 * is what the caller's value is in. */
		if (st->slot[regs[i]] == PA_NONE)
			st->slot[regs[i]] = at;
		st->touched[regs[i]] = true;
		at += reg_size(regs[i]);
	}
	return true;
}

/*
 * A load-multiple from sp: the return address and callee-saved registers
 * must come from their own slots; scratch registers from any (libgcc's
 * __aeabi_uidivmod pushes {r0, r1, lr} and pops {r1, r2, lr}).
 */
static bool do_pop(struct pa_state *st, const int *regs, int n)
{
	s32 at = -st->cfa;

	for (int i = 0; i < n; i++) {
		int s = regs[i] == 15 ? 14 : regs[i];

		if (st->slot[s] != at && !(regs[i] <= 3 || regs[i] == 12))
			return false;
		if (st->slot[s] == at)	/* the caller's value is back */
			st->dirty &= ~(1u << s);
		if (s == st->fp)
			st->fp = -1;
		st->slot[s] = PA_NONE;
		at += reg_size(regs[i]);
		st->cfa -= reg_size(regs[i]);
	}
	return st->cfa >= 0;
}

enum pa_kind { PA_OTHER, PA_PUSH, PA_POP, PA_SUB_SP, PA_ADD_SP,
	       PA_STRD,		/* strd rA, rB, [sp, #-N]!: a push with room */
	       PA_STORE,	/* str(d) rA(, rB), [sp, #k]: into the frame */
	       PA_LOAD,		/* ldr(d) rA(, rB), [sp, #k]: from the frame */
	       PA_SET_FP,	/* add r7, sp, #k (r11 in ARM code) */
	       PA_SP_DYN,	/* sub sp, sp, rN: alloca, sp unknown */
	       PA_SP_FROM_FP,	/* mov sp, r7 / sub sp, r7, #k */
	       PA_FP_COPY,	/* sub r4, r7, #k: sp's value to come */
	       PA_SP_COPY,	/* mov ip, sp (APCS) */
	       PA_FP_FROM_COPY };	/* sub fp, ip, #4: fp from sp's copy */

static bool is_fp_reg(unsigned int reg)
{
	return reg == ARM_REG_R7 || reg == ARM_REG_R11;
}

/* The frame-pointer forms of add, sub and mov; PA_OTHER if none. */
static enum pa_kind classify_fp(const cs_insn *in, int *regs, s32 *imm)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *op = a->operands;
	bool sub = in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW;

	if (a->update_flags || a->op_count < 2 || op[0].type != ARM_OP_REG ||
	    op[1].type != ARM_OP_REG)
		return PA_OTHER;
	if (a->op_count == 2 && in->id == ARM_INS_MOV) {
		*imm = 0;
		if (is_fp_reg(op[0].reg) && op[1].reg == ARM_REG_SP) {
			regs[0] = slot_of(op[0].reg);
			return PA_SET_FP;
		}
		if (op[0].reg == ARM_REG_SP && slot_of(op[1].reg) >= 0 &&
		    slot_of(op[1].reg) < 13) {
			regs[0] = slot_of(op[1].reg);
			return PA_SP_FROM_FP;
		}
		/* into a scratch register: a callee-saved one written goes
		 * through the checks of any other write */
		if (op[1].reg == ARM_REG_SP && slot_of(op[0].reg) >= 0 &&
		    (slot_of(op[0].reg) < 4 || slot_of(op[0].reg) == 12)) {
			regs[0] = slot_of(op[0].reg);
			return PA_SP_COPY;
		}
		return PA_OTHER;
	}
	if (a->op_count != 3 || (!sub && in->id != ARM_INS_ADD &&
				 in->id != ARM_INS_ADDW))
		return PA_OTHER;
	if (op[2].type == ARM_OP_IMM && !op[2].shift.value) {
		*imm = sub ? -op[2].imm : op[2].imm;	/* what is added */
		if (is_fp_reg(op[0].reg) && op[1].reg == ARM_REG_SP) {
			regs[0] = slot_of(op[0].reg);
			return PA_SET_FP;
		}
		if (op[0].reg == ARM_REG_SP && is_fp_reg(op[1].reg)) {
			regs[0] = slot_of(op[1].reg);
			return PA_SP_FROM_FP;
		}
		if (is_fp_reg(op[1].reg) && slot_of(op[0].reg) >= 0 &&
		    slot_of(op[0].reg) < 13) {
			regs[0] = slot_of(op[0].reg);
			regs[1] = slot_of(op[1].reg);
			return PA_FP_COPY;
		}
		if (is_fp_reg(op[0].reg) && slot_of(op[1].reg) >= 0 &&
		    slot_of(op[1].reg) < 13) {
			regs[0] = slot_of(op[0].reg);
			regs[1] = slot_of(op[1].reg);
			return PA_FP_FROM_COPY;
		}
		return PA_OTHER;
	}
	if (sub && op[2].type == ARM_OP_REG && op[0].reg == ARM_REG_SP &&
	    op[1].reg == ARM_REG_SP)
		return PA_SP_DYN;
	return PA_OTHER;
}

/*
 * A post-indexed [sp], #step of at least @size bytes, a multiple of 4:
 * the memory operand and the immediate after.  @extra gets what the step
 * frees beyond the registers loaded.
 */
static bool post_sp(const cs_arm_op *op, s32 size, s32 *extra)
{
	/* ARM's "ldr r4, [sp], #-16" moves sp down: no pop */
	if (op[0].type != ARM_OP_MEM || op[0].mem.base != ARM_REG_SP ||
	    op[0].mem.index != ARM_REG_INVALID || op[0].mem.disp ||
	    op[1].type != ARM_OP_IMM || op[1].subtracted ||
	    op[1].imm < size || (op[1].imm & 3))
		return false;
	*extra = op[1].imm - size;
	return true;
}

/*
 * str/ldr rA, [sp, #k] or strd/ldrd rA, rB, [sp, #k], no writeback, k >= 0:
 * the @nregs registers in @regs, k in @imm.
 */
static bool sp_slot(const cs_arm *a, int nregs, int *regs, int *n, s32 *imm)
{
	const cs_arm_op *m = &a->operands[nregs];

	if (a->writeback || a->op_count != nregs + 1 || m->subtracted ||
	    m->type != ARM_OP_MEM || m->mem.base != ARM_REG_SP ||
	    m->mem.index != ARM_REG_INVALID || m->mem.disp < 0 ||
	    (m->mem.disp & 3))
		return false;
	for (int i = 0; i < nregs; i++) {
		if (a->operands[i].type != ARM_OP_REG)
			return false;
		regs[i] = slot_of(a->operands[i].reg);
		if (regs[i] < 0 || regs[i] == 13 || regs[i] == 15)
			return false;
	}
	*n = nregs;
	*imm = m->mem.disp;
	return true;
}

/* Classify the frame-changing forms; @regs/@n or @imm filled. */
static enum pa_kind classify(const cs_insn *in, int *regs, int *n, s32 *imm)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *op = a->operands;

	switch (in->id) {
	case ARM_INS_PUSH:
	case ARM_INS_VPUSH:
		*n = reg_list(a, 0, regs);
		return *n > 0 ? PA_PUSH : PA_OTHER;
	case ARM_INS_POP:
	case ARM_INS_VPOP:
		*n = reg_list(a, 0, regs);
		return *n > 0 ? PA_POP : PA_OTHER;
	case ARM_INS_STMDB:
	case ARM_INS_VSTMDB:
	case ARM_INS_LDM:
	case ARM_INS_VLDMIA:
		if (!a->writeback || op[0].type != ARM_OP_REG ||
		    op[0].reg != ARM_REG_SP)
			return PA_OTHER;
		*n = reg_list(a, 1, regs);
		if (*n <= 0)
			return PA_OTHER;
		return in->id == ARM_INS_STMDB || in->id == ARM_INS_VSTMDB ?
			PA_PUSH : PA_POP;
	case ARM_INS_STR:
		/* str rN, [sp, #-4]!: a one-register push. */
		if (a->writeback && a->op_count == 2 && op[1].type == ARM_OP_MEM &&
		    op[1].mem.base == ARM_REG_SP && op[1].mem.index == ARM_REG_INVALID &&
		    op[1].mem.disp == -4 && op[0].type == ARM_OP_REG) {
			regs[0] = slot_of(op[0].reg);
			*n = 1;
			return regs[0] >= 0 && regs[0] != 13 ? PA_PUSH : PA_OTHER;
		}
		return sp_slot(a, 1, regs, n, imm) ? PA_STORE : PA_OTHER;
	case ARM_INS_STRD:
		if (a->writeback && a->op_count == 3 && op[2].type == ARM_OP_MEM &&
		    op[2].mem.base == ARM_REG_SP &&
		    op[2].mem.index == ARM_REG_INVALID && op[2].mem.disp <= -8 &&
		    !(op[2].mem.disp & 3)) {
			regs[0] = slot_of(op[0].reg);
			regs[1] = slot_of(op[1].reg);
			*imm = -op[2].mem.disp;
			*n = 2;
			return regs[0] >= 0 && regs[1] >= 0 && regs[0] != 13 &&
			       regs[1] != 13 && regs[0] != 15 && regs[1] != 15 ?
				PA_STRD : PA_OTHER;
		}
		return sp_slot(a, 2, regs, n, imm) ? PA_STORE : PA_OTHER;
	case ARM_INS_LDRD:
		/* ldrd rA, rB, [sp], #8: a pop of two (glibc's strlen); a
		 * larger step frees slots above them too (strcmp's #16) */
		if (a->writeback && a->op_count == 4 && post_sp(&op[2], 8, imm) &&
		    op[0].type == ARM_OP_REG && op[1].type == ARM_OP_REG) {
			regs[0] = slot_of(op[0].reg);
			regs[1] = slot_of(op[1].reg);
			*n = 2;
			return regs[0] >= 0 && regs[1] > regs[0] &&
			       regs[1] < 13 ? PA_POP : PA_OTHER;
		}
		return sp_slot(a, 2, regs, n, imm) ? PA_LOAD : PA_OTHER;
	case ARM_INS_LDR:
		/* ldr rN, [sp], #4: a pop of one (#16: strcmp again) */
		if (a->writeback && a->op_count == 3 && post_sp(&op[1], 4, imm) &&
		    op[0].type == ARM_OP_REG) {
			regs[0] = slot_of(op[0].reg);
			*n = 1;
			return regs[0] >= 0 && regs[0] != 13 ? PA_POP : PA_OTHER;
		}
		return sp_slot(a, 1, regs, n, imm) ? PA_LOAD : PA_OTHER;
	case ARM_INS_MOV:
		return classify_fp(in, regs, imm);
	case ARM_INS_SUB:
	case ARM_INS_SUBW:
	case ARM_INS_ADD:
	case ARM_INS_ADDW:
		if (classify_fp(in, regs, imm) != PA_OTHER)
			return classify_fp(in, regs, imm);
		if (a->update_flags || op[0].type != ARM_OP_REG ||
		    op[0].reg != ARM_REG_SP)
			return PA_OTHER;
		if (a->op_count == 3 && op[1].type == ARM_OP_REG &&
		    op[1].reg == ARM_REG_SP && op[2].type == ARM_OP_IMM &&
		    !op[2].shift.value)
			*imm = op[2].imm;
		else if (a->op_count == 2 && op[1].type == ARM_OP_IMM)
			*imm = op[1].imm;
		else
			return PA_OTHER;
		if (*imm < 0 || (*imm & 3))
			return PA_OTHER;
		return in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW ?
			PA_SUB_SP : PA_ADD_SP;
	default:
		return PA_OTHER;
	}
}

static bool conditional(const cs_insn *in)
{
	arm_cc cc = in->detail->arm.cc;

	return cc != ARM_CC_AL && cc != ARM_CC_INVALID;
}

/*
 * Does @in change the flow?  By instruction id for branches, and by a
 * destination (first operand) or load list naming pc otherwise; "add r1,
 * pc" reads pc, "push {lr}"/"str pc" store it.
 */
static bool writes_pc(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;

	switch (in->id) {
	case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BLX: case ARM_INS_BX:
	case ARM_INS_BXJ: case ARM_INS_CBZ: case ARM_INS_CBNZ:
	case ARM_INS_TBB: case ARM_INS_TBH:
	case ARM_INS_BKPT: case ARM_INS_UDF: case ARM_INS_TRAP:
		return true;
	case ARM_INS_PUSH: case ARM_INS_STR: case ARM_INS_STM:
	case ARM_INS_STMDB: case ARM_INS_STMDA: case ARM_INS_STMIB:
	case ARM_INS_CMP: case ARM_INS_CMN: case ARM_INS_TST: case ARM_INS_TEQ:
		return false;
	default:
		break;
	}
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG &&
		    a->operands[i].reg == ARM_REG_PC &&
		    (i == 0 || in->id == ARM_INS_POP || in->id == ARM_INS_LDM ||
		     in->id == ARM_INS_LDMDA || in->id == ARM_INS_LDMDB ||
		     in->id == ARM_INS_LDMIB))
			return true;
	return false;
}

/* Which of sp, lr, pc and the callee-saved registers @in writes. */
static void writes(csh cs, const cs_insn *in, bool *w, u32 nw)
{
	cs_regs rr, ww;
	uint8_t nr = 0, nwr = 0;

	const cs_arm *a = &in->detail->arm;

	memset(w, 0, nw * sizeof(*w));
	/* capstone 4 leaves sp out of vpush/vpop's written registers, so
	 * any write-back to sp counts, whatever capstone lists. */
	if (in->id == ARM_INS_VPUSH || in->id == ARM_INS_VPOP)
		w[13] = true;
	for (int i = 0; a->writeback && i < a->op_count; i++)
		if ((a->operands[i].type == ARM_OP_MEM &&
		     a->operands[i].mem.base == ARM_REG_SP) ||
		    (i == 0 && a->operands[i].type == ARM_OP_REG &&
		     a->operands[i].reg == ARM_REG_SP))
			w[13] = true;
	/* Nor does it list pc for branches, or for a load into pc. */
	if (writes_pc(in))
		w[15] = true;
	if (cs_regs_access(cs, in, rr, &nr, ww, &nwr)) {
		/* Unknown writes: assume the worst. */
		w[13] = w[14] = w[15] = true;
		return;
	}
	for (int i = 0; i < nwr; i++) {
		int s = slot_of(ww[i]);

		if (s >= 0 && (u32)s < nw)
			w[s] = true;
	}
	/* capstone 4 lists no written register for these: their register
	 * operands are all destinations */
	if (in->id == ARM_INS_MRC || in->id == ARM_INS_MRRC ||
	    in->id == ARM_INS_LDREXD || in->id == ARM_INS_LDAEXD)
		for (int i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM_OP_REG &&
			    slot_of(a->operands[i].reg) >= 0)
				w[slot_of(a->operands[i].reg)] = true;
	/* capstone has svc write lr; a system call preserves all but r0. */
	if (in->id == ARM_INS_SVC) {
		memset(w, 0, nw * sizeof(*w));
		w[0] = true;
	}
}

/* The direct branch target, or 0. */
static u32 branch_target(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;

	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_IMM)
			return (u32)a->operands[i].imm;
	return 0;
}

static bool is_call(const cs_insn *in)
{
	return in->id == ARM_INS_BL || in->id == ARM_INS_BLX;
}

/*
 * Slots freed by moving sp up.  The return address and callee-saved
 * registers must not be: below sp they can be clobbered (a signal frame)
 * before anything reloads them.  Scratch registers stored in the frame
 * (ip by the libgcc division wrappers, r3 as alignment padding) are
 * simply forgotten.
 */
static bool slots_above_sp(struct pa_state *st)
{
	if (st->cfa_copy != PA_NONE && st->cfa_copy < -st->cfa)
		st->cfa_copy = PA_NONE;
	for (int r = 0; r < TB_NREGS; r++) {
		if (st->slot[r] == PA_NONE || st->slot[r] >= -st->cfa)
			continue;
		/* a register never written since its save still holds the
		 * caller's value: its slot may go (glibc's strcmp pops r4
		 * alone past the slots of r5-r7) */
		if ((r == 14 || callee_saved(r)) && is_dirty(st, r))
			return false;
		st->slot[r] = PA_NONE;
	}
	return st->cfa >= 0;
}

/* A pop, then @extra bytes more freed (ldr r4, [sp], #16). */
static bool pop_frame(struct pa_state *st, const int *regs, int n, s32 extra)
{
	if (!do_pop(st, regs, n))
		return false;
	st->cfa -= extra;
	return slots_above_sp(st);
}

/*
 * Does [CFA + @at, + @size) overlap the slot of the return address or of
 * a callee-saved register other than @reg?  (Scratch registers' slots
 * are the function's to reuse.)
 */
static bool slot_taken(const struct pa_state *st, s32 at, s32 size, int reg)
{
	for (int r = 0; r < TB_NREGS; r++)
		if (r != reg && (r == 14 || callee_saved(r)) &&
		    st->slot[r] != PA_NONE &&
		    st->slot[r] < at + size && at < st->slot[r] + reg_size(r))
			return true;
	return false;
}

/*
 * A store into the frame: a register that still holds the caller's
 * value and has no slot is saved there (glibc's strcmp: strd r6, r7,
 * [sp, #8] after strd r4, r5, [sp, #-16]!); anything else is a spill,
 * which must not land on a saved register's slot.
 */
static bool store_slots(struct pa_state *st, const int *regs, int n, s32 k)
{
	for (int i = 0; i < n; i++) {
		s32 at = -st->cfa + k + 4 * i;
		int r = regs[i];

		/* a register holding something else may not write over
		 * its own saved value either */
		if (slot_taken(st, at, 4, is_dirty(st, r) ? -1 : r))
			return false;
		if (at == st->cfa_copy)
			st->cfa_copy = PA_NONE;
		if (at + 4 > 0 || st->slot[r] != PA_NONE || is_dirty(st, r) ||
		    !(r == 14 || callee_saved(r)))
			continue;
		st->slot[r] = at;
		st->touched[r] = true;
	}
	return true;
}

/*
 * A load from the frame: a callee-saved register or lr loaded from its
 * own slot is back (ldrd r6, r7, [sp, #8]; ldr lr, [sp, #4]), its slot is
 * free and it no longer counts in @wr.  The others are ordinary register
 * writes (a variadic function's r2 and r3 read back from where it pushed
 * them keep their slots).
 */
static void load_slots(struct pa_state *st, const int *regs, int n, s32 k,
		       bool *wr)
{
	for (int i = 0; i < n; i++) {
		int r = regs[i];

		if ((r == 14 || callee_saved(r)) && st->slot[r] != PA_NONE &&
		    st->slot[r] == -st->cfa + k + 4 * i) {
			st->slot[r] = PA_NONE;
			st->dirty &= ~(1u << r);
			wr[r] = false;
			if (r == st->fp)	/* the caller's value, no frame */
				st->fp = -1;
			if (r == st->spreg)
				st->spreg = -1;
		}
	}
}

/* A recognised frame change; false if it does not fit the frame. */
static bool apply(struct pa_state *st, enum pa_kind k, const int *regs,
		  int n, s32 imm)
{
	switch (k) {
	case PA_SET_FP:
		/* fp = sp + imm = CFA - (cfa - imm); it must have been saved */
		if (st->on_fp || st->slot[regs[0]] == PA_NONE)
			return false;
		st->fp = regs[0];
		st->fp_off = st->cfa - imm;
		return true;
	case PA_SP_DYN:
		if (st->fp < 0 || st->on_fp)
			return false;
		st->on_fp = true;
		return true;
	case PA_SP_FROM_FP:
		/* sp = fp + imm = CFA - (fp_off - imm), or from a copy */
		if (st->fp == regs[0] && st->fp_off - imm >= 0) {
			st->cfa = st->fp_off - imm;
		} else if (st->spreg == regs[0] && !imm) {
			st->cfa = st->spreg_off;
		} else if (st->fp >= 0) {
			st->on_fp = true;	/* "mov sp, ip": an alloca */
			return true;
		} else {
			return false;
		}
		st->on_fp = false;
		st->spreg = -1;
		return slots_above_sp(st);
	case PA_SP_COPY:
		/* rX = sp = CFA - cfa; unknown after an alloca */
		st->spreg = st->on_fp ? -1 : regs[0];
		st->spreg_off = st->cfa;
		return true;
	case PA_FP_FROM_COPY:
		/* fp = (CFA - spreg_off) + imm; it must have been saved */
		if (st->on_fp || st->spreg != regs[1] ||
		    st->spreg_off - imm < 0)
			return false;
		st->fp = regs[0];
		st->fp_off = st->spreg_off - imm;
		return true;
	case PA_FP_COPY:
		if (st->fp != regs[1])
			return false;
		/* rX = fp + imm = CFA - (fp_off - imm) */
		if (regs[0] == st->fp) {	/* the frame pointer itself moves */
			if (st->on_fp)
				return false;
			st->fp = -1;
		}
		st->spreg = regs[0];
		st->spreg_off = st->fp_off - imm;
		return true;
	default:
		break;
	}
	/* below: changes relative to sp, unknown after an alloca */
	if (st->on_fp)
		return false;
	switch (k) {
	case PA_PUSH:
		return do_push(st, regs, n);
	case PA_POP:
		return pop_frame(st, regs, n, imm);
	case PA_SUB_SP:
		st->cfa += imm;
		return true;
	case PA_ADD_SP:
		st->cfa -= imm;
		return slots_above_sp(st);
	case PA_STRD:
		st->cfa += imm;
		for (int i = 0; i < 2; i++) {
			if (st->slot[regs[i]] == PA_NONE)
				st->slot[regs[i]] = -st->cfa + 4 * i;
			st->touched[regs[i]] = true;
		}
		return true;
	case PA_STORE:
		return store_slots(st, regs, n, imm);
	default:
		return false;
	}
}

/* ---------------------------- the flow ---------------------------- */

/* Data inside a function (a literal pool between its instructions). */
#define PA_MAX_POOLS	64
#define PA_MAX_FWD	16	/* forward computed jumps in one function */
struct pa_range {
	u32 lo, hi;
};

struct pa_flow {
	csh cs;
	u32 lo, hi;		/* the function */
	cs_insn *ins;		/* decoded, in address order */
	u32 n;
	struct pa_state *st;	/* state before each instruction */
	bool *have;
	u32 *work;		/* instruction indexes still to follow */
	u32 nwork;
	bool thread_entry;	/* a clone wrapper: its child path is root */
	const struct pa_text *text;	/* the whole section, for veneers */
	const struct pa_range *data;	/* literal pools inside, by address */
	u32 ndata;
	bool thumb;
	bool infer_pools;	/* no mapping symbols: pools from the loads */
	struct pa_range lits[PA_MAX_POOLS];	/* pools the loads read */
	u32 nlits;
	struct pa_state jump;	/* the state of its "anywhere" jumps */
	bool have_jump;
	struct pa_fwd { u32 addr; struct pa_state st; } fwd[PA_MAX_FWD];
	u32 nfwd;		/* forward jumps, in the order found */
	bool returns;		/* some path returns (or tail-calls) */
	const cs_insn *clobber;	/* first callee-saved register written
				 * unsaved, allowed if nothing returns */
	char *why;
	size_t wlen;
};

/* The bytes of the section a function lies in. */
struct pa_text {
	const u8 *b;
	u32 addr, size;
	bool thumb;
	bool no_maps;		/* the file has no mapping symbols */
	bool gap;		/* code past a symbol's end that no symbol
				 * names: it must end in returns */
	bool sized;		/* the symbol's size is known */
	const struct tb_input *known[2];	/* rows of other functions,
						 * for branches into them */
	const struct tb_cfi_func *cfi;	/* rules to check, or NULL */
	u32 cfi_wrong;		/* out: where they are first wrong, or 0 */
	const struct tb_elf *starts;	/* a function discovery found: its
					 * tail calls must reach a start */
};

static bool known_start(const struct tb_elf *e, u32 addr);

static int fail(struct pa_flow *fl, const cs_insn *in, const char *what)
{
	snprintf(fl->why, fl->wlen, "%s at 0x%x (%s %s)", what,
		 (u32)in->address, in->mnemonic, in->op_str);
	return -1;
}

/* The instruction at @addr, or -1 (not an instruction start). */
static long index_of(const struct pa_flow *fl, u32 addr)
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

/* Reach @addr in state @st: the first path sets it, later ones must
 * agree, since one row holds for every path through an address. */
static int reach(struct pa_flow *fl, const cs_insn *from, u32 addr,
		 const struct pa_state *st)
{
	long i = index_of(fl, addr);

	if (i < 0)
		return fail(fl, from, "branch into the middle of an instruction");
	if (fl->have[i]) {
		struct pa_state *old = &fl->st[i];

		bool again = false;

		if (!frame_eq(old, st) || old->clone != st->clone)
			return fail(fl, &fl->ins[i], "paths arrive with different frames");
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
	fl->st[i] = *st;
	fl->have[i] = true;
	fl->work[fl->nwork++] = i;
	return 0;
}

static bool is_padding(const cs_insn *in);

/*
 * A path that runs through padding to the function's end, past a 4-byte
 * nop: the nop is the linker's for a call to an undefined weak function
 * (static glibc's __libc_cleanup_pop_restore ends so), and nothing after
 * it runs.
 */
static bool ends_in_weak_call(const struct pa_flow *fl, u32 i)
{
	for (;; i--) {
		const cs_insn *in = &fl->ins[i];

		if (!is_padding(in))
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
static int path_end(struct pa_flow *fl, const cs_insn *in)
{
	if (fl->text && fl->text->gap)
		return fail(fl, in, "a path that does not return, in code no symbol names");
	return 0;
}

static int next(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	/* a removed call may end a function that returns elsewhere: it
	 * does not lift the callee-saved rule (returns stays as found) */
	if (i + 1 >= fl->n && fl->text && fl->text->sized &&
	    ends_in_weak_call(fl, i)) {
		fl->returns = true;
		return path_end(fl, &fl->ins[i]);
	}
	if (i + 1 >= fl->n)
		return fail(fl, &fl->ins[i], "falls off the end of the function");
	if (fl->ins[i + 1].address != fl->ins[i].address + fl->ins[i].size)
		return fail(fl, &fl->ins[i], "runs into a literal pool");
	return reach(fl, &fl->ins[i], fl->ins[i + 1].address, st);
}

/*
 * Nothing but padding after instruction @i, then data or the end: code
 * that cannot go on past @i (glibc's "bl abort; nop" before a pool).
 */
static bool falls_into_data(const struct pa_flow *fl, u32 i);

/* A return: the frame must be gone and the return address in lr. */
static int ret_ok(struct pa_flow *fl, const cs_insn *in,
		  const struct pa_state *st)
{
	if (!ra_in_lr(st))
		return fail(fl, in, "return with the frame still up");
	fl->returns = true;
	return 0;
}

/*
 * Jumps computed from a register.  Forward ones enter code after them:
 * "add pc, pc, r3" (glibc's memcpy and memmove enter unrolled code so)
 * and tbb/tbh with their table after them; code no path reaches after
 * such a jump is taken as its target, in its frame (the nearest jump
 * before it).  Other ones ("mov pc, r3" in libgcc's division, "bx r3",
 * a pc-relative table load) go anywhere: every instruction no path
 * reaches is taken as a target, in the jump's frame (jump_state).  These
 * may as well be tail calls through a pointer, which leave that frame.
 */
enum pa_jump { PA_J_NONE, PA_J_FORWARD, PA_J_ANY };

static enum pa_jump computed_jump(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *last = &a->operands[a->op_count - 1];

	switch (in->id) {
	case ARM_INS_TBB:
	case ARM_INS_TBH:
		return PA_J_FORWARD;
	case ARM_INS_ADD:
		return a->op_count == 3 && a->operands[1].type == ARM_OP_REG &&
		       a->operands[1].reg == ARM_REG_PC &&
		       a->operands[2].type == ARM_OP_REG ? PA_J_FORWARD :
							   PA_J_NONE;
	case ARM_INS_LDR:
		return a->op_count == 2 && a->operands[1].type == ARM_OP_MEM &&
		       a->operands[1].mem.base == ARM_REG_PC &&
		       a->operands[1].mem.index != ARM_REG_INVALID ?
			       PA_J_ANY : PA_J_NONE;
	case ARM_INS_MOV:
	case ARM_INS_BX:
		return last->type == ARM_OP_REG && last->reg != ARM_REG_LR &&
		       last->reg != ARM_REG_PC ? PA_J_ANY : PA_J_NONE;
	default:
		return PA_J_NONE;
	}
}

/* All computed jumps of a function must leave from one frame. */
/*
 * A forward computed jump at @in in state @st; followed again (a register
 * found written on another path) it keeps one entry, written registers
 * joined.
 */
static int fwd_jump(struct pa_flow *fl, const cs_insn *in,
		    const struct pa_state *st)
{
	u32 k;

	for (k = 0; k < fl->nfwd && fl->fwd[k].addr != in->address; k++)
		;
	if (k == PA_MAX_FWD)
		return fail(fl, in, "too many computed jumps");
	if (k == fl->nfwd) {
		fl->fwd[fl->nfwd].addr = (u32)in->address;
		fl->fwd[fl->nfwd++].st = *st;
		return 0;
	}
	if (!frame_eq(&fl->fwd[k].st, st))
		return fail(fl, in, "computed jumps from different frames");
	if (fl->fwd[k].st.fp != st->fp || fl->fwd[k].st.fp_off != st->fp_off) {
		fl->fwd[k].st.fp = -1;
		fl->fwd[k].st.fp_off = 0;
	}
	fl->fwd[k].st.dirty |= st->dirty;
	return 0;
}

static int jump_state(struct pa_flow *fl, const cs_insn *in,
		      const struct pa_state *st)
{
	u16 st_dirty = 0;

	if (st->child)
		return 0;
	if (fl->have_jump && !state_eq(&fl->jump, st))
		return fail(fl, in, "computed jumps from different frames");
	if (fl->have_jump)
		st_dirty = fl->jump.dirty;
	fl->jump = *st;
	fl->jump.dirty |= st_dirty;
	fl->have_jump = true;
	return 0;
}

/*
 * A conditional branch on the clone system call's result splits the
 * paths: where r0 is 0 runs the new thread (the outermost frame), the
 * other side the caller.  @taken and @fall get each side's state.
 */
static void clone_split(const cs_insn *in, const struct pa_state *st,
			struct pa_state *taken, struct pa_state *fall)
{
	const cs_arm *a = &in->detail->arm;
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

static bool plain_branch(const cs_insn *in)
{
	return in->id == ARM_INS_B && !conditional(in);
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
static int follow_veneer(struct pa_flow *fl, const cs_insn *in, u32 t,
			 const struct pa_state *st)
{
	const struct pa_text *x = fl->text;
	u32 to[2], nto = 0, k;
	cs_insn *v = NULL;
	size_t n = 0;

	if (!x || !x->thumb || in->size != 4 || !plain_branch(in) ||
	    t < x->addr || t - x->addr >= x->size)
		return 0;
	n = cs_disasm(fl->cs, x->b + (t - x->addr),
		      x->size - (t - x->addr) < 10 ? x->size - (t - x->addr) : 10,
		      t, 3, &v);
	if (n >= 1 && plain_branch(&v[0]) && v[0].size == 4) {
		to[nto++] = branch_target(&v[0]);
	} else if (n == 3 && v[0].id == ARM_INS_B && conditional(&v[0]) &&
		   branch_target(&v[0]) == v[2].address &&
		   plain_branch(&v[1]) && plain_branch(&v[2])) {
		to[nto++] = branch_target(&v[1]);
		to[nto++] = branch_target(&v[2]);
	}
	cs_free(v, n);
	for (k = 0; k < nto; k++)
		if (to[k] < fl->lo || to[k] >= fl->hi)
			return 0;
	for (k = 0; k < nto; k++)
		if (reach(fl, in, to[k], st))
			return -1;
	return nto ? 1 : 0;
}

/* Branches and calls; the frame itself is unchanged. */
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
		if (st->slot[s] != PA_NONE ?
		    ru->kind != TB_R_OFFSET || ru->off != st->slot[s] :
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
static bool shared_tail(const struct pa_flow *fl, u32 t,
			const struct pa_state *st)
{
	for (int k = 0; fl->text && k < 2; k++) {
		const struct tb_input *in = fl->text->known[k];

		for (u32 j = 0; in && j < in->n; j++) {
			const struct tb_cfi_func *g = &in->funcs[j];
			struct tb_row full = { 0 };

			if (t < g->addr || t - g->addr >= g->size ||
			    !g->nrows || g->source == TB_SRC_EHABI || g->addr == fl->lo)
				continue;
			for (u32 n = 0; n < g->nrows && g->rows[n].addr <= t; n++)
				tb_state_apply(&full, &g->rows[n]);
			return row_is_frame(&full, st);
		}
	}
	return false;
}

static int flow_branch(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const cs_insn *in = &fl->ins[i];
	bool cond = conditional(in) || in->id == ARM_INS_CBZ ||
		    in->id == ARM_INS_CBNZ;
	u32 t = branch_target(in);
	struct pa_state taken, fall;
	int r;

	/* a trap (__builtin_trap: udf, "trap" for clang's 0xdefe) never
	 * comes back */
	if (in->id == ARM_INS_UDF || in->id == ARM_INS_TRAP ||
	    in->id == ARM_INS_BKPT)
		return path_end(fl, in);
	if (is_call(in)) {
		if (st->slot[14] == PA_NONE)
			return fail(fl, in, "call with the return address in lr");
		/* a call with nothing after it, or data, never returns
		 * (__stack_chk_fail, start_thread's exit) */
		if (!conditional(in) && falls_into_data(fl, i))
			return path_end(fl, in);
		return next(fl, i, st);
	}
	if (in->id == ARM_INS_BX && in->detail->arm.operands[0].reg == ARM_REG_LR) {
		if (ret_ok(fl, in, st))
			return -1;
		return cond ? next(fl, i, st) : 0;
	}
	switch (computed_jump(in)) {
	case PA_J_FORWARD:
		if (fwd_jump(fl, in, st))
			return -1;
		return cond ? next(fl, i, st) : 0;
	case PA_J_ANY:
		if (fl->text && fl->text->gap)
			return fail(fl, in, "a computed jump in code no symbol names");
		return jump_state(fl, in, st) ? -1 :
		       cond ? next(fl, i, st) : 0;
	default:
		break;
	}
	if ((in->id != ARM_INS_B && in->id != ARM_INS_CBZ &&
	     in->id != ARM_INS_CBNZ) || !t)
		return fail(fl, in, "indirect or table branch");
	clone_split(in, st, &taken, &fall);
	if (t >= fl->lo && t < fl->hi) {
		if (reach(fl, in, t, &taken))
			return -1;
	} else if (taken.child) {
		return fail(fl, in, "the new thread's path leaves the function");
	} else if ((r = follow_veneer(fl, in, t, &taken))) {
		if (r < 0)
			return -1;
	} else if (fl->text && fl->text->gap) {
		/* where to, and in what frame, only the code that jumps
		 * here knows */
		return fail(fl, in, "a branch out of code no symbol names");
	} else if (!ra_in_lr(st) && shared_tail(fl, t, st)) {
		fl->returns = true;	/* that code returns for this one */
	} else if (fl->text && fl->text->starts &&
		   !known_start(fl->text->starts, t)) {
		/* a found start may be a label of a function nothing names:
		 * what it "tail-calls" may be that function's own code */
		return fail(fl, in, "a branch out to no known function start");
	} else if (ret_ok(fl, in, st)) {	/* tail call */
		return -1;
	}
	return cond ? next(fl, i, &fall) : 0;
}

/*
 * The new thread's path: the outermost frame, whatever it does.  Every
 * instruction of it is followed (direct branches and calls inside the
 * function too), and it may end anywhere: it ends in the exit system
 * call, which never returns.
 */
static int flow_child(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const cs_insn *in = &fl->ins[i];
	u32 t = branch_target(in);
	bool wr[TB_NREGS], more;

	writes(fl->cs, in, wr, TB_NREGS);
	/* Calls come back, conditional branches may fall through. */
	more = !wr[15] || is_call(in) || conditional(in) ||
	       in->id == ARM_INS_CBZ || in->id == ARM_INS_CBNZ;
	if (wr[15] && t >= fl->lo && t < fl->hi && reach(fl, in, t, st))
		return -1;
	return more && i + 1 < fl->n ? next(fl, i, st) : 0;
}

/*
 * The clone system call and the test of its result, in a thread entry:
 * "svc 0", then "cmp r0, #0", "tst r0, r0" or "movs r0, r0" (or a cbz/cbnz
 * on r0) before the branch.  Anything else forgets the result.
 */
static void clone_track(const struct pa_flow *fl, const cs_insn *in,
			struct pa_state *st)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *op = a->operands;
	bool r0_first = a->op_count == 2 && op[0].type == ARM_OP_REG &&
			op[0].reg == ARM_REG_R0;
	u8 was = st->clone;

	st->clone = PA_CL_NONE;
	if (!fl->thread_entry || conditional(in))
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

/*
 * A conditional frame change and a branch on the same condition right
 * after it ("popcc {r8}; bcc loop" in glibc's memcpy): the branch goes
 * with the frame changed, the code after it with the frame as it was.
 * The branch instruction itself has both, so its row refuses.
 */
static int cond_frame_change(struct pa_flow *fl, u32 i, struct pa_state st,
			     enum pa_kind k, const int *regs, int n, s32 imm)
{
	const cs_insn *in = &fl->ins[i], *br = i + 1 < fl->n ? &fl->ins[i + 1] : NULL;
	struct pa_state changed = st, both = st;
	u32 t;

	if (!br || br->address != in->address + in->size ||
	    br->detail->arm.cc != in->detail->arm.cc ||
	    (br->id != ARM_INS_B && !(br->id == ARM_INS_BX &&
	     br->detail->arm.operands[0].reg == ARM_REG_LR)))
		return fail(fl, in, "conditional frame change");
	if (!apply(&changed, k, regs, n, imm))
		return fail(fl, in, "frame change that does not match the frame");
	both.ambiguous = true;
	if (reach(fl, in, (u32)br->address, &both))
		return -1;
	t = br->id == ARM_INS_B ? branch_target(br) : 0;
	if (t >= fl->lo && t < fl->hi) {
		if (reach(fl, br, t, &changed))
			return -1;
	} else if (ret_ok(fl, br, &changed)) {	/* a return or tail call */
		return -1;
	}
	return next(fl, i + 1, &st);
}

/*
 * An APCS return loads sp and pc with the saved registers, without
 * write-back: "ldm sp, {r4, fp, sp, pc}" after "sub sp, fp, #k", or
 * "ldmdb fp, {r4, fp, sp, pc}".
 */
static bool loads_sp_and_pc(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	bool sp = false;

	if ((in->id != ARM_INS_LDM && in->id != ARM_INS_LDMDB) ||
	    a->writeback || a->op_count < 3 ||
	    a->operands[a->op_count - 1].reg != ARM_REG_PC)
		return false;
	for (int k = 1; k < a->op_count; k++)
		sp |= a->operands[k].reg == ARM_REG_SP;
	return sp;
}

/*
 * The registers come from their own slots, sp from the slot that holds
 * the CFA (the ip pushed by the prologue) and pc from lr's: the frame is
 * gone and the return address is back in place.
 */
static int apcs_return(struct pa_flow *fl, u32 i, const struct pa_state *st)
{
	const cs_insn *in = &fl->ins[i];
	const cs_arm *a = &in->detail->arm;
	struct pa_state after = *st;
	int n = a->op_count - 1;
	s32 at;

	if (in->id == ARM_INS_LDM && a->operands[0].reg == ARM_REG_SP &&
	    !st->on_fp)
		at = -st->cfa;
	else if (in->id == ARM_INS_LDMDB && st->fp >= 0 &&
		 slot_of(a->operands[0].reg) == st->fp)
		at = -st->fp_off - 4 * n;
	else
		return fail(fl, in, "load of sp from an unknown place");
	for (int k = 1; k <= n; k++, at += 4) {
		int r = slot_of(a->operands[k].reg);
		s32 want;

		if (r < 0 || r >= 16)
			return fail(fl, in, "load of sp from an unknown place");
		want = r == 13 ? st->cfa_copy : st->slot[r == 15 ? 14 : r];
		if (want != at && (r >= 13 || callee_saved(r)))
			return fail(fl, in, "return that does not undo the frame");
	}
	after.cfa = 0;
	after.on_fp = false;
	after.fp = after.spreg = -1;
	after.cfa_copy = PA_NONE;
	for (int r = 0; r < TB_NREGS; r++)
		after.slot[r] = PA_NONE;
	if (ret_ok(fl, in, &after))
		return -1;
	return conditional(in) ? next(fl, i, st) : 0;
}

/* One instruction in state @st: its successors are reached. */
static int flow_insn(struct pa_flow *fl, u32 i, struct pa_state st)
{
	const cs_insn *in = &fl->ins[i];
	int regs[48], n = 0;
	s32 imm = 0;
	bool wr[TB_NREGS], cond = conditional(in);
	enum pa_kind k = classify(in, regs, &n, &imm);

	if (st.child)
		return flow_child(fl, i, &st);
	if (st.ambiguous)
		return 0;	/* cond_frame_change() followed both ways */
	writes(fl->cs, in, wr, TB_NREGS);
	/* A branch reads the clone state; everything else updates it. */
	if (!wr[15])
		clone_track(fl, in, &st);
	/* a store or a load where sp is unknown or on one path only saves
	 * and restores nothing; what a load leaves in wr[] is an ordinary
	 * register write */
	if (k == PA_LOAD && !cond && !st.on_fp)
		load_slots(&st, regs, n, imm, wr);
	if (k == PA_LOAD || (k == PA_STORE && (cond || st.on_fp)))
		k = PA_OTHER;
	for (int r = 0; r <= 14; r++)
		if (wr[r] && r != 13)
			st.dirty |= 1u << r;	/* a pop puts its slots back */

	if (loads_sp_and_pc(in))
		return apcs_return(fl, i, &st);
	if (k == PA_POP && regs[n - 1] == 15) {
		struct pa_state after = st;

		if (!pop_frame(&after, regs, n, imm) || ret_ok(fl, in, &after))
			return fail(fl, in, "return that does not undo the frame");
		return cond ? next(fl, i, &st) : 0;
	}
	/* r7 set from sp but never saved: an ordinary register write */
	if ((k == PA_SET_FP || (k == PA_FP_COPY && callee_saved(regs[0]))) &&
	    st.slot[regs[0]] == PA_NONE)
		k = PA_OTHER;
	/* arithmetic on r7 or r11 where it is no frame pointer ("add fp, fp,
	 * #1", "addlo r3, r7, #56"): an ordinary register write too */
	if (k == PA_FP_COPY && st.fp != regs[1])
		k = PA_OTHER;
	/* r7 or r11 from a register that holds no copy of sp; and copies
	 * of sp made on one path only, which nothing needs */
	if (k == PA_FP_FROM_COPY &&
	    (st.spreg != regs[1] || st.slot[regs[0]] == PA_NONE))
		k = PA_OTHER;
	if ((k == PA_SP_COPY || k == PA_FP_FROM_COPY) && cond)
		k = PA_OTHER;
	if (k != PA_OTHER) {
		if (cond)
			return cond_frame_change(fl, i, st, k, regs, n, imm);
		if (!apply(&st, k, regs, n, imm))
			return fail(fl, in, "frame change that does not match the frame");
		return next(fl, i, &st);
	}
	if (st.spreg >= 0 && wr[st.spreg])
		st.spreg = -1;
	if (st.fp >= 0 && wr[st.fp]) {
		if (st.on_fp)
			return fail(fl, in, "frame pointer written after an alloca");
		st.fp = -1;
	}
	if (wr[15])
		return flow_branch(fl, i, &st);
	/* any other change of sp (clang: "sub ip, sp, r3; mov sp, ip") is
	 * an alloca: the frame pointer, if there is one, holds the frame */
	if (wr[13] && (st.fp < 0 || st.fp == 12))
		return fail(fl, in, "sp changed");
	if (wr[13])
		st.on_fp = true;
	if (wr[14] && st.slot[14] == PA_NONE)
		return fail(fl, in, "lr overwritten while it holds the return address");
	for (int r = 4; r < TB_NREGS; r++) {
		if (!wr[r] || !callee_saved(r) || st.slot[r] != PA_NONE)
			continue;
		/*
		 * A function that never returns need not keep its caller's
		 * registers (glibc's start_thread uses r4 unsaved), and only
		 * a frame pointer (r7, r11) can matter to a caller's unwind.
		 */
		if (r == 7 || r == 11)
			return fail(fl, in, "frame pointer written unsaved");
		if (!fl->clobber)
			fl->clobber = in;
	}
	return next(fl, i, &st);
}

/* Bytes of data starting at @addr, or 0. */
static u32 data_at(const struct pa_flow *fl, u32 addr)
{
	for (u32 k = 0; k < fl->ndata; k++)
		if (fl->data[k].lo <= addr && addr < fl->data[k].hi)
			return fl->data[k].hi - addr;
	for (u32 k = 0; k < fl->nlits; k++)
		if (fl->lits[k].lo <= addr && addr < fl->lits[k].hi)
			return fl->lits[k].hi - addr;
	return 0;
}

/*
 * Code without mapping symbols (a stripped shared library keeps only
 * .dynsym) has its literal pools found from the pc-relative loads that
 * read them: a load decoded before its pool marks the words it reads as
 * data, so the decoder steps over them.  A pool read only from code after
 * it is decoded as instructions, reached by no path, and the function is
 * refused (unreached_ok), never given rows from data.
 */
static void note_literal(struct pa_flow *fl, const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	u32 size, pc, at;

	switch (in->id) {
	case ARM_INS_LDR: case ARM_INS_VLDR: size = 4; break;
	case ARM_INS_LDRD: size = 8; break;
	case ARM_INS_LDRH: case ARM_INS_LDRSH: size = 2; break;
	case ARM_INS_LDRB: case ARM_INS_LDRSB: size = 1; break;
	default: return;
	}
	if (a->op_count != 2 || a->operands[1].type != ARM_OP_MEM ||
	    a->operands[1].mem.base != ARM_REG_PC ||
	    a->operands[1].mem.index != ARM_REG_INVALID)
		return;
	if (in->id == ARM_INS_VLDR && a->operands[0].type == ARM_OP_REG &&
	    a->operands[0].reg >= ARM_REG_D0 && a->operands[0].reg <= ARM_REG_D31)
		size = 8;
	pc = (u32)in->address + (fl->thumb ? 4 : 8);
	at = (pc & ~3u) + (u32)a->operands[1].mem.disp;
	if (at <= in->address || at >= fl->hi || fl->nlits == PA_MAX_POOLS)
		return;
	fl->lits[fl->nlits++] = (struct pa_range){ at, at + (size < 2 ? 2 : size) };
}

static int decode_all(struct pa_flow *fl, const u8 *code, u32 len)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = fl->lo;
	u32 cap = 0;

	while (left) {
		u32 skip = data_at(fl, (u32)at);

		if (skip) {
			if (skip > left)
				break;
			p += skip;
			left -= skip;
			at += skip;
			continue;
		}
		if (fl->n == cap) {
			cs_insn *v = realloc(fl->ins, (cap = cap ? 2 * cap : 64) *
					     sizeof(*v));

			if (!v)
				return -2;
			fl->ins = v;
		}
		fl->ins[fl->n].detail = malloc(sizeof(cs_detail));
		if (!fl->ins[fl->n].detail)
			return -2;
		if (!cs_disasm_iter(fl->cs, &p, &left, &at, &fl->ins[fl->n])) {
			free(fl->ins[fl->n].detail);
			snprintf(fl->why, fl->wlen, "undecodable at 0x%x", (u32)at);
			return -1;
		}
		if (fl->infer_pools)
			note_literal(fl, &fl->ins[fl->n]);
		fl->n++;
	}
	return 0;
}

/*
 * Alignment padding: nop, a move of a register to itself, or zero fill
 * (ARM's "andeq r0, r0, r0").
 */
static bool is_padding(const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	static const u8 zero[4];

	if (in->id == ARM_INS_NOP ||
	    (in->size == 4 && !memcmp(in->bytes, zero, 4)))
		return true;
	return (in->id == ARM_INS_MOV || in->id == ARM_INS_LSL) &&
	       a->op_count == 2 && a->operands[0].type == ARM_OP_REG &&
	       a->operands[1].type == ARM_OP_REG &&
	       a->operands[0].reg == a->operands[1].reg;
}

static bool falls_into_data(const struct pa_flow *fl, u32 i)
{
	for (; i + 1 < fl->n; i++) {
		if (fl->ins[i + 1].address !=
		    fl->ins[i].address + fl->ins[i].size)
			return true;
		if (!is_padding(&fl->ins[i + 1]))
			return false;
	}
	return true;
}

/*
 * After a computed jump every instruction no path reached may be one of
 * its targets: they are reached in its state.  Returns how many were.
 */
static int flood_jump_targets(struct pa_flow *fl)
{
	struct pa_state flooded;
	int added = 0;

	for (u32 i = 0; i < fl->n; i++) {
		const struct pa_state *st = fl->have_jump ? &fl->jump : NULL;
		u32 best = 0;

		if (fl->have[i] || is_padding(&fl->ins[i]))
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
		if (reach(fl, &fl->ins[i], (u32)fl->ins[i].address, &flooded))
			return -1;
		added++;
	}
	return added;
}

/*
 * Code no path reaches must be padding.  Anything else is reached from
 * outside (another function branching into this one, as libgcc's
 * conversions do into __adddf3) in a frame nothing here describes.
 */
static int unreached_ok(struct pa_flow *fl)
{
	for (u32 i = 0; i < fl->n; i++)
		if (!fl->have[i] && !is_padding(&fl->ins[i]))
			return fail(fl, &fl->ins[i], "code no path reaches");
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
	bool saved[TB_NREGS] = { false };

	for (u32 i = 0; i < fl->n; i++)
		for (int r = 0; fl->have[i] && r < TB_NREGS; r++)
			saved[r] |= fl->st[i].touched[r];
	for (u32 i = 0; i < fl->n; i++) {
		if (!fl->have[i] || (last && frame_eq(last, &fl->st[i])))
			continue;
		if (add_row(f, &fl->st[i], (u32)fl->ins[i].address, saved))
			return -1;
		last = &fl->st[i];
	}
	return 0;
}

static int run_flow(struct pa_flow *fl, const u32 *entries, u32 nentries)
{
	struct pa_state entry;
	u32 start = 0;

	memset(&entry, 0, sizeof(entry));
	entry.fp = -1;
	entry.spreg = -1;
	entry.cfa_copy = PA_NONE;
	for (int i = 0; i < TB_NREGS; i++)
		entry.slot[i] = PA_NONE;
	fl->st = calloc(fl->n, sizeof(*fl->st));
	fl->have = calloc(fl->n, sizeof(*fl->have));
	/* Each instruction enters the work list once, once more when its
	 * frame pointer is forgotten and once a register of r0-r14 found
	 * written (reach). */
	fl->work = calloc(17 * (size_t)fl->n, sizeof(*fl->work));
	if (!fl->st || !fl->have || !fl->work)
		return -2;
	/* alignment padding alone between two functions is no code (and
	 * no refusal to note) */
	while (fl->text && fl->text->gap && start < fl->n &&
	       is_padding(&fl->ins[start]))
		start++;
	if (start == fl->n)
		return -1;
	if (reach(fl, &fl->ins[0], fl->lo, &entry))
		return -1;
	/* Other symbols inside are entry points too (__adddf3 inside
	 * __subdf3): the frame there must be the entry frame. */
	for (u32 k = 0; k < nentries; k++)
		if (entries[k] > fl->lo && entries[k] < fl->hi &&
		    reach(fl, &fl->ins[0], entries[k], &entry))
			return -1;
	for (;;) {
		int flooded;

		while (fl->nwork) {
			u32 i = fl->work[--fl->nwork];

			if (flow_insn(fl, i, fl->st[i]))
				return -1;
		}
		flooded = fl->have_jump || fl->nfwd ? flood_jump_targets(fl) : 0;
		if (flooded < 0)
			return -1;
		if (!flooded)
			break;
	}
	if (fl->clobber && fl->returns)
		return fail(fl, fl->clobber, "callee-saved register written unsaved");
	if (fl->text && fl->text->gap && !fl->returns)
		return fail(fl, &fl->ins[0], "no return in code no symbol names");
	return unreached_ok(fl);
}

static bool has_child_row(const struct tb_cfi_func *f)
{
	for (u32 i = 0; i < f->nrows; i++)
		if (f->rows[i].r[TB_RA].kind == TB_R_UNDEF)
			return true;
	return false;
}

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
static u32 cfi_wrong_at(const struct pa_flow *fl, const struct tb_cfi_func *cfi)
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
		    is_padding(&fl->ins[i]))
			continue;
		if (!k || !row_agrees(st, &full, &full.r[TB_RA]))
			return a;
	}
	return 0;
}

static int analyse(const u8 *code, u32 len, u32 addr, bool thumb,
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
	r = decode_all(&fl, code, len);
	if (!r && !fl.n)
		r = -1;
	if (!r)
		r = run_flow(&fl, entries, nentries);
	/* states after computed jumps or at inner entries are assumed,
	 * not followed: no ground to overrule CFI on */
	if (!r && text && text->cfi && !fl.have_jump && !fl.nfwd && !nentries)
		text->cfi_wrong = cfi_wrong_at(&fl, text->cfi);
	if (!r && emit_rows(&fl, f))
		r = -2;
	for (u32 i = 0; i < fl.n; i++)
		free(fl.ins[i].detail);
	free(fl.ins);
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

	return analyse(code, len, addr, thumb, entries, nentries, false, NULL,
		       0, &text, f, why, wlen);
}

/* Without a child path this is no thread entry. */
static int child_found(int r, struct tb_cfi_func *f, char *why, size_t wlen)
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

int tb_thread_entry_analyse(const u8 *code, u32 len, u32 addr, bool thumb,
			    struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_text text = { .b = code, .addr = addr, .size = len,
				.thumb = thumb, .sized = true };

	return child_found(analyse(code, len, addr, thumb, NULL, 0, true,
				   NULL, 0, &text, f, why, wlen), f, why, wlen);
}

/* ------------------------------------------------------------------ */
/* Which functions get analysed                                        */

#include <gelf.h>
#include "table/elf.h"

/* [lo, hi) is only refused or covered by nothing. */

static char map_at(const struct tb_elf *e, u32 addr)
{
	return tb_elf_map_at(e, addr);
}

/*
 * The literal pools inside [lo, hi) of code in instruction set @isa, from
 * the mapping symbols, into @v (at most @max).  A pool that runs to the
 * end is cut off instead: *@len is the code's length up to it.  Returns
 * the number of pools, or -1 when the instruction set changes inside or
 * there are too many.
 */
static int data_ranges(const struct tb_elf *e, u32 lo, u32 hi, char isa,
		       struct pa_range *v, u32 max, u32 *len)
{
	u32 n = 0;

	*len = hi - lo;
	for (u32 k = tb_elf_maps_upto(e, lo); k < e->nmaps &&
	     e->maps[k].addr < hi; k++) {
		const struct tb_map *m = &e->maps[k];

		if (m->kind != 'd') {
			if (m->kind != isa)
				return -1;
			if (n && v[n - 1].hi == hi)
				v[n - 1].hi = m->addr;
			continue;
		}
		if (n && v[n - 1].hi == hi)
			continue;	/* still in the same pool */
		if (n == max)
			return -1;
		v[n++] = (struct pa_range){ m->addr, hi };
	}
	if (n && v[n - 1].hi == hi) {
		*len = v[n - 1].lo - lo;
		n--;
	}
	return n;
}

/* Where symbol @s (@e's symbol @i, or code after it) ends. */
static u32 sym_limit(const struct tb_elf *e, const struct tb_sym *s, u32 i,
		     u32 text_end)
{
	if (s->size)
		return s->addr + s->size;
	for (u32 k = i + 1; k < e->nsyms; k++)
		if (e->syms[k].addr > s->addr)
			return e->syms[k].addr < text_end ? e->syms[k].addr : text_end;
	return text_end;
}



/*
 * Code whose rules are EHABI's: a refusal (CANTUNWIND), or opcodes that
 * describe the body of the function at the entry's start, applied from
 * its first instruction on, and so wrong in prologues and epilogues.
 * Analysed rows replace either.
 */
static bool is_ehabi(const struct tb_cfi_func *f)
{
	return f->source == TB_SRC_EHABI;
}

/*
 * What covers the code, sorted by address, for one question per symbol:
 * is [lo, hi) covered by EHABI rules only, or by nothing?  @maxend[k] is
 * the largest end among the first k + 1 ranges, so the first range that
 * can reach past lo is found by bisection even where ranges overlap.
 */
struct pa_cover {
	u32 n;
	struct pa_range *r;	/* by start */
	bool *ehabi;
	u32 *maxend;
};

static int cover_cmp(const void *a, const void *b)
{
	const struct tb_cfi_func *const *x = a, *const *y = b;

	return (*x)->addr < (*y)->addr ? -1 : (*x)->addr > (*y)->addr;
}

static int cover_build(struct pa_cover *c, const struct tb_input *in)
{
	const struct tb_cfi_func **v = malloc((in->n + 1) * sizeof(*v));
	u32 max = 0;

	c->n = in->n;
	c->r = malloc((in->n + 1) * sizeof(*c->r));
	c->ehabi = malloc(in->n + 1);
	c->maxend = malloc((in->n + 1) * sizeof(*c->maxend));
	if (!v || !c->r || !c->ehabi || !c->maxend) {
		free(v);
		return -1;
	}
	for (u32 i = 0; i < in->n; i++)
		v[i] = &in->funcs[i];
	qsort(v, in->n, sizeof(*v), cover_cmp);
	for (u32 i = 0; i < in->n; i++) {
		c->r[i] = (struct pa_range){ v[i]->addr, v[i]->addr + v[i]->size };
		c->ehabi[i] = is_ehabi(v[i]);
		if (c->r[i].hi > max)
			max = c->r[i].hi;
		c->maxend[i] = max;
	}
	free(v);
	return 0;
}

static void cover_free(struct pa_cover *c)
{
	free(c->r);
	free(c->ehabi);
	free(c->maxend);
}

static bool only_ehabi(const struct pa_cover *c, u32 lo, u32 hi)
{
	u32 a = 0, b = c->n;

	while (a < b) {		/* the first range whose prefix reaches lo */
		u32 mid = a + (b - a) / 2;

		if (c->maxend[mid] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < c->n && c->r[a].lo < hi; a++)
		if (c->r[a].hi > lo && !c->ehabi[a])
			return false;
	return true;
}

/* The part [lo, hi) of EHABI function @f, with its bytes, added to @in. */
static int add_piece(struct tb_input *in, const struct tb_cfi_func *f,
		     u32 lo, u32 hi)
{
	struct tb_cfi_func *g = tb_input_add(in);

	if (!g || !(g->ehabi = malloc(f->ehabi_len ? f->ehabi_len : 1)))
		return -1;
	*g = (struct tb_cfi_func){ .addr = lo, .size = hi - lo,
				   .source = f->source, .ehabi = g->ehabi,
				   .ehabi_len = f->ehabi_len };
	memcpy(g->ehabi, f->ehabi, f->ehabi_len);
	return 0;
}

/* The first of @done (sorted, disjoint) that ends above @addr. */
static u32 first_ending_above(const struct tb_input *done, u32 addr)
{
	u32 lo = 0, hi = done->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (done->funcs[mid].addr + done->funcs[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * EHABI functions with the analysed ranges @done (sorted by address,
 * disjoint) cut out of them; the rest keeps its bytes.  Then @done.
 */
static int carve(struct tb_input *in, struct tb_input *done)
{
	struct tb_input out = { 0 };

	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i], *g;
		u32 at = f->addr, end = f->addr + f->size, k;

		if (!is_ehabi(f)) {
			if (!(g = tb_input_add(&out)))
				return -1;
			*g = *f;
			memset(f, 0, sizeof(*f));
			continue;
		}
		for (k = first_ending_above(done, at); at < end; k++) {
			const struct tb_cfi_func *d = k < done->n ?
						      &done->funcs[k] : NULL;
			u32 hi = d && d->addr < end ? d->addr : end;

			if (hi > at && add_piece(&out, f, at, hi))
				return -1;
			if (!d || d->addr >= end)
				break;
			at = d->addr + d->size;
		}
	}
	for (u32 k = 0; k < done->n; k++) {
		struct tb_cfi_func *g = tb_input_add(&out);

		if (!g)
			return -1;
		*g = done->funcs[k];
		memset(&done->funcs[k], 0, sizeof(done->funcs[k]));
	}
	tb_input_free(in);
	*in = out;
	return 0;
}

/* The next symbol's start after symbol @i's, or @limit. */
static u32 next_sym_addr(const struct tb_elf *e, u32 i, u32 limit)
{
	for (u32 k = i + 1; k < e->nsyms; k++)
		if (e->syms[k].addr > e->syms[i].addr)
			return e->syms[k].addr < limit ? e->syms[k].addr : limit;
	return limit;
}


/* Addresses of the other symbols inside [lo, hi): entry points too. */
static u32 *inner_symbols(const struct tb_elf *e, u32 lo, u32 hi, u32 *n)
{
	u32 a = 0, b = e->nsyms, k, *v;

	while (a < b) {		/* symbols are sorted by address */
		u32 mid = a + (b - a) / 2;

		if (e->syms[mid].addr <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (k = a; k < e->nsyms && e->syms[k].addr < hi; k++)
		;
	v = malloc((k - a + 1) * sizeof(*v));
	*n = 0;
	for (; v && a < k; a++)
		v[(*n)++] = e->syms[a].addr;
	return v;
}

/*
 * GNU ld's Thumb-to-ARM interworking stub NAME_from_thumb: "bx pc", a
 * filler halfword, then the ARM branch to NAME ("b NAME", or "ldr pc,
 * [pc, #-4]" and the address).  It touches neither sp nor lr: the
 * caller's frame throughout, one row.  1 with @f filled, 0 if the bytes
 * are not that.
 */
static int veneer_rows(const u8 *code, u32 len, u32 addr,
		       struct tb_cfi_func *f)
{
	u32 w = len >= 8 ? code[4] | code[5] << 8 | code[6] << 16 |
			   (u32)code[7] << 24 : 0;
	struct pa_state entry;

	if (len < 8 || code[0] != 0x78 || code[1] != 0x47 ||
	    ((w & 0xff000000) != 0xea000000 && w != 0xe51ff004))
		return 0;
	memset(&entry, 0, sizeof(entry));
	for (int r = 0; r < TB_NREGS; r++)
		entry.slot[r] = PA_NONE;
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->size = len;
	f->source = TB_SRC_PROLOGUE;
	return add_row(f, &entry, addr, NULL) ? -1 : 1;
}

static bool is_veneer(const char *name)
{
	size_t n = strlen(name), k = strlen("_from_thumb");

	return n > k && !strcmp(name + n - k, "_from_thumb");
}

/*
 * Symbol @i of @e, or the code @s after it that no symbol names (@pt's
 * gap).  @pt, if not NULL, says how (gap, rules to check) and gets the
 * section's bytes.
 */
static int analyse_symbol(struct tb_elf *e, const struct tb_sym *s, u32 i,
			  bool thread_entry, struct pa_text *pt,
			  struct tb_cfi_func *f, char *why, size_t wlen)
{
	struct pa_text plain = { 0 };
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	const u8 *text = sec ? tb_elf_sec_bytes(e, sec) : NULL;
	u32 taddr = sec ? sec->addr : 0, tsize = sec ? sec->size : 0, end, len;
	char want = s->thumb ? 't' : 'a';
	struct pa_range data[PA_MAX_POOLS];
	u32 *entries, nentries;
	int r, ndata;

	/* Code of any executable section (.init, .text, .fini, ...) inside
	 * the table's range; a symbol ends with its section. */
	snprintf(why, wlen, "not in the table's code");
	if (!text || s->addr < e->meta.text_addr ||
	    s->addr - e->meta.text_addr >= e->meta.text_size)
		return 0;
	/*
	 * A clone wrapper's child path may lie past the symbol's size
	 * (glibc's __clone ends its symbol before it), so it runs to the
	 * next symbol; only what its paths reach may be there.
	 */
	end = thread_entry ? next_sym_addr(e, i, taddr + tsize) :
			     sym_limit(e, s, i, taddr + tsize);
	if (s->addr < taddr || end > taddr + tsize || end <= s->addr)
		return 0;
	if (!thread_entry && s->thumb && is_veneer(s->name)) {
		snprintf(why, wlen, "not an interworking stub");
		return veneer_rows(text + (s->addr - taddr), end - s->addr,
				   s->addr, f);
	}
	/*
	 * The instruction set must be certain (bit 0 and $a/$t agree), and
	 * data must be known: without mapping symbols a literal pool after
	 * an in-function branch would be decoded as instructions.
	 */
	snprintf(why, wlen, "mapping symbols disagree with bit 0");
	if (e->nmaps && map_at(e, s->addr) != want)
		return 0;
	/*
	 * Without any (stripped to .dynsym), pools are found from the loads
	 * (note_literal).  A sizeless symbol runs to the next one; code of an
	 * unexported function in between that no path reaches refuses it.
	 */
	snprintf(why, wlen, "instruction sets mix, or too many literal pools");
	ndata = data_ranges(e, s->addr, end, want, data, PA_MAX_POOLS, &len);
	if (ndata < 0 || !len)
		return 0;
	entries = NULL;
	nentries = 0;
	if (!thread_entry)
		entries = inner_symbols(e, s->addr, s->addr + len, &nentries);
	if (!pt)
		pt = &plain;
	pt->b = text;
	pt->addr = taddr;
	pt->size = tsize;
	pt->thumb = s->thumb;
	pt->no_maps = !e->nmaps;
	pt->sized = s->size != 0;
	pt->starts = s->found ? e : NULL;
	r = analyse(text + (s->addr - taddr), len, s->addr, s->thumb, entries,
		    nentries, thread_entry, data, ndata, pt, f, why, wlen);
	free(entries);
	if (thread_entry)
		r = child_found(r, f, why, wlen);
	if (r <= 0)
		return r;
	f->size = end - s->addr;	/* a trailing literal pool included */
	return 1;
}

int tb_prologue_sym(struct tb_elf *e, u32 i, struct tb_cfi_func *f,
		    char *why, size_t wlen)
{
	return analyse_symbol(e, &e->syms[i], i, false, NULL, f, why, wlen);
}

static int analyse_sym(struct tb_elf *e, const struct pa_cover *in,
		       const struct tb_input *all, u32 i,
		       struct tb_input *done, struct tb_notes *notes)
{
	struct pa_text pt = { .known = { done, all } };
	const struct tb_sym *s = &e->syms[i];
	const struct tb_sec *sec = tb_elf_sec(e, s->addr);
	u32 end = sym_limit(e, s, i, sec ? sec->addr + sec->size :
			    e->meta.text_addr + e->meta.text_size);
	struct tb_cfi_func *f;
	char why[160];
	int r;

	if (end <= s->addr || !only_ehabi(in, s->addr, end))
		return 0;
	if (!(f = tb_input_add(done)))
		return -1;
	r = analyse_symbol(e, s, i, false, &pt, f, why, sizeof(why));
	if (r <= 0) {
		free(f->rows);
		done->n--;
	}
	if (!r)
		tb_note_add(notes, s->addr, s->addr, TB_N_PROLOGUE, "%s", why);
	return r;
}

/*
 * Code after symbol @i's end that no symbol names, into @gap: hand-written
 * assembly keeps code there (glibc's strcmp has its early return before
 * its symbol, branched to from its first instructions).  The EHABI entry
 * before it covers it only because entries have no end.  Data at its
 * start (alignment fill) is stepped over.  False if there is none.
 */
static bool gap_after(const struct tb_elf *e, u32 i, u32 text_end,
		      struct tb_sym *gap)
{
	const struct tb_sym *s = &e->syms[i];
	u32 lo = s->addr + s->size, hi = next_sym_addr(e, i, text_end);
	char kind = s->thumb ? 't' : 'a';

	if (!s->size || lo >= hi)
		return false;
	if (e->nmaps)
		kind = map_at(e, lo);
	while (kind == 'd') {
		u32 k = tb_elf_maps_upto(e, lo);

		if (k >= e->nmaps || e->maps[k].addr >= hi)
			return false;
		lo = e->maps[k].addr;
		kind = e->maps[k].kind;
	}
	*gap = (struct tb_sym){ lo, hi - lo, "", kind == 't', false };
	return true;
}

/*
 * The gap after symbol @i, analysed as a function entered at its start
 * with the caller's frame: it replaces EHABI rules that describe the
 * function before it.  Code that leaves it by anything but a return is
 * refused (analyse_symbol's @gap).
 */
static int analyse_gap(struct tb_elf *e, const struct pa_cover *in, u32 i,
		       struct tb_input *done, struct tb_notes *notes)
{
	const struct tb_sec *sec = tb_elf_sec(e, e->syms[i].addr);
	struct tb_cfi_func *f;
	struct tb_sym gap;
	char why[160];
	int r;

	if (!sec || !gap_after(e, i, sec->addr + sec->size, &gap) ||
	    !only_ehabi(in, gap.addr, gap.addr + gap.size))
		return 0;
	if (!(f = tb_input_add(done)))
		return -1;
	r = analyse_symbol(e, &gap, i, false, &(struct pa_text){ .gap = true },
			   f, why, sizeof(why));
	if (r <= 0) {
		free(f->rows);
		done->n--;
	}
	if (!r && why[0])
		tb_note_add(notes, gap.addr, gap.addr, TB_N_PROLOGUE, "%s", why);
	return r;
}

/* The first of @e's symbols at @addr, or @e->nsyms. */
static u32 sym_at(const struct tb_elf *e, u32 addr)
{
	u32 i = tb_elf_first_sym(e, addr);

	return i < e->nsyms && e->syms[i].addr == addr ? i : e->nsyms;
}

/* A symbol's or found function's start, or a PLT stub (a tail call). */
static bool known_start(const struct tb_elf *e, u32 addr)
{
	const struct tb_sec *sec = tb_elf_sec(e, addr);

	return sym_at(e, addr) < e->nsyms ||
	       (sec && (!strcmp(sec->name, ".plt") || !strcmp(sec->name, ".iplt")));
}

static bool is_dwarf(const struct tb_cfi_func *f)
{
	return f->source == TB_SRC_DEBUG_FRAME || f->source == TB_SRC_EH_FRAME ||
	       f->source == TB_SRC_DEBUG_FILE;
}

/*
 * DWARF CFI of function @f checked against its instructions: where the
 * analysis accepts the whole function and the CFI's CFA or return address
 * differ from it at an instruction, the analysed rows replace the CFI's.
 * Compilers' CFI agrees (the lua test); hand-written CFI need not.
 */
static int check_cfi(struct tb_elf *e, struct tb_cfi_func *f,
		     struct tb_notes *notes)
{
	struct pa_text pt = { .cfi = f };
	struct tb_cfi_func g = { 0 };
	u32 i = sym_at(e, f->addr);
	char why[160];
	int r;

	if (i == e->nsyms)
		return 0;
	r = analyse_symbol(e, &e->syms[i], i, false, &pt, &g, why, sizeof(why));
	if (r <= 0 || !pt.cfi_wrong || g.size != f->size) {
		free(g.rows);
		return r < 0 ? -1 : 0;
	}
	tb_note_add(notes, f->addr, f->addr, TB_N_CFI_WRONG,
		    "CFI says another frame at 0x%x", pt.cfi_wrong);
	free(f->rows);
	f->rows = g.rows;
	f->nrows = g.nrows;
	f->source = TB_SRC_PROLOGUE;
	return 1;
}

int tb_prologue_pass(struct tb_elf *e, struct tb_input *in,
		     struct tb_notes *notes)
{
	struct tb_input done = { 0 };
	struct pa_cover cover;
	int n = 0;

	if (cover_build(&cover, in)) {
		cover_free(&cover);
		return -1;
	}
	for (u32 i = 0; i < e->nsyms; i++) {
		int r;

		/* One function per address: aliases share the code. */
		if (i && e->syms[i].addr == e->syms[i - 1].addr)
			continue;
		if (done.n && e->syms[i].addr < done.funcs[done.n - 1].addr +
		    done.funcs[done.n - 1].size)
			continue;
		r = analyse_sym(e, &cover, in, i, &done, notes);
		if (r >= 0) {
			n += r;
			r = analyse_gap(e, &cover, i, &done, notes);
		}
		if (r < 0) {
			cover_free(&cover);
			tb_input_free(&done);
			return -1;
		}
		n += r;
	}
	cover_free(&cover);
	if (n && carve(in, &done)) {
		tb_input_free(&done);
		return -1;
	}
	tb_input_free(&done);
	for (u32 k = 0; k < in->n; k++) {
		int r = is_dwarf(&in->funcs[k]) ?
			check_cfi(e, &in->funcs[k], notes) : 0;

		if (r < 0)
			return -1;
		n += r;
	}
	if (n)
		e->meta.sources |= UWT_SRC_PROLOGUE;
	return n;
}

/* ------------------------------------------------------------------ */
/* Thread entries                                                      */

/*
 * Take [lo, hi) out of the functions of @in: functions inside it go,
 * EHABI ones across its edges are cut.  Returns 1, changing nothing, when
 * any other function crosses an edge (its rules would need cutting).
 */
static int clear_range(struct tb_input *in, u32 lo, u32 hi)
{
	struct tb_input out = { 0 };
	struct tb_cfi_func *g;

	for (u32 i = 0; i < in->n; i++) {
		const struct tb_cfi_func *f = &in->funcs[i];

		if (f->addr < hi && f->addr + f->size > lo && !is_ehabi(f) &&
		    (f->addr < lo || f->addr + f->size > hi))
			return 1;
	}
	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i];
		u32 end = f->addr + f->size;

		if (f->addr >= hi || end <= lo) {
			if (!(g = tb_input_add(&out)))
				goto oom;
			*g = *f;
			memset(f, 0, sizeof(*f));
			continue;
		}
		if ((f->addr < lo && add_piece(&out, f, f->addr, lo)) ||
		    (end > hi && add_piece(&out, f, hi, end)))
			goto oom;
	}
	tb_input_free(in);
	*in = out;
	return 0;
oom:
	tb_input_free(&out);
	return -1;
}

/* Thread entries (clone wrappers) named in @e's symbols. */
int tb_thread_entry_pass(struct tb_elf *e, struct tb_input *in,
			 struct tb_notes *notes)
{
	struct tb_cfi_func f, *g;
	char why[160];
	u32 done = 0;
	int n = 0, r;

	for (u32 i = 0; i < e->nsyms; i++) {
		const struct tb_sym *s = &e->syms[i];

		/* Once per address: clone and __clone are one function. */
		if (!tb_thread_entry_sym(s->name) || (n && s->addr == done))
			continue;
		done = s->addr;
		r = analyse_symbol(e, s, i, true, NULL, &f, why, sizeof(why));
		if (r > 0) {
			r = clear_range(in, f.addr, f.addr + f.size);
			if (!r && (g = tb_input_add(in))) {
				f.source = TB_SRC_THREAD;
				*g = f;
				n++;
				continue;
			}
			free(f.rows);
			if (r <= 0)
				return -1;
			snprintf(why, sizeof(why),
				 "other unwind rules cross its ends");
		}
		if (r < 0)
			return -1;
		tb_note_add(notes, s->addr, s->addr, TB_N_PROLOGUE,
			    "thread entry not analysed: %s", why);
	}
	return n;
}
