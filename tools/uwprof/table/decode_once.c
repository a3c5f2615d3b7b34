// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions decoded once (decode_once.h): each (address, instruction
 * set) is decoded by capstone the first time it is asked for; its detail
 * is kept in three arrays (records, operands, implicit registers and
 * groups) that every later visit's struct tb_insn points into; an
 * undecodable one is remembered too.
 *
 * capstone's Thumb decoder keeps state between calls: after an IT
 * instruction, the next one to four instructions it decodes take their
 * conditions from the block.  tb_dec follows that state (c->it) as
 * capstone's would move had capstone decoded every instruction
 * (decode_fast.h): our decoder moves it for what it decodes, and for
 * what capstone decodes it follows capstone.  A kept form is that of no
 * block: it is kept, and given back, only while the state is empty.
 * Before capstone decodes in a block our decoder moved, its handle is
 * brought into the block by an IT of the block's rest.  Where the state
 * cannot be followed (an AL block; an ARMv8 instruction in a block) it
 * is capstone's own, and nothing is kept or given back again until
 * tb_dec_reset_it(): slower, never different.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/decode_fast.h"
#include "table/decode_once.h"

#define TB_DEC_BAD	0xffffffffu
#define MAX_OPS		TB_DEC_MAXOPS

/*
 * The most memory kept forms take, index included: past it instructions
 * are decoded again, as without tb_dec.  Chrome-sized code (169 MB of
 * .text) would otherwise keep about 60 bytes an instruction, 4.8 GB in
 * all; a device making a library's table has less than that to give.
 */
#define TB_DEC_BUDGET	(512u << 20)

/* Bytes the kept forms and their index hold now. */
static size_t kept_bytes(const struct tb_dec *c)
{
	return (size_t)c->n * 2 * sizeof(u32) +
	       (size_t)c->caprec * sizeof(struct tb_dec_rec) +
	       (size_t)c->capop * sizeof(struct tb_dec_op) + c->capreg;
}

int tb_dec_open(struct tb_dec *c, u32 lo, u32 n)
{
	memset(c, 0, sizeof(*c));
	c->lo = lo;
	/* an index above half the budget: nothing kept, nothing indexed */
	c->n = (size_t)n * 2 * sizeof(u32) > TB_DEC_BUDGET / 2 ? 0 : n;
	n = c->n;
	for (int t = 0; t < 2; t++) {
		c->at[t] = calloc(n ? n : 1, sizeof(*c->at[t]));
		if (!c->at[t] ||
		    cs_open(CS_ARCH_ARM, t ? CS_MODE_THUMB : CS_MODE_ARM,
			    &c->cs[t]) != CS_ERR_OK)
			return -1;
		cs_option(c->cs[t], CS_OPT_DETAIL, CS_OPT_ON);
	}
	c->sync = cs_malloc(c->cs[1]);
	c->cs_out = cs_malloc(c->cs[0]);
	return c->sync && c->cs_out ? 0 : -1;
}

int tb_dec_open_reader(struct tb_dec *c, const struct tb_dec *kept)
{
	int r = tb_dec_open(c, kept->lo, 0);

	for (int t = 0; t < 2; t++) {
		free(c->at[t]);
		c->at[t] = kept->at[t];
	}
	c->n = kept->n;
	c->rec = kept->rec;
	c->op = kept->op;
	c->reg = kept->reg;
	c->reader = true;
	return r;
}

void tb_dec_close(struct tb_dec *c)
{
	if (c->sync)
		cs_free(c->sync, 1);
	if (c->cs_out)
		cs_free(c->cs_out, 1);
	for (int t = 0; t < 2; t++) {
		if (c->cs[t])
			cs_close(&c->cs[t]);
		if (!c->reader)
			free(c->at[t]);
	}
	if (!c->reader) {
		free(c->rec);
		free(c->op);
		free(c->reg);
	}
	memset(c, 0, sizeof(*c));
}

