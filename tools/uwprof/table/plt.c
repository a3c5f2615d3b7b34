// SPDX-License-Identifier: GPL-2.0
/*
 * Code outside .text: PLT stubs decoded into functions, and refusals for
 * whatever else no source describes.  docs/TABLES.md ("Code outside
 * .text") says what is recognised.
 *
 * A PLT entry (add ip, pc, ...; add ip, ip, ...; ldr pc, [ip, ...]!, its
 * long form through a literal, the Thumb "bx pc" stub in front) touches
 * neither sp nor lr: sampled there, the frame returns to lr.  PLT0, the
 * resolver trampoline, first pushes lr (str lr, [sp, #-4]!) and then
 * loads the GOT address into lr: from the push on, lr is popped back from
 * the stack.  Every instruction is checked against a short list of forms;
 * anything else ends the decoding and the rest of the section refuses.
 * GNU ld's .plt comes before .text; lld's after it, each stub padded.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>
#include "table/elf.h"
#include "table/spans.h"

#define MAX_LITS	8

struct plt_dec {
	csh arm, thumb;
	cs_insn *insn;
	const struct tb_elf *e;
	const u8 *code;
	u32 lo, hi;		/* the section */
	u32 lits[MAX_LITS];	/* literal words loaded pc-relative */
	u32 nlits;
	char why[256];
};

static u16 rd16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static bool is_literal(struct plt_dec *d, u32 addr)
{
	if (tb_elf_map_at(d->e, addr) == 'd' && d->e->nmaps)
		return true;
	for (u32 i = 0; i < d->nlits; i++)
		if (d->lits[i] == addr)
			return true;
	return false;
}

/* "bx pc" then "nop" or "b.n .-2": ld's Thumb entry into an ARM stub. */
static bool thumb_bx_pc(struct plt_dec *d, u32 at)
{
	u16 h0, h1;

	if (at & 3 || at + 4 > d->hi)
		return false;
	h0 = rd16(d->code + (at - d->lo));
	h1 = rd16(d->code + (at - d->lo) + 2);
	return h0 == 0x4778 && (h1 == 0x46c0 || h1 == 0xe7fd || h1 == 0xbf00);
}

/*
 * lld pads its 32-byte PLT0 and its 16-byte ARM entries with the trap
 * word 0xd4d4d4d4; unstripped it is marked $d, stripped nothing says so.
 * Only ever taken after a stub's final ldr pc / bx ip.
 */
static bool lld_filler(const struct plt_dec *d, u32 at)
{
	const u8 *p = d->code + (at - d->lo);

	return !(at & 3) && p[0] == 0xd4 && p[1] == 0xd4 && p[2] == 0xd4 &&
	       p[3] == 0xd4;
}

enum step { S_BAD, S_NEXT, S_PUSH, S_END };

static bool is_reg(const cs_arm_op *op, arm_reg r)
{
	return op->type == ARM_OP_REG && op->reg == (int)r;
}

/*
 * One instruction of a stub.  @pushed: lr is saved (PLT0 after its
 * push), so lr may be written.  @header: PLT0 before its push, where
 * the push itself is accepted.
 */
