// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of unwind_v2: the reader vectors of FORMAT-v2.md §6.1-6.2,
 * one test per validation error, per opcode class and per §3.3 rule, and
 * whole unwinds across modules.
 */
#include <stdlib.h>
#include "harness.h"
#include "lib/ehabi.h"
#include "test_unwind_v2_gen.h"
#include "unwind_v2.h"
#include "selftests/worst_tables.h"

/* ---- a stack in memory, with a reader that records misuse ---- */

#define MEM_WORDS 64

struct mem {
	u32 base;
	u32 words[MEM_WORDS];
	u32 fault_addr;		/* reading this word fails, if fault_set */
	bool fault_set;
	bool outside;		/* a read left the buffer: always a bug */
	u32 reads;
};

static int mem_read(void *ctx, u32 addr, u32 *val)
{
	struct mem *m = ctx;

	m->reads++;
	if ((addr & 3) || addr < m->base || addr - m->base >= 4 * MEM_WORDS) {
		m->outside = true;
		return -1;
	}
	if (m->fault_set && addr == m->fault_addr)
		return -1;
	*val = m->words[(addr - m->base) / 4];
	return 0;
}

/*
 * The direct loads' stand-in (struct uw2_stack's word): the memory's
 * words, failing for the whole page of the failing one, as the MMU does.
 */
static int mem_word(void *ctx, u32 addr, u32 *val)
{
	struct mem *m = ctx;

	if (m->fault_set && (addr ^ m->fault_addr) < UW2_USER_PAGE)
		return -1;
	return mem_read(ctx, addr, val);
}

static struct uw2_stack mem_stack(struct mem *m)
{
	struct uw2_stack s = {
		.lo = m->base, .hi = m->base + 4 * MEM_WORDS,
		.read = mem_read, .ctx = m,
	};
	return s;
}

static void mem_put(struct mem *m, u32 addr, u32 val)
{
	m->words[(addr - m->base) / 4] = val;
}

/* ---- single opcodes (FORMAT-v2.md §6.1, instruction suite) ---- */

#define VSP 0x10000000u

struct op_run {
	struct uw2_regs regs;
	struct mem mem;
	bool pc_updated;
	u32 pos;
	enum uw2_exec res;
};

/* r0-r12 = 100..112, lr = 113, pc = 114, sp = @sp; stack words 1..9. */
static void op_setup(struct op_run *o, u32 sp)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 13; i++)
		o->regs.r[i] = 100 + i;
	o->regs.r[UW2_LR] = 113;
	o->regs.r[UW2_PC] = 114;
	o->regs.r[UW2_SP] = sp;
	o->mem.base = VSP;
	for (int i = 0; i < MEM_WORDS; i++)
		o->mem.words[i] = i + 1;
}

static void op_exec(struct op_run *o, const u8 *ops, u32 len)
{
	struct uw2_stack s = mem_stack(&o->mem);

	o->res = uw2_exec_op(ops, len, &o->pos, &o->regs, &o->pc_updated, &s);
	CHECK(!o->mem.outside);
}

#define OPS(...) ((const u8[]){ __VA_ARGS__ }), sizeof((u8[]){ __VA_ARGS__ })

/* Every register but sp equals what op_setup() put there. */
static bool regs_untouched_but_sp(const struct op_run *o)
{
	for (int i = 0; i < 13; i++)
		if (o->regs.r[i] != 100u + i)
			return false;
	return o->regs.r[UW2_LR] == 113 && o->regs.r[UW2_PC] == 114;
}

static void check_vsp_op(const u8 *ops, u32 len, u32 sp, enum uw2_exec res,
			 u32 pos, u32 sp_after)
{
	struct op_run o;

	op_setup(&o, sp);
	op_exec(&o, ops, len);
	CHECK_EQ_U32(o.res, res);
	CHECK_EQ_U32(o.pos, pos);
	CHECK_EQ_U32(o.regs.r[UW2_SP], sp_after);
	CHECK(!o.pc_updated);
	CHECK(regs_untouched_but_sp(&o));
}

TEST(small_sp_increment)
{
	check_vsp_op(OPS(0x00), VSP, UW2_EXEC_NEXT, 1, VSP + 4);
	check_vsp_op(OPS(0x04), VSP, UW2_EXEC_NEXT, 1, VSP + 0x14);
	check_vsp_op(OPS(0x3f), VSP, UW2_EXEC_NEXT, 1, VSP + 0x100);
	check_vsp_op(OPS(0x3f), 0xffffffff, UW2_EXEC_BAD_SP, 1, 0xffffffff);
}

TEST(small_sp_decrement)
{
	check_vsp_op(OPS(0x40), VSP, UW2_EXEC_NEXT, 1, 0x0ffffffc);
	check_vsp_op(OPS(0x44), VSP, UW2_EXEC_NEXT, 1, 0x0fffffec);
	check_vsp_op(OPS(0x7f), VSP, UW2_EXEC_NEXT, 1, 0x0fffff00);
	check_vsp_op(OPS(0x7f), 0, UW2_EXEC_BAD_SP, 1, 0);
}

TEST(big_sp_increment)
{
	check_vsp_op(OPS(0xb2, 0x00), VSP, UW2_EXEC_NEXT, 2, VSP + 0x204);
	check_vsp_op(OPS(0xb2, 0x04), VSP, UW2_EXEC_NEXT, 2, VSP + 0x214);
	check_vsp_op(OPS(0xb2, 0x80, 0x01), VSP, UW2_EXEC_NEXT, 3,
		     VSP + 0x404);
	/* the ULEB is consumed in full even when the add overflows */
	check_vsp_op(OPS(0xb2, 0x80, 0x01), 0xffffffff, UW2_EXEC_BAD_SP, 3,
		     0xffffffff);
	/* a ULEB beyond 32 bits is an overflow, not a decoding error */
	check_vsp_op(OPS(0xb2, 0xff, 0xff, 0xff, 0xff, 0x7f), 0,
		     UW2_EXEC_BAD_SP, 6, 0);
	/* the largest increment that still fits, and one more */
	check_vsp_op(OPS(0xb2, 0xfe, 0xfe, 0xff, 0xff, 0x03), 0,
		     UW2_EXEC_NEXT, 6, 0xfffffffc);
	check_vsp_op(OPS(0xb2, 0xff, 0xfe, 0xff, 0xff, 0x03), 0,
		     UW2_EXEC_BAD_SP, 6, 0);
	check_vsp_op(OPS(0xb2, 0x80), VSP, UW2_EXEC_BAD_OPCODE, 0, VSP);
}

TEST(sp_from_register)
{
	static const u8 regs[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12, 14 };
	struct op_run o;

	for (u32 i = 0; i < sizeof(regs); i++) {
		u8 op = 0x90 | regs[i];

		op_setup(&o, VSP);
		o.regs.r[UW2_LR] = 114;
		op_exec(&o, &op, 1);
		CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
		CHECK_EQ_U32(o.pos, 1);
		CHECK_EQ_U32(o.regs.r[UW2_SP], 100u + regs[i]);
		CHECK(!o.pc_updated);
	}
	/* EHABI allows r0-r3 too; Chrome's tables never use them */
	op_setup(&o, VSP);
	op_exec(&o, OPS(0x92));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.regs.r[UW2_SP], 102);
	/* 9D and 9F are reserved, whatever Chrome's release build does */
	op_setup(&o, VSP);
	op_exec(&o, OPS(0x9d));
	CHECK_EQ_U32(o.res, UW2_EXEC_BAD_OPCODE);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP);
	op_exec(&o, OPS(0x9f));
	CHECK_EQ_U32(o.res, UW2_EXEC_BAD_OPCODE);
}

TEST(finish_copies_lr_unless_pc_popped)
{
	struct op_run o;

	op_setup(&o, VSP);
	o.regs.r[UW2_LR] = 114;
	o.regs.r[UW2_PC] = 115;
	op_exec(&o, OPS(0xb0));
	CHECK_EQ_U32(o.res, UW2_EXEC_FINISH);
	CHECK_EQ_U32(o.pos, 1);
	CHECK_EQ_U32(o.regs.r[UW2_PC], 114);

	op_setup(&o, VSP);
	o.regs.r[UW2_LR] = 114;
	o.regs.r[UW2_PC] = 115;
	o.pc_updated = true;
	op_exec(&o, OPS(0xb0));
	CHECK_EQ_U32(o.res, UW2_EXEC_FINISH);
	CHECK_EQ_U32(o.regs.r[UW2_PC], 115);
}

TEST(pop_discontinuous_including_pc)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0x89, 0x11));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.pos, 2);
	CHECK(o.pc_updated);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 16);
	CHECK_EQ_U32(o.regs.r[4], 1);
	CHECK_EQ_U32(o.regs.r[8], 2);
	CHECK_EQ_U32(o.regs.r[UW2_IP], 3);
	CHECK_EQ_U32(o.regs.r[UW2_PC], 4);
	for (int i = 0; i < 13; i++)
		if (i != 4 && i != 8 && i != 12)
			CHECK_EQ_U32(o.regs.r[i], 100 + i);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 113);
}

TEST(pop_discontinuous)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0x81, 0x11));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.pos, 2);
	CHECK(!o.pc_updated);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 12);
	CHECK_EQ_U32(o.regs.r[4], 1);
	CHECK_EQ_U32(o.regs.r[8], 2);
	CHECK_EQ_U32(o.regs.r[UW2_IP], 3);
	CHECK_EQ_U32(o.regs.r[UW2_PC], 114);
}

TEST(pop_overflow_changes_nothing)
{
	struct op_run o;

	op_setup(&o, 0xffffffff);
	op_exec(&o, OPS(0x89, 0x11));
	CHECK_EQ_U32(o.res, UW2_EXEC_BAD_SP);
	CHECK_EQ_U32(o.pos, 2);
	CHECK(!o.pc_updated);
	CHECK_EQ_U32(o.regs.r[UW2_SP], 0xffffffff);
	CHECK(regs_untouched_but_sp(&o));
	CHECK_EQ_U32(o.mem.reads, 0);

	op_setup(&o, 0xffffffff);
	op_exec(&o, OPS(0xaf));
	CHECK_EQ_U32(o.res, UW2_EXEC_BAD_SP);
	CHECK_EQ_U32(o.pos, 1);
	CHECK(regs_untouched_but_sp(&o));
}

TEST(refuse_to_unwind)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0x80, 0x00));
	CHECK_EQ_U32(o.res, UW2_EXEC_REFUSE);
	CHECK_EQ_U32(o.pos, 2);
	CHECK(!o.pc_updated);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP);
}

TEST(pop_r4_to_rn_and_lr)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xa8));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 8);
	CHECK_EQ_U32(o.regs.r[4], 1);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 2);

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xac));
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 24);
	for (int i = 4; i <= 8; i++)
		CHECK_EQ_U32(o.regs.r[i], i - 3);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 6);

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xaf));
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 36);
	for (int i = 4; i <= 11; i++)
		CHECK_EQ_U32(o.regs.r[i], i - 3);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 9);
	CHECK_EQ_U32(o.regs.r[UW2_IP], 112);
}

/* 10100nnn: Chrome's reader lacks it; EHABI tables use it. */
TEST(pop_r4_to_rn_without_lr)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xa0));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 4);
	CHECK_EQ_U32(o.regs.r[4], 1);
	CHECK_EQ_U32(o.regs.r[5], 105);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 113);

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xa7));
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 32);
	for (int i = 4; i <= 11; i++)
		CHECK_EQ_U32(o.regs.r[i], i - 3);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 113);
}

TEST(pop_r0_to_r3_mask)
{
	struct op_run o;

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xb1, 0x0f));
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.pos, 2);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 16);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U32(o.regs.r[i], i + 1);

	op_setup(&o, VSP);
	op_exec(&o, OPS(0xb1, 0x05));
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 8);
	CHECK_EQ_U32(o.regs.r[0], 1);
	CHECK_EQ_U32(o.regs.r[1], 101);
	CHECK_EQ_U32(o.regs.r[2], 2);
}

TEST(vfp_pops_skip_vsp)
{
	static const struct { u8 op[2]; u32 len, add; } v[] = {
		{ { 0xb3, 0x12 }, 2, 8 * 3 + 4 },
		{ { 0xb3, 0xf0 }, 2, 8 + 4 },
		{ { 0xb8 }, 1, 8 + 4 },
		{ { 0xbf }, 1, 64 + 4 },
		{ { 0xc8, 0x01 }, 2, 16 },
		{ { 0xc8, 0x0f }, 2, 128 },
		{ { 0xc9, 0x23 }, 2, 32 },
		{ { 0xd0 }, 1, 8 },
		{ { 0xd7 }, 1, 64 },
	};
	struct op_run o;

	for (u32 i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		op_setup(&o, VSP);
		op_exec(&o, v[i].op, v[i].len);
		CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
		CHECK_EQ_U32(o.pos, v[i].len);
		CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + v[i].add);
		CHECK(regs_untouched_but_sp(&o));
		CHECK_EQ_U32(o.mem.reads, 0);
	}
}

/*
 * EHABI: a popped r13 becomes vsp after the whole instruction, so lr is
 * still read from the slot after r13's, not from the loaded address.
 */
TEST(r13_pop_takes_effect_after_instruction)
{
	struct op_run o;

	op_setup(&o, VSP);
	o.mem.words[1] = VSP + 0x80;
	op_exec(&o, OPS(0x86, 0x01));	/* r4, r13, r14 */
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.regs.r[4], 1);
	CHECK_EQ_U32(o.regs.r[UW2_LR], 3);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 0x80);
}

TEST(pop_reads_only_inside_window)
{
	struct op_run o;
	struct uw2_stack s;

	op_setup(&o, VSP + 4 * MEM_WORDS - 8);
	s = mem_stack(&o.mem);
	o.res = uw2_exec_op(OPS(0xa9), &o.pos, &o.regs, &o.pc_updated, &s);
	CHECK_EQ_U32(o.res, UW2_EXEC_BAD_SP);
	CHECK_EQ_U32(o.mem.reads, 0);
	CHECK(regs_untouched_but_sp(&o));
	/* exactly up to the top is fine */
	o.pos = 0;
	o.res = uw2_exec_op(OPS(0xa8), &o.pos, &o.regs, &o.pc_updated, &s);
	CHECK_EQ_U32(o.res, UW2_EXEC_NEXT);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP + 4 * MEM_WORDS);
	CHECK(!o.mem.outside);
}

TEST(pop_read_fault_changes_nothing)
{
	struct op_run o;

	op_setup(&o, VSP);
	o.mem.fault_set = true;
	o.mem.fault_addr = VSP + 8;
	op_exec(&o, OPS(0xab));
	CHECK_EQ_U32(o.res, UW2_EXEC_READ_FAULT);
	CHECK_EQ_U32(o.regs.r[UW2_SP], VSP);
	CHECK(regs_untouched_but_sp(&o));
}

/*
 * The opcode space, classified here independently of unwind_v2.c:
 * returns the length of a valid opcode (B2 with a one-byte ULEB), or 0
 * for a spare or reserved one.
 */
static u32 spec_opcode_len(u8 op, u8 b)
{
	if (op < 0x80)
		return 1;
	if (op < 0x90)
		return 2;
	if (op == 0x9d || op == 0x9f)
		return 0;
	if (op < 0xb1)
		return 1;
	if (op == 0xb1)	/* B1 10, B1 20: uwprof's noreturn and clone markers */
		return (b & 0xf0) && b != 0x10 && b != 0x20 ? 0 : 2;
	if (op == 0xb2)
		return 2;
	if (op == 0xb3 || op == 0xc8 || op == 0xc9)
		return (b >> 4) + (b & 0xf) > 15 ? 0 : 2;
	if ((op >= 0xb8 && op <= 0xbf) || (op >= 0xd0 && op <= 0xd7))
		return 1;
	return 0;
}

