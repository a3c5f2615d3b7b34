// SPDX-License-Identifier: GPL-2.0
/*
 * One function's walk for function discovery: recursive descent through
 * its branches from its start, never past the next known start.  What a
 * path reaches is code; what its pc-relative loads and jump tables read is
 * data.  Calls name new functions; branches out of the function name
 * tail-call targets; constants that point into the code (literals,
 * movw/movt pairs, "ldr rX, =off; add rX, pc") name address-taken code.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/discover.h"
#include "table/discover_sets.h"
#include "table/elf.h"

/* The longest linker fill between functions (64-byte alignment). */
#define DC_MAX_FILL	62

/* One walk: the function's bounds and what its current path knows. */
struct dc_walk {
	u32 start, end, maxend;
	bool thumb;
	u32 known;		/* registers holding a known constant */
	u32 addr;		/* ... that "add rX, pc" made an address */
	u32 val[16];
	int alt_reg;		/* an address register's other value, */
	u32 alt_val;		/* ... "adr r2, 1f; it cc; addcc r2, #8" */
	bool alt_new;		/* ... set by the instruction just stepped */
	u32 bounded;		/* registers with a known largest value */
	u32 bnd[16];
	struct dc_slot slot[DC_MAX_SLOTS];
	u32 nslot;		/* known constants stored at [sp or fp, #off] */
	int tbl_reg;		/* holds an entry of a table of addresses */
	bool tbl_thumb;		/* ... with the Thumb bit set since */
	bool tbl_rel;		/* ... added to the table's address since */
	bool tbl_proven;	/* tbl_max from a bound, not DC_MAX_TABLE */
	u32 tbl_base, tbl_max;	/* the table, its largest index */
	int cmp_reg;		/* the last "cmp rN, #imm" of the path */
	u32 cmp_imm;
	u32 it_left;		/* instructions left in an IT block */
#define DC_MAX_AFTER	4096
	u32 after[DC_MAX_AFTER];	/* code after calls, followed last */
	u32 nafter;
	bool replay;		/* the path goes over code reached before */
	struct dc_vs vs;	/* the sets the path proves (discover_sets.c) */
};

static int push(struct dc *d, u32 a)
{
	if (d->nstack == d->capstack) {
		u32 cap = d->capstack ? 2 * d->capstack : 256;
		u32 *v = realloc(d->stack, cap * sizeof(*v));

		if (!v)
			return -1;
		d->stack = v;
		d->capstack = cap;
	}
	d->stack[d->nstack++] = a;
	return 0;
}

/*
 * The bytes from @a to the end of its section, or NULL.  The section
 * found last is tried first: each decode asks (400,000 times for libc),
 * nearly always in the same one.
 */
static const u8 *bytes_at(struct dc *d, u32 a, u32 *avail)
{
	u32 n = d->e->nsecs < 32 ? d->e->nsecs : 32;	/* secb's */

	if (d->hint_b && a - d->hint_addr < d->hint_size) {
		*avail = d->hint_size - (a - d->hint_addr);
		return d->hint_b + (a - d->hint_addr);
	}
	for (u32 i = 0; i < n; i++) {
		const struct tb_sec *s = &d->e->secs[i];

		if (d->secb[i] && a - s->addr < s->size) {
			d->hint_b = d->secb[i];
			d->hint_addr = s->addr;
			d->hint_size = s->size;
			*avail = s->size - (a - s->addr);
			return d->secb[i] + (a - s->addr);
		}
	}
	return NULL;
}

static bool decode(struct dc *d, bool thumb, u32 a, u32 limit)
{
	u32 avail = 0;
	const u8 *b = bytes_at(d, a, &avail);
	size_t size;

	if (!b || a >= limit)
		return false;
	size = avail < limit - a ? avail : limit - a;
	return tb_dec_insn(d->dec, thumb, b, size, a, d->insn);
}

/* The walk reached [@a, @a + @size): inside its bounds, its reach grows. */
static void reach(struct dc_walk *w, u32 a, u32 size)
{
	if (a >= w->start && a + size <= w->end && a + size > w->maxend)
		w->maxend = a + size;
}

static void mark(struct dc *d, struct dc_walk *w, u32 a, u32 size, u8 kind)
{
	for (u32 k = 0; k < size; k += 2)
		if (dc_inside(d, a + k))
			dc_set(d, a + k, k ? (kind == DC_CODE ? DC_IN : kind) :
				      kind);
	reach(w, a, size);
}

/* mark() of the instruction decoded at @a (inside the flags): its code. */
static void mark_insn(struct dc *d, struct dc_walk *w, u32 a, u32 size)
{
	dc_set(d, a, DC_CODE);
	if (size == 4 && dc_inside(d, a + 2))
		dc_set(d, a + 2, DC_IN);
	reach(w, a, size);
}

static u32 read32(struct dc *d, u32 a, bool *ok)
{
	u32 avail = 0, v = 0;
	const u8 *b = bytes_at(d, a, &avail);

	*ok = b && avail >= 4;
	if (*ok)
		memcpy(&v, b, 4);
	return v;
}

static int cand(struct dc *d, u32 t, bool thumb, enum dc_kind k, u32 site)
{
	return dc_cands_add(&d->found, t & ~1u, thumb, k, site);
}

/* nop, mov r8, r8 or zero fill */
static bool padding_here(struct dc *d, u32 a)
{
	u32 avail = 0;
	const u8 *b = bytes_at(d, a, &avail);
	u32 h = b && avail >= 2 ? (u32)(b[0] | b[1] << 8) : 1;

	return h == 0 || h == 0xbf00 || h == 0x46c0;
}

/*
 * The length of the linker's fill at @a right after a call, or 0: lld
 * fills the gap before an aligned function with 0xd4 bytes, which read
 * as a conditional instruction ("bmi" in Thumb code, "ldrble" in ARM
 * code).  Compiled code never tests the flags right after a call (the
 * callee leaves them undefined), so after a call such bytes are not the
 * caller's code: the call never returns.  The fill must end where a
 * function may start (word aligned), at @end at the latest.
 */
static u32 fill_after_call(struct dc *d, u32 a, u32 end)
{
	u32 n = 0, avail = 0;
	const u8 *b = bytes_at(d, a, &avail);

	if (!b || (dc_inside(d, a) && (dc_get(d, a) & DC_DATA)))
		return 0;
	while (n + 2 <= avail && a + n < end &&
	       b[n] == 0xd4 && b[n + 1] == 0xd4)
		if ((n += 2) > DC_MAX_FILL)
			return 0;
	return n && !((a + n) & 3) ? n : 0;
}

/* The bytes at @a (at least 4), or NULL. */
static const u8 *code_at(struct dc *d, u32 a)
{
	u32 avail = 0;
	const u8 *b = bytes_at(d, a, &avail);

	return b && avail >= 4 ? b : NULL;
}

