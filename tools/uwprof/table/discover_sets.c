// SPDX-License-Identifier: GPL-2.0
/*
 * Function discovery: the values a path proves registers hold, as
 * ranges or short lists, for jumps through a table of small numbers and
 * then a table of offsets (glibc's printf: the format character, proven
 * in range by "sub rT, rC, #' '; cmp rT, #'z' - ' '; bhi", indexes a
 * table of byte classes, a class a table of label offsets, and "bx" goes
 * to the offset plus a label's address).  Tables are read from the file
 * only where they lie in memory nothing writes (no SHF_WRITE section):
 * every value a list holds is one the register can hold on this path,
 * so every target is a real one; what cannot be proven is forgotten.
 */
#include <capstone/capstone.h>
#include <stddef.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/discover_sets.h"
#include "table/elf.h"

void dc_vs_reset(struct dc_vs *s)
{
	s->known = 0;
	s->nslot = 0;
	s->rels = 0;
	for (int i = 0; i < 13; i++) {
		s->r[i].kind = DC_VS_NONE;
		s->rel[i] = -1;
	}
	s->cmp_reg = -1;
}

/* @size bytes at link address @a from a section nothing writes. */
static bool read_ro(struct tb_elf *e, u32 a, u32 size, void *out)
{
	const u8 *b = tb_elf_read(e, a, size, true);

	if (b)
		memcpy(out, b, size);
	return b;
}

static int reg_of(arm_reg r)
{
	return r >= ARM_REG_R0 && r <= ARM_REG_R12 ? (int)(r - ARM_REG_R0) :
	       -1;
}

/* A set's bytes that matter: its header and the values it lists. */
/*
 * Copies field by field, a list's values alone by memcpy(): most sets
 * are empty, and on the device a library call for each of a state's
 * small arrays cost more than the copy.
 */
static void copy(struct dc_vset *to, const struct dc_vset *from)
{
	to->kind = from->kind;
	to->n = from->n;
	to->lo = from->lo;
	to->hi = from->hi;
	if (from->kind == DC_VS_LIST)
		memcpy(to->v, from->v, from->n * sizeof(from->v[0]));
}

static void copy_all(struct dc_vs *to, const struct dc_vs *from)
{
	for (int i = 0; i < 13; i++) {
		copy(&to->r[i], &from->r[i]);
		to->rel[i] = from->rel[i];
		to->rel_off[i] = from->rel_off[i];
	}
	to->rels = from->rels;
	to->cmp_reg = from->cmp_reg;
	to->cmp_imm = from->cmp_imm;
	to->known = from->known;
	to->addr = from->addr;
	for (int i = 0; i < 16; i++)
		to->val[i] = from->val[i];
	for (u32 i = 0; i < from->nslot; i++)
		to->slot[i] = from->slot[i];
	to->nslot = from->nslot;
}

static void drop(struct dc_vs *s, int r)
{
	s->r[r].kind = DC_VS_NONE;
	/* each instruction drops what it writes: only the relations set */
	for (u32 m = s->rels; m; m &= m - 1) {
		int i = __builtin_ctz(m);

		if (i == r || s->rel[i] == r) {
			s->rel[i] = -1;
			s->rels &= (u16)~(1u << i);
		}
	}
	if (s->cmp_reg == r)
		s->cmp_reg = -1;
}

/* Register @r's value set, a constant as a list of one; false if none. */
static bool get(const struct dc_vs *s, const struct dc_consts *k, int r,
		struct dc_vset *out)
{
	if (r < 0)
		return false;
	if (k->known & (1u << r)) {
		out->kind = DC_VS_LIST;
		out->n = 1;
		out->v[0] = k->val[r];
		return true;
	}
	if (s->r[r].kind == DC_VS_NONE)
		return false;
	copy(out, &s->r[r]);
	return true;
}

/* A range as a list, if it is short enough. */
static bool listed(struct dc_vset *x)
{
	if (x->kind == DC_VS_LIST)
		return true;
	if (x->hi - x->lo >= DC_SET_MAX)
		return false;
	x->n = (u16)(x->hi - x->lo + 1);
	for (u32 i = 0; i < x->n; i++)
		x->v[i] = x->lo + i;
	x->kind = DC_VS_LIST;
	return true;
}

/* Add @v to list @x unless there; false when it is full. */
static bool list_add(struct dc_vset *x, u32 v)
{
	for (u32 i = 0; i < x->n; i++)
		if (x->v[i] == v)
			return true;
	if (x->n == DC_SET_MAX)
		return false;
	x->v[x->n++] = v;
	return true;
}