TEST(opcode_space_classification)
{
	u32 bad = 0;

	for (u32 op = 0; op < 256; op++) {
		for (u32 b = 0; b < 256; b++) {
			u32 want = spec_opcode_len(op, b & 0x7f);
			u8 seq[2] = { op, b & 0x7f };
			struct op_run o;

			op_setup(&o, VSP);
			op_exec(&o, seq, 2);
			if (!want) {
				if (o.res != UW2_EXEC_BAD_OPCODE)
					bad++;
			} else if (o.res == UW2_EXEC_BAD_OPCODE ||
				   o.pos != want) {
				bad++;
			}
			if (want == 1)
				break;
		}
	}
	CHECK_EQ_U32(bad, 0);
}

/*
 * The generator takes in only the opcodes its walker (lib/ehabi.c) calls
 * plain, and the unwinder must run every one of them: each such opcode
 * decodes here too, to the same length.  (A VFP range past D15 once went
 * through, and the table failed its own validation.)
 */
TEST(opcode_walker_agrees_with_the_unwinder)
{
	u32 bad = 0;

	for (u32 op = 0; op < 256; op++) {
		for (u32 b = 0; b < 256; b++) {
			/* B2's ULEB in one byte */
			u8 seq[2] = { op, op == 0xb2 ? b & 0x7f : b };
			struct uw_eh_op eh;
			struct op_run o;
			u32 pos = 0;

			uw_eh_next(seq, 2, &pos, &eh);
			if (eh.kind > UW_EH_VPOP || eh.reserved || eh.big)
				continue;
			op_setup(&o, VSP);
			op_exec(&o, seq, 2);
			if (o.res == UW2_EXEC_BAD_OPCODE || o.pos != pos)
				bad++;
		}
	}
	CHECK_EQ_U32(bad, 0);
}

/* ---- lookup vectors (§6.1, table suite) ---- */

struct ltab {
	u8 pages[64];
	u8 funcs[64];
	u8 fot[16];
	struct uw2_table t;
};

static void ltab_init(struct ltab *l, const u32 *pages, u32 np,
		      const u16 (*funcs)[2], u32 nf)
{
	memset(l, 0, sizeof(*l));
	for (u32 i = 0; i < np; i++)
		uw2g_put32(l->pages + 4 * i, pages[i]);
	for (u32 i = 0; i < nf; i++) {
		l->funcs[4 * i] = funcs[i][0];
		l->funcs[4 * i + 1] = funcs[i][0] >> 8;
		l->funcs[4 * i + 2] = funcs[i][1];
		l->funcs[4 * i + 3] = funcs[i][1] >> 8;
	}
	l->t.page_table = l->pages;
	l->t.page_count = np;
	l->t.func_table = l->funcs;
	l->t.func_count = nf;
	l->t.fot = l->fot;
	l->t.fot_size = sizeof(l->fot);
}

static u32 boff(u32 page, u32 poff)
{
	return (page << 17) + (poff << 1);
}

static void check_lookup(const struct ltab *l, u32 byte_off, bool found,
			 u32 instr_off, u32 fot_index)
{
	u32 io = 0xdead, fi = 0xdead;
	bool ok = uw2_lookup_function(&l->t, byte_off, &io, &fi);

	CHECK_EQ_U32(ok, found);
	if (ok && found) {
		CHECK_EQ_U32(io, instr_off);
		CHECK_EQ_U32(fi, fot_index);
	}
}

TEST(fot_lookup_vectors)
{
	static const u8 fot[] = { 0x82, 0x01, 0x02, 0x80, 0x01, 0x03,
				  0x00, 0x04 };
	struct uw2_table t = { .fot = fot, .fot_size = sizeof(fot) };
	u32 idx = 0;

	CHECK(uw2_lookup_sequence(&t, 0, 128, &idx));
	CHECK_EQ_U32(idx, 3);
	CHECK(uw2_lookup_sequence(&t, 0, 129, &idx));
	CHECK_EQ_U32(idx, 3);
	CHECK(uw2_lookup_sequence(&t, 0, 0, &idx));
	CHECK_EQ_U32(idx, 4);
	CHECK(uw2_lookup_sequence(&t, 0, 130, &idx));
	CHECK_EQ_U32(idx, 2);
	/* the walk stops at the FOT's end when no offset 0 terminates it */
	t.fot_size = 6;
	CHECK(!uw2_lookup_sequence(&t, 0, 5, &idx));
	CHECK(!uw2_lookup_sequence(&t, 7, 5, &idx));
}

TEST(lookup_entry_in_page)
{
	static const u32 pages[] = { 0, 2 };
	static const u16 funcs[][2] = { { 0, 20 }, { 4, 40 }, { 6, 70 } };
	struct ltab l;

	ltab_init(&l, pages, 2, funcs, 3);
	check_lookup(&l, boff(0, 4), true, 0, 40);
	check_lookup(&l, boff(0, 50), true, 46, 40);
	check_lookup(&l, boff(1, 0xffff), true, 0xfff9, 70);
	check_lookup(&l, boff(0, 3), true, 3, 20);
	check_lookup(&l, boff(0, 3) + 1, true, 3, 20);	/* Thumb bit */
}

TEST(lookup_empty_page)
{
	static const u32 pages[] = { 0, 1, 1 };
	static const u16 funcs[][2] = { { 0, 20 }, { 6, 70 } };
	struct ltab l;

	ltab_init(&l, pages, 3, funcs, 2);
	check_lookup(&l, boff(1, 4), true, 0x10004, 20);
}

TEST(lookup_invalid_instruction_offset)
{
	static const u32 pages[] = { 0, 1 };
	static const u16 funcs[][2] = { { 0, 20 }, { 6, 70 } };
	struct ltab l;

	ltab_init(&l, pages, 2, funcs, 2);
	check_lookup(&l, boff(50, 6), false, 0, 0);
	check_lookup(&l, boff(2, 0), false, 0, 0);
}

TEST(lookup_second_page_of_spanning_function)
{
	static const u32 pages[] = { 0, 1, 2 };
	static const u16 funcs[][2] = { { 0, 20 }, { 6, 70 }, { 10, 80 } };
	struct ltab l;

	ltab_init(&l, pages, 3, funcs, 3);
	check_lookup(&l, boff(1, 4), true, 0x10004, 20);
}

TEST(lookup_within_function_spanning_pages)
{
	static const u32 pages[] = { 0, 1, 1, 1 };
	static const u16 funcs[][2] = { { 0, 20 }, { 6, 70 } };
	struct ltab l;

	ltab_init(&l, pages, 4, funcs, 2);
	for (u32 p = 0; p < 3; p++)
		check_lookup(&l, boff(p, 4), true, (p << 16) + 4, 20);
	check_lookup(&l, boff(3, 4), true, 0x30004, 20);
	/* and just past the function that starts on page 3 */
	check_lookup(&l, boff(3, 6), true, 0, 70);
}

/* CanUnwindFrom: which module, if any, holds an address. */
TEST(find_module)
{
	static const struct uw2_module mods[] = {
		{ .text_start = 0x1000, .text_end = 0x1500 },
		{ .text_start = 0x2000, .text_end = 0x2500 },
	};

	CHECK(uw2_find_module(mods, 2, 0x1100) == &mods[0]);
	CHECK(uw2_find_module(mods, 2, 0x1000) == &mods[0]);
	CHECK(uw2_find_module(mods, 2, 0x2100) == &mods[1]);
	CHECK(uw2_find_module(mods, 2, 0x400) == NULL);
	CHECK(uw2_find_module(mods, 2, 0x14ff) == &mods[0]);
	CHECK(uw2_find_module(mods, 2, 0x1500) == NULL);
	CHECK(uw2_find_module(mods, 2, 0xffffffff) == NULL);
	CHECK(uw2_find_module(mods, 0, 0x1100) == NULL);
}

/* ---- §6.2: the header parse alone performs no content checks ---- */

TEST(parse_header_spans_only)
{
	u8 *blob = calloc(1, 512);
	static const u32 hdr[] = { 64, 1, 128, 2, 192, 3, 256, 4 };
	struct uw2_verror err;
	struct uw2_table t;

	for (int i = 0; i < 8; i++)
		uw2g_put32(blob + 4 * i, hdr[i]);
	uw2g_put32(blob + 64, 1);
	blob[128 + 2] = 2;
	blob[132 + 2] = 3;
	memset(blob + 192, 3, 3);
	memset(blob + 256, 4, 4);
	CHECK(UW2_HEADER_SIZE < 64);
	CHECK_EQ_U32(uw2_table_parse_header(&t, blob, 512, &err), UW2_OK);
	CHECK(t.page_table == blob + 64);
	CHECK_EQ_U32(t.page_count, 1);
	CHECK_EQ_U32(t.page_table[0], 1);
	CHECK(t.func_table == blob + 128);
	CHECK_EQ_U32(t.func_count, 2);
	CHECK_EQ_U32(t.func_table[2], 2);
	CHECK_EQ_U32(t.func_table[6], 3);
	CHECK(t.fot == blob + 192);
	CHECK_EQ_U32(t.fot_size, 3);
	CHECK_MEM(t.fot, "\3\3\3", 3);
	CHECK(t.uit == blob + 256);
	CHECK_EQ_U32(t.uit_size, 4);
	CHECK_MEM(t.uit, "\4\4\4\4", 4);
	/* the full validation does see that page 0 starts at function 1 */
	CHECK_EQ_U32(uw2_table_init(&t, blob, 512, &err), UW2_ERR_PAGE_FIRST);
	CHECK_EQ_U32(err.offset, 64);
	free(blob);
}

/* ---- validation: one test per error ---- */

/*
 * A valid blob with room to move things: page table at 32 (room for 4
 * entries), function table at 48 (4), FOT at 64 (16 bytes), UIT at 80
 * (16 bytes).  It holds the FORMAT-v2.md §5.9 worked example.
 */
#define VB_SIZE 96
static const u8 vb_fot[] = { 0x02, 0x00, 0x01, 0x05, 0x00, 0x08 };
static const u8 vb_uit[] = { 0x97, 0x41, 0x84, 0x0b, 0xb0,
			     0x84, 0x0b, 0xb0, 0xb0 };

static void vb_init(u8 *b)
{
	static const u32 hdr[] = { 32, 1, 48, 1, 64, sizeof(vb_fot),
				   80, sizeof(vb_uit) };

	memset(b, 0, VB_SIZE);
	for (int i = 0; i < 8; i++)
		uw2g_put32(b + 4 * i, hdr[i]);
	memcpy(b + 64, vb_fot, sizeof(vb_fot));
	memcpy(b + 80, vb_uit, sizeof(vb_uit));
}

static void vb_set(u8 *b, u32 field, u32 val)
{
	uw2g_put32(b + 4 * field, val);
}

#define ANY_OFFSET 0xffffffffu

/* With a memo, validation gives the same verdict at the same place. */
static void check_verr_memo(const u8 *b, u32 size,
			    const struct uw2_verror *want)
{
	struct uw2_verror err = { UW2_OK, 0xdead };
	u8 *done = calloc(1, UW2_MEMO_BYTES(size));
	struct uw2_table t;

	/* the memo makes sharing cheap: the budget may suffice with it */
	if (want->code != UW2_ERR_TOO_COMPLEX) {
		CHECK_EQ_U32(uw2_table_init_memo(&t, b, size, done, &err),
			     want->code);
		if (want->code)
			CHECK_EQ_U32(err.offset, want->offset);
	}
	free(done);
}

static void check_verr(const u8 *b, u32 size, enum uw2_verr code, u32 off)
{
	struct uw2_verror err = { UW2_OK, 0xdead };
	struct uw2_table t;
	u8 *copy = malloc(size ? size : 1);

	memcpy(copy, b, size);
	CHECK_EQ_U32(uw2_table_init(&t, copy, size, &err), code);
	CHECK_EQ_U32(err.code, code);
	if (code && off != ANY_OFFSET)
		CHECK_EQ_U32(err.offset, off);
	check_verr_memo(copy, size, &err);
	free(copy);
}

TEST(validate_accepts_base)
{
	u8 b[VB_SIZE];
	struct uw2_table t;

	vb_init(b);
	check_verr(b, VB_SIZE, UW2_OK, 0);
	CHECK_EQ_U32(uw2_table_init(&t, b, VB_SIZE, NULL), UW2_OK);
	CHECK_EQ_U32(uw2_table_text_span(&t), 1u << 17);
	CHECK(uw2_verr_str(UW2_OK) != NULL);
}

TEST(verr_short)
{
	u8 b[VB_SIZE];

	vb_init(b);
	check_verr(b, 31, UW2_ERR_SHORT, 31);
	check_verr(b, 0, UW2_ERR_SHORT, 0);
}

TEST(verr_bounds)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 7, 17);		/* UIT one byte past the end */
	check_verr(b, VB_SIZE, UW2_ERR_BOUNDS, 24);
	vb_init(b);
	vb_set(b, 1, 0x40000001);	/* count * 4 wraps to 4 */
	check_verr(b, VB_SIZE, UW2_ERR_BOUNDS, 0);
	vb_init(b);
	vb_set(b, 4, 0xfffffff0);
	check_verr(b, VB_SIZE, UW2_ERR_BOUNDS, 16);
	vb_init(b);
	check_verr(b, 88, UW2_ERR_BOUNDS, 24);
}

TEST(verr_overlap)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 0, 28);		/* page table inside the header */
	check_verr(b, VB_SIZE, UW2_ERR_OVERLAP, 0);
	vb_init(b);
	vb_set(b, 4, 50);		/* FOT inside the function table */
	check_verr(b, VB_SIZE, UW2_ERR_OVERLAP, 16);
	vb_init(b);
	vb_set(b, 6, 69);		/* UIT over the FOT's last byte */
	check_verr(b, VB_SIZE, UW2_ERR_OVERLAP, 24);
}

TEST(verr_align)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 0, 34);
	check_verr(b, VB_SIZE, UW2_ERR_ALIGN, 0);
	vb_init(b);
	vb_set(b, 2, 50);
	check_verr(b, VB_SIZE, UW2_ERR_ALIGN, 8);
}

TEST(verr_empty)
{
	u8 b[VB_SIZE];

	for (u32 f = 0; f < 4; f++) {
		vb_init(b);
		vb_set(b, 2 * f + 1, 0);
		check_verr(b, VB_SIZE, UW2_ERR_EMPTY, 8 * f + 4);
	}
}

TEST(verr_page_first)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 3, 2);
	uw2g_put32(b + 32, 1);
	check_verr(b, VB_SIZE, UW2_ERR_PAGE_FIRST, 32);
}

TEST(verr_page_order)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 1, 3);
	vb_set(b, 3, 2);
	uw2g_put32(b + 36, 1);
	check_verr(b, VB_SIZE, UW2_ERR_PAGE_ORDER, 40);
}

TEST(verr_page_range)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 1, 2);
	uw2g_put32(b + 36, 2);
	check_verr(b, VB_SIZE, UW2_ERR_PAGE_RANGE, 36);
	/* a trailing page with no function start is fine */
	uw2g_put32(b + 36, 1);
	check_verr(b, VB_SIZE, UW2_OK, 0);
}

TEST(verr_func_first)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[48] = 4;
	check_verr(b, VB_SIZE, UW2_ERR_FUNC_FIRST, 48);
	/* page 0 without a function start */
	vb_init(b);
	vb_set(b, 1, 2);
	check_verr(b, VB_SIZE, UW2_ERR_FUNC_FIRST, 48);
}

