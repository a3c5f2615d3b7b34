/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instructions decoded once: function discovery walks a function again
 * on each pass that changes what its walk reads, prologue analysis
 * decodes it once more, and capstone's decoder and its instruction
 * printer, run for each visit, were nearly all of its time.  tb_dec keeps
 * each instruction's decoded form in compact arrays indexed by address
 * and instruction set, and gives it back as a struct tb_insn: capstone's
 * fields, by the same names, read from the form where it is kept.
 *
 * What a kept instruction carries: its id, address, size, bytes, implicit
 * registers, groups and detail->arm (condition, flags, every operand's
 * fields); not its text: the mnemonic is empty (a message that shows the
 * instruction decodes it again, tb_dec_text()).  Only forms decoded
 * outside IT blocks are kept; an IT instruction and those inside its
 * block are decoded again on each visit.  Our own decoder
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
/*
 * capstone's cs_arm fields other than the operands, as a record and a
 * view (struct tb_arm) both hold them: one copy makes the one the other.
 */
#define TB_ARM_FIELDS							\
	u8 cc;			/* arm_cc */				\
	u8 update_flags, writeback, usermode, mem_barrier;		\
	u8 vector_data, cps_mode, cps_flag, vector_size;		\
	u8 op_count

struct tb_dec_rec {
	u16 id;
	u8 size;
	u8 nread, nwrite, ngroups;
	struct { TB_ARM_FIELDS; };
	u32 op;			/* the first operand in tb_dec.op */
	u32 reg;		/* implicit registers read, written, then
				 * groups, in tb_dec.reg */
};

/*
 * One operand, with capstone's cs_arm_op's field names (register ids
 * below 256): a memory operand's fields packed, the other members of
 * the union as capstone's first 8 bytes of it (raw).
 */
struct tb_dec_op {
	union {
		u8 raw[8];
		u32 reg;	/* arm_reg */
		s32 imm;
		double fp;
		u32 setend;	/* arm_setend_type */
		struct {
			u8 base, index;	/* arm_reg */
			int8_t scale;
			u8 lshift;
			s32 disp;
		} mem;
	};
	struct {
		u8 type;	/* arm_shifter */
		u8 value;
	} shift;
	u8 type, access, subtracted;
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

/*
 * An instruction as the walks read it: capstone's cs_insn and its
 * detail, with the same field names, pointing at a kept form's operands
 * and registers instead of holding copies (copying a form back into
 * capstone's 1.5 KB detail was a tenth of making a table).  detail is an
 * array of one so that in->detail reads as capstone's pointer does.
 */
struct tb_arm {
	struct { TB_ARM_FIELDS; };
	const struct tb_dec_op *operands;
};

struct tb_detail {
	const u8 *regs_read, *regs_write, *groups;
	u8 regs_read_count, regs_write_count, groups_count;
	struct tb_arm arm;
};

struct tb_insn {
	uint64_t address;
	u32 id;			/* arm_insn */
	u16 size;
	u8 bytes[4];		/* the first size of them */
	/*
	 * An IT instruction's mnemonic ("itte"); any other's is empty, with
	 * the IT block it was decoded in after the 0 (tb_dec_text()).
	 */
	char mnemonic[8];
	struct tb_detail detail[1];
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
	cs_insn *cs_out;	/* what capstone decodes, before packing */
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
 * Decode one instruction at @addr from @b (@size bytes there) into @out,
 * as cs_disasm_iter() would: false where it fails.  @out's operands and
 * registers are a kept form's, there until tb_dec_close(), or else the
 * decoder's own, which its next decode overwrites: a walk that holds
 * instructions copies their forms (tb_insn_form()).
 */
bool tb_dec_insn(struct tb_dec *c, bool thumb, const u8 *b, size_t size,
		 u32 addr, struct tb_insn *out);

/* @in's form (record, operands, registers) into @f. */
void tb_insn_form(const struct tb_insn *in, struct tb_dec_form *f);

/*
 * Does @in, which tb_dec_insn() on @c gave, point at a form that stays
 * where it is until tb_dec_close()?  A reader's kept forms do: it keeps
 * none, and the decoder it reads keeps none while it reads.
 */
static inline bool tb_dec_lasting(const struct tb_dec *c,
				  const struct tb_insn *in)
{
	return c->reader && in->detail->arm.operands != c->form.op;
}

/*
 * "mnemonic operands" of @in, which tb_dec_insn() gave from @b (@size
 * bytes there) without its text: capstone's decode of it on @cs (a
 * handle of @in's instruction set, its IT state lost), in the IT block
 * it was decoded in.
 */
void tb_dec_text(csh cs, const struct tb_insn *in, const u8 *b, size_t size,
		 char *buf, size_t len);

/*
 * @in's detail (capstone's) as a form: false where a field does not fit
 * (nothing is kept then).
 */
bool tb_dec_pack(const cs_insn *in, struct tb_dec_form *f);

/*
 * capstone's decode @in (with its detail) as @out, pointing into @f,
 * which it fills: false where it does not pack.  For code that decodes
 * with capstone itself and asks what the walks' helpers know.
 */
bool tb_insn_of_cs(const cs_insn *in, struct tb_dec_form *f,
		   struct tb_insn *out);

#endif