/* @x << @sh, plus constant @c: false when it cannot be kept. */
static bool shift_add(struct dc_vset *x, u32 sh, u32 c)
{
	if (x->kind == DC_VS_RANGE && !sh) {
		if (x->lo + c > x->hi + c)	/* it would wrap */
			return false;
		x->lo += c;
		x->hi += c;
		return true;
	}
	if (!listed(x))
		return false;
	for (u32 i = 0; i < x->n; i++)
		x->v[i] = (x->v[i] << sh) + c;
	return true;
}

/* "add rD, rN, rM[, lsl #s]", "add rD, rM" or "add/sub rD, rN, #imm" */
static bool arith(const struct dc_vs *s, const struct dc_consts *k,
		  const struct tb_insn *in, struct dc_vset *out)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *x = &a->operands[a->op_count == 2 ? 0 : 1];
	const struct tb_dec_op *y = &a->operands[a->op_count - 1];
	bool sub = in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW;
	struct dc_vset p, q;

	if ((a->op_count != 2 && a->op_count != 3) || x->type != ARM_OP_REG ||
	    x->shift.type || !get(s, k, reg_of(x->reg), &p))
		return false;
	if (y->type == ARM_OP_IMM) {
		*out = p;
		return shift_add(out, 0, sub ? -(u32)y->imm : (u32)y->imm);
	}
	if (sub || y->type != ARM_OP_REG || !get(s, k, reg_of(y->reg), &q) ||
	    (y->shift.type && (y->shift.type != ARM_SFT_LSL ||
			       y->shift.value > 4)))
		return false;
	if (p.kind == DC_VS_LIST && p.n == 1) {
		*out = q;
		return shift_add(out, y->shift.type ? y->shift.value : 0,
				 p.v[0]);
	}
	if (q.kind == DC_VS_LIST && q.n == 1 && !y->shift.type) {
		*out = p;
		return shift_add(out, 0, q.v[0]);
	}
	return false;	/* two sets: too many values to list */
}

/*
 * The addresses "[rB, #k]" or "[rB, rI, lsl #s]" reads, when one of rB and
 * rI is a proven set and any other a constant.
 */
static bool addresses(const struct dc_vs *s, const struct dc_consts *k,
		      const struct tb_insn *in, struct dc_vset *out)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m = &a->operands[1];
	u32 sh = m->shift.type == ARM_SFT_LSL ? m->shift.value : 0;
	static struct dc_vset i;

	if (a->op_count != 2 || m->type != ARM_OP_MEM || a->writeback ||
	    m->subtracted || !get(s, k, reg_of(m->mem.base), out))
		return false;
	if (m->mem.index == ARM_REG_INVALID)
		return shift_add(out, 0, (u32)m->mem.disp);
	if ((m->shift.type && m->shift.type != ARM_SFT_LSL) || sh > 4 ||
	    !get(s, k, reg_of(m->mem.index), &i))
		return false;
	if (out->kind == DC_VS_LIST && out->n == 1) {
		u32 c = out->v[0];

		copy(out, &i);
		return shift_add(out, sh, c);
	}
	return i.kind == DC_VS_LIST && i.n == 1 &&
	       shift_add(out, 0, i.v[0] << sh);
}

/* "ldrb/ldr rD, [...]" from a proven set of addresses: what they hold. */
static bool table_read(struct dc *d, const struct dc_vs *s,
		       const struct dc_consts *k, const struct tb_insn *in,
		       struct dc_vset *out)
{
	u32 size = in->id == ARM_INS_LDRB ? 1 : 4;
	static struct dc_vset b;

	if (!addresses(s, k, in, &b) || (b.kind == DC_VS_LIST && b.n == 1) ||
	    !listed(&b))
		return false;
	out->kind = DC_VS_LIST;
	out->n = 0;
	for (u32 i = 0; i < b.n; i++) {
		u32 v = 0;

		if ((b.v[i] & (size - 1)) || !read_ro(d->e, b.v[i], size, &v) ||
		    !list_add(out, v))
			return false;
	}
	/* a table inside the code is data there */
	for (u32 i = 0; i < b.n; i++)
		for (u32 h = 0; h < size; h += 2)
			if (dc_inside(d, (b.v[i] + h) & ~1u))
				dc_set(d, (b.v[i] + h) & ~1u, DC_DATA);
	return true;
}