TEST(verr_func_order)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 3, 3);
	b[52] = 8;
	b[56] = 8;			/* equal to the previous start */
	check_verr(b, VB_SIZE, UW2_ERR_FUNC_ORDER, 56);
	b[56] = 6;
	check_verr(b, VB_SIZE, UW2_ERR_FUNC_ORDER, 56);
	b[56] = 9;
	check_verr(b, VB_SIZE, UW2_OK, 0);
	/* offsets restart on a new page */
	vb_set(b, 1, 2);
	uw2g_put32(b + 36, 2);
	b[56] = 0;
	check_verr(b, VB_SIZE, UW2_OK, 0);
}

TEST(verr_fot_index)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[50] = sizeof(vb_fot);
	check_verr(b, VB_SIZE, UW2_ERR_FOT_INDEX, 50);
}

TEST(verr_fot_trunc)
{
	static const u8 big[] = { 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00 };
	static const u8 noend[] = { 0x02, 0x00, 0x01, 0x05 };
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 5, sizeof(vb_fot) - 1);
	check_verr(b, VB_SIZE, UW2_ERR_FOT_TRUNC, 64 + 5);
	vb_init(b);
	memcpy(b + 64, big, sizeof(big));
	check_verr(b, VB_SIZE, UW2_ERR_FOT_TRUNC, 64);
	vb_init(b);
	memcpy(b + 64, noend, sizeof(noend));
	vb_set(b, 5, sizeof(noend));
	check_verr(b, VB_SIZE, UW2_ERR_FOT_TRUNC, 64 + 4);
}

TEST(verr_fot_order)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[64 + 2] = 0x02;		/* (2, 0), (2, 5), (0, 8) */
	check_verr(b, VB_SIZE, UW2_ERR_FOT_ORDER, 66);
	b[64 + 2] = 0x03;
	check_verr(b, VB_SIZE, UW2_ERR_FOT_ORDER, 66);
}

TEST(verr_uit_index)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[64 + 5] = sizeof(vb_uit);
	check_verr(b, VB_SIZE, UW2_ERR_UIT_INDEX, 64 + 5);
}

TEST(verr_uit_opcode)
{
	static const u8 spare[][2] = {
		{ 0x9d }, { 0x9f }, { 0xb1, 0x30 }, { 0xb4 }, { 0xb7 },
		{ 0xc0 }, { 0xc6, 0x00 }, { 0xc7 }, { 0xca }, { 0xcf },
		{ 0xd8 }, { 0xff }, { 0xb3, 0x88 }, { 0xc9, 0x1f },
	};
	u8 b[VB_SIZE];

	for (u32 i = 0; i < sizeof(spare) / sizeof(spare[0]); i++) {
		vb_init(b);
		b[80 + 5] = spare[i][0];	/* second sequence's start */
		b[80 + 6] = spare[i][1];
		check_verr(b, VB_SIZE, UW2_ERR_UIT_OPCODE, 80 + 5);
	}
}

/*
 * The clone marker only as the first opcode of a sequence a pair names:
 * first it is accepted; after another opcode it is refused, also when a
 * pair checked before named it as the start of its own sequence (the
 * memo then knows it, and the walk from the earlier opcode stops there).
 */
TEST(verr_clone_marker_first_only)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[80 + 5] = 0xb1;		/* the second sequence: B1 20 B0 */
	b[80 + 6] = 0x20;
	check_verr(b, VB_SIZE, UW2_OK, 0);
	b[80 + 5] = 0x00;		/* 00 B1 20 B0 */
	b[80 + 6] = 0xb1;
	b[80 + 7] = 0x20;
	check_verr(b, VB_SIZE, UW2_ERR_UIT_OPCODE, 80 + 6);
	b[64 + 3] = 6;			/* B1 20 B0 named first, then 00 ... */
	b[64 + 5] = 5;
	check_verr(b, VB_SIZE, UW2_ERR_UIT_OPCODE, 80 + 6);
}

TEST(verr_uit_trunc)
{
	u8 b[VB_SIZE];

	vb_init(b);
	b[80 + 8] = 0x00;		/* the last sequence never finishes */
	check_verr(b, VB_SIZE, UW2_ERR_UIT_TRUNC, 80 + 9);
	b[80 + 8] = 0x84;		/* a two-byte opcode cut in half */
	check_verr(b, VB_SIZE, UW2_ERR_UIT_TRUNC, 80 + 8);
	b[80 + 8] = 0xb2;
	check_verr(b, VB_SIZE, UW2_ERR_UIT_TRUNC, 80 + 8);
}

/* Sequences after Finish or Refuse, or unreachable ones, are not read. */
TEST(validate_only_reachable)
{
	u8 b[VB_SIZE];

	vb_init(b);
	vb_set(b, 7, 12);
	b[80 + 9] = 0x9d;		/* garbage no FOT entry points at */
	b[80 + 10] = 0xff;
	b[80 + 11] = 0x80;
	check_verr(b, VB_SIZE, UW2_OK, 0);
}

/*
 * A one-page table of @nf functions, function i on FOT list @fot_at[i % 2]
 * of @fot (@fot_size bytes), and @uit.  The caller frees it.
 */
static u8 *vb_build(u32 nf, const u8 *fot, u32 fot_size, const u32 *fot_at,
		    const u8 *uit, u32 uit_size, u32 *size)
{
	u32 ft = 36, fo = ft + 4 * nf, ui = fo + fot_size;
	u8 *b;

	*size = ui + uit_size;
	b = calloc(1, *size);
	wt_header(b, 1, ft, nf, fo, fot_size, ui, uit_size);
	for (u32 i = 0; i < nf; i++) {
		b[ft + 4 * i] = i;
		b[ft + 4 * i + 1] = i >> 8;
		b[ft + 4 * i + 2] = fot_at[i & 1];
		b[ft + 4 * i + 3] = fot_at[i & 1] >> 8;
	}
	memcpy(b + fo, fot, fot_size);
	memcpy(b + ui, uit, uit_size);
	return b;
}

/* A FOT list of @pairs pairs, offsets falling to 0, all to sequence 0. */
static u32 vb_long_list(u8 *fot, u32 pairs)
{
	u32 n = 0;

	for (u32 i = 0; i < pairs; i++) {
		u32 off = pairs - 1 - i;

		fot[n++] = 0x80 | (off & 0x7f);
		fot[n++] = off >> 7;
		fot[n++] = 0;
	}
	return n;
}

/*
 * Many functions alternating between two long lists: without a memo,
 * work grows with functions times list length, and is refused; with one,
 * each list is checked once.
 */
TEST(verr_too_complex)
{
	enum { NF = 2000, PAIRS = UW2_FOT_PAIRS_MAX };
	static u8 fot[2 * 3 * PAIRS];
	static const u8 uit[] = { 0xb0 };
	u32 at[2] = { 0, 0 }, size, len;
	struct uw2_verror err;
	struct uw2_table t;
	u8 *b, *done;

	len = vb_long_list(fot, PAIRS);
	at[1] = len;
	len += vb_long_list(fot + len, PAIRS);
	b = vb_build(NF, fot, len, at, uit, sizeof(uit), &size);
	CHECK_EQ_U32(uw2_table_init(&t, b, size, &err), UW2_ERR_TOO_COMPLEX);
	CHECK(err.offset >= 36 + 4 * NF && err.offset < size);
	done = calloc(1, UW2_MEMO_BYTES(size));
	CHECK_EQ_U32(uw2_table_init_memo(&t, b, size, done, &err), UW2_OK);
	free(done);
	free(b);
}

/*
 * A sequence of UW2_SEQ_OPS_MAX opcodes is valid, one more is refused at
 * its start, with a memo or without, also where one walk joins another.
 */
TEST(verr_sequence_too_long)
{
	static const u8 fot[] = { 2, 1, 0, 0 };	/* (2, seq at 1), (0, at 0) */
	u8 uit[UW2_SEQ_OPS_MAX + 2];
	u32 at[2] = { 0, 0 }, size;
	u8 *b;

	memset(uit, 0x00, sizeof(uit));
	uit[sizeof(uit) - 1] = 0xb0;
	/*
	 * The first pair's sequence starts at UIT byte 1 (MAX + 1 opcodes
	 * with the Finish): refused at its start.
	 */
	b = vb_build(1, fot, sizeof(fot), at, uit, sizeof(uit), &size);
	check_verr(b, size, UW2_ERR_SEQ_LONG, size - sizeof(uit) + 1);
	free(b);
	/*
	 * Now MAX from byte 1, valid, and MAX + 1 from byte 0, which joins
	 * the first walk: the memo adds the count it kept.
	 */
	b = vb_build(1, fot, sizeof(fot), at, uit + 1, sizeof(uit) - 1,
		     &size);
	check_verr(b, size, UW2_ERR_SEQ_LONG, size - (sizeof(uit) - 1));
	free(b);
	b = vb_build(1, fot, sizeof(fot), at, uit + 2, sizeof(uit) - 2,
		     &size);
	check_verr(b, size, UW2_OK, 0);
	free(b);
}

/* A FOT list of UW2_FOT_PAIRS_MAX pairs is valid, one more is refused. */
TEST(verr_fot_list_too_long)
{
	static u8 fot[3 * (UW2_FOT_PAIRS_MAX + 1)];
	static const u8 uit[] = { 0xb0 };
	u32 at[2] = { 0, 0 }, size, len;
	u8 *b;

	len = vb_long_list(fot, UW2_FOT_PAIRS_MAX + 1);
	b = vb_build(1, fot, len, at, uit, sizeof(uit), &size);
	check_verr(b, size, UW2_ERR_FOT_LONG, 36 + 4);
	free(b);
	len = vb_long_list(fot, UW2_FOT_PAIRS_MAX);
	b = vb_build(1, fot, len, at, uit, sizeof(uit), &size);
	check_verr(b, size, UW2_OK, 0);
	free(b);
	/* a second function on the list's tail, after the first */
	at[1] = 3;
	b = vb_build(2, fot, len, at, uit, sizeof(uit), &size);
	check_verr(b, size, UW2_OK, 0);
	free(b);
}

/*
 * A pair of over 32 KiB (its offset's ULEB padded with 0x80s) is too far
 * from the next for the memo's link back: its list's counts are found by
 * decoding it again.  They must be right: a second function whose list
 * is one pair more than the first's, ending at MAX + 1, is refused.
 */
TEST(verr_memo_far_pair)
{
	enum { PAD = 0x8000, PAIRS = UW2_FOT_PAIRS_MAX };
	static u8 list[3 * PAIRS], fot[3 + 3 * PAIRS + PAD];
	static const u8 uit[] = { 0xb0 };
	u32 at[2] = { 3, 0 }, size, len, n;
	u8 *b;

	for (n = PAIRS - 1; n <= PAIRS; n++) {
		len = vb_long_list(list, n);
		/* first the extra pair (offset n, to sequence 0) ... */
		fot[0] = 0x80 | (n & 0x7f);
		fot[1] = n >> 7;
		fot[2] = 0;
		/* ... then the list, its second pair's offset padded */
		memcpy(fot + 3, list, 3);
		fot[6] = 0x80 | list[3];
		fot[7] = 0x80 | list[4];
		memset(fot + 8, 0x80, PAD);
		fot[8 + PAD] = 0;
		fot[9 + PAD] = list[5];
		memcpy(fot + 10 + PAD, list + 6, len - 6);
		b = vb_build(2, fot, len + 4 + PAD, at, uit, sizeof(uit), &size);
		check_verr(b, size, n == PAIRS ? UW2_ERR_FOT_LONG : UW2_OK,
			   36 + 8);
		free(b);
	}
}

/*
 * A sequence without an end runs off its UIT onto the FOT's first byte,
 * a FOT list's start the memo had marked (fuzz_unwind_v2): the memo took
 * it for a checked opcode, and passed the table.
 */
TEST(verr_memo_sequence_runs_into_fot)
{
	static const u8 blob[] = {
		0x20, 0, 0, 0, 1, 0, 0, 0,	/* page table at 0x20, 1 */
		0x24, 0, 0, 0, 1, 0, 0, 0,	/* functions at 0x24, 1 */
		0x38, 0, 0, 0, 4, 0, 0, 0,	/* FOT at 0x38, 4 bytes */
		0x2c, 0, 0, 0, 12, 0, 0, 0,	/* UIT at 0x2c, 12 bytes */
		0, 0, 0, 0,			/* page 0: function 0 */
		0, 0, 0, 0,			/* offset 0, FOT list 0 */
		0, 0, 0, 0,			/* unused */
		0, 0, 0, 0, 0x0b, 0x56, 0x56, 0x56,	/* UIT: no finish */
		0x56, 0x56, 0x56, 0,
		2, 0, 0, 0,			/* FOT: (2, 0), (0, 0) */
	};

	check_verr(blob, sizeof(blob), UW2_ERR_UIT_TRUNC, 0x38);
}

/*
 * One page of @n functions over one FOT list of @n three-byte pairs,
 * offsets falling to 0, each to sequence 0: function i starts at pair i,
 * or with @from_end at pair n - 1 - i.  The function table is at byte 36,
 * the FOT at *@fot; *@size is the blob's.
 */
static u8 *vb_functions_on_list(u32 n, bool from_end, u32 *fot, u32 *size)
{
	u32 ft = 36, uit, first, off;
	u8 *b;

	*fot = ft + 4 * n;
	uit = *fot + 3 * n;
	*size = uit + 1;
	b = calloc(1, *size);
	uw2g_put32(b + 0, 32);
	uw2g_put32(b + 4, 1);
	uw2g_put32(b + 8, ft);
	uw2g_put32(b + 12, n);
	uw2g_put32(b + 16, *fot);
	uw2g_put32(b + 20, 3 * n);
	uw2g_put32(b + 24, uit);
	uw2g_put32(b + 28, 1);
	for (u32 i = 0; i < n; i++) {
		off = n - 1 - i;	/* pair i: offsets fall to 0 */
		first = from_end ? off : i;
		b[ft + 4 * i] = i;
		b[ft + 4 * i + 1] = i >> 8;
		b[ft + 4 * i + 2] = 3 * first;
		b[ft + 4 * i + 3] = (3 * first) >> 8;
		b[*fot + 3 * i] = 0x80 | (off & 0x7f);
		b[*fot + 3 * i + 1] = off >> 7;
		b[*fot + 3 * i + 2] = 0;	/* sequence 0 */
	}
	b[uit] = 0xb0;
	return b;
}

/*
 * Functions that each start one pair further into a long list: the memo
 * keeps every pair it checked, so each list stops at the first pair the
 * one before checked, and validation stays linear (the square of the
 * list's length is over the budget); without a memo it is refused.
 */
TEST(verr_too_complex_memo)
{
	enum { L = 2500 };
	u32 fot, size;
	u8 *b = vb_functions_on_list(L, false, &fot, &size);
	u8 *done = calloc(1, UW2_MEMO_BYTES(size));
	struct uw2_verror err;
	struct uw2_table t;

	CHECK_EQ_U32(uw2_table_init(&t, b, size, &err), UW2_ERR_TOO_COMPLEX);
	CHECK_EQ_U32(uw2_table_init_memo(&t, b, size, done, &err), UW2_OK);
	/* one list for all of them is fine */
	for (u32 i = 0; i < L; i++) {
		b[36 + 4 * i + 2] = 0;
		b[36 + 4 * i + 3] = 0;
	}
	memset(done, 0, UW2_MEMO_BYTES(size));
	CHECK_EQ_U32(uw2_table_init_memo(&t, b, size, done, &err), UW2_OK);
	free(done);
	free(b);
}

/*
 * Functions that each start one pair earlier into a long list: each walk
 * joins the list the one before checked, one pair in, where the memo has
 * no count yet and makes one.  The counts must be right: the list of
 * UW2_FOT_PAIRS_MAX pairs passes, one of a pair more is refused at the
 * last function's list.
 */