static enum step classify(struct plt_dec *d, const cs_insn *in, bool thumb,
			  bool header, bool pushed)
{
	const cs_arm *a = &in->detail->arm;
	bool lr_ok = pushed;

	if (a->cc != ARM_CC_AL && a->cc != ARM_CC_INVALID) {
		snprintf(d->why, sizeof(d->why), "conditional %s", in->mnemonic);
		return S_BAD;
	}
	/* No operand may be sp, except in PLT0's push of lr. */
	for (int i = 0; i < a->op_count; i++) {
		const cs_arm_op *op = &a->operands[i];

		if (is_reg(op, ARM_REG_SP) ||
		    (op->type == ARM_OP_MEM && (op->mem.base == ARM_REG_SP ||
						op->mem.index == ARM_REG_SP))) {
			bool push = header &&
				    ((in->id == ARM_INS_STR && a->op_count == 2 &&
				      is_reg(&a->operands[0], ARM_REG_LR) &&
				      a->writeback && a->operands[1].mem.disp == -4) ||
				     (in->id == ARM_INS_PUSH && a->op_count == 1 &&
				      is_reg(&a->operands[0], ARM_REG_LR)));

			if (!push) {
				snprintf(d->why, sizeof(d->why), "sp used: %s %s",
					 in->mnemonic, in->op_str);
				return S_BAD;
			}
			return S_PUSH;
		}
	}
	switch (in->id) {
	case ARM_INS_NOP:
		return S_NEXT;
	case ARM_INS_ADD:
	case ARM_INS_SUB:
	case ARM_INS_MOV:
	case ARM_INS_MOVW:
	case ARM_INS_MOVT:
	case ARM_INS_LDR:
		if (a->op_count < 2 || a->operands[0].type != ARM_OP_REG)
			break;
		if (in->id == ARM_INS_LDR && a->operands[1].type == ARM_OP_MEM) {
			const arm_op_mem *m = &a->operands[1].mem;

			if (m->base == ARM_REG_LR && a->writeback && !lr_ok)
				break;
			if (m->base == ARM_REG_PC && m->index == ARM_REG_INVALID &&
			    d->nlits < MAX_LITS) {
				u32 pc = thumb ? ((u32)in->address + 4) & ~3u
					       : (u32)in->address + 8;

				d->lits[d->nlits++] = pc + (u32)m->disp;
			}
		}
		if (is_reg(&a->operands[0], ARM_REG_PC))
			return in->id == ARM_INS_LDR ? S_END : S_BAD;
		if (is_reg(&a->operands[0], ARM_REG_R12) ||
		    (lr_ok && is_reg(&a->operands[0], ARM_REG_LR)))
			return S_NEXT;
		break;
	case ARM_INS_BX:
		if (a->op_count == 1 && is_reg(&a->operands[0], ARM_REG_R12))
			return S_END;
		break;
	default:
		break;
	}
	snprintf(d->why, sizeof(d->why), "not a PLT form: %s %s", in->mnemonic,
		 in->op_str);
	return S_BAD;
}

static struct tb_row *add_row(struct tb_cfi_func *f, u32 addr, bool lr_pushed)
{
	struct tb_row *r = tb_func_add_row(f);

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->cfa_kind = TB_CFA_REG;
	r->cfa_reg = 13;
	r->cfa_off = lr_pushed ? 4 : 0;
	r->r[TB_RA] = lr_pushed ? (struct tb_rule){ TB_R_OFFSET, 0, -4 }
				: (struct tb_rule){ TB_R_REG, 14, 0 };
	return r;
}

/*
 * Decode one stub at @at into @f; returns its end, or 0 when it is not a
 * PLT stub (d->why says why), or -1u on error.
 */
static u32 one_stub(struct plt_dec *d, u32 at, bool header,
		    struct tb_cfi_func *f)
{
	bool pushed = false, ended = false;
	u32 start = at;

	memset(f, 0, sizeof(*f));
	f->addr = start;
	f->source = TB_SRC_PLT;
	if (!add_row(f, start, false))
		return -1u;
	while (at < d->hi) {
		bool thumb;
		const u8 *p;
		size_t n;
		uint64_t addr = at;
		enum step st;

		if (thumb_bx_pc(d, at)) {
			at += 4;	/* continues in ARM state at at + 4 */
			continue;
		}
		thumb = d->e->nmaps && tb_elf_map_at(d->e, at) == 't';
		if (is_literal(d, at)) {
			snprintf(d->why, sizeof(d->why), "data at 0x%x", at);
			return 0;
		}
		p = d->code + (at - d->lo);
		n = d->hi - at;
		if (!cs_disasm_iter(thumb ? d->thumb : d->arm, &p, &n, &addr,
				    d->insn)) {
			snprintf(d->why, sizeof(d->why), "undecodable at 0x%x", at);
			return 0;
		}
		st = classify(d, d->insn, thumb, header && !pushed, pushed);
		if (st == S_BAD)
			return 0;
		at = (u32)addr;
		if (st == S_PUSH) {
			pushed = true;
			if (!add_row(f, at, true))
				return -1u;
		}
		if (st == S_END) {
			ended = true;
			break;
		}
	}
	if (!ended) {
		snprintf(d->why, sizeof(d->why), "stub at 0x%x runs off the section",
			 start);
		return 0;
	}
	/* The literal words right after the stub belong to it (never a pc:
	 * they keep the last row), and so does lld's filler after PLT0 and
	 * after each entry, which no path reaches either. */
	while (at + 4 <= d->hi && (is_literal(d, at) || lld_filler(d, at)))
		at += 4;
	f->size = at - start;
	return at;
}

