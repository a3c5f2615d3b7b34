/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which code a set of functions already covers, answered by binary search:
 * the readers ask this once per input function, and a linear scan per
 * question made large libraries quadratic.
 */
#ifndef UWPROF_TABLE_SPANS_H
#define UWPROF_TABLE_SPANS_H

#include "table/table.h"

struct tb_spans {
	struct tb_span {
		u32 lo, hi, max_hi;	/* max_hi: largest hi up to here */
	} *s;
	u32 n;
};

/* Index in->funcs[from, to); empty functions included.  0 or -1 (ENOMEM). */
int tb_spans_init(struct tb_spans *sp, const struct tb_input *in, u32 from,
		  u32 to);
void tb_spans_free(struct tb_spans *sp);

/*
 * The end of the covered code @addr is in (the largest end of the
 * functions holding it), or 0 if none holds it; *next (if not NULL) gets
 * the lowest function start above @addr, UINT32_MAX if none.
 */
u32 tb_spans_cover_end(const struct tb_spans *sp, u32 addr, u32 *next);

/* Does any function overlap [lo, hi)? */
bool tb_spans_overlap(const struct tb_spans *sp, u32 lo, u32 hi);

#endif
