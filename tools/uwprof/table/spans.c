// SPDX-License-Identifier: GPL-2.0
/* Covered-code queries over a sorted copy of function ranges. */
#include <stdlib.h>
#include "table/spans.h"

static int span_cmp(const void *a, const void *b)
{
	const struct tb_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int tb_spans_init(struct tb_spans *sp, const struct tb_input *in, u32 from,
		  u32 to)
{
	sp->n = 0;
	sp->s = malloc((to > from ? to - from : 1) * sizeof(*sp->s));
	if (!sp->s)
		return -1;
	for (u32 i = from; i < to; i++)
		sp->s[sp->n++] = (struct tb_span){ in->funcs[i].addr,
			in->funcs[i].addr + in->funcs[i].size, 0 };
	qsort(sp->s, sp->n, sizeof(*sp->s), span_cmp);
	for (u32 i = 0; i < sp->n; i++)
		sp->s[i].max_hi = i && sp->s[i - 1].max_hi > sp->s[i].hi ?
				  sp->s[i - 1].max_hi : sp->s[i].hi;
	return 0;
}

void tb_spans_free(struct tb_spans *sp)
{
	free(sp->s);
	sp->s = NULL;
	sp->n = 0;
}

/* How many spans start at or below @addr. */
static u32 upto(const struct tb_spans *sp, u32 addr)
{
	u32 lo = 0, hi = sp->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (sp->s[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

u32 tb_spans_cover_end(const struct tb_spans *sp, u32 addr, u32 *next)
{
	u32 k = upto(sp, addr);

	if (next)
		*next = k < sp->n ? sp->s[k].lo : UINT32_MAX;
	return k && sp->s[k - 1].max_hi > addr ? sp->s[k - 1].max_hi : 0;
}

bool tb_spans_overlap(const struct tb_spans *sp, u32 lo, u32 hi)
{
	u32 k;

	if (hi <= lo)
		return false;
	k = upto(sp, hi - 1);	/* the spans starting below hi */
	return k && sp->s[k - 1].max_hi > lo;
}