static int decode_plt(struct tb_elf *e, const struct tb_sec *s,
		      struct tb_input *in, struct tb_notes *notes,
		      struct plt_dec *d)
{
	const u8 *code = tb_elf_sec_bytes(e, s);
	u32 at = s->addr;
	int added = 0;
	struct tb_spans other;

	if (!code)
		return 0;
	/* Stubs added below never overlap the ones after them. */
	if (tb_spans_init(&other, in, 0, in->n))
		return -1;
	d->e = e;
	d->code = code;
	d->lo = s->addr;
	d->hi = s->addr + s->size;
	d->nlits = 0;
	while (at < d->hi) {
		struct tb_cfi_func f;
		bool header = at == s->addr && !strcmp(s->name, ".plt");
		u32 end = one_stub(d, at, header, &f);
		struct tb_cfi_func *g;

		if (end == -1u) {
			free(f.rows);
			added = -1;
			break;
		}
		if (!end) {
			free(f.rows);
			tb_note_add(notes, at, at, TB_N_PLT, "%s", d->why);
			break;
		}
		/* A stub some other source describes keeps that source. */
		if (tb_spans_overlap(&other, at, end)) {
			free(f.rows);
		} else {
			if (!(g = tb_input_add(in))) {
				free(f.rows);
				added = -1;
				break;
			}
			*g = f;
			added++;
		}
		at = end;
		d->nlits = 0;
	}
	tb_spans_free(&other);
	return added;
}

/* Refuse every part of [lo, hi) no function covers. */
static int refuse_gaps(struct tb_input *in, u32 lo, u32 hi)
{
	u32 at = lo;
	struct tb_spans sp;

	/* The gaps added below lie behind @at: the index stays right. */
	if (tb_spans_init(&sp, in, 0, in->n))
		return -1;
	while (at < hi) {
		u32 next, skip = tb_spans_cover_end(&sp, at, &next);
		struct tb_cfi_func *g;

		if (skip) {
			at = skip;
			continue;
		}
		if (next > hi)
			next = hi;
		if (!(g = tb_input_add(in))) {
			tb_spans_free(&sp);
			return -1;
		}
		*g = (struct tb_cfi_func){ .addr = at, .size = next - at,
					   .source = TB_SRC_UNCOVERED };
		if (tb_func_set_ops(g, tb_ops_refuse, 2)) {
			tb_spans_free(&sp);
			return -1;
		}
		at = next;
	}
	tb_spans_free(&sp);
	return 0;
}

int tb_plt_pass(struct tb_elf *e, struct tb_input *in, struct tb_notes *notes)
{
	struct plt_dec d = { 0 };
	u32 lo = e->meta.text_addr, hi = lo + e->meta.text_size;
	int added = 0, r = -1;

	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &d.arm))
		return -1;
	if (cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &d.thumb)) {
		cs_close(&d.arm);
		return -1;
	}
	cs_option(d.arm, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(d.thumb, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(d.insn = cs_malloc(d.arm)))
		goto out;
	for (u32 i = 0; i < e->nsecs; i++) {
		const struct tb_sec *s = &e->secs[i];
		int k;

		if (s->addr < lo || s->addr + s->size > hi)
			continue;
		if (!strcmp(s->name, ".plt") || !strcmp(s->name, ".iplt")) {
			k = decode_plt(e, s, in, notes, &d);
			if (k < 0)
				goto out;
			added += k;
		}
		if (strcmp(s->name, ".text") &&
		    refuse_gaps(in, s->addr, s->addr + s->size))
			goto out;
	}
	if (added)
		e->meta.sources |= UWT_SRC_PLT;
	r = added;
out:
	if (d.insn)
		cs_free(d.insn, 1);
	cs_close(&d.thumb);
	cs_close(&d.arm);
	return r;
}