/*
 * The size of the instruction at @b if it only makes a constant in a
 * register from r0 to r12 (a literal load, "add rN, pc", mov/movw/movt
 * of an immediate, "mov rN, rM" between such registers), else 0:
 * compilers schedule these above the push that saves lr (the GOT base
 * and the stack guard's address), and they neither branch nor touch sp
 * or lr.
 */
static u32 makes_constant(const u8 *b, bool thumb)
{
	u32 h0 = b[0] | b[1] << 8, h1 = b[2] | b[3] << 8, w = h1 << 16 | h0;

	if (!thumb)
		return ((w & 0xff7f0000) == 0xe51f0000 ||	/* ldr rT, [pc, #] */
			(w & 0xfff00000) == 0xe3000000 ||	/* movw */
			(w & 0xfff00000) == 0xe3400000 ||	/* movt */
			(w & 0xffef0000) == 0xe3a00000 ||	/* mov rD, # */
			((w & 0xffff0ff0) == 0xe08f0000 &&	/* add rD, pc, rM */
			 (w & 0xf) <= 12)) &&
		       (w >> 12 & 0xf) <= 12 ? 4 : 0;
	if ((h0 & 0xf800) == 0x4800 || (h0 & 0xf800) == 0x2000)
		return 2;		/* ldr rT, [pc, #]; movs rD, # */
	if ((h0 & 0xff78) == 0x4478 && ((h0 >> 4 & 8) | (h0 & 7)) <= 12)
		return 2;		/* add rDN, pc */
	if ((h0 & 0xff00) == 0x4600 && ((h0 >> 4 & 8) | (h0 & 7)) <= 12 &&
	    (h0 >> 3 & 0xf) <= 12)
		return 2;		/* mov rD, rM */
	if (((h0 & 0xff7f) == 0xf85f ||			/* ldr.w rT, [pc, #] */
	     (h0 & 0xfbf0) == 0xf240 || (h0 & 0xfbf0) == 0xf2c0 ||
	     (h0 & 0xfbef) == 0xf04f) &&			/* movw, movt, mov.w */
	    ((h0 & 0xff7f) == 0xf85f ? h1 >> 12 : h1 >> 8 & 0xf) <= 12 &&
	    ((h0 & 0xff7f) == 0xf85f || !(h1 & 0x8000)))
		return 4;
	return 0;
}

/* Does the instruction at @b save lr as a prologue's push does? */
static bool push_lr(const u8 *b, bool thumb)
{
	u32 h0 = b[0] | b[1] << 8, h1 = b[2] | b[3] << 8;

	if (thumb)
		return (h0 & 0xff00) == 0xb500 ||
		       (h0 == 0xe92d && (h1 & 0x4000) && !(h1 & 0xa000));
	return ((h1 << 16 | h0) & 0xffff4000) == 0xe92d4000 ||
	       (h1 << 16 | h0) == 0xe52de004;
}

/*
 * Does the code at @a save lr first, as a function's prologue does:
 * Thumb "push {..., lr}" or "push.w {..., lr}", ARM "push {..., lr}"
 * or "str lr, [sp, #-4]!", after at most @lead instructions that only
 * make constants (makes_constant)?  A label inside a function does not.
 */
bool dc_saves_lr(struct dc *d, u32 a, bool thumb, u32 lead)
{
	for (u32 k = 0; k <= lead; k++) {
		const u8 *b = code_at(d, a);
		u32 n;

		if (!b)
			return false;
		if (push_lr(b, thumb))
			return true;
		n = makes_constant(b, thumb);
		if (!n)
			return false;
		a += n;
	}
	return false;
}

/*
 * The number of r0-r12 or lr (14, which gcc takes as a scratch register
 * once it is saved: tar's -fPIC switches index their table with it), or
 * -1.
 */
static int gpr(unsigned int r)
{
	return r >= ARM_REG_R0 && r <= ARM_REG_R12 ? (int)(r - ARM_REG_R0) :
	       r == ARM_REG_LR ? 14 : -1;
}

static bool conditional(const struct tb_insn *in)
{
	arm_cc cc = in->detail->arm.cc;

	return cc != ARM_CC_AL && cc != ARM_CC_INVALID;
}

/* Follow @t inside the function, or name it a tail-call target. */
static int branch(struct dc *d, struct dc_walk *w, u32 t, u32 site)
{
	if (t >= w->start && t < w->end)
		return push(d, t);
	d->walk_returns++;	/* a tail call returns for the function */
	return cand(d, t, w->thumb, DC_K_TAIL, site);
}

/*
 * tbb/tbh [pc, rN]: a table of forward halfword offsets right after the
 * instruction; tbb/tbh [rB, rN] with rB an address made from pc ("adr
 * r0, 1f; tbh [r0, rN, lsl #1]", clang's Thumb switches when the table
 * cannot follow the instruction), the table at rB, its offsets still
 * from the instruction's pc.  Its length is the bound a "cmp rN, #imm"
 * before it checked, or else it ends where the first target starts.
 */
static int table_tb(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m = a->operands;
	u32 pc = (u32)in->address + 4, sz = in->id == ARM_INS_TBH ? 2 : 1;
	u32 count = 65536, first = w->end, avail = 0, base = pc;
	int r = m->type == ARM_OP_MEM ? gpr(m->mem.base) : -1;
	const u8 *b;

	if (a->op_count != 1 || m->type != ARM_OP_MEM)
		return 0;
	if (r >= 0 && (w->known & w->addr & (1u << r)))
		base = w->val[r];
	else if (m->mem.base != ARM_REG_PC)
		return 0;
	b = bytes_at(d, base, &avail);
	if (!b || base < pc)
		return 0;
	if (w->cmp_reg == (int)a->operands[0].mem.index)
		count = w->cmp_imm + 1;
	for (u32 i = 0; i < count && base + (i + 1) * sz <= first &&
	     (i + 1) * sz <= avail; i++) {
		u32 off = sz == 1 ? b[i] : (u32)(b[2 * i] | b[2 * i + 1] << 8);
		u32 t = pc + 2 * off;

		mark(d, w, base + i * sz - ((base + i * sz) & 1), 2, DC_DATA);
		if (t < first)
			first = t;
		if (branch(d, w, t, (u32)in->address))
			return -1;
	}
	return 0;
}

/*
 * ARM "add pc, pc, rN, lsl #2" (a table of branches after it) and
 * "ldr pc, [pc, rN, lsl #2]" (a table of addresses): only with the bound
 * a "cmp rN, #imm" checked; the instruction after the add is the
 * default branch, which the condition falls through to.
 */