TEST(verr_memo_joins_count)
{
	struct uw2_verror err;
	struct uw2_table t;
	u32 n, fot, size;
	u8 *b, *done;

	for (n = UW2_FOT_PAIRS_MAX; n <= UW2_FOT_PAIRS_MAX + 1; n++) {
		b = vb_functions_on_list(n, true, &fot, &size);
		done = calloc(1, UW2_MEMO_BYTES(size));
		err.offset = 0;
		CHECK_EQ_U32(uw2_table_init_memo(&t, b, size, done, &err),
			     n > UW2_FOT_PAIRS_MAX ? UW2_ERR_FOT_LONG : UW2_OK);
		if (n > UW2_FOT_PAIRS_MAX)
			CHECK_EQ_U32(err.offset, fot);
		free(done);
		free(b);
	}
}

/* ---- whole unwinds ---- */

/*
 * Module A at 0x10000 (Thumb code), the scenario functions:
 *   L  0x100  leaf: push {r4, lr}            B0 | A8 B0
 *   M  0x200  push {r4-r7, lr}; sub sp, #12  B0 | AB B0 | 02 AB B0
 *   T  0x300  push {r4,r5,r7,lr}; add r7, sp, #8 (§5.9)
 *   R  0x400  thread entry: outermost        B1 00
 *   N  0x500  ends in a call to a noreturn function
 *   X  0x600  refuse filler, right after N
 *   Z  0x700  return to lr, sp unchanged     B0
 *   P  0x800  sp += 4 only                   00 B0
 *   Q  0x900  vsp = r7                       97 B0
 *   S  0xa00  sp += 8, lr never saved         01 B0 (a noreturn caller)
 *      0xa10  its call the generator proved   B1 10 (never returns)
 *   C  0xb00  clone wrapper: push {r4, lr}   B0 | A8 B0
 *      0xb10  after its svc, to its branch   B1 20 A8 B0 (r0 0: root)
 *      0xb14  the caller's path on           A8 B0
 *   E  0xe00  push {r4-r11, lr}              B0 | AF B0
 *   G  0xf00  push {r4, r11, lr}             B0 | 84 81 B0
 */
#define A_BASE 0x10000u
#define B_BASE 0x40000u

static const u8 s_b0[] = { 0xb0 };
static const u8 s_a8[] = { 0xa8, 0xb0 };
static const u8 s_ab[] = { 0xab, 0xb0 };
static const u8 s_02ab[] = { 0x02, 0xab, 0xb0 };
static const u8 s_t2[] = { 0x97, 0x41, 0x84, 0x0b, 0xb0 };
static const u8 s_t1[] = { 0x84, 0x0b, 0xb0 };
static const u8 s_root[] = { 0xb1, 0x00 };
static const u8 s_refuse[] = { 0x80, 0x00 };
static const u8 s_p[] = { 0x00, 0xb0 };
static const u8 s_q[] = { 0x97, 0xb0 };
static const u8 s_s[] = { 0x01, 0xb0 };
static const u8 s_noret[] = { 0xb1, 0x10 };
static const u8 s_clone[] = { 0xb1, 0x20, 0xa8, 0xb0 };
static const u8 s_af[] = { 0xaf, 0xb0 };
static const u8 s_g[] = { 0x84, 0x81, 0xb0 };
/* vsp += 4, vsp += 0xfffffffc (b2, ULEB 0x3fffff7e), pop {r4, lr} */
static const u8 s_wrap[] = { 0x00, 0xb2, 0xfe, 0xfe, 0xff, 0xff, 0x03, 0xa8, 0xb0 };

#define ROW(o, s) { (o), (s), sizeof(s) }

static const struct uw2g_row r_l[] = { ROW(1, s_a8), ROW(0, s_b0) };
static const struct uw2g_row r_m[] = {
	ROW(2, s_02ab), ROW(1, s_ab), ROW(0, s_b0),
};
static const struct uw2g_row r_t[] = {
	ROW(2, s_t2), ROW(1, s_t1), ROW(0, s_b0),
};
static const struct uw2g_row r_root[] = { ROW(0, s_root) };
static const struct uw2g_row r_n[] = { ROW(1, s_a8), ROW(0, s_b0) };
static const struct uw2g_row r_refuse[] = { ROW(0, s_refuse) };
static const struct uw2g_row r_z[] = { ROW(0, s_b0) };
static const struct uw2g_row r_p[] = { ROW(0, s_p) };
static const struct uw2g_row r_q[] = { ROW(0, s_q) };
static const struct uw2g_row r_s[] = { ROW(8, s_noret), ROW(0, s_s) };
static const struct uw2g_row r_w[] = { ROW(0, s_wrap) };
static const struct uw2g_row r_e[] = { ROW(1, s_af), ROW(0, s_b0) };
static const struct uw2g_row r_g[] = { ROW(1, s_g), ROW(0, s_b0) };
static const struct uw2g_row r_c[] = {
	ROW(10, s_a8), ROW(8, s_clone), ROW(2, s_a8), ROW(0, s_b0),
};

#define FN(start, rows) { (start), (rows), sizeof(rows) / sizeof(rows[0]) }

static const struct uw2g_func a_funcs[] = {
	FN(0x000, r_refuse), FN(0x100, r_l), FN(0x200, r_m),
	FN(0x300, r_t), FN(0x400, r_root), FN(0x500, r_n),
	FN(0x600, r_refuse), FN(0x700, r_z), FN(0x800, r_p),
	FN(0x900, r_q), FN(0xa00, r_s), FN(0xb00, r_c),
	FN(0xc00, r_refuse), FN(0xd00, r_w), FN(0xe00, r_e), FN(0xf00, r_g),
};

/*
 * K: push {r4-r7, lr}; sub sp, #8; mov r7, sp, and later a variable-sized
 * allocation below r7: vsp = r7; vsp += 8; pop {r4-r7, lr}.
 */
static const u8 s_k1[] = { 0x01, 0xab, 0xb0 };
static const u8 s_k2[] = { 0x97, 0x01, 0xab, 0xb0 };
static const struct uw2g_row r_k[] = {
	ROW(3, s_k2), ROW(2, s_k1), ROW(1, s_ab), ROW(0, s_b0),
};

/* Module B at 0x40000: a leaf, a two-page function, and K. */
static const struct uw2g_func b_funcs[] = {
	FN(0x000, r_l), FN(0x100, r_m), FN(0x20100, r_refuse),
	FN(0x2f000, r_k),
};

struct world {
	u8 a_blob[512], b_blob[512];
	u32 a_size, b_size;
	struct uw2_table a, b;
	struct uw2_module mods[2];
	struct mem mem;
	struct uw2_stack stack;
	struct uw2_regs regs;
	u32 frames[16];
	u32 n;
};

static void world_init(struct world *w)
{
	u32 na, nb;

	memset(w, 0, sizeof(*w));
	na = uw2g_build(a_funcs, sizeof(a_funcs) / sizeof(a_funcs[0]),
			0x1000, w->a_blob, sizeof(w->a_blob));
	nb = uw2g_build(b_funcs, sizeof(b_funcs) / sizeof(b_funcs[0]),
			0x30000, w->b_blob, sizeof(w->b_blob));
	CHECK(na && nb);
	w->a_size = na;
	w->b_size = nb;
	CHECK_EQ_U32(uw2_table_init(&w->a, w->a_blob, na, NULL), UW2_OK);
	CHECK_EQ_U32(uw2_table_init(&w->b, w->b_blob, nb, NULL), UW2_OK);
	w->mods[0] = (struct uw2_module){ A_BASE, A_BASE + 0x1000, &w->a, 0, 0 };
	w->mods[1] = (struct uw2_module){ B_BASE, B_BASE + 0x30000, &w->b, 0, 0 };
	w->mem.base = VSP;
	w->stack = mem_stack(&w->mem);
	w->regs.r[UW2_SP] = VSP;
}

/*
 * The shapes of @t, the table of the @size bytes at @blob, as the module
 * finds them (validated again with a memo, then uw2_shapes_find()), in
 * memory of their own; or none again (@on false).  *@mem: what they were
 * stored in.
 */
static void table_shapes(struct uw2_table *t, const u8 *blob, u32 size,
			 void **mem, bool on)
{
	struct uw2_check c = { 0 };
	u32 bytes;
	void *x;

	free(*mem);
	*mem = NULL;
	t->shape_at = NULL;
	t->shapes = NULL;
	if (!on)
		return;
	c.memo = calloc(1, UW2_MEMO_BYTES(size));
	CHECK(c.memo);
	CHECK_EQ_U32(uw2_table_check(t, blob, size, &c, NULL), UW2_OK);
	x = calloc(1, uw2_shapes_scratch_bytes(t));
	CHECK(x);
	bytes = uw2_shapes_find(t, x, &c);
	CHECK(bytes);
	*mem = malloc(bytes);
	CHECK(*mem);
	uw2_shapes_store(t, x, *mem, bytes);
	free(x);
	free(c.memo);
}

static void world_shapes(struct world *w, bool on)
{
	static void *mem[2];

	table_shapes(&w->a, w->a_blob, w->a_size, &mem[0], on);
	table_shapes(&w->b, w->b_blob, w->b_size, &mem[1], on);
}

/*
 * The fast paths change nothing: with the lookup cache (cold, then warm)
 * and the stack in a view (up to the word that faults), the same stop,
 * frames and final registers as the plain unwind of @start; asked for
 * frames only (UW2_F_FRAMES_ONLY, the last four passes), the same stop and
 * frames, and the same final sp and pc; the last two with direct loads
 * (the memory's reader standing in for them) and an empty view, as the
 * module walks.
 */
static void world_same_cached(struct world *w, const struct uw2_regs *start,
			      u32 max, unsigned int fl, enum uw2_stop stop)
{
	static struct uw2_cache cache;
	u32 frames[16], n, reads = w->mem.reads, len = 4 * MEM_WORDS, lookups = 0;
	struct uw2_stack stack = w->stack;
	struct uw2_view view;
	struct uw2_regs r;

	if (w->mem.fault_set && w->mem.fault_addr - w->mem.base < len)
		len = (w->mem.fault_addr - w->mem.base) & ~3u;
	view = (struct uw2_view){ (const u8 *)w->mem.words, w->mem.base, len,
				  0, 0 };
	stack.view = &view;
	/*
	 * entries checked against the array, then trusted by gen; their
	 * shapes decoded, then (passes 8 on) the tables' own
	 */
	for (int pass = 0; pass < 16; pass++) {
		unsigned int only = pass % 8 < 4 ? 0 : UW2_F_FRAMES_ONLY;
		struct uw2_cache_counts *c = &cache.counts;

		if (pass % 8 == 0) {
			world_shapes(w, pass);
			memset(&cache, 0, sizeof(cache));
		}

		/* the last pass keeps r11 in the loop where code is JIT's */
		if (pass % 8 == 7 && (w->mods[0].frames || w->mods[1].frames))
			only |= UW2_F_JIT;
		cache.gen = pass % 8 < 2 ? 0 : 7;
		if (pass % 8 >= 6) {
			stack.direct = true;
			stack.word = mem_word;
			view.len = 0;
		}
		r = *start;
		CHECK_EQ_U32(uw2_unwind_cached(w->mods, 2, &r, &stack, frames,
					       max, &n, fl | only, &cache),
			     stop);
		/* one pc (none with no room), and the same return addresses */
		CHECK_EQ_U32(c->walks, max > 0);
		CHECK(c->pc_misses <= c->walks);
		if (!pass)
			lookups = c->lookups;
		CHECK_EQ_U32(c->lookups, lookups);
		CHECK(c->ra_misses <= c->lookups - c->walks);
		CHECK(c->ra_loop <= c->lookups - c->walks);
		cache.counts = (struct uw2_cache_counts){ 0 };
		CHECK_EQ_U32(n, w->n);
		CHECK(!memcmp(frames, w->frames, 4 * (n < max ? n : max)));
		if (only) {
			CHECK_EQ_U32(r.r[UW2_SP], w->regs.r[UW2_SP]);
			CHECK_EQ_U32(r.r[UW2_PC], w->regs.r[UW2_PC]);
		} else {
			CHECK(!memcmp(&r, &w->regs, sizeof(r)));
		}
		if (pass % 8 == 7) {
			stack.direct = w->stack.direct;
			stack.word = w->stack.word;
			view.len = len;
		}
	}
	world_shapes(w, false);
	w->mem.reads = reads;
}

static enum uw2_stop world_unwind(struct world *w, u32 max, unsigned int fl)
{
	struct uw2_regs start = w->regs;
	enum uw2_stop stop;

	memset(w->frames, 0xee, sizeof(w->frames));
	stop = uw2_unwind(w->mods, 2, &w->regs, &w->stack, w->frames, max,
			  &w->n, fl);
	CHECK(!w->mem.outside);
	CHECK(w->n <= max);
	if (w->n < 16)
		CHECK_EQ_U32(w->frames[w->n], 0xeeeeeeee);
	world_same_cached(w, &start, max, fl, stop);
	return stop;
}

#define RA_M (A_BASE + 0x210 + 1)	/* Thumb return into M, past sub */
#define RA_T (A_BASE + 0x320 + 1)
#define RA_R (A_BASE + 0x404 + 1)

/* Sampled in L after its push, at sp @at, returning to @ra. */
static void world_in_l(struct world *w, u32 at, u32 ra)
{
	w->regs.r[UW2_PC] = A_BASE + 0x104;
	w->regs.r[UW2_LR] = 0x1234;	/* stale: L saved lr */
	w->regs.r[UW2_SP] = at;
	mem_put(&w->mem, at + 0, 0x44);	/* L: r4, lr */
	mem_put(&w->mem, at + 4, ra);
}

/*
 * T's frame with frame pointer @r7 (vsp = r7 - 8, then r4, r5, r7, lr),
 * returning to R.  Returns the sp it ends with.
 */
static u32 world_t_frame(struct world *w, u32 r7)
{
	mem_put(&w->mem, r7 - 8, 0x40);
	mem_put(&w->mem, r7, 0x77);
	mem_put(&w->mem, r7 + 4, RA_R);
	return r7 + 8;
}

/*
 * A four-frame stack, L <- M <- T <- R, sampled in L after its push, at
 * sp @at.  Returns the sp the walk ends with.
 */
static u32 world_stack_lmtr_at(struct world *w, u32 at)
{
	world_in_l(w, at, RA_M);
	/* M: 12 bytes of locals, then r4-r7, lr */
	mem_put(&w->mem, at + 20, 0x4);
	mem_put(&w->mem, at + 32, at + 48);	/* r7: T's frame pointer */
	mem_put(&w->mem, at + 36, RA_T);
	return world_t_frame(w, at + 48);
}

static u32 world_stack_lmtr(struct world *w)
{
	return world_stack_lmtr_at(w, VSP);
}

TEST(unwind_three_callers_to_root)
{
	struct world w;
	u32 end_sp;

	world_init(&w);
	end_sp = world_stack_lmtr(&w);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK_EQ_U32(w.frames[0], A_BASE + 0x104);
	CHECK_EQ_U32(w.frames[1], RA_M);
	CHECK_EQ_U32(w.frames[2], RA_T);
	CHECK_EQ_U32(w.frames[3], RA_R);
	CHECK_EQ_U32(w.regs.r[UW2_SP], end_sp);
	CHECK_EQ_U32(w.regs.r[7], 0x77);
	CHECK_EQ_U32(w.regs.r[4], 0x40);
}

/*
 * A caller's saved lr that cannot be read stops the walk there, however
 * the frame is reached: by the opcodes, from the cache's shape, or by the
 * caller loop's load (world_same_cached()'s warm and direct passes).
 */
