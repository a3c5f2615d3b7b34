/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function discovery: the sets of values a path proves registers hold,
 * for jumps through small tables of small tables (discover_sets.c).
 */
#ifndef UWPROF_TABLE_DISCOVER_SETS_H
#define UWPROF_TABLE_DISCOVER_SETS_H

#include "table/discover.h"

#define DC_SET_MAX	256	/* values a set lists */

/* What one register is proven to hold. */
struct dc_vset {
	u8 kind;		/* DC_VS_NONE, _RANGE (lo..hi), _LIST (v[]) */
	u16 n;
	u32 lo, hi;
	u32 v[DC_SET_MAX];
};

enum { DC_VS_NONE, DC_VS_RANGE, DC_VS_LIST };

/* A constant the walk knows is stored at [base, #off] (sp or fp). */
struct dc_slot {
	s32 off;
	u32 val, addr;
	int base;
};

#define DC_MAX_SLOTS	8

/* One path's sets, and what its last flag-setting instruction compared. */
struct dc_vs {
	struct dc_vset r[13];	/* r0-r12 */
	signed char rel[13];	/* rD = r(rel[D]) + rel_off[D], or -1 */
	u32 rel_off[13];
	u16 rels;		/* the registers whose rel[] is set */
	int cmp_reg;		/* "cmp rN, #imm" set the flags, or -1 */
	u32 cmp_imm;
	/* the walk's constants, carried to a branch's target with the sets */
	u32 known, addr, val[16];
	struct dc_slot slot[DC_MAX_SLOTS];
	u32 nslot;
};

/* The constants the walk knows besides: a constant is a set of one. */
struct dc_consts {
	u32 known;
	const u32 *val;
};

void dc_vs_reset(struct dc_vs *s);

/*
 * The sets after @in, from the state before it; calls forget all.
 * @written: the registers it writes (bit n: rn), as operands or as bases
 * written back.
 */
void dc_vs_step(struct dc *d, struct dc_vs *s, const void *in,
		const struct dc_consts *k, u32 written);

/*
 * A conditional branch after "cmp rN, #imm": @taken (unless NULL) gets
 * the path's sets with what the branch being taken proves, @s what
 * falling through proves.
 */
void dc_vs_branch(struct dc_vs *s, const void *in, struct dc_vs *taken);

/* Does @s hold a set a computed jump could use? */
bool dc_vs_useful(const struct dc_vs *s);

/*
 * The targets of "bx rX" or "mov pc, rX" when rX holds a proven set
 * (or a constant): their number, stored in @t (thumb bits kept), or 0.
 */
u32 dc_vs_targets(const struct dc_vs *s, const void *in,
		  const struct dc_consts *k, u32 *t);

/* States carried along branches to their targets (at most a few). */
void dc_vs_save(u32 at, const struct dc_vs *s);
bool dc_vs_take(u32 at, struct dc_vs *s);
void dc_vs_forget_saved(void);

#endif