static int table_arm(struct dc *d, struct dc_walk *w, const struct tb_insn *in,
		     bool load)
{
	const struct tb_arm *a = &in->detail->arm;
	int idx = load ? (int)a->operands[1].mem.index : (int)a->operands[2].reg;
	u32 base = load && w->thumb ? ((u32)in->address + 4) & ~3u :
		   (u32)in->address + 8;

	if (w->cmp_reg != idx || w->cmp_imm > 4096)
		return 0;
	for (u32 i = 0; i <= w->cmp_imm; i++) {
		bool ok;
		u32 t = base + 4 * i, v = load ? read32(d, t, &ok) : 0;

		if (load) {
			if (!ok)
				return 0;
			mark(d, w, t, 4, DC_DATA);
			if (((v & 1) != 0) != w->thumb)
				continue;
			t = v & ~1u;
		}
		if (branch(d, w, t, (u32)in->address))
			return -1;
	}
	return 0;
}

static int reg_no(const struct tb_dec_op *op)
{
	return op->type == ARM_OP_REG ? gpr(op->reg) : -1;
}

/*
 * What a step reads of an instruction's operands, found in one pass over
 * them: the predicates that found them, each a loop of its own, were
 * among the walk's costliest lines on the device.
 */
struct dc_ops {
	u32 imm;	/* the last immediate: a direct branch's target */
	u32 wr;		/* r0-r12 and lr written explicitly */
	u32 wb;		/* ... and as a base written back */
	bool sp;	/* sp written (push, pop, sub sp, writeback through sp) */
	bool cond;	/* conditional() */
	int r0;		/* the first operand's register number (gpr()), or -1 */
};

static void ops_of(const struct tb_insn *in, struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;

	o->imm = 0;
	o->wr = 0;
	o->wb = 0;
	o->sp = false;
	o->cond = conditional(in);
	o->r0 = a->op_count ? reg_no(&a->operands[0]) : -1;
	for (int i = 0; i < in->detail->regs_write_count; i++)
		o->sp |= in->detail->regs_write[i] == ARM_REG_SP;
	for (int i = 0; i < a->op_count; i++) {
		const struct tb_dec_op *op = &a->operands[i];

		if (op->type == ARM_OP_IMM) {
			o->imm = (u32)op->imm;
		} else if (op->type == ARM_OP_REG &&
			   (op->access & CS_AC_WRITE)) {
			o->sp |= op->reg == ARM_REG_SP;
			if (gpr(op->reg) >= 0)
				o->wr |= 1u << gpr(op->reg);
		} else if (op->type == ARM_OP_MEM && a->writeback) {
			o->sp |= op->mem.base == ARM_REG_SP;
			if (gpr(op->mem.base) >= 0)
				o->wb |= 1u << gpr(op->mem.base);
		}
	}
}

static u32 literal_size(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;

	switch (in->id) {
	case ARM_INS_LDR: return 4;
	case ARM_INS_VLDR:
		return a->operands[0].reg >= ARM_REG_D0 &&
		       a->operands[0].reg <= ARM_REG_D31 ? 8 : 4;
	case ARM_INS_LDRD: return 8;
	case ARM_INS_LDRH: case ARM_INS_LDRSH: return 2;
	case ARM_INS_LDRB: case ARM_INS_LDRSB: return 1;
	default: return 0;
	}
}

/*
 * A pc-relative load: the words it reads are data, and a word it loads
 * into a register is a constant (a code address, or an offset that
 * "add rX, pc" makes one).  1 when it set a register's constant.
 */
static int literal(struct dc *d, struct dc_walk *w, const struct tb_insn *in,
		   const struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m;
	u32 size = literal_size(in), pc, at, v;
	bool ok;
	int r;

	/* no memory operand without two operands (fuzz_table: none at all) */
	if (a->op_count < 2)
		return 0;
	r = o->r0;
	m = &a->operands[a->op_count - 1];
	if (!size || m->type != ARM_OP_MEM ||
	    m->mem.base != ARM_REG_PC || m->mem.index != ARM_REG_INVALID)
		return 0;
	pc = (u32)in->address + (w->thumb ? 4 : 8);
	at = (pc & ~3u) + (u32)m->mem.disp;
	if (!dc_inside(d, at))
		return 0;
	mark(d, w, at & ~1u, size < 2 ? 2 : size, DC_DATA);
	if (in->id != ARM_INS_LDR || r < 0)
		return 0;
	v = read32(d, at, &ok);
	if (!ok)
		return 0;
	w->known |= 1u << r;
	w->addr &= ~(1u << r);
	w->val[r] = v;
	return cand(d, v, v & 1, DC_K_PTR, (u32)in->address) ? -1 : 1;
}

/*
 * A load through a register that holds an address made from pc ("adr
 * r2, 1f; ...; vld1.64 {d16-d17}, [r2 :128]": a 16-byte NEON constant in
 * clang's Thumb code): the bytes it reads, after it and inside the
 * function's bounds, are data.
 */
static void adr_data(struct dc *d, struct dc_walk *w, const struct tb_insn *in,
		     u32 at, u32 size)
{
	if (at > in->address && at >= w->start && at + size <= w->end)
		mark(d, w, at & ~1u, size < 2 ? 2 : size, DC_DATA);
}

static void adr_load(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m;
	u32 size = literal_size(in), off;
	int b;

	if (a->op_count < 2)
		return;
	m = &a->operands[a->op_count - 1];
	if (in->id == ARM_INS_VLD1) {
		size = 0;
		for (int i = 0; i < a->op_count - 1; i++) {
			unsigned int r = a->operands[i].reg;

			if (a->operands[i].type != ARM_OP_REG)
				return;
			size += r >= ARM_REG_Q0 && r <= ARM_REG_Q15 ? 16 :
				r >= ARM_REG_D0 && r <= ARM_REG_D31 ? 8 : 0;
		}
	}
	b = m->type == ARM_OP_MEM ? gpr(m->mem.base) : -1;
	if (!size || b < 0 || m->mem.index != ARM_REG_INVALID ||
	    !(w->known & w->addr & (1u << b)))
		return;
	/* vld1 has no offset: capstone gives its alignment there */
	off = in->id == ARM_INS_VLD1 ? 0 : (u32)m->mem.disp;
	adr_data(d, w, in, w->val[b] + off, size);
	if (b == w->alt_reg)
		adr_data(d, w, in, w->alt_val + off, size);
}

/*
 * "add rD, pc" (Thumb), "add rD, pc, rK" or "add rD, rK, pc" (ARM): the
 * register rK whose offset the instruction makes an address, or -1.
 */
static int plus_pc(const struct tb_insn *in, int r)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *x = &a->operands[1], *y = &a->operands[2];

	if (a->op_count == 2)
		return x->type == ARM_OP_REG && x->reg == ARM_REG_PC ? r : -1;
	if (a->op_count != 3 || x->type != ARM_OP_REG ||
	    y->type != ARM_OP_REG || x->shift.type || y->shift.type)
		return -1;
	return x->reg == ARM_REG_PC ? reg_no(y) :
	       y->reg == ARM_REG_PC ? reg_no(x) : -1;
}