static bool grow(void **v, u32 *cap, u32 need, size_t size)
{
	u32 n = *cap ? *cap : 1024;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*v, (size_t)n * size);
	if (!p)
		return false;
	*v = p;
	*cap = n;
	return true;
}

/* Does @v fit the field it is packed into (a @bits-bit one)? */
static bool fits(long long v, int bits, bool sign)
{
	return sign ? v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1)) :
		      v >= 0 && v < (1ll << bits);
}

static bool pack_op(const cs_arm_op *o, struct tb_dec_op *p)
{
	memset(p, 0, sizeof(*p));
	if (o->type == ARM_OP_MEM) {
		if (!fits(o->mem.base, 8, false) || !fits(o->mem.index, 8, false) ||
		    !fits(o->mem.scale, 8, true) || !fits(o->mem.lshift, 8, false))
			return false;
		p->mem.base = (u8)o->mem.base;
		p->mem.index = (u8)o->mem.index;
		p->mem.scale = (int8_t)o->mem.scale;
		p->mem.lshift = (u8)o->mem.lshift;
		p->mem.disp = o->mem.disp;
	} else {
		memcpy(p->raw, &o->fp, sizeof(p->raw));
	}
	if (!fits(o->type, 8, false) || !fits(o->shift.type, 8, false) ||
	    !fits(o->shift.value, 8, false) || !fits(o->vector_index, 8, true))
		return false;
	p->type = (u8)o->type;
	p->access = o->access;
	p->subtracted = o->subtracted;
	p->shift.type = (u8)o->shift.type;
	p->shift.value = (u8)o->shift.value;
	p->neon_lane = o->neon_lane;
	p->vector_index = (int8_t)o->vector_index;
	return true;
}

/* @d's implicit registers (ids below 256) and groups into @v. */
static bool pack_regs(const cs_detail *d, u8 *v)
{
	u8 nr = d->regs_read_count, nw = d->regs_write_count;

	for (u8 i = 0; i < nr + nw; i++) {
		u16 r = i < nr ? d->regs_read[i] : d->regs_write[i - nr];

		if (r > 0xff)
			return false;
		*v++ = (u8)r;
	}
	memcpy(v, d->groups, d->groups_count);
	return true;
}

bool tb_dec_pack(const cs_insn *in, struct tb_dec_form *f)
{
	const cs_detail *d = in->detail;
	const cs_arm *a = &d->arm;

	if (!fits(a->cc, 8, false) || !fits(a->mem_barrier, 8, false) ||
	    !fits(a->vector_data, 8, false) || !fits(a->cps_mode, 8, false) ||
	    !fits(a->cps_flag, 8, false) || !fits(a->vector_size, 8, false) ||
	    a->op_count > MAX_OPS || !pack_regs(d, f->reg))
		return false;
	for (u8 i = 0; i < a->op_count; i++)
		if (!pack_op(&a->operands[i], &f->op[i]))
			return false;
	f->rec = (struct tb_dec_rec){
		.id = (u16)in->id, .size = (u8)in->size,
		.op_count = a->op_count, .cc = (u8)a->cc,
		.update_flags = a->update_flags, .writeback = a->writeback,
		.usermode = a->usermode, .mem_barrier = (u8)a->mem_barrier,
		.vector_data = (u8)a->vector_data, .cps_mode = (u8)a->cps_mode,
		.cps_flag = (u8)a->cps_flag, .vector_size = (u8)a->vector_size,
		.nread = d->regs_read_count, .nwrite = d->regs_write_count,
		.ngroups = d->groups_count,
	};
	return true;
}

/*
 * Room for one more record, @nop operands and @nreg registers; false
 * past the budget.  The bytes kept change only when an array grows, so
 * whether they are past it is known from the last growth on.
 */
