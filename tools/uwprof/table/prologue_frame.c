// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: what a recognised frame form (enum pa_kind, from
 * prologue_dp.c and prologue_ldst.c) does to the state: pushes save
 * registers into slots, pops and loads take them back from their own
 * slots, sp moving up frees slots, stores into the frame save or spill,
 * and the frame pointer and sp's copies are set and used.  False where the
 * change does not fit the frame the state knows.
 */
#include "table/prologue_int.h"

/* A store-multiple below sp: the lowest register at the lowest address. */
static bool do_push(struct pa_state *st, const int *regs, int n)
{
	s32 total = 0, at;

	for (int i = 0; i < n; i++)
		total += pa_reg_size(regs[i]);
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
		if (pa_slot(st, regs[i]) == PA_NONE)
			pa_set_slot(st, regs[i], at);
		st->touched |= 1ull << regs[i];
		at += pa_reg_size(regs[i]);
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

		if (pa_slot(st, s) != at && !(regs[i] <= 3 || regs[i] == 12))
			return false;
		if (pa_slot(st, s) == at)	/* the caller's value is back */
			st->dirty &= ~(1u << s);
		if (s == st->fp)
			st->fp = -1;
		pa_set_slot(st, s, PA_NONE);
		at += pa_reg_size(regs[i]);
		st->cfa -= pa_reg_size(regs[i]);
	}
	return st->cfa >= 0;
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
		if (pa_slot(st, r) == PA_NONE || pa_slot(st, r) >= -st->cfa)
			continue;
		/* a register never written since its save still holds the
		 * caller's value: its slot may go (glibc's strcmp pops r4
		 * alone past the slots of r5-r7) */
		if ((r == 14 || pa_callee_saved(r)) && pa_is_dirty(st, r))
			return false;
		pa_set_slot(st, r, PA_NONE);
	}
	return st->cfa >= 0;
}

/* A pop, then @extra bytes more freed (ldr r4, [sp], #16). */
bool pa_pop_frame(struct pa_state *st, const int *regs, int n, s32 extra)
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
		if (r != reg && (r == 14 || pa_callee_saved(r)) &&
		    pa_slot(st, r) != PA_NONE &&
		    pa_slot(st, r) < at + size && at < pa_slot(st, r) + pa_reg_size(r))
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
		if (slot_taken(st, at, 4, pa_is_dirty(st, r) ? -1 : r))
			return false;
		if (at == st->cfa_copy)
			st->cfa_copy = PA_NONE;
		if (at + 4 > 0 || pa_slot(st, r) != PA_NONE || pa_is_dirty(st, r) ||
		    !(r == 14 || pa_callee_saved(r)))
			continue;
		pa_set_slot(st, r, at);
		st->touched |= 1ull << r;
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
void pa_load_slots(struct pa_state *st, const int *regs, int n, s32 k,
		   uint64_t *wr)
{
	for (int i = 0; i < n; i++) {
		int r = regs[i];

		if ((r == 14 || pa_callee_saved(r)) && pa_slot(st, r) != PA_NONE &&
		    pa_slot(st, r) == -st->cfa + k + 4 * i) {
			pa_set_slot(st, r, PA_NONE);
			st->dirty &= ~(1u << r);
			*wr &= ~(1ull << r);
			if (r == st->fp)	/* the caller's value, no frame */
				st->fp = -1;
			if (r == st->spreg)
				st->spreg = -1;
		}
	}
}

/* A recognised frame change; false if it does not fit the frame. */
bool pa_apply(struct pa_state *st, enum pa_kind k, const int *regs,
	      int n, s32 imm)
{
	switch (k) {
	case PA_SET_FP:
		/* fp = sp + imm = CFA - (cfa - imm); it must have been saved */
		if (st->on_fp || pa_slot(st, regs[0]) == PA_NONE)
			return false;
		st->fp = regs[0];
		st->fp_off = st->cfa - imm;
		return true;
	case PA_SP_DYN:
		/* another alloca after one: the frame pointer still holds */
		if (st->fp < 0)
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
		if (regs[0] == st->fp) {
			/* the frame pointer moves and still holds the frame */
			if (st->fp_off - imm < 0)
				return false;
			st->fp_off -= imm;
			return true;
		}
		st->spreg = regs[0];
		st->spreg_off = st->fp_off - imm;
		return true;
	default:
		break;
	}
	/* below: changes relative to sp, unknown after an alloca; sp moved
	 * by a constant there (room for a call's stack arguments) leaves
	 * the frame where the frame pointer says */
	if (st->on_fp)
		return k == PA_SUB_SP || k == PA_ADD_SP;
	switch (k) {
	case PA_PUSH:
		return do_push(st, regs, n);
	case PA_POP:
		return pa_pop_frame(st, regs, n, imm);
	case PA_SUB_SP:
		st->cfa += imm;
		return true;
	case PA_ADD_SP:
		st->cfa -= imm;
		return slots_above_sp(st);
	case PA_STRD:
		st->cfa += imm;
		for (int i = 0; i < n; i++) {
			if (pa_slot(st, regs[i]) == PA_NONE)
				pa_set_slot(st, regs[i], -st->cfa + 4 * i);
			st->touched |= 1ull << regs[i];
		}
		return true;
	case PA_STORE:
		return store_slots(st, regs, n, imm);
	default:
		return false;
	}
}
