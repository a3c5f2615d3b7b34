// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: one function's bytes decoded with capstone into the
 * walker's instruction array, stepping over the literal pools inside it:
 * those the mapping symbols name, and without mapping symbols (a stripped
 * library's .dynsym) those that the pc-relative loads decoded before them
 * read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/prologue_int.h"

/* What the analyses of the thread of @fl hand on, or NULL. */
static struct pa_reuse *reuse_of(const struct pa_flow *fl)
{
	return fl->text ? fl->text->reuse : NULL;
}

/*
 * The range of @v (@n of them) holding @addr, or NULL; *@next lowered to
 * the lowest start above @addr.
 */
static const struct pa_range *range_at(const struct pa_range *v, u32 n,
				       u32 addr, u32 *next)
{
	for (u32 k = 0; k < n; k++) {
		if (v[k].lo <= addr && addr < v[k].hi)
			return &v[k];
		if (v[k].lo > addr && v[k].lo < *next)
			*next = v[k].lo;
	}
	return NULL;
}

/*
 * Bytes of data starting at @addr, or 0.  Asked of each instruction in
 * address order: below fl->data_next, set where the last search found
 * no range, none can start (add_literal() lowers it), and a function of
 * many pools would otherwise search them all at every instruction.
 */
static u32 data_at(struct pa_flow *fl, u32 addr)
{
	const struct pa_range *r;
	u32 next = -1u;

	if (addr < fl->data_next)
		return 0;
	r = range_at(fl->data, fl->ndata, addr, &next);
	if (!r)
		r = range_at(fl->lits, fl->nlits, addr, &next);
	fl->data_next = r ? 0 : next;
	return r ? r->hi - addr : 0;
}

static void lower_next(struct pa_flow *fl, u32 lo)
{
	if (lo < fl->data_next)
		fl->data_next = lo;
}

/*
 * [lo, hi) is data.  Words that touch a range known already widen it: a
 * pool is one range however many loads read it (V8's ARM functions of
 * 16 KiB read a pool word from four places, and their loads would
 * otherwise fill the list with the first pools' words).  When the list is
 * full the rest decode as instructions, which refuses the function.
 */
static void add_literal(struct pa_flow *fl, u32 lo, u32 hi)
{
	for (u32 k = 0; k < fl->nlits; k++) {
		struct pa_range *r = &fl->lits[k];

		if (lo <= r->hi && r->lo <= hi) {
			r->lo = lo < r->lo ? lo : r->lo;
			r->hi = hi > r->hi ? hi : r->hi;
			lower_next(fl, r->lo);
			return;
		}
	}
	if (fl->nlits < PA_MAX_POOLS) {
		fl->lits[fl->nlits++] = (struct pa_range){ lo, hi };
		lower_next(fl, lo);
	}
}

/*
 * Code without mapping symbols (a stripped shared library keeps only
 * .dynsym) has its literal pools found from the pc-relative loads that
 * read them: a load decoded before its pool marks the words it reads as
 * data, so the decoder steps over them; so does a load through a register
 * the instruction right before set from pc ("add r3, pc, #268; ldrd r2,
 * [r3]": a double constant in V8's ARM code).  A pool read only from code after
 * it is decoded as instructions, reached by no path, and the function is
 * refused (unreached_ok), never given rows from data.
 */
/*
 * The address an instruction sets a register to from pc: ARM "add rX,
 * pc, #k" or "sub rX, pc, #k", Thumb "adr rX, label"; -1 if none.
 */
static int adr_of(const struct pa_flow *fl, const struct tb_insn *in, u32 *at)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *op = a->operands;
	u32 pc = (u32)in->address + (fl->thumb ? 4 : 8);

	if (in->id == ARM_INS_ADR && fl->thumb && a->op_count == 2 &&
	    op[0].type == ARM_OP_REG && op[1].type == ARM_OP_IMM) {
		*at = (pc & ~3u) + (u32)op[1].imm;
		return pa_slot_of(op[0].reg);
	}
	if ((in->id != ARM_INS_ADD && in->id != ARM_INS_SUB) || fl->thumb ||
	    a->op_count != 3 || op[0].type != ARM_OP_REG ||
	    op[1].type != ARM_OP_REG || op[1].reg != ARM_REG_PC ||
	    op[2].type != ARM_OP_IMM || op[2].shift.value ||
	    pa_conditional(in))
		return -1;
	*at = in->id == ARM_INS_ADD ? pc + (u32)op[2].imm : pc - (u32)op[2].imm;
	return pa_slot_of(op[0].reg);
}

