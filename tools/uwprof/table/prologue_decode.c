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

#define PA_DET_BLOCK	64

/*
 * Details, PA_DET_BLOCK a block: a malloc each was much of the analysis's
 * time, and a block never moves.  Each detail's operands from blank[] on
 * are as before decoding (tb_dec_reuse()).
 */
struct pa_det_block {
	cs_detail d[PA_DET_BLOCK];
	u8 blank[PA_DET_BLOCK];
};

/* What the analyses of the thread of @fl hand on, or NULL. */
static struct pa_reuse *reuse_of(const struct pa_flow *fl)
{
	return fl->text ? fl->text->reuse : NULL;
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
			return;
		}
	}
	if (fl->nlits < PA_MAX_POOLS)
		fl->lits[fl->nlits++] = (struct pa_range){ lo, hi };
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
static int adr_of(const struct pa_flow *fl, const cs_insn *in, u32 *at)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *op = a->operands;
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

static void note_literal(struct pa_flow *fl, const cs_insn *in)
{
	const cs_arm *a = &in->detail->arm;
	const cs_arm_op *m;
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
 * before), else capstone on the function's own handle.
 */
static bool decode(struct pa_flow *fl, const uint8_t **p, size_t *left,
		   uint64_t *at, cs_insn *out)
{
	struct tb_dec *dec = fl->text ? fl->text->dec : NULL;
	u8 *blank = &fl->det[fl->n / PA_DET_BLOCK]->blank[fl->n % PA_DET_BLOCK];
	bool ok;

	if (!dec) {
		*blank = TB_DEC_MAXOPS;
		return cs_disasm_iter(fl->cs, p, left, at, out);
	}
	tb_dec_reuse(dec, out->detail, *blank);
	ok = tb_dec_insn(dec, fl->thumb, *p, *left, (u32)*at, out);
	*blank = (u8)tb_dec_blank_from(dec, out->detail);
	if (!ok)
		return false;
	*p += out->size;
	*left -= out->size;
	*at += out->size;
	return true;
}

/* Room for instruction @i's detail (the blocks before are full). */
static cs_detail *detail(struct pa_flow *fl, u32 i)
{
	struct pa_reuse *ru = reuse_of(fl);
	struct pa_det_block *b;

	if (i / PA_DET_BLOCK == fl->ndet) {
		struct pa_det_block **v = realloc(fl->det, (fl->ndet + 1) *
						  sizeof(*v));

		if (!v)
			return NULL;
		fl->det = v;
		if (ru && ru->nspare) {
			b = ru->spare[--ru->nspare];
		} else {
			b = malloc(sizeof(*b));
			if (!b)
				return NULL;
			/* new: no operand known as before decoding */
			memset(b->blank, TB_DEC_MAXOPS, sizeof(b->blank));
		}
		v[fl->ndet++] = b;
	}
	return &fl->det[i / PA_DET_BLOCK]->d[i % PA_DET_BLOCK];
}

void pa_decode_free(struct pa_flow *fl)
{
	struct pa_reuse *ru = reuse_of(fl);

	for (u32 i = 0; i < fl->ndet; i++)
		if (ru && ru->nspare < PA_DET_SPARE)
			ru->spare[ru->nspare++] = fl->det[i];
		else
			free(fl->det[i]);
	free(fl->det);
	if (ru && fl->capins > ru->cap) {
		free(ru->ins);
		ru->ins = fl->ins;
		ru->cap = fl->capins;
	} else {
		free(fl->ins);
	}
	fl->det = NULL;
	fl->ins = NULL;
	fl->ndet = fl->n = fl->capins = 0;
}

void pa_reuse_free(struct pa_reuse *ru)
{
	while (ru->nspare)
		free(ru->spare[--ru->nspare]);
	free(ru->ins);
	ru->ins = NULL;
	ru->cap = 0;
}

int pa_decode_all(struct pa_flow *fl, const u8 *code, u32 len)
{
	struct pa_reuse *ru = reuse_of(fl);
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = fl->lo;

	if (!fl->ins && ru && ru->ins) {
		fl->ins = ru->ins;
		fl->capins = ru->cap;
		ru->ins = NULL;
		ru->cap = 0;
	}
	fl->adr_reg = -1;
	/* each function is decoded as on a handle of its own: no IT block */
	if (fl->text && fl->text->dec)
		tb_dec_reset_it(fl->text->dec);

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
		if (fl->n == fl->capins) {
			u32 cap = fl->capins ? 2 * fl->capins : 64;
			cs_insn *v = realloc(fl->ins, cap * sizeof(*v));

			if (!v)
				return -2;
			fl->ins = v;
			fl->capins = cap;
		}
		fl->ins[fl->n].detail = detail(fl, fl->n);
		if (!fl->ins[fl->n].detail)
			return -2;
		if (!decode(fl, &p, &left, &at, &fl->ins[fl->n])) {
			snprintf(fl->why, fl->wlen, "undecodable at 0x%x", (u32)at);
			return -1;
		}
		if (fl->infer_pools)
			note_literal(fl, &fl->ins[fl->n]);
		fl->n++;
	}
	return 0;
}

void pa_insn_text(const struct pa_flow *fl, const cs_insn *in, char *buf,
		  size_t len)
{
	const struct pa_text *t = fl->text;
	u32 off = (u32)in->address - (t ? t->addr : 0);

	/* a kept form has no text: capstone's own decode of its bytes */
	if (!in->mnemonic[0] && t && off < t->size)
		tb_dec_text(fl->cs, in, t->b + off, t->size - off, buf, len);
	else
		snprintf(buf, len, "%s %s", in->mnemonic, in->op_str);
}
