/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instructions decoded once: function discovery walks a function again
 * on each pass that changes what its walk reads, prologue analysis
 * decodes it once more, and capstone's decoder and its instruction
 * printer, run for each visit, were nearly all of its time.  tb_dec keeps each instruction's decoded form in
 * compact arrays indexed by address and instruction set, and gives it back
 * as capstone gave it.
 *
 * What a kept instruction carries: its id, address, size, bytes, implicit
 * registers, groups and detail->arm (condition, flags, every operand's
 * fields); not its text: mnemonic and op_str are empty (a message that
 * shows the instruction decodes it again, tb_dec_text()).  Only forms
 * decoded outside IT blocks are kept; an IT instruction and those inside
 * its block are decoded again on each visit.  Our own decoder
 * (decode_fast.h) gives the common instructions' forms, inside blocks
 * too, and capstone decodes only what it does not know.
 */
#ifndef UWPROF_TABLE_DECODE_ONCE_H
#define UWPROF_TABLE_DECODE_ONCE_H

#include <capstone/capstone.h>
#include "table/decode_fast.h"
#include "table/table.h"

#define TB_DEC_MAXOPS	(sizeof(((cs_arm *)0)->operands) / sizeof(cs_arm_op))

/*
 * An instruction's kept form, as capstone's detail holds it: a record,
 * its operands and its implicit registers and groups.  In tb_dec the
 * record's op and reg index the arrays holding the others; in a
 * struct tb_dec_form both are 0.
 */
struct tb_dec_rec {
	u16 id;
	u8 size, op_count;
	u8 cc, update_flags, writeback, usermode;
	u8 mem_barrier, vector_data, cps_mode, cps_flag, vector_size;
	u8 nread, nwrite, ngroups;
	u32 op;			/* the first operand in tb_dec.op */
	u32 reg;		/* implicit registers read, written, then
				 * groups, in tb_dec.reg */
};

/* One operand: a memory operand's fields packed, other unions raw. */
struct tb_dec_op {
	union {
		u8 raw[8];	/* reg, imm, fp, setend */
		struct {
			u8 base, index;
			int8_t scale;
			u8 lshift;
			s32 disp;
		} mem;
	};
	u8 type, access, subtracted, shift_type;
	u8 shift_value;
	int8_t neon_lane, vector_index;
};

/* Room for the implicit registers read, written and the groups. */
#define TB_DEC_MAXREG	(sizeof(((cs_detail *)0)->regs_read) / sizeof(uint16_t) + \
			 sizeof(((cs_detail *)0)->regs_write) / sizeof(uint16_t) + \
			 sizeof(((cs_detail *)0)->groups))

/* One instruction's form on its own (decode_fast.c fills one). */
struct tb_dec_form {
	struct tb_dec_rec rec;
	struct tb_dec_op op[TB_DEC_MAXOPS];
	u8 reg[TB_DEC_MAXREG];
};

struct tb_dec {
	csh cs[2];		/* capstone, ARM and Thumb, with details */
	u32 lo, n;		/* the halfwords kept: [lo, lo + 2 * n) */
	u32 *at[2];		/* per halfword and set: record + 1, 0 not
				 * decoded yet, TB_DEC_BAD undecodable */
	struct tb_dec_rec *rec;
	u32 nrec, caprec;
	struct tb_dec_op *op;
	u32 nop, capop;
	u8 *reg;
	u32 nreg, capreg;
	bool full;		/* the kept forms reached TB_DEC_BUDGET */
	cs_detail *blank;	/* a detail before decoding */
	const cs_detail *last;	/* the last detail decoded into, since
				 * tb_dec_reset_it(), and how many of its
				 * operands may differ from blank's */
	u32 dirty;
	struct tb_dec_form form;	/* the instruction being decoded */
	struct tb_it it;	/* the Thumb IT block state capstone's would
				 * have, had it decoded every instruction
				 * since tb_dec_reset_it() */
	bool it_lost;		/* not followed (decode_fast.h): capstone
				 * decodes every Thumb instruction, in its
				 * own state, and none is kept */
	bool cs_stale;		/* capstone's handle is not in state it: our
				 * decoder moved it */
	cs_insn *sync;		/* an IT that brings the handle there */
	bool reader;		/* the forms are another tb_dec's, read
				 * only: none is kept (tb_dec_open_reader) */
};

/*
 * Open both capstone handles and room for the instructions of [@lo, @lo +
 * 2 * @n).  0, or -1 (capstone, memory).
 */
int tb_dec_open(struct tb_dec *c, u32 lo, u32 n);
void tb_dec_close(struct tb_dec *c);

/*
 * A decoder of its own (capstone handles, IT state, the form being
 * decoded) that gives back the forms @kept holds and keeps no new one:
 * one per thread of prologue analysis, while nothing decodes into @kept.
 * tb_dec_close() leaves @kept's forms alone.  0, or -1 (capstone, memory).
 */
int tb_dec_open_reader(struct tb_dec *c, const struct tb_dec *kept);

/*
 * Leave capstone's Thumb IT block state empty, as on a handle just
 * opened (a walk of its own starts so); instructions to decode into
 * from now on may hold anything.
 */
void tb_dec_reset_it(struct tb_dec *c);

/*
 * Decode one instruction at @addr from @b (@size bytes there) into @out
 * (with a detail), as cs_disasm_iter() would: false where it fails.
 * Until the next tb_dec_reset_it(), nothing else writes into the details
 * it filled, nor frees one: they are reset only as far as it wrote them.
 */
bool tb_dec_insn(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
		 u32 addr, cs_insn *out);

/*
 * The next tb_dec_insn() decodes into @d, which holds what a decode (this
 * one's or capstone's) left there and whose operands from @from on are
 * as before decoding (tb_dec_blank_from() said so after that decode):
 * only those before are reset.  A caller keeping many details (prologue
 * analysis, one per instruction of a function) saves resetting all 36.
 */
static inline void tb_dec_reuse(struct tb_dec *c, const cs_detail *d, u32 from)
{
	c->last = d;
	c->dirty = from;
}

/* After tb_dec_insn() into @d: its operands from the result on are as
 * before decoding. */
static inline u32 tb_dec_blank_from(const struct tb_dec *c, const cs_detail *d)
{
	return c->last == d ? c->dirty : TB_DEC_MAXOPS;
}

/*
 * "mnemonic operands" of @in, which tb_dec_insn() gave from @b (@size
 * bytes there) without its text: capstone's decode of it on @cs (a
 * handle of @in's instruction set, its IT state lost), in the IT block
 * it was decoded in.
 */
void tb_dec_text(csh cs, const cs_insn *in, const u8 *b, size_t size,
		 char *buf, size_t len);

/*
 * @in's detail (capstone's) as a form: false where a field does not fit
 * (nothing is kept then).
 */
bool tb_dec_pack(const cs_insn *in, struct tb_dec_form *f);

#endif