TEST(unwind_caller_word_faults)
{
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	w.mem.fault_set = true;
	w.mem.fault_addr = VSP + 36;	/* M's lr, RA_T */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_READ_FAULT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], RA_M);
}

/*
 * M's words across a page boundary, its lr readable and its r5, in the
 * page below, not: the walk stops at M whichever way M is reached, the
 * caller loop's direct loads too, which load the frame's first word as
 * well when its words cross a page (a walk the loop ends, here by the
 * frame array filling up, keeps what the loop gave).
 */
TEST(unwind_caller_frame_across_pages)
{
	const u32 at = VSP - 28;	/* M's words from VSP - 8 to VSP + 8 */
	struct world w;

	world_init(&w);
	w.mem.base = VSP - 128;
	w.stack = mem_stack(&w.mem);
	world_stack_lmtr_at(&w, at);
	w.mem.fault_set = true;
	w.mem.fault_addr = at + 24;
	CHECK_EQ_U32(world_unwind(&w, 2, 0), UW2_STOP_READ_FAULT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], RA_M);
}

/*
 * A cache filled with one module array serves another only where that
 * array has the same table at the same index and place: a table put in
 * module A's place (a process that mapped something else there) is looked
 * up afresh, and gives its own answer.
 */
TEST(unwind_cache_not_stale)
{
	static struct uw2_cache cache;
	struct uw2_module swapped[2];
	u32 frames[16], want[16], n, nwant;
	struct uw2_regs start, r;
	enum uw2_stop stop;
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	start = w.regs;
	memset(&cache, 0, sizeof(cache));
	CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &w.regs, &w.stack, frames,
				       16, &n, 0, &cache), UW2_STOP_ROOT);
	CHECK_EQ_U32(n, 4);
	/* B's table at A's place: what the plain unwind says, not the cache */
	swapped[0] = (struct uw2_module){ A_BASE, A_BASE + 0x1000, &w.b, 0, 0 };
	swapped[1] = (struct uw2_module){ B_BASE, B_BASE + 0x30000, &w.a, 0, 0 };
	r = start;
	stop = uw2_unwind(swapped, 2, &r, &w.stack, want, 16, &nwant, 0);
	CHECK(stop != UW2_STOP_ROOT || nwant != 4);
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(swapped, 2, &r, &w.stack, frames, 16,
				       &n, 0, &cache), stop);
	CHECK_EQ_U32(n, nwant);
	CHECK(!memcmp(frames, want, 4 * n));
	/* and the original array still gets its own, from the cache or not */
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &w.stack, frames, 16,
				       &n, 0, &cache), UW2_STOP_ROOT);
	CHECK_EQ_U32(n, 4);
	/* A alone, at index 0 of a one-module array: entries of B are misses */
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(&w.mods[1], 1, &r, &w.stack, frames,
				       16, &n, 0, &cache), UW2_STOP_NO_TABLE);
}

/* The lmtr stack's world in @w and @start, and @cache emptied. */
static void world_lmtr_cache(struct world *w, struct uw2_regs *start,
			     struct uw2_cache *cache)
{
	world_init(w);
	world_stack_lmtr(w);
	*start = w->regs;
	memset(cache, 0, sizeof(*cache));
}

/* @start sampled at @pc: through @cache, what the plain unwind gives. */
static void world_same_at_pc(struct world *w, const struct uw2_regs *start,
			     u32 pc, struct uw2_cache *cache)
{
	u32 frames[16], want[16], n, nwant;
	enum uw2_stop stop;
	struct uw2_regs r;

	r = *start;
	r.r[UW2_PC] = pc;
	stop = uw2_unwind(w->mods, 2, &r, &w->stack, want, 16, &nwant, 0);
	r = *start;
	r.r[UW2_PC] = pc;
	CHECK_EQ_U32(uw2_unwind_cached(w->mods, 2, &r, &w->stack, frames, 16,
				       &n, 0, cache), stop);
	CHECK_EQ_U32(n, nwant);
	CHECK(!memcmp(frames, want, 4 * n));
}

/*
 * Sampled pcs are cached by range in slots of their 64-byte block: every
 * halfword of module A sampled in turn, three times over one cache (rows
 * of one block sharing a set, ranges found from several blocks), gives
 * what the plain unwind gives for it.
 */
TEST(unwind_cache_sampled_pcs)
{
	static struct uw2_cache cache;
	struct uw2_regs start;
	struct world w;

	world_lmtr_cache(&w, &start, &cache);
	for (int pass = 0; pass < 3; pass++) {
		cache.gen = pass ? 5 : 0;
		for (u32 pc = A_BASE; pc < A_BASE + 0x500; pc += 2)
			world_same_at_pc(&w, &start, pc, &cache);
	}
}

/*
 * A range of UW2_PC_WIDE_MIN bytes or more is kept in a wide slot too: in
 * module B's two-page function, whose last row runs to the page's end, a
 * pc in each 64-byte block of one 1 KiB block misses once, for the first
 * block, and the other blocks find the range there; each gives what the
 * plain unwind gives.  A pc of the next 1 KiB block, in no slot yet,
 * misses.
 */
TEST(unwind_cache_wide_range)
{
	static struct uw2_cache cache;
	struct uw2_regs start;
	struct world w;

	world_lmtr_cache(&w, &start, &cache);
	cache.gen = 4;
	for (u32 pc = B_BASE + 0x400; pc <= B_BASE + 0x800; pc += 64) {
		world_same_at_pc(&w, &start, pc + 6, &cache);
		CHECK_EQ_U32(cache.counts.pc_misses, pc < B_BASE + 0x800 ? 1 : 2);
	}
}

/*
 * With a gen, entries filled under another gen are misses: an array whose
 * contents changed, under a new gen, gets its own answer, not the one the
 * cache holds from the old array.
 */
TEST(unwind_cache_gen)
{
	static struct uw2_cache cache;
	struct uw2_module swapped[2];
	u32 frames[16], want[16], n, nwant;
	struct uw2_regs start, r;
	enum uw2_stop stop;
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	start = w.regs;
	memset(&cache, 0, sizeof(cache));
	cache.gen = 1;
	for (int pass = 0; pass < 2; pass++) {
		r = start;
		CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &w.stack, frames,
					       16, &n, 0, &cache),
			     UW2_STOP_ROOT);
		CHECK_EQ_U32(n, 4);
	}
	swapped[0] = (struct uw2_module){ A_BASE, A_BASE + 0x1000, &w.b, 0, 0 };
	swapped[1] = (struct uw2_module){ B_BASE, B_BASE + 0x30000, &w.a, 0, 0 };
	r = start;
	stop = uw2_unwind(swapped, 2, &r, &w.stack, want, 16, &nwant, 0);
	CHECK(stop != UW2_STOP_ROOT || nwant != 4);
	cache.gen = 2;
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(swapped, 2, &r, &w.stack, frames, 16,
				       &n, 0, &cache), stop);
	CHECK_EQ_U32(n, nwant);
	CHECK(!memcmp(frames, want, 4 * n));
	/* and gen 1's entries still were used for the array they came from */
	cache.gen = 1;
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &w.stack, frames, 16,
				       &n, 0, &cache), UW2_STOP_ROOT);
	CHECK_EQ_U32(n, 4);
}

/* Where @t's UIT holds the bytes @seq (the first place). */
static u32 uit_find(const struct uw2_table *t, const u8 *seq, u32 len)
{
	u32 i;

	for (i = 0; i + len <= t->uit_size; i++)
		if (!memcmp(t->uit + i, seq, len))
			return i;
	CHECK(0);
	return 0;
}

/* The number of the shape @t found for the sequence from UIT byte @pos. */
static u32 shape_num(const struct uw2_table *t, u32 pos)
{
	CHECK(pos < t->uit_size && t->shape_at[pos]);
	return pos < t->uit_size ? t->shape_at[pos] : 0;
}

static void check_shape(const struct uw2_table *t, const u8 *seq, u32 len,
			u32 simple, u32 base, u32 pre, u32 size, u32 mask)
{
	u32 num = shape_num(t, uit_find(t, seq, len));
	const struct uw2_seq_shape *s;

	if (!num)
		return;		/* failed in shape_num() */
	s = &t->shapes[num - 1];
	CHECK_EQ_U32(s->simple, simple);
	CHECK_EQ_U32(s->shape.base, base);
	CHECK_EQ_U32(s->shape.pre, pre);
	CHECK_EQ_U32(s->shape.size, size);
	CHECK_EQ_U32(s->shape.mask, mask);
	CHECK_EQ_U32(s->shape.count, __builtin_popcount(mask));
}

/*
 * The shapes a table gets when it is loaded are what its sequences'
 * opcodes say, and one number names each shape wherever it occurs: the
 * tail of a sequence (pop {r4-r7, lr} after vsp += 12) shares it with the
 * sequence of the same bytes, and not with its own whole.
 */
TEST(table_shapes_of_sequences)
{
	void *ma = NULL, *mb = NULL;
	struct world w;
	u32 pos, i;

	world_init(&w);
	table_shapes(&w.a, w.a_blob, w.a_size, &ma, true);
	table_shapes(&w.b, w.b_blob, w.b_size, &mb, true);
	check_shape(&w.a, s_a8, sizeof(s_a8), UW2_SHAPE_CALLER, UW2_SP, 0, 8,
		    0x4010);
	check_shape(&w.a, s_02ab, sizeof(s_02ab), UW2_SHAPE_CALLER, UW2_SP,
		    12, 32, 0x40f0);
	check_shape(&w.a, s_g, sizeof(s_g), UW2_SHAPE_CALLER, UW2_SP, 0, 12,
		    0x4810);
	check_shape(&w.b, s_k2, sizeof(s_k2), UW2_SHAPE_CALLER, UW2_R7, 8,
		    28, 0x40f0);
	check_shape(&w.a, s_b0, sizeof(s_b0), UW2_SHAPE_SIMPLE, UW2_SP, 0, 0,
		    0);
	check_shape(&w.a, s_root, sizeof(s_root), UW2_SHAPE_ROOT, 0, 0, 0, 0);
	check_shape(&w.a, s_refuse, sizeof(s_refuse), UW2_SHAPE_REFUSE, 0, 0,
		    0, 0);
	/* vsp = r7; vsp -= 8: no shape of the loop's */
	check_shape(&w.a, s_t2, sizeof(s_t2), UW2_SHAPE_NONE, 0, 0, 0, 0);
	pos = uit_find(&w.a, s_02ab, sizeof(s_02ab));
	CHECK_EQ_U32(shape_num(&w.a, pos + 1),
		     shape_num(&w.a, uit_find(&w.a, s_ab, sizeof(s_ab))));
	CHECK(shape_num(&w.a, pos + 1) != shape_num(&w.a, pos));
	/* every row's sequence, and no byte inside an opcode (the b2's) */
	for (i = 0; i < sizeof(a_funcs) / sizeof(a_funcs[0]); i++) {
		for (u32 k = 0; k < a_funcs[i].nrows; k++) {
			u32 off = a_funcs[i].start + 2 * a_funcs[i].rows[k].off;
			u32 instr, fot, uit;

			CHECK(uw2_lookup_function(&w.a, off, &instr, &fot));
			CHECK(uw2_lookup_sequence(&w.a, fot, instr, &uit));
			shape_num(&w.a, uit);
		}
	}
	pos = uit_find(&w.a, s_wrap, sizeof(s_wrap));
	CHECK_EQ_U32(w.a.shape_at[pos + 2], 0);
	table_shapes(&w.a, w.a_blob, w.a_size, &ma, false);
	table_shapes(&w.b, w.b_blob, w.b_size, &mb, false);
}

static bool pause_stop(void *ctx)
{
	++*(u32 *)ctx;
	return true;
}

static bool pause_go(void *ctx)
{
	++*(u32 *)ctx;
	return false;
}

/*
 * Finding a table's shapes pauses as validation does, every 65,536 UIT
 * bytes, and stops when the pause says so; a UIT past
 * UW2_SHAPES_UIT_MAX gets none (each new entry's sequence is decoded).
 */
TEST(table_shapes_pause_and_limit)
{
	struct uw2_table t = { 0 };
	struct uw2_check c = { .pause = pause_go };
	u32 calls = 0, size = 2 * 0x10000 + 1;
	u8 *uit = malloc(UW2_SHAPES_UIT_MAX + 1);
	u8 *memo = malloc(size);
	void *x;

	CHECK(uit && memo);
	memset(uit, 0xb0, UW2_SHAPES_UIT_MAX + 1);	/* finish, each */
	/* no FOT: the memo is the UIT's, each byte a named start */
	memset(memo, UW2_MEMO_NAMED | 1, size);
	t.uit = uit;
	t.uit_size = size;
	x = calloc(1, uw2_shapes_scratch_bytes(&t));
	CHECK(x);
	c.ctx = &calls;
	c.memo = memo;
	/* one shape for all: finish, nothing popped */
	CHECK_EQ_U32(uw2_shapes_find(&t, x, &c),
		     sizeof(struct uw2_seq_shape) + 2 * size);
	CHECK_EQ_U32(calls, 2);
	calls = 0;
	c.pause = pause_stop;
	CHECK_EQ_U32(uw2_shapes_find(&t, x, &c), 0);
	CHECK_EQ_U32(calls, 1);
	free(x);
	t.uit_size = UW2_SHAPES_UIT_MAX;
	CHECK(uw2_shapes_scratch_bytes(&t));
	t.uit_size = UW2_SHAPES_UIT_MAX + 1;
	CHECK_EQ_U32(uw2_shapes_scratch_bytes(&t), 0);
	CHECK_EQ_U32(uw2_shapes_find(&t, NULL, &c), 0);
	free(memo);
	free(uit);
}

/*
 * The cache counts its lookups: the same sample taken again and again
 * (a pc and three callers, ending at the root marker) misses once for
 * each address, then hits; the caller loop's frames are lookups too, its
 * own misses among them, and the counts add up to the lookups the frames
 * say were made.
 */
TEST(unwind_cache_counts)
{
	static struct uw2_cache cache;
	struct uw2_cache_counts *c = &cache.counts;
	u32 frames[16], n, reps = 5, len = 4 * MEM_WORDS;
	struct uw2_view view;
	struct uw2_stack stack;
	struct uw2_regs start, r;
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	start = w.regs;
	stack = w.stack;
	view = (struct uw2_view){ (const u8 *)w.mem.words, w.mem.base, len,
				  0, 0 };
	stack.view = &view;
	memset(&cache, 0, sizeof(cache));
	cache.gen = 3;
	for (u32 i = 0; i < reps; i++) {
		r = start;
		CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &stack, frames,
					       16, &n, UW2_F_FRAMES_ONLY,
					       &cache), UW2_STOP_ROOT);
		CHECK_EQ_U32(n, 4);
		if (!i) {	/* cold: every address missed */
			CHECK_EQ_U32(c->pc_misses, 1);
			CHECK_EQ_U32(c->ra_misses, n - 1);
			CHECK_EQ_U32(c->lookups, n);
			CHECK_EQ_U32(uw2_counts_pc_hits(c) +
				     uw2_counts_ra_hits(c), 0);
		}
	}
	CHECK_EQ_U32(c->walks, reps);
	CHECK_EQ_U32(c->lookups, reps * n);
	CHECK_EQ_U32(uw2_counts_pc_hits(c), reps - 1);
	CHECK_EQ_U32(c->pc_misses, 1);
	CHECK_EQ_U32(uw2_counts_ra_hits(c), (reps - 1) * (n - 1));
	CHECK_EQ_U32(c->ra_misses, n - 1);
	/*
	 * M's frame (it pops lr) and R's root marker are the caller loop's
	 * in every sample, the cold one too, whose misses the loop looked up
	 * itself; T's frame (vsp = r7 - 8) is uw2_step()'s
	 */
	CHECK_EQ_U32(c->ra_loop, reps * 2);
}