static bool room(struct tb_dec *c, u32 nop, u32 nreg)
{
	bool ok;

	if (c->nrec < c->caprec && c->nop + nop <= c->capop &&
	    c->nreg + nreg <= c->capreg)
		return !c->full;
	if (c->full || kept_bytes(c) > TB_DEC_BUDGET)
		return false;
	ok = grow((void **)&c->rec, &c->caprec, c->nrec + 1, sizeof(*c->rec)) &&
	     grow((void **)&c->op, &c->capop, c->nop + nop, sizeof(*c->op)) &&
	     grow((void **)&c->reg, &c->capreg, c->nreg + nreg, 1);
	c->full = kept_bytes(c) > TB_DEC_BUDGET;
	return ok;
}

/*
 * Keep the form @f: its record's index + 1, or 0 (not kept).  Every
 * instruction decoded first comes here: copies of a few bytes each, in
 * loops rather than library calls.
 */
static u32 keep(struct tb_dec *c, const struct tb_dec_form *f)
{
	const struct tb_dec_rec *fr = &f->rec;
	u32 nreg = fr->nread + fr->nwrite + fr->ngroups;
	struct tb_dec_op *op;
	u8 *reg;

	if (!room(c, fr->op_count, nreg))
		return 0;
	op = c->op + c->nop;
	reg = c->reg + c->nreg;
	for (u32 i = 0; i < fr->op_count; i++)
		op[i] = f->op[i];
	for (u32 i = 0; i < nreg; i++)
		reg[i] = f->reg[i];
	c->rec[c->nrec] = *fr;
	c->rec[c->nrec].op = c->nop;
	c->rec[c->nrec].reg = c->nreg;
	c->nop += fr->op_count;
	c->nreg += nreg;
	return ++c->nrec;
}

/* An IT's mnemonic as capstone printed it ("itte": 5 bytes at most). */
static void it_name(struct tb_insn *out, const char *m)
{
	size_t n = strnlen(m, sizeof(out->mnemonic) - 1);

	memcpy(out->mnemonic, m, n);
	out->mnemonic[n] = 0;
}

/*
 * @out as the form @r, its operands at @ops and registers at @v: fixed
 * stores and pointers, whatever the form holds.  Every decode comes here,
 * a first one too (712,000 for libc: 404,000 of discovery's visits, the
 * rest prologue analysis's).
 */
static void view(const struct tb_dec_rec *r, const struct tb_dec_op *ops,
		 const u8 *v, u32 addr, const u8 *b, struct tb_insn *out)
{
	struct tb_detail *d = out->detail;

	out->id = r->id;
	out->address = addr;
	out->size = r->size;
	if (r->size == 4)
		memcpy(out->bytes, b, 4);
	else
		memcpy(out->bytes, b, 2);
	out->mnemonic[0] = out->mnemonic[1] = 0;	/* no block: no_text() */
	d->regs_read = v;
	d->regs_write = v + r->nread;
	d->groups = v + r->nread + r->nwrite;
	d->regs_read_count = r->nread;
	d->regs_write_count = r->nwrite;
	d->groups_count = r->ngroups;
	/* the fields before the operands, laid out alike (TB_ARM_FIELDS) */
	_Static_assert(offsetof(struct tb_arm, op_count) -
		       offsetof(struct tb_arm, cc) ==
		       offsetof(struct tb_dec_rec, op_count) -
		       offsetof(struct tb_dec_rec, cc) &&
		       offsetof(struct tb_arm, cc) == 0,
		       "TB_ARM_FIELDS laid out alike");
	memcpy(&d->arm, &r->cc, offsetof(struct tb_arm, op_count) + 1);
	d->arm.operands = ops;
}