/*
 * "add rA, #k" (or "add rA, rA, #k") of an address made from pc: an
 * address still, and under a condition ("it cc; addcc r2, #8": clang
 * picks one of two constants in its pool so) either one.  1 when the
 * register is an address after it, else 0.
 */
static int adr_add(struct dc_walk *w, const struct tb_insn *in, int r,
		   bool cond)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *k = &a->operands[a->op_count - 1];
	u32 v;

	if (k->type != ARM_OP_IMM || k->shift.type ||
	    (a->op_count == 3 && reg_no(&a->operands[1]) != r) ||
	    a->op_count < 2 || a->op_count > 3)
		return 0;
	v = w->val[r] + (u32)k->imm;
	if (!cond) {
		w->val[r] = v;
		return 1;
	}
	w->alt_reg = r;
	w->alt_val = v;
	w->alt_new = true;
	return 1;
}

/*
 * movw/movt build a constant; an add of pc (plus_pc) makes an offset an
 * address.
 * 1 when a register's constant was set.
 */
static int constants(struct dc *d, struct dc_walk *w, const struct tb_insn *in,
		     const struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;
	int r = o->r0, k;
	u32 pc = (u32)in->address + (w->thumb ? 4 : 8);

	if (r < 0)
		return 0;
	if (in->id == ARM_INS_MOVW && a->operands[1].type == ARM_OP_IMM) {
		w->known |= 1u << r;
		w->addr &= ~(1u << r);
		w->val[r] = (u32)a->operands[1].imm & 0xffff;
		return 1;
	}
	if (in->id == ARM_INS_MOVT && (w->known & ~w->addr & (1u << r)) &&
	    a->operands[1].type == ARM_OP_IMM) {
		w->val[r] = (w->val[r] & 0xffff) | (u32)a->operands[1].imm << 16;
		return cand(d, w->val[r], w->val[r] & 1, DC_K_PTR,
			    (u32)in->address) ? -1 : 1;
	}
	if ((in->id == ARM_INS_ADR ||
	     ((in->id == ARM_INS_ADD || in->id == ARM_INS_ADDW) &&
	      a->op_count == 3 && a->operands[1].type == ARM_OP_REG &&
	      a->operands[1].reg == ARM_REG_PC)) &&
	    a->operands[a->op_count - 1].type == ARM_OP_IMM) {
		/* adr: an address from the word-aligned pc */
		w->known |= 1u << r;
		w->addr |= 1u << r;
		w->val[r] = (pc & ~3u) + (u32)a->operands[a->op_count - 1].imm;
		return 1;
	}
	if (in->id == ARM_INS_ADD && (w->known & w->addr & (1u << r)))
		return adr_add(w, in, r, o->cond);
	k = in->id == ARM_INS_ADD ? plus_pc(in, r) : -1;
	if (k >= 0 && (w->known & ~w->addr & (1u << k))) {
		u32 t = w->val[k] + pc;

		/* an address now: a table's base (table_load) */
		w->known |= 1u << r;
		w->addr |= 1u << r;
		w->val[r] = t;
		return cand(d, t, t & 1, DC_K_PTR, (u32)in->address) ? -1 : 1;
	}
	return 0;
}

/* Does @in load pc (a return, or a jump through memory or a register)? */
static bool sets_pc(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;

	switch (in->id) {
	case ARM_INS_BX: case ARM_INS_BXJ:
		return true;
	case ARM_INS_PUSH: case ARM_INS_STR: case ARM_INS_STM:
	case ARM_INS_STMDB: case ARM_INS_STMDA: case ARM_INS_STMIB:
	case ARM_INS_CMP: case ARM_INS_CMN: case ARM_INS_TST: case ARM_INS_TEQ:
	case ARM_INS_BLX:
		return false;
	case ARM_INS_POP: case ARM_INS_LDM: case ARM_INS_LDMDA:
	case ARM_INS_LDMDB: case ARM_INS_LDMIB:
		for (int i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM_OP_REG &&
			    a->operands[i].reg == ARM_REG_PC)
				return true;
		return false;
	default:
		return a->op_count && a->operands[0].type == ARM_OP_REG &&
		       a->operands[0].reg == ARM_REG_PC;
	}
}

/*
 * Beyond constants a path knows a register's largest value, constants
 * the function keeps in its frame, and which register holds an entry of
 * a table of addresses: what a computed goto's dispatch needs
 * (table_goto).  Only unconditional instructions teach; any write
 * forgets.
 */
#define DC_MAX_TABLE	1024	/* entries of a table with no proven bound */

/* "[rB, #k]" with no index or writeback: rB's number and k, or -1. */
static int mem_imm(const struct tb_insn *in, s32 *k)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m = &a->operands[1];

	if (a->op_count != 2 || m->type != ARM_OP_MEM || a->writeback ||
	    m->mem.index != ARM_REG_INVALID)
		return -1;
	*k = m->mem.disp;
	return m->mem.base == ARM_REG_SP ? 13 :
	       m->mem.base >= ARM_REG_R0 && m->mem.base <= ARM_REG_R12 ?
	       (int)(m->mem.base - ARM_REG_R0) : -1;
}

/* Forget the frame's constants at [@base, #k] (all bases: -1). */
static void drop_slots(struct dc_walk *w, int base)
{
	for (u32 i = 0; i < w->nslot;)
		if (base < 0 || w->slot[i].base == base)
			w->slot[i] = w->slot[--w->nslot];
		else
			i++;
}

/* The frame pointer's number: r7 in Thumb code, r11 in ARM code. */
static int fp_of(const struct dc_walk *w)
{
	return w->thumb ? 7 : 11;
}

/* Forget the constants at [@base, #k] that [@lo, @hi) overlaps. */
static void drop_range(struct dc_walk *w, int base, s32 lo, s32 hi)
{
	for (u32 i = 0; i < w->nslot;)
		if (w->slot[i].base == base && w->slot[i].off + 4 > lo &&
		    w->slot[i].off < hi)
			w->slot[i] = w->slot[--w->nslot];
		else
			i++;
}

/*
 * A store into the frame through sp or fp other than an unconditional
 * "str rX, [base, #k]" (strd, byte and halfword stores, stm, VFP stores,
 * a conditional str): the words it
 * writes lose their constants, and every word of the other base's (the
 * same word may be named from both).  Stores through other registers
 * are taken not to write the frame's constants, as in the rest of the
 * walk.
 */