#define RA_K (B_BASE + 0x2f010 + 1)	/* Thumb return into K, past mov r7 */

/*
 * L <- K <- T <- R, sampled in L after its push, with K's frame pointer
 * @r7 in r7 (K's own is VSP + 24, 16 bytes above its sp).  Returns the sp
 * the walk ends with.
 */
static u32 world_stack_lktr(struct world *w, u32 r7)
{
	world_in_l(w, VSP, RA_K);
	w->regs.r[7] = r7;
	/* K: 16 bytes allocated, 8 of locals from r7, then r4-r7, lr */
	mem_put(&w->mem, VSP + 32, 0x4);
	mem_put(&w->mem, VSP + 44, VSP + 60);	/* r7: T's frame pointer */
	mem_put(&w->mem, VSP + 48, RA_T);
	return world_t_frame(w, VSP + 60);
}

/*
 * A frame whose words are counted from r7 (vsp = r7 first) is the caller
 * loop's when it has the registers: warm, with the copies (a view, direct
 * loads) and with frames only (it goes back for the copies), K's frame and
 * R's root marker are unwound in the loop, T's (vsp = r7 - 8) by
 * uw2_step(), with the plain walk's frames and sp.  An r7 the opcodes
 * refuse (below sp, not a word's address) stops every walk alike
 * (world_unwind()).
 */
TEST(unwind_r7_frame_in_caller_loop)
{
	static struct uw2_cache cache;
	const u32 want[] = { A_BASE + 0x104, RA_K, RA_T, RA_R };
	struct uw2_view view;
	struct uw2_stack stack;
	struct uw2_regs start, r;
	u32 frames[16], n, end, mode;
	struct world w;

	world_init(&w);
	end = world_stack_lktr(&w, VSP + 24);
	start = w.regs;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK(!memcmp(w.frames, want, sizeof(want)));
	CHECK_EQ_U32(w.regs.r[UW2_SP], end);
	/* copies; frames only: a view, direct loads, direct keeping r11 */
	for (mode = 0; mode < 4; mode++) {
		stack = w.stack;
		view = (struct uw2_view){ (const u8 *)w.mem.words, w.mem.base,
					  mode >= 2 ? 0 : 4 * MEM_WORDS, 0, 0 };
		stack.view = &view;
		if (mode >= 2) {
			stack.direct = true;
			stack.word = mem_word;
		}
		memset(&cache, 0, sizeof(cache));
		cache.gen = 9;
		for (int pass = 0; pass < 2; pass++) {
			r = start;
			cache.counts = (struct uw2_cache_counts){ 0 };
			CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &stack,
						       frames, 16, &n,
						       (mode ? UW2_F_FRAMES_ONLY :
							0) | (mode == 3 ?
							      UW2_F_JIT : 0),
						       &cache), UW2_STOP_ROOT);
			CHECK_EQ_U32(n, 4);
			CHECK(!memcmp(frames, want, sizeof(want)));
			CHECK_EQ_U32(r.r[UW2_SP], end);
		}
		CHECK_EQ_U32(cache.counts.ra_misses, 0);
		CHECK_EQ_U32(cache.counts.ra_loop, 2);
	}
	for (u32 bad = 0; bad < 2; bad++) {
		world_init(&w);
		world_stack_lktr(&w, bad ? VSP + 26 : VSP - 8);
		CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
		CHECK_EQ_U32(w.n, 2);
	}
}

TEST(unwind_max_depth)
{
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	CHECK_EQ_U32(world_unwind(&w, 2, 0), UW2_STOP_MAX_DEPTH);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], RA_M);
	/* the root frame fits exactly: that is root, not max-depth */
	world_init(&w);
	world_stack_lmtr(&w);
	CHECK_EQ_U32(world_unwind(&w, 4, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	world_init(&w);
	world_stack_lmtr(&w);
	CHECK_EQ_U32(world_unwind(&w, 0, 0), UW2_STOP_MAX_DEPTH);
	CHECK_EQ_U32(w.n, 0);
}

TEST(unwind_read_fault)
{
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	w.mem.fault_set = true;
	w.mem.fault_addr = VSP + 36;	/* M's saved lr */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_READ_FAULT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 8);	/* as L left it */
}

/*
 * A frame whose pc sits at the end of a FOT list of @pairs pairs
 * (sequence "pop {r4, lr}; finish"), on a stack whose every word returns
 * to it: each frame walks the whole list again.
 */
static enum uw2_stop budget_walk(u32 pairs, u32 *n)
{
	static u8 fot[3 * UW2_FOT_PAIRS_MAX];
	static const u8 uit[] = { 0xa8, 0xb0 };
	u32 at[2] = { 0, 0 }, size, frames[MEM_WORDS / 2];
	struct uw2_module mod;
	struct uw2_table t;
	struct uw2_regs regs;
	struct uw2_stack s;
	struct mem mem = { .base = VSP };
	enum uw2_stop stop;
	u8 *b;

	b = vb_build(1, fot, vb_long_list(fot, pairs), at, uit, sizeof(uit),
		     &size);
	CHECK_EQ_U32(uw2_table_init(&t, b, size, NULL), UW2_OK);
	mod = (struct uw2_module){ 0x20000, 0x40000, &t, 0, 0 };
	for (u32 i = 0; i < MEM_WORDS; i++)
		mem.words[i] = 0x20100;
	memset(&regs, 0, sizeof(regs));
	regs.r[UW2_PC] = 0x20100;
	regs.r[UW2_SP] = VSP;
	s = mem_stack(&mem);
	stop = uw2_unwind(&mod, 1, &regs, &s, frames, MEM_WORDS / 2, n, 0);
	free(b);
	return stop;
}

/*
 * One sample's steps are bounded whatever the table: frames that each
 * read thousands of FOT pairs stop as "budget" after UW2_SAMPLE_STEPS of
 * them, where short lists walk on to the depth limit.
 */
TEST(unwind_budget_bounds_a_sample)
{
	u32 n, per_frame = UW2_FOT_PAIRS_MAX - 0x80;

	CHECK_EQ_U32(budget_walk(UW2_FOT_PAIRS_MAX, &n), UW2_STOP_BUDGET);
	CHECK_EQ_U32(n, UW2_SAMPLE_STEPS / per_frame + 1);
	CHECK_EQ_U32(budget_walk(0xa0, &n), UW2_STOP_MAX_DEPTH);
	CHECK_EQ_U32(n, MEM_WORDS / 2);
}

static int budget_read(void *ctx, u32 addr, u32 *val)
{
	(void)ctx;
	(void)addr;
	(void)val;
	return UW2_READ_BUDGET;
}

static int copy_zeroes(void *ctx, void *dst, u32 src, u32 len)
{
	(void)ctx;
	(void)src;
	memset(dst, 0, len);
	return 0;
}

/* A copy that faults past the end of its first page. */
static int copy_one_page(void *ctx, void *dst, u32 src, u32 len)
{
	if ((src & 4095) + len > 4096)
		return -1;
	return copy_zeroes(ctx, dst, src, len);
}

static u32 copy_fails_calls;

static int copy_fails(void *ctx, void *dst, u32 src, u32 len)
{
	(void)ctx;
	(void)dst;
	(void)src;
	(void)len;
	copy_fails_calls++;
	return -1;
}

/*
 * A reader that may copy no more ends the unwind as "budget", and the
 * view's fill count is what it spends.
 */
TEST(unwind_copy_budget)
{
	struct world w;
	struct uw2_view v = { .fills_left = 1 };
	u8 buf[64];
	u32 val;

	world_init(&w);
	world_stack_lmtr(&w);
	w.stack.read = budget_read;
	CHECK_EQ_U32(uw2_unwind(w.mods, 2, &w.regs, &w.stack, w.frames, 16,
				&w.n, 0), UW2_STOP_BUDGET);
	CHECK_EQ_U32(w.n, 1);
	CHECK_EQ_U32(uw2_view_fill(&v, buf, 64, VSP, &val, copy_zeroes, NULL),
		     0);
	CHECK_EQ_U32(uw2_view_fill(&v, buf, 64, VSP + 4, &val, copy_zeroes,
				   NULL), 0);
	CHECK_EQ_U32(uw2_view_fill(&v, buf, 64, VSP + 64, &val, copy_zeroes,
				   NULL), (u32)UW2_READ_BUDGET);
}

/* An empty view with @top, filled for @addr through @copy, 256-byte spans. */
static int fill_fresh(struct uw2_view *v, u32 top, u32 addr,
		      int (*copy)(void *ctx, void *dst, u32 src, u32 len))
{
	static u8 buf[256];
	u32 val;

	v->len = 0;
	v->top = top;
	return uw2_view_fill(v, buf, 256, addr, &val, copy, NULL);
}

/*
 * A view's top ends a copy at top's 64-byte line when top lies above the
 * miss, across a page boundary too, and is no bound otherwise: a read
 * past it copies again from the missed line, a span or up to the page's
 * end.  A copy across a page that fails is made again within the page.
 */
TEST(unwind_copy_ends_at_top)
{
	static const struct {
		u32 top, addr, lo, len;
	} cases[] = {
		{ 0x10044, 0x10008, 0x10000, 128 },	/* ends at top's line */
		{ 0x10044, 0x10080, 0x10080, 256 },	/* past top: a span */
		{ 0x11040, 0x10f84, 0x10f80, 192 },	/* across the page */
		{ 0, 0x10f84, 0x10f80, 128 },		/* no top: the page's end */
		{ 0x10804, 0x10804, 0x10800, 256 },	/* top at the miss */
	};
	struct uw2_view v = { .fills_left = 16 };
	u32 i, n = sizeof(cases) / sizeof(cases[0]), val;
	u8 buf[256];

	for (i = 0; i < n; i++) {
		CHECK_EQ_U32(fill_fresh(&v, cases[i].top, cases[i].addr,
					copy_zeroes), 0);
		CHECK_EQ_U32(v.lo, cases[i].lo);
		CHECK_EQ_U32(v.len, cases[i].len);
	}
	/* a word in the view: no copy (copy_fails would count one) */
	CHECK_EQ_U32(uw2_view_fill(&v, buf, 256, 0x108fc, &val, copy_fails,
				   NULL), 0);
	CHECK_EQ_U32(v.fills_left, 16 - n);
	/* across the page fails: within it, and no guess for the sample */
	CHECK_EQ_U32(fill_fresh(&v, 0x11040, 0x10f84, copy_one_page), 0);
	CHECK_EQ_U32(v.lo, 0x10f80);
	CHECK_EQ_U32(v.len, 128);
	CHECK_EQ_U32(v.top, 0);
	/* a failure within the page is the read's: no second copy */
	CHECK_EQ_U32(fill_fresh(&v, 0x10f00, 0x10e04, copy_fails), (u32)-1);
	CHECK_EQ_U32(v.len, 0);
	CHECK_EQ_U32(copy_fails_calls, 1);
}

TEST(unwind_window_ends_mid_stack)
{
	struct world w;

	world_init(&w);
	world_stack_lmtr(&w);
	w.stack.hi = VSP + 40;		/* M's pop fits, T's does not */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 3);
	world_init(&w);
	world_stack_lmtr(&w);
	w.stack.hi = VSP + 36;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 2);
}

/* ARM (bit 0 clear) and Thumb return addresses unwind alike. */
TEST(unwind_arm_and_thumb_return_addresses)
{
	struct world w;

	for (u32 thumb = 0; thumb < 2; thumb++) {
		world_init(&w);
		world_stack_lmtr(&w);
		mem_put(&w.mem, VSP + 4, RA_M - 1 + thumb);
		mem_put(&w.mem, VSP + 36, RA_T - 1 + thumb);
		CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
		CHECK_EQ_U32(w.n, 4);
		CHECK_EQ_U32(w.frames[1], RA_M - 1 + thumb);
		CHECK_EQ_U32(w.frames[2], RA_T - 1 + thumb);
	}
}

/*
 * N ends in a call to a noreturn function, so its return address is the
 * first byte of X, a refuse filler.  At the call site the walk goes on
 * through N; Chrome's bare lookup lands in X.
 */
TEST(unwind_call_site_vs_chrome_compat)
{
	struct world w;

	for (u32 compat = 0; compat < 2; compat++) {
		world_init(&w);
		w.regs.r[UW2_PC] = A_BASE + 0x700;	/* Z: B0 */
		w.regs.r[UW2_LR] = A_BASE + 0x600 + 1;
		mem_put(&w.mem, VSP + 0, 0x44);		/* N: r4, lr */
		mem_put(&w.mem, VSP + 4, RA_R);
		if (!compat) {
			CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
			CHECK_EQ_U32(w.n, 3);
			CHECK_EQ_U32(w.frames[2], RA_R);
		} else {
			CHECK_EQ_U32(world_unwind(&w, 16, UW2_F_CHROME_COMPAT),
				     UW2_STOP_REFUSED);
			CHECK_EQ_U32(w.n, 2);
		}
		CHECK_EQ_U32(w.frames[1], A_BASE + 0x601);
	}
}

/* The sampled pc is exact: it is looked up as is, never moved back. */
/*
 * A caller whose vsp additions wrap 32 bits (b2 with a ULEB near 2^30):
 * the plain walk stops there (bad-sp), and the cached one must too, not
 * take the sequence for a pop at the frame's sp (the shape of a
 * sequence sums its additions without wrapping).
 */
TEST(unwind_shape_vsp_wraps)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;	/* L after its push */
	mem_put(&w.mem, VSP + 0, 0x44);
	mem_put(&w.mem, VSP + 4, A_BASE + 0xd10 + 1);	/* into W */
	/* what a wrapped sum would pop: r4, lr into R */
	mem_put(&w.mem, VSP + 8, 0x55);
	mem_put(&w.mem, VSP + 12, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 2);
}

TEST(unwind_sampled_pc_not_adjusted)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x400;	/* first byte of R */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 1);
	/* as a return address the same value is a call at the end of T */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;
	w.regs.r[UW2_LR] = A_BASE + 0x400;
	w.regs.r[7] = VSP + 16;
	mem_put(&w.mem, VSP + 20, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 3);
	CHECK_EQ_U32(w.frames[2], RA_R);
}

TEST(unwind_across_modules)
{
	struct world w;

	world_init(&w);
	/* leaf in B's L, called from B's M, called from A's T, from R */
	w.regs.r[UW2_PC] = B_BASE + 0x004;
	mem_put(&w.mem, VSP + 0, 0x44);
	mem_put(&w.mem, VSP + 4, B_BASE + 0x110);	/* ARM return */
	mem_put(&w.mem, VSP + 32, VSP + 48);
	mem_put(&w.mem, VSP + 36, RA_T);
	mem_put(&w.mem, VSP + 52, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK_EQ_U32(w.frames[0], B_BASE + 0x004);
	CHECK_EQ_U32(w.frames[1], B_BASE + 0x110);
	CHECK_EQ_U32(w.frames[2], RA_T);
	CHECK_EQ_U32(w.frames[3], RA_R);
}

TEST(unwind_second_page_of_function)
{
	struct world w;

	world_init(&w);
	/* B's M starts at 0x100 on page 0 and runs on until 0x20100 */
	w.regs.r[UW2_PC] = B_BASE + 0x20010;
	mem_put(&w.mem, VSP + 12, 0x44);
	mem_put(&w.mem, VSP + 28, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 32);
	/* its refuse filler on page 1 */
	world_init(&w);
	w.regs.r[UW2_PC] = B_BASE + 0x20110;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_REFUSED);
}

/* ---- §3.3: one test per way a frame is refused ---- */

