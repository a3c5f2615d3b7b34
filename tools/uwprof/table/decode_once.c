// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions decoded once (decode_once.h): each (address, instruction
 * set) is decoded by capstone the first time it is asked for; its detail
 * is kept in three arrays (records, operands, implicit registers and
 * groups) and copied back on every later visit, with the instruction's
 * bytes; an undecodable one is remembered too.
 *
 * capstone's Thumb decoder keeps state between calls: after an IT
 * instruction, the next one to four instructions it decodes take their
 * conditions from the block.  A kept instruction is what capstone gives
 * outside any block, so it is kept, and given back, only while
 * capstone's block state is known to be empty.  it_lo and it_hi follow
 * that state as capstone's decoder (ARMDisassembler.c) changes it: an IT
 * outside a block sets it, one inside a block changes nothing, a failed
 * decode changes nothing, every other instruction takes one from the
 * block except those of the ARMv8 tables (may_keep_it).  Where an IT
 * may or may not be inside a block, the state is lost, and nothing is
 * kept or given back again: slower, never different.
 */
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
	cs_arm *a;

	memset(c, 0, sizeof(*c));
	c->lo = lo;
	/* an index above half the budget: nothing kept, nothing indexed */
	c->n = (size_t)n * 2 * sizeof(u32) > TB_DEC_BUDGET / 2 ? 0 : n;
	n = c->n;
	/* a detail as capstone resets it before decoding (ARMDisassembler.c) */
	c->blank = calloc(1, sizeof(*c->blank));
	if (!c->blank)
		return -1;
	a = &c->blank->arm;
	for (u32 i = 0; i < MAX_OPS; i++) {
		a->operands[i].vector_index = -1;
		a->operands[i].neon_lane = -1;
	}
	for (int t = 0; t < 2; t++) {
		c->at[t] = calloc(n ? n : 1, sizeof(*c->at[t]));
		if (!c->at[t] ||
		    cs_open(CS_ARCH_ARM, t ? CS_MODE_THUMB : CS_MODE_ARM,
			    &c->cs[t]) != CS_ERR_OK)
			return -1;
		cs_option(c->cs[t], CS_OPT_DETAIL, CS_OPT_ON);
	}
	return 0;
}