static void frame_store(struct dc_walk *w, const struct tb_insn *in, bool cond)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m = NULL;
	s32 size = 0;
	int b;

	switch (in->id) {
	case ARM_INS_STR:	/* conditional: frame_slot keeps no constant */
		if (!cond)
			return;
		size = 4;
		break;
	case ARM_INS_STRB: size = 1; break;
	case ARM_INS_STRH: size = 2; break;
	case ARM_INS_STRD: size = 8; break;
	case ARM_INS_STM: case ARM_INS_STMDA: case ARM_INS_STMDB:
	case ARM_INS_STMIB: case ARM_INS_VSTR: case ARM_INS_VSTMIA:
	case ARM_INS_VSTMDB: case ARM_INS_STREX: case ARM_INS_STRT:
	case ARM_INS_STRBT: case ARM_INS_STRHT:
		break;
	default:
		return;
	}
	for (int i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_MEM)
			m = &a->operands[i];
	b = m ? (m->mem.base == ARM_REG_SP ? 13 : gpr(m->mem.base)) :
	    a->op_count && a->operands[0].type == ARM_OP_REG ?
	    (a->operands[0].reg == ARM_REG_SP ? 13 :
	     gpr(a->operands[0].reg)) : -1;	/* stm's base */
	if (b != 13 && b != fp_of(w))
		return;
	drop_slots(w, b == 13 ? fp_of(w) : 13);
	if (!size || !m || a->writeback || m->mem.index != ARM_REG_INVALID)
		drop_slots(w, b);
	else
		drop_range(w, b, m->mem.disp, m->mem.disp + size);
}

/*
 * "str rX, [sp, #k]" or "str rX, [fp, #k]" keeps rX's constant there;
 * "ldr rY, [sp, #k]" or "ldr rY, [fp, #k]" reads it.  A store through
 * the other base may be the same word: it forgets that base's constants.
 */
static void frame_slot(struct dc_walk *w, const struct tb_insn *in, int r,
		       bool cond)
{
	s32 k = 0;
	u32 i;
	int b = mem_imm(in, &k);

	frame_store(w, in, cond);
	if (r < 0 || (b != 13 && b != fp_of(w)))
		return;
	for (i = 0; i < w->nslot && (w->slot[i].off != k ||
				     w->slot[i].base != b); i++)
		;
	if (in->id == ARM_INS_LDR && i < w->nslot) {
		w->known |= 1u << r;
		w->addr = (w->addr & ~(1u << r)) | (w->slot[i].addr << r);
		w->val[r] = w->slot[i].val;
	}
	if (in->id != ARM_INS_STR)
		return;
	drop_slots(w, b == 13 ? fp_of(w) : 13);
	for (i = 0; i < w->nslot && (w->slot[i].off != k ||
				     w->slot[i].base != b); i++)
		;
	if (!(w->known & (1u << r))) {
		if (i < w->nslot)
			w->slot[i] = w->slot[--w->nslot];
		return;
	}
	if (i == w->nslot && w->nslot == DC_MAX_SLOTS)
		return;
	w->nslot += i == w->nslot;
	w->slot[i].off = k;
	w->slot[i].base = b;
	w->slot[i].val = w->val[r];
	w->slot[i].addr = (w->addr >> r) & 1;
}

/*
 * The largest value "and rD, rS, #2^n - 1", ubfx, uxtb, uxth, ldrb or
 * ldrh leave in rD: the bound of a table index.
 */
static void value_bound(struct dc_walk *w, const struct tb_insn *in, int r)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *last;
	u32 m = 0;

	if (r < 0)
		return;
	last = &a->operands[a->op_count - 1];
	if (in->id == ARM_INS_AND && a->op_count == 3 &&
	    last->type == ARM_OP_IMM && !((u32)last->imm & ((u32)last->imm + 1)))
		m = (u32)last->imm;
	else if (in->id == ARM_INS_UBFX && a->op_count == 4 &&
		 last->type == ARM_OP_IMM && last->imm > 0 && last->imm < 32)
		m = (1u << last->imm) - 1;
	else if ((in->id == ARM_INS_UXTB && a->op_count == 2) ||
		 in->id == ARM_INS_LDRB)
		m = 0xff;
	else if ((in->id == ARM_INS_UXTH && a->op_count == 2) ||
		 in->id == ARM_INS_LDRH)
		m = 0xffff;
	else
		return;
	w->bounded |= 1u << r;
	w->bnd[r] = m;
}

/*
 * "add rX, rT, rB", "add rX, rB, rT" or Thumb's "add rB, rT" with rT a
 * table entry and rB still the table's address: rX holds a target of a
 * table of offsets from its own start (-fPIC switches).  In the state
 * before @in.
 */
static bool table_add(struct dc_walk *w, const struct tb_insn *in,
		      const struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;
	int x = o->r0, p, q;

	if (in->id != ARM_INS_ADD || o->cond || x < 0 ||
	    w->tbl_reg < 0 || w->tbl_rel || w->tbl_thumb ||
	    (a->op_count != 2 && a->op_count != 3))
		return false;
	p = a->op_count == 2 ? x : reg_no(&a->operands[1]);
	q = reg_no(&a->operands[a->op_count - 1]);
	if (a->operands[a->op_count - 1].shift.type || p < 0 || q < 0)
		return false;
	if (q != w->tbl_reg) {
		int t = p;

		p = q;
		q = t;
	}
	if (q != w->tbl_reg || p == q || !(w->known & w->addr & (1u << p)) ||
	    w->val[p] != w->tbl_base)
		return false;
	w->tbl_reg = x;
	w->tbl_rel = true;
	return true;
}

/*
 * "ldr rT, [rB, rI, lsl #2]" with rB a known address: rT holds an entry
 * of the table at rB, at most the index rI's bound or the last "cmp rI,
 * #imm" proved.  Read in the state before @in (rT may be rB or rI).
 */
static bool table_load(struct dc_walk *w, const struct tb_insn *in,
		       const struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *m = &a->operands[1];
	int t, b, i;

	if (table_add(w, in, o))
		return true;
	if (in->id != ARM_INS_LDR || a->op_count != 2 || o->cond ||
	    m->type != ARM_OP_MEM || a->writeback || m->mem.disp ||
	    m->mem.scale != 1 || m->shift.type != ARM_SFT_LSL ||
	    m->shift.value != 2)
		return false;
	t = o->r0;
	b = gpr(m->mem.base);
	i = gpr(m->mem.index);
	if (t < 0 || b < 0 || i < 0 || !(w->known & (1u << b)))
		return false;
	w->tbl_base = w->val[b];
	w->tbl_proven = (w->bounded & (1u << i)) ||
			w->cmp_reg == (int)m->mem.index;
	w->tbl_max = (w->bounded & (1u << i)) ? w->bnd[i] :
		     w->cmp_reg == (int)m->mem.index ? w->cmp_imm :
		     DC_MAX_TABLE - 1;
	if (w->tbl_max >= DC_MAX_TABLE)
		w->tbl_max = DC_MAX_TABLE - 1;
	w->tbl_reg = t;
	w->tbl_thumb = false;
	w->tbl_rel = false;
	return true;
}

/*
 * What @in (not a pc-relative constant) teaches or makes forgotten; @o
 * what its operands write (ops_of()).
 */