TEST(rule_no_table)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = 0x8000;		/* no module */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_TABLE);
	CHECK_EQ_U32(w.n, 1);
	world_init(&w);
	w.mods[1].text_end = B_BASE + 0x50000;	/* past the table's pages */
	w.regs.r[UW2_PC] = B_BASE + 0x40000;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_TABLE);
	world_init(&w);
	w.mods[0].table = NULL;
	w.regs.r[UW2_PC] = A_BASE + 0x100;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_TABLE);
	/* a caller outside every module */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x700;
	w.regs.r[UW2_LR] = 0x30000;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_TABLE);
	CHECK_EQ_U32(w.n, 2);
}

TEST(rule_refused)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x10;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_REFUSED);
	CHECK_EQ_U32(w.n, 1);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP);
}

TEST(rule_sp_above_window_after_opcode)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x800;	/* P: 00 B0 */
	w.regs.r[UW2_SP] = w.stack.hi;	/* an empty stack is fine... */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.mem.reads, 0);
}

TEST(rule_sp_below_frame_start)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x900;	/* Q: 97 B0 */
	w.regs.r[UW2_SP] = VSP + 16;
	w.regs.r[7] = VSP + 8;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	/* the same with r7 above sp unwinds the frame */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x900;
	w.regs.r[UW2_SP] = VSP + 16;
	w.regs.r[7] = VSP + 24;
	w.regs.r[UW2_LR] = RA_R;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
}

TEST(rule_sp_unaligned_after_opcode)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x900;
	w.regs.r[7] = VSP + 10;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
}

TEST(rule_sp_overflow)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x800;
	w.regs.r[UW2_SP] = 0xfffffffc;
	w.stack.lo = 0xffffff00;
	w.stack.hi = 0xffffffff;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.regs.r[UW2_SP], 0xfffffffc);
}

TEST(rule_sp_below_window)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x700;	/* B0 alone, no read */
	w.regs.r[UW2_LR] = RA_R;
	w.regs.r[UW2_SP] = VSP - 8;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
}

/* Hand-written code calls with sp at 4 mod 8: word alignment suffices. */
TEST(rule_frame_sp_word_aligned)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x800;	/* P: sp += 4 */
	w.regs.r[UW2_LR] = RA_R;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], RA_R);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 4);
}

/*
 * Chrome's reader asks for an 8-aligned sp after every frame, so a
 * --chrome-compat walk stops where uwprof's own walk goes on: at the
 * sampled frame, and at a caller (P as a caller, found at its return
 * address as Chrome looks it up; its pc is lr, left by the call into Z).
 * The failed frame leaves the registers as they were.
 */
TEST(rule_frame_sp_8_aligned_chrome_compat)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x800;	/* P: sp += 4 */
	w.regs.r[UW2_LR] = RA_R;
	CHECK_EQ_U32(world_unwind(&w, 16, UW2_F_CHROME_COMPAT),
		     UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 1);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP);
	CHECK_EQ_U32(w.regs.r[UW2_PC], A_BASE + 0x800);

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x700;	/* Z: B0 */
	w.regs.r[UW2_LR] = A_BASE + 0x805;	/* into P */
	CHECK_EQ_U32(world_unwind(&w, 16, UW2_F_CHROME_COMPAT),
		     UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], A_BASE + 0x805);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP);
	/* an 8-aligned frame passes: L pops r4, lr */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, UW2_F_CHROME_COMPAT),
		     UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 8);
}

TEST(rule_caller_must_raise_sp)
{
	struct world w;

	/* L returns into Z, whose B0 leaves sp where it was */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, A_BASE + 0x702);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 2);
	/* a leaf may keep sp: Z as the sampled frame returns to L's caller */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;
	w.regs.r[UW2_LR] = RA_R;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 2);
}

TEST(rule_leaf_no_progress)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;
	w.regs.r[UW2_LR] = A_BASE + 0x702;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_PROGRESS);
	CHECK_EQ_U32(w.n, 1);
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;
	w.regs.r[UW2_LR] = A_BASE + 0x703;	/* same, Thumb bit set */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_PROGRESS);
}

/*
 * A caller frame that restores neither lr nor pc: its own call overwrote
 * lr, so there is no return address to go on with.
 */
TEST(rule_caller_without_saved_lr)
{
	struct world w;

	/* L (saves lr) returns into S, which never saved lr */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, A_BASE + 0xa05);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_PROGRESS);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], A_BASE + 0xa05);
	/* as the sampled frame S may return through lr */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0xa04;
	w.regs.r[UW2_LR] = RA_R;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 2);
	/* Chrome has no such rule: lr is taken again, the same address */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, A_BASE + 0xa05);
	CHECK_EQ_U32(world_unwind(&w, 3, UW2_F_CHROME_COMPAT),
		     UW2_STOP_MAX_DEPTH);
	CHECK_EQ_U32(w.frames[2], A_BASE + 0xa05);
}

/*
 * A call the table marks as never returning ends the walk as complete,
 * with the caller's return address kept as the last frame; the same
 * function's other calls keep the no-progress rule.
 */
TEST(rule_noreturn_call_site)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;	/* L: pops r4, lr */
	mem_put(&w.mem, VSP + 4, A_BASE + 0xa15);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NORETURN);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], A_BASE + 0xa15);
	/* the frame's registers are those of the marked frame, untouched */
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 8);
	/* a return address before the marked call is still no-progress */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, A_BASE + 0xa0f);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_PROGRESS);
}

/*
 * Sampled in a function after it made a call that never returns: lr is
 * that call's return address, inside the same function, and no caller.
 * The sampled frame alone is the chain, complete.
 */
TEST(rule_noreturn_stale_lr_of_the_sampled_function)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0xa04;	/* S: sp += 8, pc = lr */
	w.regs.r[UW2_LR] = A_BASE + 0xa15;	/* after S's marked call */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NORETURN);
	CHECK_EQ_U32(w.n, 1);
	CHECK_EQ_U32(w.frames[0], A_BASE + 0xa04);
	/* the registers are the sampled frame's */
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP);
	CHECK_EQ_U32(w.regs.r[UW2_PC], A_BASE + 0xa04);
	/* lr into another function at its marked call is a real caller */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;	/* Z: pc = lr */
	w.regs.r[UW2_LR] = A_BASE + 0xa15;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NORETURN);
	CHECK_EQ_U32(w.n, 2);
	CHECK_EQ_U32(w.frames[1], A_BASE + 0xa15);
}

/* Recursion: every frame pops the same return address, which is fine. */
TEST(rule_recursion_pops_same_return_address)
{
	struct world w;
	u32 ra = A_BASE + 0x108 + 1;	/* inside L, after its push */

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, ra);
	mem_put(&w.mem, VSP + 12, ra);
	mem_put(&w.mem, VSP + 20, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK_EQ_U32(w.frames[1], ra);
	CHECK_EQ_U32(w.frames[2], ra);
}

TEST(rule_root_marker_and_zero_return)
{
	struct world w;

	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x410;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 1);
	CHECK_EQ_U32(w.mem.reads, 0);
	/* Finish with lr = 0 is the outermost frame too */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x702;
	w.regs.r[UW2_LR] = 0;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 1);
	/* a popped return address of 0 */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;
	mem_put(&w.mem, VSP + 4, 0);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 1);
}

/*
 * The clone marker: sampled after the clone wrapper's svc, r0 0 is the
 * new thread's outermost frame, any other r0 the caller's frame, which
 * goes on; in registers saved on kernel entry r0 0 may be the caller's
 * flags and refuses.  In a caller's frame r0 is a callee's: refused.
 */
TEST(rule_clone_marker)
{
	static const u32 r0s[] = { 0, 4321, 0x3d0f00, 0xfffffff5 };
	struct world w;

	for (u32 k = 0; k < 2; k++) {
		unsigned int fl = k ? UW2_F_KERNEL_REGS : 0;

		for (u32 i = 0; i < sizeof(r0s) / sizeof(r0s[0]); i++) {
			world_init(&w);
			w.regs.r[0] = r0s[i];
			w.regs.r[UW2_PC] = A_BASE + 0xb10 + (i & 1) * 2 + 1;
			mem_put(&w.mem, VSP + 4, RA_R);
			if (r0s[i]) {
				CHECK_EQ_U32(world_unwind(&w, 16, fl),
					     UW2_STOP_ROOT);
				CHECK_EQ_U32(w.n, 2);
				CHECK_EQ_U32(w.frames[1], RA_R);
			} else {
				CHECK_EQ_U32(world_unwind(&w, 16, fl),
					     k ? UW2_STOP_REFUSED :
						 UW2_STOP_ROOT);
				CHECK_EQ_U32(w.n, 1);
				CHECK_EQ_U32(w.mem.reads, 0);
			}
		}
	}
	/* a return address whose call site has the marker's row */
	world_init(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;	/* L, after its push */
	mem_put(&w.mem, VSP + 4, A_BASE + 0xb12 + 1);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_REFUSED);
	CHECK_EQ_U32(w.n, 2);
	/* a table not validated, the marker after another opcode: refused */
	for (u32 r0 = 0; r0 < 2; r0++) {
		static const u8 late[] = { 0x00, 0xb1, 0x20, 0xb0 };
		struct uw2_table t;
		struct uw2_module mod = { A_BASE, A_BASE + 0x1000, &t, 0, 0 };
		u32 frames[4], n;
		u8 b[VB_SIZE];

		vb_init(b);
		vb_set(b, 7, sizeof(late));
		b[64 + 1] = 0;
		memcpy(b + 80, late, sizeof(late));
		CHECK(uw2_table_init(&t, b, VB_SIZE, NULL) != UW2_OK);
		CHECK_EQ_U32(uw2_table_parse_header(&t, b, VB_SIZE, NULL),
			     UW2_OK);
		world_init(&w);
		w.regs.r[0] = r0;
		w.regs.r[UW2_PC] = A_BASE + 0x10;
		CHECK_EQ_U32(uw2_unwind(&mod, 1, &w.regs, &w.stack, frames, 4,
					&n, 0), UW2_STOP_REFUSED);
		CHECK_EQ_U32(n, 1);
	}
}

/* Tables are validated, but the walk still stops on bad opcodes. */
TEST(rule_bad_opcode_at_run_time)
{
	static const u8 seqs[][2] = { { 0x9d }, { 0xb1, 0x30 }, { 0xc0 },
				      { 0x00 } };
	u8 b[VB_SIZE];
	struct uw2_table t;
	struct uw2_module mod = { A_BASE, A_BASE + 0x1000, &t, 0, 0 };
	struct mem m = { .base = VSP };
	struct uw2_stack s = mem_stack(&m);
	struct uw2_regs r;
	u32 frames[4], n;

	for (u32 i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		vb_init(b);
		/* one sequence only, at the end of the UIT */
		vb_set(b, 7, 2);
		b[64 + 1] = 0;
		b[80] = seqs[i][0];
		b[81] = seqs[i][1];
		CHECK(uw2_table_init(&t, b, VB_SIZE, NULL) != UW2_OK);
		CHECK_EQ_U32(uw2_table_parse_header(&t, b, VB_SIZE, NULL),
			     UW2_OK);
		memset(&r, 0, sizeof(r));
		r.r[UW2_SP] = VSP;
		r.r[UW2_PC] = A_BASE + 0x10;
		CHECK_EQ_U32(uw2_unwind(&mod, 1, &r, &s, frames, 4, &n, 0),
			     UW2_STOP_BAD_OPCODE);
		CHECK_EQ_U32(n, 1);
	}
}

/* ---- frames of JIT code (UW2_FRAMES_V8_ARM) ---- */

#define J_PC(off) (B_BASE + (off))	/* in the JIT range, module B's place */
#define V8_ENTRY_MARKER 2

/* The world with module B's range made JIT code of V8's kind. */
static void world_jit(struct world *w)
{
	world_init(w);
	w->mods[1] = (struct uw2_module){ B_BASE, B_BASE + 0x30000, NULL,
					  UW2_FRAMES_V8_ARM, 0 };
}

/* V8's frame at @fp: the caller's fp and the return address. */
static void jit_frame(struct world *w, u32 fp, u32 caller_fp, u32 ra)
{
	mem_put(&w->mem, fp, caller_fp);
	mem_put(&w->mem, fp + 4, ra);
}

/*
 * An entry frame at @fp returning to @ra: markers at fp - 8 and fp - 4,
 * d8-d15 in [fp + 8, fp + 72), the caller's r4-r10 (0x404..0x410) above.
 */
static void jit_entry(struct world *w, u32 fp, u32 marker, u32 ra)
{
	mem_put(&w->mem, fp - 8, marker);
	mem_put(&w->mem, fp - 4, marker);
	jit_frame(w, fp, 0x1111, ra);
	for (u32 i = 0; i < 16; i++)
		mem_put(&w->mem, fp + 8 + 4 * i, 0xdd00 + i);
	for (u32 i = 0; i < 7; i++)
		mem_put(&w->mem, fp + 72 + 4 * i, 0x404 + i);
}

/*
 * Sampled in JIT code: two V8 frames, then the entry frame, whose return
 * address is the outermost function R of module A.
 */
static void world_jit_stack(struct world *w)
{
	w->regs.r[UW2_PC] = J_PC(0x10);
	w->regs.r[UW2_FP] = VSP + 8;
	jit_frame(w, VSP + 8, VSP + 24, J_PC(0x104));
	jit_frame(w, VSP + 24, VSP + 48, J_PC(0x208));
	jit_entry(w, VSP + 48, V8_ENTRY_MARKER, RA_R);
}

TEST(jit_v8_chain_to_table)
{
	static const u32 want[] = { J_PC(0x10), J_PC(0x104), J_PC(0x208),
				    RA_R };
	struct world w;

	world_jit(&w);
	world_jit_stack(&w);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK(!memcmp(w.frames, want, sizeof(want)));
	/* the native caller's registers, as the entry frame saved them */
	for (u32 i = 0; i < 7; i++)
		CHECK_EQ_U32(w.regs.r[4 + i], 0x404 + i);
	CHECK_EQ_U32(w.regs.r[UW2_FP], 0x1111);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 48 + 100);
}

/*
 * JIT code is kept in the cache as such under a gen: the second walk of
 * the same stack finds its sampled pc and return addresses, with the
 * plain walk's frames; without a gen nothing vouches for the module, and
 * each walk looks them up again.
 */
TEST(jit_code_cached_under_gen)
{
	static const u32 want[] = { J_PC(0x10), J_PC(0x104), J_PC(0x208),
				    RA_R };
	static struct uw2_cache cache;
	u32 frames[16], n, gen, pass, misses;
	struct uw2_regs start, r;
	struct world w;

	world_jit(&w);
	world_jit_stack(&w);
	start = w.regs;
	for (gen = 0; gen < 2; gen++) {
		memset(&cache, 0, sizeof(cache));
		cache.gen = gen;
		for (pass = 0; pass < 2; pass++) {
			misses = cache.counts.pc_misses + cache.counts.ra_misses;
			r = start;
			CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &w.stack,
						       frames, 16, &n, 0,
						       &cache), UW2_STOP_ROOT);
			CHECK_EQ_U32(n, 4);
			CHECK(!memcmp(frames, want, sizeof(want)));
			misses = cache.counts.pc_misses +
				 cache.counts.ra_misses - misses;
			/* the pc and two JIT return addresses; RA_R's kept */
			if (pass)
				CHECK_EQ_U32(misses, gen ? 0 : 3);
		}
	}
	/* a new gen for a new module array: the range is JIT code no more */
	w.mods[1].frames = UW2_FRAMES_TABLE;
	cache.gen = 2;
	r = start;
	CHECK_EQ_U32(uw2_unwind_cached(w.mods, 2, &r, &w.stack, frames, 16,
				       &n, 0, &cache), UW2_STOP_NO_TABLE);
	CHECK_EQ_U32(n, 1);
}