/* The set @in leaves in register @r, from the state before it. */
static bool result(struct dc *d, const struct dc_vs *s,
		   const struct dc_consts *k, const struct tb_insn *in,
		   struct dc_vset *out)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *last = &a->operands[a->op_count - 1];

	switch (in->id) {
	case ARM_INS_ADD: case ARM_INS_SUB: case ARM_INS_ADDW:
	case ARM_INS_SUBW:
		return arith(s, k, in, out);
	case ARM_INS_LDR:
		return table_read(d, s, k, in, out);
	case ARM_INS_LDRB:
		if (table_read(d, s, k, in, out))
			return true;
		break;
	case ARM_INS_UXTB:
		if (a->op_count != 2)
			return false;
		break;
	case ARM_INS_AND:	/* "and rD, rS, #2^n - 1": 0 to that */
		if (a->op_count != 3 || last->type != ARM_OP_IMM ||
		    ((u32)last->imm & ((u32)last->imm + 1)))
			return false;
		out->kind = DC_VS_RANGE;
		out->lo = 0;
		out->hi = (u32)last->imm;
		return true;
	case ARM_INS_MOV:
		return a->op_count == 2 && last->type == ARM_OP_REG &&
		       !last->shift.type && get(s, k, reg_of(last->reg), out);
	case ARM_INS_ORR:
		if (a->op_count != 3 || last->type != ARM_OP_IMM ||
		    a->operands[1].type != ARM_OP_REG ||
		    !get(s, k, reg_of(a->operands[1].reg), out) ||
		    !listed(out))
			return false;
		for (u32 i = 0; i < out->n; i++)
			out->v[i] |= (u32)last->imm;
		return true;
	default:
		return false;
	}
	/* a byte of memory not proven read-only: any byte */
	out->kind = DC_VS_RANGE;
	out->lo = 0;
	out->hi = 0xff;
	return true;
}

/* "sub rD, rS, #imm" with rD's set unknown: rD + imm is rS. */
static void relate(struct dc_vs *s, const struct tb_insn *in, int r)
{
	const struct tb_arm *a = &in->detail->arm;
	int src = a->op_count == 3 ? reg_of(a->operands[1].reg) : -1;

	if ((in->id == ARM_INS_SUB || in->id == ARM_INS_SUBW) && src >= 0 &&
	    src != r && a->operands[1].type == ARM_OP_REG &&
	    a->operands[2].type == ARM_OP_IMM) {
		s->rel[r] = (signed char)src;
		s->rels |= (u16)(1u << r);
		s->rel_off[r] = (u32)a->operands[2].imm;
	}
}

void dc_vs_step(struct dc *d, struct dc_vs *s, const void *insn,
		const struct dc_consts *k, u32 written)
{
	const struct tb_insn *in = insn;
	const struct tb_arm *a = &in->detail->arm;
	static struct dc_vset v;	/* one thread; 1 KB off the stack */
	bool have = false;
	int r = -1;

	if (in->id == ARM_INS_BL || in->id == ARM_INS_BLX) {
		dc_vs_reset(s);		/* the callee may write any */
		return;
	}
	if (in->id == ARM_INS_CMP) {
		s->cmp_reg = a->operands[0].type == ARM_OP_REG &&
			     a->operands[1].type == ARM_OP_IMM ?
			     reg_of(a->operands[0].reg) : -1;
		s->cmp_imm = (u32)a->operands[1].imm;
		return;
	}
	if (a->op_count && a->operands[0].type == ARM_OP_REG &&
	    (a->operands[0].access & CS_AC_WRITE))
		r = reg_of(a->operands[0].reg);
	if (r >= 0 && a->cc == ARM_CC_AL)
		have = result(d, s, k, in, &v);
	if (a->update_flags || in->id == ARM_INS_CMN || in->id == ARM_INS_TST ||
	    in->id == ARM_INS_TEQ)
		s->cmp_reg = -1;
	for (u32 m = written & 0x1fff; m; m &= m - 1)
		drop(s, __builtin_ctz(m));
	if (r < 0 || a->cc != ARM_CC_AL)
		return;
	if (have)
		copy(&s->r[r], &v);
	else
		relate(s, in, r);
}