static void remember(struct dc_walk *w, const struct tb_insn *in, bool load,
		     const struct dc_ops *o)
{
	const struct tb_arm *a = &in->detail->arm;
	int r = o->r0;
	u32 wr = o->wr;

	w->bounded &= ~wr;
	if (o->sp)
		drop_slots(w, 13);
	if (wr & (1u << fp_of(w)))
		drop_slots(w, fp_of(w));
	if (!load && w->tbl_reg >= 0 && (wr & (1u << w->tbl_reg))) {
		/* "orr rT, rT, #1" sets the Thumb bit the entries lack */
		bool thumb = in->id == ARM_INS_ORR && a->op_count == 3 &&
			     !o->cond && r == w->tbl_reg &&
			     a->operands[1].reg == a->operands[0].reg &&
			     a->operands[2].type == ARM_OP_IMM &&
			     a->operands[2].imm == 1;

		w->tbl_reg = thumb ? w->tbl_reg : -1;
		w->tbl_thumb |= thumb;
	}
	if (o->cond) {
		frame_store(w, in, true);
		return;
	}
	frame_slot(w, in, r, false);
	value_bound(w, in, r);
}

/* Target @t of the computed jump at @site, for prologue analysis. */
int dc_jump_add(struct dc *d, u32 site, u32 t)
{
	if (d->njumps == d->capjumps) {
		u32 cap = d->capjumps ? 2 * d->capjumps : 256;
		struct tb_jump *v = realloc(d->jumps, cap * sizeof(*v));

		if (!v)
			return -1;
		d->jumps = v;
		d->capjumps = cap;
	}
	d->jumps[d->njumps++] = (struct tb_jump){ site, t };
	return 0;
}

/*
 * "bx rT" (gcc) or "mov pc, rT" (clang: no change of instruction set)
 * with rT a table entry (table_load): a computed goto, as compilers make
 * of labels as values (Lua's interpreter dispatches so), or with rT the
 * table's address plus an entry (table_add: a -fPIC switch).  Each entry
 * up to the bound is a target while it is a plausible one: an address in
 * this function, in its instruction set (for bx the entry's Thumb bit,
 * or "orr rT, rT, #1"), not data or the middle of an instruction
 * reached; the first that is not ends the table.  A table of offsets
 * needs a proven bound.  The entries are data where they lie in code.
 */
static int table_goto(struct dc *d, struct dc_walk *w, u32 site,
		      bool same_set)
{
	/* offsets read past their table (code follows a switch's) land
	 * in the function as readily as its targets: a bound first */
	if (w->tbl_rel && !w->tbl_proven)
		return 0;
	for (u32 i = 0; i <= w->tbl_max; i++) {
		u32 at = w->tbl_base + 4 * i, v;

		if (!dc_read_word(d->e, at, &v))
			break;
		if (w->tbl_rel)
			v += w->tbl_base;
		v |= (u32)(w->tbl_thumb || (same_set && w->thumb));
		if ((v & 1) != w->thumb)
			break;
		v &= ~1u;
		if (v < w->start || v >= w->end || (!w->thumb && (v & 3)) ||
		    (dc_get(d, v) & (DC_IN | DC_DATA)))
			break;
		if (dc_inside(d, at))
			mark(d, w, at, 4, DC_DATA);
		if (push(d, v) || dc_jump_add(d, site, v))
			return -1;
	}
	return 0;
}

/*
 * "bx rX" (or Thumb's "mov pc, rX") with rX a set the path proves
 * (discover_sets.c) or a constant: every value a target, if every one is
 * a plausible one (in this function, in its instruction set, not data
 * or inside an instruction reached); otherwise none.
 */
static int set_goto(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	static u32 t[DC_SET_MAX];
	struct dc_consts k = { w->known, w->val };
	u32 n = 0;

	if (in->id == ARM_INS_BX || (in->id == ARM_INS_MOV && w->thumb))
		n = dc_vs_targets(&w->vs, in, &k, t);
	for (u32 i = 0; i < n; i++) {
		u32 v = t[i] | (in->id == ARM_INS_MOV);

		if ((v & 1) != w->thumb || (v & ~1u) < w->start ||
		    (v & ~1u) >= w->end || (!w->thumb && (v & 3)) ||
		    (dc_get(d, v & ~1u) & (DC_IN | DC_DATA)))
			return 0;
	}
	for (u32 i = 0; i < n; i++)
		if (push(d, t[i] & ~1u) ||
		    dc_jump_add(d, (u32)in->address, t[i] & ~1u))
			return -1;
	return 0;
}

/* A jump through a table indexed by a register: its targets followed. */
static int computed(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	const struct tb_dec_op *last = &a->operands[a->op_count ? a->op_count - 1 : 0];

	if (set_goto(d, w, in))
		return -1;

	if ((in->id == ARM_INS_BX || in->id == ARM_INS_MOV) && w->tbl_reg >= 0 &&
	    a->op_count && reg_no(last) == w->tbl_reg)
		return table_goto(d, w, (u32)in->address,
				  in->id == ARM_INS_MOV);
	if (in->id == ARM_INS_ADD && a->op_count == 3 && !w->thumb &&
	    a->operands[1].type == ARM_OP_REG &&
	    a->operands[1].reg == ARM_REG_PC &&
	    a->operands[2].type == ARM_OP_REG)
		return table_arm(d, w, in, false);
	if (in->id == ARM_INS_LDR && a->op_count == 2 &&
	    a->operands[1].type == ARM_OP_MEM &&
	    a->operands[1].mem.base == ARM_REG_PC &&
	    a->operands[1].mem.index != ARM_REG_INVALID)
		return table_arm(d, w, in, true);
	return 0;
}

/*
 * The code after a call, followed once every other path is (a literal
 * pool after a call that never returns is then known to be data).  A
 * call needs lr saved first, so code after it that saves lr again
 * ("bl abort; push {r4, lr}") is the next function: the call never
 * returns.  So is word-aligned code after a call and one nop.
 */
static int after_call(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	u32 next = (u32)in->address + in->size, k;

	/* the callee may change what the frame and registers held */
	w->known = 0;
	w->alt_reg = -1;
	w->bounded = 0;
	w->nslot = 0;
	w->tbl_reg = -1;
	if (conditional(in))
		return 1;
	/* the candidate is named by the fill: if a load later reads it as
	 * a literal, the candidate goes (after_walk()) */
	k = fill_after_call(d, next, w->end);
	if (k)
		return next + k < w->end &&
		       cand(d, next + k, w->thumb, DC_K_CALL, next) ? -1 : 0;
	for (k = 0; k < 4 && next < w->end && padding_here(d, next); k++)
		next += 2;
	/* literals the path read already: the call never returns, and
	 * ends the function as a return does (busybox's "die" helpers) */
	if (next < w->end && dc_inside(d, next) &&
	    (dc_get(d, next) & DC_DATA)) {
		d->walk_returns++;
		return 0;
	}
	/* gcc aligns the next function with one nop after a call that
	 * never returns; inside a function nothing follows a call so */
	if (next < w->end && (dc_saves_lr(d, next, w->thumb, DC_MAX_LEAD) ||
			      (w->thumb && k == 1 && !(next & 3))))
		return cand(d, next, w->thumb, DC_K_CALL, (u32)in->address) ?
		       -1 : 0;
	if (w->nafter == DC_MAX_AFTER)
		return 1;
	w->after[w->nafter++] = (u32)in->address + in->size;
	return 0;
}

