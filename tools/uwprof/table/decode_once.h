/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instructions decoded once: function discovery walks every function
 * again on each of its passes (eight for a stripped libc), and capstone's
 * decoder and its instruction printer, run for each visit, were nearly
 * all of its time.  tb_dec keeps each instruction's decoded form in
 * compact arrays indexed by address and instruction set, and gives it back
 * as capstone gave it.
 *
 * What a kept instruction carries: its id, address, size, bytes, implicit
 * registers, groups and detail->arm (condition, flags, every operand's
 * fields); not its text: mnemonic and op_str are empty (a message that
 * shows the instruction decodes it again).  An IT instruction is always
 * decoded again (see it_hi in decode_once.c), and so is every
 * instruction capstone decodes inside an IT block.
 */
#ifndef UWPROF_TABLE_DECODE_ONCE_H
#define UWPROF_TABLE_DECODE_ONCE_H

#include <capstone/capstone.h>
#include "table/table.h"

struct tb_dec_rec;
struct tb_dec_op;

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
	cs_detail *blank;	/* a detail before decoding */
	const cs_detail *last;	/* the last detail decoded into, since
				 * tb_dec_reset_it(), and how many of its
				 * operands may differ from blank's */
	u32 dirty;
	int it_lo, it_hi;	/* capstone's IT block state (Thumb): the
				 * fewest and most instructions it may still
				 * hold; it_hi -1 not known */
};

/*
 * Open both capstone handles and room for the instructions of [@lo, @lo +
 * 2 * @n).  0, or -1 (capstone, memory).
 */
int tb_dec_open(struct tb_dec *c, u32 lo, u32 n);
void tb_dec_close(struct tb_dec *c);

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

#endif
