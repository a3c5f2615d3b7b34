/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The common ARM and Thumb-2 instructions decoded without capstone, into
 * the form capstone 4's detail would give them (decode_once.h's struct
 * tb_dec_form): capstone fills its detail while printing the
 * instruction's text, nearly all of function discovery's time on
 * Chrome-sized code.  What this decoder does not know, capstone decodes;
 * tests/host/test_decode_fast.c holds the two to the same forms, inside
 * IT blocks too.
 */
#ifndef UWPROF_TABLE_DECODE_FAST_H
#define UWPROF_TABLE_DECODE_FAST_H

#include "table/table.h"

struct tb_dec_form;

/*
 * capstone's Thumb IT block state, as its decoder keeps it between
 * calls: the conditions (0-13, EQ to LE) of the instructions a block
 * still holds, the next one first.  Blocks of AL (condition 14 or 15)
 * are left to capstone (tb_it_set() refuses them).
 */
struct tb_it {
	u8 n;
	u8 cc[4];
};

/*
 * The instruction at @addr (@b, @size bytes there), ARM or Thumb, as
 * capstone would decode it in the IT state @it: true, @f filled and @it
 * moved on as capstone's would be (an IT outside a block sets it, an
 * instruction inside one takes its condition), or false where this
 * decoder does not know it (@it unchanged).
 */
bool tb_fast_decode(bool thumb, const u8 *b, size_t size, u32 addr,
		    struct tb_it *it, struct tb_dec_form *f);

/* The block of the IT instruction @h; false (@it unchanged) for AL. */
bool tb_it_set(struct tb_it *it, u32 h);

/*
 * @it after capstone decoded (successfully) an instruction of id @id,
 * first halfword @h: false where it can no longer be followed (an AL
 * block; inside a block, an id that capstone decodes from a table that
 * leaves the block alone, or from one that moves it on).
 */
bool tb_it_follow(struct tb_it *it, unsigned int id, u32 h);

/* The next instruction of a block took its condition. */
void tb_it_advance(struct tb_it *it);

/* An IT instruction whose block is what @it still holds (@it->n > 0). */
u32 tb_it_encode(const struct tb_it *it);

/* capstone's text of the IT instruction @h: "itte", "eq". */
void tb_it_text(u32 h, char *mnemonic, size_t mlen, char *ops, size_t olen);

#endif