/*
 * "cmp rN, #imm", or "cmp rN, rK" with rK a known constant (a bound over
 * 255 is built with movw first): the bound of a table's index.
 */
static void compare(struct dc_walk *w, const struct tb_insn *in)
{
	const struct tb_dec_op *op = in->detail->arm.operands;
	int k = reg_no(&op[1]);

	w->cmp_reg = -1;
	if (op[0].type != ARM_OP_REG || op[1].shift.type)
		return;
	if (op[1].type == ARM_OP_IMM)
		w->cmp_imm = (u32)op[1].imm;
	else if (k >= 0 && (w->known & ~w->addr & (1u << k)))
		w->cmp_imm = w->val[k];
	else
		return;
	w->cmp_reg = (int)op[0].reg;
}

/*
 * A branch inside the function carries what the path proves to its
 * target, with what the branch's condition proves after a "cmp rN,
 * #imm"; the path falling through keeps what falling through proves.
 * Not while replaying, so a loop is gone over once.
 */
static void carry(struct dc_walk *w, const struct tb_insn *in, u32 t)
{
	static struct dc_vs taken;	/* one thread; 13 KB off the stack */
	/*
	 * a path with no set, and no compare to prove one, carries none:
	 * no copy of its sets for the target
	 */
	bool keep = !w->replay && t >= w->start && t < w->end &&
		    (w->vs.cmp_reg >= 0 || dc_vs_useful(&w->vs));

	dc_vs_branch(&w->vs, in, keep ? &taken : NULL);
	if (!keep || !dc_vs_useful(&taken))
		return;
	taken.known = w->known;
	taken.addr = w->addr;
	memcpy(taken.val, w->val, sizeof(taken.val));
	memcpy(taken.slot, w->slot, w->nslot * sizeof(w->slot[0]));
	taken.nslot = w->nslot;
	dc_vs_save(t, &taken);
}

/* After @in: 1 the path goes on, 0 it ends, -1 error. */
static int step(struct dc *d, struct dc_walk *w, const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;
	u32 site = (u32)in->address, t;
	struct dc_ops o;
	bool load, cond;
	int set;

	ops_of(in, &o);
	cond = o.cond || in->id == ARM_INS_CBZ || in->id == ARM_INS_CBNZ;
	t = o.imm;
	if (in->id == ARM_INS_B)
		carry(w, in, t);
	else
		dc_vs_step(d, &w->vs, in,
			   &(struct dc_consts){ w->known, w->val },
			   o.wr | o.wb);
	switch (in->id) {
	case ARM_INS_BL:
		if (cand(d, t, w->thumb, DC_K_CALL, site))
			return -1;
		return after_call(d, w, in);
	case ARM_INS_BLX:
		if (a->op_count && a->operands[0].type == ARM_OP_IMM &&
		    cand(d, t, !w->thumb, DC_K_CALL, site))
			return -1;
		return after_call(d, w, in);
	case ARM_INS_B: case ARM_INS_CBZ: case ARM_INS_CBNZ:
		return branch(d, w, t, site) ? -1 : cond;
	case ARM_INS_TBB: case ARM_INS_TBH:
		return table_tb(d, w, in) ? -1 : 0;
	case ARM_INS_UDF: case ARM_INS_BKPT: case ARM_INS_TRAP:
		return cond;
	case ARM_INS_CMP:
		compare(w, in);
		return 1;
	default:
		break;
	}
	load = table_load(w, in, &o);
	set = literal(d, w, in, &o);
	if (!set)
		adr_load(d, w, in);
	if (!set)
		set = constants(d, w, in, &o);
	if (set < 0)
		return -1;
	if (!set)
		w->known &= ~o.wr;	/* written: no known constant */
	if (w->alt_reg >= 0 && !w->alt_new && (o.wr & (1u << w->alt_reg)))
		w->alt_reg = -1;
	w->alt_new = false;
	remember(w, in, load, &o);
	if (sets_pc(in))
		return computed(d, w, in) ? -1 : cond;
	return 1;
}

/*
 * "bx lr", or a load of pc from the stack (pop, ldm sp, or "ldr pc,
 * [sp], #4": a pop of pc alone, as Thumb-2 "pop.w {pc}" is encoded)
 */
static bool is_return(const struct tb_insn *in)
{
	const struct tb_arm *a = &in->detail->arm;

	if (in->id == ARM_INS_BX)
		return a->operands[0].reg == ARM_REG_LR;
	if (in->id == ARM_INS_LDR)
		return a->op_count == 3 && a->writeback &&
		       a->operands[0].type == ARM_OP_REG &&
		       a->operands[0].reg == ARM_REG_PC &&
		       a->operands[1].type == ARM_OP_MEM &&
		       a->operands[1].mem.base == ARM_REG_SP &&
		       a->operands[1].mem.index == ARM_REG_INVALID &&
		       a->operands[2].type == ARM_OP_IMM &&
		       a->operands[2].imm == 4;
	return (in->id == ARM_INS_POP ||
		(in->id == ARM_INS_LDM && a->operands[0].reg == ARM_REG_SP)) &&
	       a->op_count && a->operands[a->op_count - 1].reg == ARM_REG_PC;
}

/* Instructions an IT block still holds: capstone keeps its state. */
static u32 it_count(const struct tb_insn *in)
{
	return in->id == ARM_INS_IT ? (u32)strlen(in->mnemonic) - 1 : 0;
}

/*
 * capstone remembers an IT block across calls: a path that stops inside
 * one must decode the block's rest, or the next path starts conditional.
 */
static void flush_it(struct dc *d, struct dc_walk *w, u32 a)
{
	while (w->it_left && decode(d, true, a, a + 4)) {
		a += d->insn->size;
		w->it_left--;
	}
	w->it_left = 0;
}

/*
 * A path that arrives at code reached before goes over it again, a few
 * instructions at most, when it carries what a computed jump there
 * needs: a set (discover_sets.c) or a constant that is an address in the
 * function.  The path that reached it first may have known less.
 */
#define DC_REPLAY	24

static bool replay_worth(const struct dc_walk *w)
{
	for (u32 m = w->known & 0x1fff; m; m &= m - 1) {
		u32 v = w->val[__builtin_ctz(m)] & ~1u;

		if (v >= w->start && v < w->end)
			return true;
	}
	return dc_vs_useful(&w->vs);
}