void tb_dec_close(struct tb_dec *c)
{

	for (int t = 0; t < 2; t++) {
		if (c->cs[t])
			cs_close(&c->cs[t]);
		free(c->at[t]);
	}
	free(c->rec);
	free(c->op);
	free(c->reg);
	free(c->blank);
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
	p->shift_type = (u8)o->shift.type;
	p->shift_value = (u8)o->shift.value;
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

/* Keep the form @f: its record's index + 1, or 0 (not kept). */
static u32 keep(struct tb_dec *c, const struct tb_dec_form *f)
{
	const struct tb_dec_rec *fr = &f->rec;
	u32 nreg = fr->nread + fr->nwrite + fr->ngroups;

	if (kept_bytes(c) > TB_DEC_BUDGET ||
	    !grow((void **)&c->rec, &c->caprec, c->nrec + 1, sizeof(*c->rec)) ||
	    !grow((void **)&c->op, &c->capop, c->nop + fr->op_count,
		  sizeof(*c->op)) ||
	    !grow((void **)&c->reg, &c->capreg, c->nreg + nreg, 1))
		return 0;
	memcpy(c->op + c->nop, f->op, fr->op_count * sizeof(*c->op));
	memcpy(c->reg + c->nreg, f->reg, nreg);
	c->rec[c->nrec] = *fr;
	c->rec[c->nrec].op = c->nop;
	c->rec[c->nrec].reg = c->nreg;
	c->nop += fr->op_count;
	c->nreg += nreg;
	return ++c->nrec;
}

/*
 * Give a form back (its operands at @ops, registers at @v), the detail
 * reset first as capstone's is (from c->blank).  Of the 36 operands, only
 * those a decode into the same detail since the last tb_dec_reset_it()
 * may have written are reset.
 */
static void unpack(struct tb_dec *c, const struct tb_dec_rec *r,
		   const struct tb_dec_op *ops, const u8 *v,
		   u32 addr, const u8 *b, cs_insn *out)
{
	cs_detail *d = out->detail;
	cs_arm *a = &d->arm;

	out->id = r->id;
	out->address = addr;
	out->size = r->size;
	memcpy(out->bytes, b, r->size);
	out->mnemonic[0] = 0;
	out->op_str[0] = 0;
	u32 n = d == c->last ? c->dirty : MAX_OPS;

	/* what capstone writes, and the operands this call or the last one
	 * into @out may have written, as capstone resets them */
	n = n > r->op_count ? n : r->op_count;
	memcpy(d, c->blank, offsetof(cs_detail, arm) + offsetof(cs_arm, operands) +
	       n * sizeof(cs_arm_op));
	c->last = d;
	c->dirty = r->op_count;
	d->regs_read_count = r->nread;
	d->regs_write_count = r->nwrite;
	d->groups_count = r->ngroups;
	for (u8 i = 0; i < r->nread; i++)
		d->regs_read[i] = *v++;
	for (u8 i = 0; i < r->nwrite; i++)
		d->regs_write[i] = *v++;
	memcpy(d->groups, v, r->ngroups);
	a->usermode = r->usermode;
	a->vector_data = r->vector_data;
	a->cps_mode = r->cps_mode;
	a->cps_flag = r->cps_flag;
	a->vector_size = r->vector_size;
	a->cc = r->cc;
	a->update_flags = r->update_flags;
	a->writeback = r->writeback;
	a->mem_barrier = r->mem_barrier;
	a->op_count = r->op_count;
	for (u8 i = 0; i < r->op_count; i++) {
		const struct tb_dec_op *p = &ops[i];
		cs_arm_op *o = &a->operands[i];

		o->type = p->type;
		if (o->type == ARM_OP_MEM) {
			o->mem.base = p->mem.base;
			o->mem.index = p->mem.index;
			o->mem.scale = p->mem.scale;
			o->mem.lshift = p->mem.lshift;
			o->mem.disp = p->mem.disp;
		} else {
			memcpy(&o->fp, p->raw, sizeof(p->raw));
		}
		o->access = p->access;
		o->subtracted = p->subtracted;
		o->shift.type = p->shift_type;
		o->shift.value = p->shift_value;
		o->neon_lane = p->neon_lane;
		o->vector_index = p->vector_index;
	}
}

/*
 * The ARMv8 FP, NEON and crypto instructions capstone decodes from the
 * tables that leave the IT state alone (VFPV8, v8Crypto, v8NEON); some
 * (vrintx, vrintz) share their id with an FP instruction that takes a
 * block's condition.
 */
static bool may_keep_it(unsigned int id)
{
	switch (id) {
	case ARM_INS_AESD: case ARM_INS_AESE: case ARM_INS_AESIMC:
	case ARM_INS_AESMC: case ARM_INS_SHA1C: case ARM_INS_SHA1H:
	case ARM_INS_SHA1M: case ARM_INS_SHA1P: case ARM_INS_SHA1SU0:
	case ARM_INS_SHA1SU1: case ARM_INS_SHA256H: case ARM_INS_SHA256H2:
	case ARM_INS_SHA256SU0: case ARM_INS_SHA256SU1:
	case ARM_INS_VCVTA: case ARM_INS_VCVTM: case ARM_INS_VCVTN:
	case ARM_INS_VCVTP: case ARM_INS_VMAXNM: case ARM_INS_VMINNM:
	case ARM_INS_VRINTA: case ARM_INS_VRINTM: case ARM_INS_VRINTN:
	case ARM_INS_VRINTP: case ARM_INS_VRINTX: case ARM_INS_VRINTZ:
	case ARM_INS_VSELEQ: case ARM_INS_VSELGE: case ARM_INS_VSELGT:
	case ARM_INS_VSELVS:
		return true;
	default:
		return false;
	}
}

/*
 * How capstone's Thumb IT state moved with the decode just done: at
 * least it_lo and at most it_hi instructions left in a block.
 */
static void follow_it(struct tb_dec *c, bool ok, const cs_insn *in)
{
	if (c->it_hi < 0 || !ok)
		return;
	if (in->id == ARM_INS_IT) {
		/* "itte": three more; an IT inside a block changes nothing */
		size_t k = strlen(in->mnemonic) - 1;

		if (!c->it_hi)
			c->it_lo = c->it_hi = k >= 1 && k <= 4 ? (int)k : -1;
		else if (!c->it_lo)
			c->it_hi = -1;	/* inside a block or not: lost */
		return;
	}
	if (c->it_lo)
		c->it_lo--;
	if (c->it_hi && !may_keep_it(in->id))
		c->it_hi--;
}

void tb_dec_reset_it(struct tb_dec *c)
{
	static const u8 none[4];
	cs_insn *in = NULL;

	/* cs_disasm() empties it, and decodes nothing from no bytes */
	if (cs_disasm(c->cs[1], none, 0, 0, 1, &in))
		cs_free(in, 1);
	c->it_lo = c->it_hi = 0;
	c->last = NULL;
}

bool tb_dec_insn(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
		 u32 addr, cs_insn *out)
{
	u32 h = (addr - c->lo) / 2, *slot = NULL;
	uint64_t at = addr;
	bool ok;

	/* a kept form is that of no IT block: ARM has none */
	if (!(addr & 1) && addr - c->lo < 2ull * c->n && (!thumb || !c->it_hi))
		slot = &c->at[thumb][h];
	if (slot && *slot == TB_DEC_BAD)
		return false;
	if (slot && *slot) {
		const struct tb_dec_rec *r = &c->rec[*slot - 1];

		if (size < r->size)
			return false;	/* as capstone: too few bytes */
		unpack(c, r, c->op + r->op, c->reg + r->reg, addr, b, out);
		return true;
	}
	/* outside an IT block our decoder gives what capstone would, and
	 * leaves capstone's block state as capstone would (empty): it
	 * decodes no IT */
	if ((!thumb || !c->it_hi) &&
	    tb_fast_decode(thumb, b, size, addr, &c->form)) {
		unpack(c, &c->form.rec, c->form.op, c->form.reg, addr, b, out);
		if (slot)
			*slot = keep(c, &c->form);
		return true;
	}
	ok = cs_disasm_iter(c->cs[thumb], &b, &size, &at, out);
	c->last = out->detail;
	c->dirty = MAX_OPS;
	/* with 4 bytes every table was tried: undecodable whatever follows */
	if (slot && !ok && size >= 4)
		*slot = TB_DEC_BAD;
	else if (slot && ok && out->id != ARM_INS_IT)
		*slot = tb_dec_pack(out, &c->form) ? keep(c, &c->form) : 0;
	if (thumb)
		follow_it(c, ok, out);
	return ok;
}