void tb_insn_form(const struct tb_insn *in, struct tb_dec_form *f)
{
	const struct tb_detail *d = in->detail;
	const struct tb_arm *a = &d->arm;
	u8 *v = f->reg;

	f->rec = (struct tb_dec_rec){
		.id = (u16)in->id, .size = (u8)in->size,
		.op_count = a->op_count, .cc = a->cc,
		.update_flags = a->update_flags, .writeback = a->writeback,
		.usermode = a->usermode, .mem_barrier = a->mem_barrier,
		.vector_data = a->vector_data, .cps_mode = a->cps_mode,
		.cps_flag = a->cps_flag, .vector_size = a->vector_size,
		.nread = d->regs_read_count, .nwrite = d->regs_write_count,
		.ngroups = d->groups_count,
	};
	for (u8 i = 0; i < a->op_count; i++)
		f->op[i] = a->operands[i];
	for (u8 i = 0; i < d->regs_read_count; i++)
		*v++ = d->regs_read[i];
	for (u8 i = 0; i < d->regs_write_count; i++)
		*v++ = d->regs_write[i];
	for (u8 i = 0; i < d->groups_count; i++)
		*v++ = d->groups[i];
}

bool tb_insn_of_cs(const cs_insn *in, struct tb_dec_form *f,
		   struct tb_insn *out)
{
	if (!tb_dec_pack(in, f))
		return false;
	view(&f->rec, f->op, f->reg, (u32)in->address, in->bytes, out);
	if (in->id == ARM_INS_IT)
		it_name(out, in->mnemonic);
	return true;
}

/* Empty @cs's IT state: cs_disasm() does, and decodes nothing from no bytes. */
static void cs_reset_it(csh cs)
{
	static const u8 none[4];
	cs_insn *in = NULL;

	if (cs_disasm(cs, none, 0, 0, 1, &in))
		cs_free(in, 1);
}

/* Bring capstone's Thumb handle @cs into state @it. */
static bool cs_enter_it(csh cs, const struct tb_it *it, cs_insn *scratch)
{
	u32 h = it->n ? tb_it_encode(it) : 0;
	u8 b[2] = { (u8)h, (u8)(h >> 8) };
	const u8 *p = b;
	size_t size = 2;
	uint64_t at = 0;

	cs_reset_it(cs);
	return !it->n || (cs_disasm_iter(cs, &p, &size, &at, scratch) &&
			  scratch->id == ARM_INS_IT);
}

void tb_dec_reset_it(struct tb_dec *c)
{
	cs_reset_it(c->cs[1]);
	memset(&c->it, 0, sizeof(c->it));
	c->it_lost = c->cs_stale = false;
}

/*
 * The text tb_dec_text() needs of an instruction other than an IT: none,
 * and the block it was decoded in after the mnemonic's 0 (a count above
 * 4: not known).
 */
static void no_text(struct tb_insn *out, const struct tb_it *it)
{
	memset(out->mnemonic, 0, 2 + sizeof(it->cc));
	out->mnemonic[1] = (char)it->n;
	memcpy(out->mnemonic + 2, it->cc, sizeof(it->cc));
}

/* Decoded by our decoder, in state c->it (which it moved on). */
static bool fast(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
		 u32 addr, u32 *slot, struct tb_insn *out)
{
	struct tb_it before = c->it;

	if (!tb_fast_decode(thumb, b, size, addr, &c->it, &c->form))
		return false;
	view(&c->form.rec, c->form.op, c->form.reg, addr, b, out);
	if (!thumb)
		return true;
	if (out->id == ARM_INS_IT)
		tb_it_text((u32)b[0] | (u32)b[1] << 8, out->mnemonic,
			   sizeof(out->mnemonic), NULL, 0);
	else
		no_text(out, &before);
	/* capstone's handle stays in step only outside blocks */
	c->cs_stale |= before.n || c->it.n;
	if (slot && out->id != ARM_INS_IT)
		*slot = keep(c, &c->form);
	return true;
}