/* Decode from @a on until the path ends. */
static int run(struct dc *d, struct dc_walk *w, u32 a)
{
	struct tb_insn *in = d->insn;
	u32 left = 0;
	int r = 1;

	w->known = 0;
	w->alt_reg = -1;
	w->bounded = 0;
	w->nslot = 0;
	w->tbl_reg = -1;
	w->cmp_reg = -1;
	w->it_left = 0;
	w->replay = false;
	if (!dc_vs_take(a, &w->vs))
		dc_vs_reset(&w->vs);
	/* what the branch to here carried (none: nothing) */
	w->known = w->vs.known;
	w->addr = w->vs.addr;
	memcpy(w->val, w->vs.val, sizeof(w->val));
	memcpy(w->slot, w->vs.slot, w->vs.nslot * sizeof(w->slot[0]));
	w->nslot = w->vs.nslot;
	while (r > 0) {
		u8 f;

		if (a < w->start || a >= w->end || !dc_inside(d, a))
			break;
		/* read once: nothing below changes them before mark() */
		f = dc_get(d, a);
		if (f & (DC_IN | DC_DATA))
			break;
		if ((f & DC_CODE) && !w->replay) {
			if (w->it_left || !replay_worth(w))
				break;
			w->replay = true;
			left = DC_REPLAY;
		}
		if (w->replay && !left--)
			break;
		if (!decode(d, w->thumb, a, w->end)) {
			d->walk_bad++;
			break;
		}
		if (!(f & DC_CODE))
			mark_insn(d, w, a, in->size);
		if (w->it_left)
			w->it_left--;
		w->it_left += it_count(in);
		r = step(d, w, in);
		a += in->size;
		if (is_return(in)) {
			d->walk_returns++;
			if (!r && dc_inside(d, a))
				dc_set(d, a, DC_NOFALL);
		}
	}
	flush_it(d, w, a);
	return r < 0 ? -1 : 0;
}

/*
 * The first halfword index in [@i, @stop) with a start (d->starts), or
 * @stop: Chrome-sized code has starts tens of kilobytes apart before
 * discovery finds the rest, and every walk asks.
 */
static u32 next_start(const struct dc *d, u32 i, u32 stop)
{
	while (i < stop) {
		uint64_t w = d->starts[i >> 6] >> (i & 63);

		if (w) {
			i += (u32)tb_ctz64(w);
			return i < stop ? i : stop;
		}
		i = (i | 63) + 1;
	}
	return stop;
}

/*
 * The next known start after @a, or the end of @a's section: the first
 * of a + 2, a + 4, ... before it that is a start or lies outside the
 * flags.
 */
static u32 dc_walk_bound(struct dc *d, u32 a)
{
	u32 avail = 0, end, i0, cnt, stop;

	if (!bytes_at(d, a, &avail))
		return a;
	end = a + avail;
	if (a + 2 >= end)
		return end;
	if (!dc_inside(d, a + 2))
		return a + 2;
	cnt = (end - a - 1) / 2;	/* a + 2k below end, k = 1..cnt */
	i0 = (a + 2 - d->lo) >> 1;
	stop = cnt < d->n - i0 ? i0 + cnt : d->n;
	stop = next_start(d, i0, stop);
	return stop - i0 < cnt ? a + 2 + 2 * (stop - i0) : end;
}

/*
 * A symbol's size says where its function ends: a branch past it is a
 * tail call (libgcc's __gnu_ashlsq3 and its kin, "movs r2, #0; b.w f",
 * each end with one to a helper of their file that nothing else names),
 * not code to follow as the function's own.
 */
static u32 sym_bound(struct dc *d, u32 k, u32 end)
{
	struct dc_fn *f = &d->fn[k];

	/* every pass asks again: the symbols do not change */
	if (f->sym && !f->sym_asked) {
		const struct tb_sym *s = tb_elf_sym(d->e, f->addr);

		f->sym_asked = true;
		f->sym_end = s && s->addr == f->addr && s->size ?
			     s->addr + s->size : 0;
	}
	if (f->sym && f->sym_end && f->sym_end < end)
		return f->sym_end;
	return end;
}

/* Where the walk of function @k stops: its symbol's end, or the next start. */
u32 dc_fn_bound(struct dc *d, u32 k)
{
	return sym_bound(d, k, dc_walk_bound(d, d->fn[k].addr));
}

/*
 * The lowest code after a call still to follow: the call that never
 * returns before a function's literal pool comes last, when the paths
 * after the other calls have read the pool as data.
 */
static u32 next_after(struct dc_walk *w)
{
	u32 low = 0, a;

	for (u32 i = 1; i < w->nafter; i++)
		if (w->after[i] < w->after[low])
			low = i;
	a = w->after[low];
	w->after[low] = w->after[--w->nafter];
	return a;
}

u32 dc_walk(struct dc *d, u32 k)
{
	static struct dc_walk w;	/* 16 KB of after-call addresses: off
					 * the stack; the generator is one
					 * thread */
	u32 a;

	memset(&w, 0, offsetof(struct dc_walk, after));
	w.start = d->fn[k].addr;
	w.thumb = d->fn[k].thumb;
	w.nafter = 0;
	d->walk_bad = d->walk_returns = 0;
	w.end = dc_fn_bound(d, k);
	w.maxend = w.start;
	d->found.n = 0;
	d->nstack = 0;
	dc_vs_forget_saved();
	if (push(d, w.start))
		return -1u;
	for (;;) {
		if (d->nstack) {
			a = d->stack[--d->nstack];
		} else if (w.nafter) {
			a = next_after(&w);
			/* a call followed by literals the code reads never
			 * returns (glibc's assert stubs): it ends the
			 * function as a return does */
			if (dc_inside(d, a) && (dc_get(d, a) & DC_DATA))
				d->walk_returns++;
		} else {
			break;
		}
		if (run(d, &w, a))
			return -1u;
	}
	return w.maxend;
}

/*
 * An unwind entry or FDE does not say ARM or Thumb.  ARM code is word
 * aligned and nearly every instruction has the "always" condition
 * (0xe in the top nibble); Thumb code read so rarely is.  Otherwise the
 * first instructions must decode as Thumb.
 */
int dc_guess_mode(struct dc *d, u32 a)
{
	u32 al = 0, avail = 0, at = a;
	const u8 *b = bytes_at(d, a, &avail);
	bool ok;

	if (!b || avail < 8)
		return -1;
	for (u32 i = 0; !(a & 3) && i < 4 && 4 * i + 4 <= avail; i++)
		al += (read32(d, a + 4 * i, &ok) >> 28) == 0xe;
	if (al >= 3 && (read32(d, a, &ok) >> 28) == 0xe)
		return decode(d, false, a, a + 4) ? 0 : -1;
	for (int i = 0; i < 4; i++) {
		if (!decode(d, true, at, a + avail))
			return -1;
		at += d->insn->size;
	}
	return 1;
}