static void note_literal(struct pa_flow *fl, const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m;
	u32 size, pc, at;
	int base = fl->adr_reg;

	/* a register set from pc by the instruction right before */
	fl->adr_reg = adr_of(fl, in, &fl->adr_at);

	switch (in->id) {
	case ARM_INS_LDR: case ARM_INS_VLDR: size = 4; break;
	case ARM_INS_LDRD: size = 8; break;
	case ARM_INS_LDRH: case ARM_INS_LDRSH: size = 2; break;
	case ARM_INS_LDRB: case ARM_INS_LDRSB: size = 1; break;
	default: return;
	}
	/* the address last (ldrd names two registers before it) */
	m = &a->operands[a->op_count - 1];
	if (a->op_count != (in->id == ARM_INS_LDRD ? 3 : 2) ||
	    m->type != ARM_OP_MEM || m->mem.index != ARM_REG_INVALID)
		return;
	if (in->id == ARM_INS_VLDR && a->operands[0].type == ARM_OP_REG &&
	    a->operands[0].reg >= ARM_REG_D0 && a->operands[0].reg <= ARM_REG_D31)
		size = 8;
	pc = (u32)in->address + (fl->thumb ? 4 : 8);
	if (m->mem.base == ARM_REG_PC)
		at = (pc & ~3u) + (u32)m->mem.disp;
	else if (base >= 0 && pa_slot_of(m->mem.base) == base)
		at = fl->adr_at + (u32)m->mem.disp;	/* "ldrd r2, [r3]" */
	else
		return;
	if (at <= in->address || at >= fl->hi)
		return;
	add_literal(fl, at, at + (size < 2 ? 2 : size));
}

/*
 * One instruction into @out: the file's decoder when it has one, which
 * gives each instruction the next function's walk decodes again as it
 * decoded it first (discovery's walks, or the tail of the function
 * before), else capstone on the function's own handle into @cs_in.
 */
static bool decode(struct pa_flow *fl, const uint8_t **p, size_t *left,
		   uint64_t *at, cs_insn *cs_in, struct tb_dec_form *f,
		   struct tb_insn *out)
{
	struct tb_dec *dec = fl->text ? fl->text->dec : NULL;

	if (!dec)
		return cs_disasm_iter(fl->cs, p, left, at, cs_in) &&
		       tb_insn_of_cs(cs_in, f, out);
	if (!tb_dec_insn(dec, fl->thumb, *p, *left, (u32)*at, out))
		return false;
	*p += out->size;
	*left -= out->size;
	*at += out->size;
	return true;
}

/*
 * Room for @n more of @size bytes in @v (@cap of them, @used used); @v
 * exists afterwards even for none, as own() and fix_views() step through
 * it by each instruction's counts, and NULL + 0 is undefined in C.
 */
static bool room(void **v, u32 *cap, u32 used, u32 n, size_t size)
{
	u32 c = *cap ? *cap : 256;
	void *x;

	if (*v && used + n <= *cap)
		return true;
	while (c < used + n)
		c *= 2;
	x = realloc(*v, (size_t)c * size);
	if (!x)
		return false;
	*v = x;
	*cap = c;
	return true;
}

/*
 * Copy the operands and registers of fl->ins[fl->n] into the flow's own
 * arrays where they would not last: the decoder's next decode, or a
 * later keep that moves its arrays, would change them.  A copied one is
 * marked by no registers read (NULL) until fix_views() points it at its
 * copies.
 */
static bool own(struct pa_flow *fl)
{
	struct tb_dec *dec = fl->text ? fl->text->dec : NULL;
	struct tb_detail *d = fl->ins[fl->n].detail;
	u32 nop = d->arm.op_count;
	u32 nreg = d->regs_read_count + d->regs_write_count + d->groups_count;
	u8 *v;

	if (dec && tb_dec_lasting(dec, &fl->ins[fl->n]))
		return true;
	if (!room((void **)&fl->op, &fl->capop, fl->nop, nop, sizeof(*fl->op)) ||
	    !room((void **)&fl->reg, &fl->capreg, fl->nreg, nreg, 1))
		return false;
	for (u32 i = 0; i < nop; i++)
		fl->op[fl->nop + i] = d->arm.operands[i];
	v = fl->reg + fl->nreg;
	for (u8 i = 0; i < d->regs_read_count; i++)
		*v++ = d->regs_read[i];
	for (u8 i = 0; i < d->regs_write_count; i++)
		*v++ = d->regs_write[i];
	for (u8 i = 0; i < d->groups_count; i++)
		*v++ = d->groups[i];
	fl->nop += nop;
	fl->nreg += nreg;
	d->regs_read = NULL;
	return true;
}