/* An instruction capstone decoded into c->cs_out, packed, as @out. */
static bool from_capstone(struct tb_dec *c,
			  const struct tb_it *before, struct tb_insn *out)
{
	const cs_insn *x = c->cs_out;

	if (!tb_dec_pack(x, &c->form))
		return false;	/* never seen: ids and fields fit a byte */
	view(&c->form.rec, c->form.op, c->form.reg, (u32)x->address, x->bytes, out);
	if (x->id == ARM_INS_IT)
		it_name(out, x->mnemonic);
	else
		no_text(out, before);
	return true;
}

/*
 * Decode @b at @addr, not kept yet (its form is kept in @slot if any):
 * apart from tb_dec_insn()'s kept path, which most calls take and which
 * then needs none of the registers this one saves.
 */
static __attribute__((noinline)) bool
decode_new(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
	   u32 addr, u32 *slot, struct tb_insn *out)
{
	static const struct tb_it lost = { .n = 0xff };	/* not known */
	const struct tb_it *in_block = thumb && c->it_lost ? &lost : &c->it;
	struct tb_it before = *in_block;
	const u8 *p = b;
	size_t left = size;
	uint64_t at = addr;
	u32 h0;
	bool ok;

	if (c->reader)
		slot = NULL;	/* another's forms, read only */
	if ((!thumb || !c->it_lost) && fast(c, thumb, b, size, addr, slot, out))
		return true;
	if (thumb && !c->it_lost && c->cs_stale) {
		if (!cs_enter_it(c->cs[1], &c->it, c->sync))
			return false;	/* never: tb_it_encode()'s IT */
		c->cs_stale = false;
	}
	h0 = size >= 2 ? (u32)b[0] | (u32)b[1] << 8 : 0;
	ok = cs_disasm_iter(c->cs[thumb], &p, &left, &at, c->cs_out);
	/* with 4 bytes every table was tried: undecodable whatever follows */
	if (slot && !ok && size >= 4)
		*slot = TB_DEC_BAD;
	if (thumb && ok && !c->it_lost &&
	    !tb_it_follow(&c->it, c->cs_out->id, h0))
		c->it_lost = true;
	if (!ok || !from_capstone(c, &before, out))
		return false;
	if (slot && out->id != ARM_INS_IT)
		*slot = keep(c, &c->form);
	return true;
}

bool tb_dec_insn(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
		 u32 addr, struct tb_insn *out)
{
	u32 h = (addr - c->lo) / 2, *slot = NULL;

	/* a kept form is that of no IT block: ARM has none */
	if (!(addr & 1) && addr - c->lo < 2ull * c->n &&
	    (!thumb || (!c->it_lost && !c->it.n)))
		slot = &c->at[thumb][h];
	if (slot && *slot == TB_DEC_BAD)
		return false;
	if (slot && *slot) {
		const struct tb_dec_rec *r = &c->rec[*slot - 1];

		if (size < r->size)
			return false;	/* as capstone: too few bytes */
		view(r, c->op + r->op, c->reg + r->reg, addr, b, out);
		return true;
	}
	return decode_new(c, thumb, b, size, addr, slot, out);
}

void tb_dec_text(csh cs, const struct tb_insn *in, const u8 *b, size_t size,
		 char *buf, size_t len)
{
	struct tb_it it = { 0 };
	cs_insn *x = cs_malloc(cs);
	uint64_t at = in->address;

	if (!x) {
		snprintf(buf, len, "(0x%x)", (u32)in->address);
		return;
	}
	/* an IT is decoded outside a block; another in the one it was */
	if (!in->mnemonic[0]) {
		it.n = (u8)in->mnemonic[1];
		memcpy(it.cc, in->mnemonic + 2, sizeof(it.cc));
	}
	if (it.n > 4 || !cs_enter_it(cs, &it, x) ||
	    !cs_disasm_iter(cs, &b, &size, &at, x))
		snprintf(buf, len, "(0x%x)", (u32)in->address);
	else
		snprintf(buf, len, "%s %s", x->mnemonic, x->op_str);
	cs_free(x, 1);
}