/* Keep only the values of @x in [0, max]. */
static void at_most(struct dc_vset *x, u32 max)
{
	u32 j = 0;

	if (x->kind == DC_VS_NONE) {
		x->kind = DC_VS_RANGE;
		x->lo = 0;
		x->hi = max;
	} else if (x->kind == DC_VS_RANGE) {
		if (x->hi > max)
			x->hi = max;
		if (x->lo > x->hi)	/* no value: a path never taken */
			x->kind = DC_VS_NONE;
	} else {
		for (u32 i = 0; i < x->n; i++)
			if (x->v[i] <= max)
				x->v[j++] = x->v[i];
		x->n = (u16)j;
		if (!j)
			x->kind = DC_VS_NONE;
	}
}

/* rN <= max proven (unsigned): rN's set, and the register rN derives from. */
static void bound(struct dc_vs *s, int r, u32 max)
{
	int src = s->rel[r];
	u32 off = s->rel_off[r];
	struct dc_vset *x = &s->r[src >= 0 ? src : 0];

	at_most(&s->r[r], max);
	if (src < 0 || max + off < off)	/* rS = rN + off would wrap */
		return;
	/* rS is in [off, max + off]: its own set within it */
	if (x->kind == DC_VS_NONE) {
		x->kind = DC_VS_RANGE;
		x->lo = off;
		x->hi = max + off;
	} else if (x->kind == DC_VS_RANGE) {
		x->lo = x->lo > off ? x->lo : off;
		x->hi = x->hi < max + off ? x->hi : max + off;
		if (x->lo > x->hi)
			x->kind = DC_VS_NONE;
	} else {
		u32 j = 0;

		for (u32 i = 0; i < x->n; i++)
			if (x->v[i] >= off && x->v[i] <= max + off)
				x->v[j++] = x->v[i];
		x->n = (u16)j;
		if (!j)
			x->kind = DC_VS_NONE;
	}
}

void dc_vs_branch(struct dc_vs *s, const void *insn, struct dc_vs *taken)
{
	const struct tb_insn *in = insn;
	arm_cc cc = in->detail->arm.cc;
	struct dc_vs *fall = s;
	u32 imm = s->cmp_imm;
	int r = s->cmp_reg;

	if (taken)
		copy_all(taken, s);
	if (r < 0)
		return;
	/* unsigned: hi/ls split at imm, hs/lo at imm - 1 */
	if (cc == ARM_CC_HI)
		bound(fall, r, imm);
	else if (cc == ARM_CC_LS && taken)
		bound(taken, r, imm);
	else if (cc == ARM_CC_HS && imm)
		bound(fall, r, imm - 1);
	else if (cc == ARM_CC_LO && imm && taken)
		bound(taken, r, imm - 1);
}

bool dc_vs_useful(const struct dc_vs *s)
{
	for (int i = 0; i < 13; i++)
		if (s->r[i].kind != DC_VS_NONE &&
		    (s->r[i].kind == DC_VS_LIST || s->rel[i] >= 0 ||
		     s->r[i].hi - s->r[i].lo < DC_SET_MAX))
			return true;
	return false;
}

u32 dc_vs_targets(const struct dc_vs *s, const void *insn,
		  const struct dc_consts *k, u32 *t)
{
	const struct tb_insn *in = insn;
	const struct tb_arm *a = &in->detail->arm;
	static struct dc_vset v;

	if (!a->op_count || a->operands[a->op_count - 1].type != ARM_OP_REG ||
	    !get(s, k, reg_of(a->operands[a->op_count - 1].reg), &v) ||
	    v.kind != DC_VS_LIST)
		return 0;
	memcpy(t, v.v, v.n * sizeof(*t));
	return v.n;
}

/* The states carried to branch targets the walk has yet to follow. */
#define DC_VS_SAVED	16
static struct { u32 at; struct dc_vs s; } saved[DC_VS_SAVED];
static u32 nsaved;

void dc_vs_save(u32 at, const struct dc_vs *s)
{
	if (nsaved < DC_VS_SAVED && dc_vs_useful(s)) {
		saved[nsaved].at = at;
		copy_all(&saved[nsaved++].s, s);
	}
}

bool dc_vs_take(u32 at, struct dc_vs *s)
{
	for (u32 i = nsaved; i-- > 0;)
		if (saved[i].at == at) {
			copy_all(s, &saved[i].s);
			if (i != --nsaved) {
				saved[i].at = saved[nsaved].at;
				copy_all(&saved[i].s, &saved[nsaved].s);
			}
			return true;
		}
	return false;
}

void dc_vs_forget_saved(void)
{
	nsaved = 0;
}