/* The copied instructions' operands and registers: their copies, in order. */
static void fix_views(struct pa_flow *fl)
{
	const struct tb_dec_op *op = fl->op;
	const u8 *v = fl->reg;

	for (u32 i = 0; i < fl->n; i++) {
		struct tb_detail *d = fl->ins[i].detail;

		if (d->regs_read)
			continue;
		d->arm.operands = op;
		op += d->arm.op_count;
		d->regs_read = v;
		v += d->regs_read_count;
		d->regs_write = v;
		v += d->regs_write_count;
		d->groups = v;
		v += d->groups_count;
	}
}

/* Array @v (room for @cap) to the thread's spare @sv if larger, or freed. */
static void hand_on(void **v, u32 *cap, void **sv, u32 *scap)
{
	if (*cap > *scap) {
		free(*sv);
		*sv = *v;
		*scap = *cap;
	} else {
		free(*v);
	}
	*v = NULL;
	*cap = 0;
}

/* The thread's spare @sv (room for @scap) as array @v, if it has none. */
static void take_spare(void **v, u32 *cap, void **sv, u32 *scap)
{
	if (*v || !*sv)
		return;
	*v = *sv;
	*cap = *scap;
	*sv = NULL;
	*scap = 0;
}

void pa_decode_free(struct pa_flow *fl)
{
	struct pa_reuse none = { 0 }, *ru = reuse_of(fl);

	if (!ru)
		ru = &none;
	hand_on((void **)&fl->ins, &fl->capins, (void **)&ru->ins, &ru->capins);
	hand_on((void **)&fl->op, &fl->capop, (void **)&ru->op, &ru->capop);
	hand_on((void **)&fl->reg, &fl->capreg, (void **)&ru->reg, &ru->capreg);
	pa_reuse_free(&none);
	fl->n = fl->nop = fl->nreg = 0;
}

void pa_reuse_free(struct pa_reuse *ru)
{
	free(ru->ins);
	free(ru->op);
	free(ru->reg);
	memset(ru, 0, sizeof(*ru));
}

/* The arrays the thread's last function freed, if @fl has none yet. */
static void take_reuse(struct pa_flow *fl)
{
	struct pa_reuse *ru = reuse_of(fl);

	if (!ru)
		return;
	take_spare((void **)&fl->ins, &fl->capins, (void **)&ru->ins,
		   &ru->capins);
	take_spare((void **)&fl->op, &fl->capop, (void **)&ru->op, &ru->capop);
	take_spare((void **)&fl->reg, &fl->capreg, (void **)&ru->reg,
		   &ru->capreg);
}

/* Decode [code, code + len) at fl->lo into fl->ins: 0, -1 or -2. */
static int decode_all(struct pa_flow *fl, const u8 *code, u32 len,
		      cs_insn *cs_in)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = fl->lo;
	struct tb_dec_form f;

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
		if (!room((void **)&fl->ins, &fl->capins, fl->n, 1,
			  sizeof(*fl->ins)))
			return -2;
		if (!decode(fl, &p, &left, &at, cs_in, &f, &fl->ins[fl->n])) {
			snprintf(fl->why, fl->wlen, "undecodable at 0x%x", (u32)at);
			return -1;
		}
		if (fl->infer_pools)
			note_literal(fl, &fl->ins[fl->n]);
		if (!own(fl))
			return -2;
		fl->n++;
	}
	return 0;
}

int pa_decode_all(struct pa_flow *fl, const u8 *code, u32 len)
{
	cs_insn *cs_in = NULL;
	int r;

	take_reuse(fl);
	fl->code = code;
	fl->adr_reg = -1;
	fl->data_next = 0;
	/* each function is decoded as on a handle of its own: no IT block */
	if (fl->text && fl->text->dec)
		tb_dec_reset_it(fl->text->dec);
	else if (!(cs_in = cs_malloc(fl->cs)))
		return -2;
	r = decode_all(fl, code, len, cs_in);
	fix_views(fl);
	if (cs_in)
		cs_free(cs_in, 1);
	return r;
}

void pa_insn_text(const struct pa_flow *fl, const struct tb_insn *in, char *buf,
		  size_t len)
{
	const struct pa_text *t = fl->text;
	u32 a = (u32)in->address;

	/* an instruction has no text: capstone's own decode of its bytes */
	if (t && t->b && a - t->addr < t->size)
		tb_dec_text(fl->cs, in, t->b + (a - t->addr),
			    t->size - (a - t->addr), buf, len);
	else if (fl->code && a - fl->lo < fl->hi - fl->lo)
		tb_dec_text(fl->cs, in, fl->code + (a - fl->lo),
			    fl->hi - a, buf, len);
	else
		snprintf(buf, len, "(0x%x)", a);
}