/*
 * Two walks of @w from @start with one cache, cold then warm, each giving
 * @want (5 frames) at the root; the stack in a view of the whole memory,
 * or with @direct, loaded in place with an empty view.  Returns the warm
 * walk's counts; *@r the registers it ends with, *@reads its word reads.
 */
static struct uw2_cache_counts jit_warm_walk(struct world *w, const struct uw2_regs *start,
			 bool direct, unsigned int flags, const u32 *want,
			 struct uw2_regs *r, u32 *reads)
{
	static struct uw2_cache cache;
	struct uw2_stack stack = w->stack;
	struct uw2_view view = { (const u8 *)w->mem.words, w->mem.base,
				 direct ? 0 : 4 * MEM_WORDS, 0, 0 };
	u32 frames[16], n;

	stack.view = &view;
	if (direct) {
		stack.direct = true;
		stack.word = mem_word;
	}
	memset(&cache, 0, sizeof(cache));
	cache.gen = 5;
	for (int pass = 0; pass < 2; pass++) {
		*r = *start;
		cache.counts = (struct uw2_cache_counts){ 0 };
		w->mem.reads = 0;
		CHECK_EQ_U32(uw2_unwind_cached(w->mods, 2, r, &stack, frames,
					       16, &n, flags, &cache),
			     UW2_STOP_ROOT);
		CHECK_EQ_U32(n, 5);
		CHECK(!memcmp(frames, want, 5 * sizeof(*want)));
	}
	*reads = w->mem.reads;
	return cache.counts;
}

/*
 * The caller loop walks JIT frames whose return addresses it has seen
 * (cached chain links) from one to the next, and the entry frame back to
 * native code: with the register copies, with frames only asked (view,
 * direct loads, and direct loads keeping r11 for UW2_F_JIT): a warm walk
 * of three V8 frames and an entry frame unwinds all four in the loop, and
 * ends there at the root marker.  The frames, and with the copies the
 * registers the entry frame gives back, are the plain walk's.
 */
TEST(jit_v8_chain_in_caller_loop)
{
	static const u32 want[] = { J_PC(0x10), J_PC(0x104), J_PC(0x208),
				    J_PC(0x30c), RA_R };
	struct uw2_cache_counts c;
	u32 mode, reads;
	struct uw2_regs start, r;
	struct world w;

	world_jit(&w);
	w.regs.r[UW2_PC] = J_PC(0x10);
	w.regs.r[UW2_FP] = VSP + 8;
	jit_frame(&w, VSP + 8, VSP + 24, J_PC(0x104));
	jit_frame(&w, VSP + 24, VSP + 40, J_PC(0x208));
	jit_frame(&w, VSP + 40, VSP + 64, J_PC(0x30c));
	jit_entry(&w, VSP + 64, V8_ENTRY_MARKER, RA_R);
	start = w.regs;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 5);
	CHECK(!memcmp(w.frames, want, sizeof(want)));
	for (mode = 0; mode < 4; mode++) {
		c = jit_warm_walk(&w, &start, mode >= 2,
				  (mode ? UW2_F_FRAMES_ONLY : 0) |
				  (mode == 3 ? UW2_F_JIT : 0), want, &r, &reads);
		/* warm: the three return addresses, and the root's lookup */
		CHECK_EQ_U32(c.ra_loop, 4);
		CHECK_EQ_U32(c.ra_misses, 0);
		if (!mode)
			CHECK(!memcmp(&r, &w.regs, sizeof(r)));
		CHECK_EQ_U32(r.r[UW2_SP], VSP + 64 + 100);
	}
}

/*
 * Native code called from JIT code (exit frames) that saves r11 with its
 * run of registers (E: push {r4-r11, lr}) or apart from it (G: push {r4,
 * r11, lr}), sampled in a leaf it called: the caller loop without the
 * register copies keeps r11 from the native frame's words (UW2_F_JIT), and
 * walks the JIT frames and the entry frame after it with no second pass,
 * in fewer reads than without the flag.  Frames as the plain walk's: the
 * word before r11's, the entry frame's fp, would skip a JIT frame.
 */
TEST(jit_v8_loop_keeps_r11)
{
	u32 reads[2], f1, k, at;
	struct uw2_regs start, r;
	struct world w;

	for (k = 0; k < 2; k++) {
		/* L, then E's 9 words or G's 3, then the JIT frames */
		u32 ra = A_BASE + (k ? 0xf10 : 0xe10) + 1;
		u32 want[] = { A_BASE + 0x104, ra, J_PC(0x40), J_PC(0x104),
			       RA_R };

		world_jit(&w);
		w.regs.r[UW2_PC] = A_BASE + 0x104;
		w.regs.r[UW2_FP] = 0xbad0;	/* the leaf's, not JIT's */
		mem_put(&w.mem, VSP, 0x44);
		mem_put(&w.mem, VSP + 4, ra);
		at = VSP + 8;
		f1 = k ? VSP + 24 : VSP + 48;
		mem_put(&w.mem, at + (k ? 4 : 28), f1);		/* r11 */
		mem_put(&w.mem, at + (k ? 8 : 32), J_PC(0x40));	/* lr */
		/* the word before r11 is a frame pointer too, a wrong one */
		mem_put(&w.mem, at + (k ? 0 : 24), f1 + 16);
		jit_frame(&w, f1, f1 + 16, J_PC(0x104));
		jit_entry(&w, f1 + 16, V8_ENTRY_MARKER, RA_R);
		start = w.regs;
		CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
		CHECK_EQ_U32(w.n, 5);
		CHECK(!memcmp(w.frames, want, sizeof(want)));
		/* warm: every return address in the loop */
		for (u32 jit = 0; jit < 2; jit++)
			CHECK_EQ_U32(jit_warm_walk(&w, &start, true,
						   UW2_F_FRAMES_ONLY |
						   (jit ? UW2_F_JIT : 0), want,
						   &r, &reads[jit]).ra_loop, 4);
		CHECK(reads[1] < reads[0]);
	}
}

/* A construct entry frame is an entry frame too. */
TEST(jit_v8_construct_entry)
{
	struct world w;

	world_jit(&w);
	world_jit_stack(&w);
	jit_entry(&w, VSP + 48, 4, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
}

/*
 * Native code called from JIT code (an exit frame): the table unwinds
 * the native frame, r11 is still the JIT frame's fp, the chain goes on.
 */
TEST(jit_v8_exit_frame)
{
	static const u32 want[] = { A_BASE + 0x104, J_PC(0x40), J_PC(0x104),
				    J_PC(0x208), RA_R };
	struct world w;

	world_jit(&w);
	world_jit_stack(&w);
	w.regs.r[UW2_PC] = A_BASE + 0x104;	/* L, after push {r4, lr} */
	mem_put(&w.mem, VSP, 0x44);
	mem_put(&w.mem, VSP + 4, J_PC(0x40));
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 5);
	CHECK(!memcmp(w.frames, want, sizeof(want)));
}

/*
 * JIT code with rows made for it (a runtime's builtins in a table flagged
 * UWPROF_TABLE_JIT_ROWS): module B's table lent to its JIT range.  A row
 * is taken first (module B's leaf at 0x000 returns to lr); where the row
 * refuses (0x20100 on), V8's chain walks the frame.
 */
/*
 * Module B's table lent to its range as V8's JIT code, sampled at @pc with
 * r11 @fp; above @fp: a V8 frame returning to 0x20308, then the entry
 * frame returning to R.
 */
static void world_jit_rows(struct world *w, u32 pc, u32 fp)
{
	world_init(w);
	w->mods[1].frames = UW2_FRAMES_V8_ARM;
	w->regs.r[UW2_PC] = pc;
	w->regs.r[UW2_FP] = fp;
	jit_frame(w, VSP + 24, VSP + 48, J_PC(0x20308));
	jit_entry(w, VSP + 48, V8_ENTRY_MARKER, RA_R);
}

TEST(jit_v8_rows_first)
{
	static const u32 want[] = { J_PC(0x20110), J_PC(0x20204),
				    J_PC(0x20308), RA_R };
	static const u32 want_leaf[] = { J_PC(0x0), J_PC(0x20204),
					 J_PC(0x20308), RA_R };
	struct world w;

	/* sampled where the row refuses: the chain from r11 */
	world_jit_rows(&w, J_PC(0x20110), VSP + 8);
	jit_frame(&w, VSP + 8, VSP + 24, J_PC(0x20204));
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK(!memcmp(w.frames, want, sizeof(want)));

	/* sampled in the leaf: its row returns to lr, r11 untouched */
	world_jit_rows(&w, J_PC(0x0), VSP + 24);
	w.regs.r[UW2_LR] = J_PC(0x20204);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_ROOT);
	CHECK_EQ_U32(w.n, 4);
	CHECK(!memcmp(w.frames, want_leaf, sizeof(want_leaf)));

	/* the same table without the frame kind refuses there */
	world_init(&w);
	w.regs.r[UW2_PC] = J_PC(0x20110);
	w.regs.r[UW2_FP] = VSP + 8;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_REFUSED);
	CHECK_EQ_U32(w.n, 1);
}

/* Chains that loop, leave the stack or never reach tabled code. */
TEST(jit_v8_bad_chains)
{
	struct world w;

	/* a caller's fp below the frame's own: sp would fall */
	world_jit(&w);
	world_jit_stack(&w);
	jit_frame(&w, VSP + 24, VSP + 8, J_PC(0x208));
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 3);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 32);

	/* a frame pointing at itself */
	world_jit(&w);
	world_jit_stack(&w);
	jit_frame(&w, VSP + 8, VSP + 8, J_PC(0x104));
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 2);

	/* fp outside the stack window, below and above it */
	world_jit(&w);
	world_jit_stack(&w);
	w.regs.r[UW2_FP] = 0x100;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 1);
	world_jit(&w);
	world_jit_stack(&w);
	jit_frame(&w, VSP + 24, VSP + 4 * MEM_WORDS, J_PC(0x208));
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 3);

	/* a misaligned fp */
	world_jit(&w);
	world_jit_stack(&w);
	w.regs.r[UW2_FP] = VSP + 10;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);

	/* leaves JIT code with no entry frame: an exit marker, or none */
	world_jit(&w);
	world_jit_stack(&w);
	jit_entry(&w, VSP + 48, 6, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_JIT_CHAIN);
	CHECK_EQ_U32(w.n, 3);
	CHECK_EQ_U32(w.regs.r[UW2_SP], VSP + 32);
	world_jit(&w);
	world_jit_stack(&w);
	mem_put(&w.mem, VSP + 40, 4);	/* the two markers differ */
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_JIT_CHAIN);
	/* to no module at all */
	world_jit(&w);
	world_jit_stack(&w);
	jit_frame(&w, VSP + 24, VSP + 48, 0x90000);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_JIT_CHAIN);
	CHECK_EQ_U32(w.n, 2);
	/* where the code it left for is named, to examine it (follow.c) */
	CHECK_EQ_U32(uw2_jit_ra_at(w.mods, 2, &w.regs), VSP + 28);
	w.regs.r[UW2_PC] = A_BASE + 0x104;	/* no JIT code: none */
	CHECK_EQ_U32(uw2_jit_ra_at(w.mods, 2, &w.regs), 0);
	/* the markers would lie below the frame's sp */
	world_jit(&w);
	world_jit_stack(&w);
	jit_frame(&w, VSP + 8, VSP + 20, J_PC(0x104));
	jit_frame(&w, VSP + 20, VSP + 48, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_JIT_CHAIN);
	CHECK_EQ_U32(w.n, 2);

	/* the entry frame's saved registers run off the window */
	world_jit(&w);
	w.regs.r[UW2_PC] = J_PC(0x10);
	w.regs.r[UW2_FP] = VSP + 4 * MEM_WORDS - 40;
	mem_put(&w.mem, VSP + 4 * MEM_WORDS - 48, V8_ENTRY_MARKER);
	mem_put(&w.mem, VSP + 4 * MEM_WORDS - 44, V8_ENTRY_MARKER);
	jit_frame(&w, VSP + 4 * MEM_WORDS - 40, 0x1111, RA_R);
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_BAD_SP);
	CHECK_EQ_U32(w.n, 1);

	/* a read fault in the chain */
	world_jit(&w);
	world_jit_stack(&w);
	w.mem.fault_set = true;
	w.mem.fault_addr = VSP + 28;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_READ_FAULT);
	CHECK_EQ_U32(w.n, 2);
}

/*
 * JIT code inside a table's range (builtins embedded in a binary): the
 * table's range cut around it, its second part placed by skip.  The V8
 * frames return into R, found in the second part only through skip.
 */
TEST(jit_inside_a_cut_table)
{
	static const u32 want[] = { A_BASE + 0x310, A_BASE + 0x321,
				    A_BASE + 0x341, RA_R };
	struct uw2_module mods[3];
	u32 frames[16], n;
	struct world w;

	world_init(&w);
	mods[0] = (struct uw2_module){ A_BASE, A_BASE + 0x300, &w.a, 0, 0 };
	mods[1] = (struct uw2_module){ A_BASE + 0x300, A_BASE + 0x400, NULL,
				       UW2_FRAMES_V8_ARM, 0 };
	mods[2] = (struct uw2_module){ A_BASE + 0x400, A_BASE + 0x1000, &w.a,
				       0, 0x400 };
	w.regs.r[UW2_PC] = A_BASE + 0x310;
	w.regs.r[UW2_FP] = VSP + 8;
	jit_frame(&w, VSP + 8, VSP + 24, A_BASE + 0x321);
	jit_frame(&w, VSP + 24, VSP + 48, A_BASE + 0x341);
	jit_entry(&w, VSP + 48, V8_ENTRY_MARKER, RA_R);
	CHECK_EQ_U32(uw2_unwind(mods, 3, &w.regs, &w.stack, frames, 16, &n, 0),
		     UW2_STOP_ROOT);
	CHECK_EQ_U32(n, 4);
	CHECK(!memcmp(frames, want, sizeof(want)));
	/* without skip, R's address falls in the table's wrong function */
	world_init(&w);
	mods[2].skip = 0;
	w.regs.r[UW2_PC] = A_BASE + 0x310;
	w.regs.r[UW2_FP] = VSP + 8;
	jit_frame(&w, VSP + 8, VSP + 24, A_BASE + 0x321);
	jit_frame(&w, VSP + 24, VSP + 48, A_BASE + 0x341);
	jit_entry(&w, VSP + 48, V8_ENTRY_MARKER, RA_R);
	CHECK(uw2_unwind(mods, 3, &w.regs, &w.stack, frames, 16, &n, 0) !=
	      UW2_STOP_ROOT || n != 4);
}

/* A kind out of range, or a module with a table, is no JIT code. */
TEST(jit_kind_needs_no_table)
{
	struct world w;

	world_jit(&w);
	world_jit_stack(&w);
	w.mods[1].frames = UW2_FRAMES_COUNT;
	CHECK_EQ_U32(world_unwind(&w, 16, 0), UW2_STOP_NO_TABLE);
	CHECK_EQ_U32(w.n, 1);
}

TEST(stop_names)
{
	static const char *const want[] = {
		"root", "no-table", "refused", "bad-sp", "no-progress",
		"read-fault", "bad-opcode", "max-depth", "noreturn", "budget",
		"jit-chain",
	};

	CHECK_EQ_U32(UW2_STOP_COUNT, 11);
	for (u32 i = 0; i < UW2_STOP_COUNT; i++)
		CHECK_STR(uw2_stop_name(i), want[i]);
	CHECK_STR(uw2_stop_name(UW2_STOP_COUNT), "unknown");
	for (u32 i = 0; i < UW2_ERR_COUNT; i++) {
		CHECK(uw2_verr_str(i) != NULL);
		CHECK(strcmp(uw2_verr_str(i), "unknown error") != 0);
	}
}
