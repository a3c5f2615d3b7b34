// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: what other rules cover.  Which code is covered by
 * EHABI rules only (a refusal, or opcodes that are wrong in prologues and
 * epilogues) or by nothing, so that analysis may replace it, and cutting
 * the analysed ranges out of EHABI functions, which keep the rest.
 */
#include <stdlib.h>
#include <string.h>
#include "table/prologue_int.h"

/*
 * Code whose rules are EHABI's: a refusal (CANTUNWIND), or opcodes that
 * describe the body of the function at the entry's start, applied from
 * its first instruction on, and so wrong in prologues and epilogues.
 * Analysed rows replace either.
 */
bool pa_is_ehabi(const struct tb_cfi_func *f)
{
	return f->source == TB_SRC_EHABI;
}

static int cover_cmp(const void *a, const void *b)
{
	const struct tb_cfi_func *const *x = a, *const *y = b;

	return (*x)->addr < (*y)->addr ? -1 : (*x)->addr > (*y)->addr;
}

int pa_cover_build(struct pa_cover *c, const struct tb_input *in)
{
	const struct tb_cfi_func **v = malloc((in->n + 1) * sizeof(*v));
	u32 max = 0;

	c->n = in->n;
	c->r = malloc((in->n + 1) * sizeof(*c->r));
	c->ehabi = malloc(in->n + 1);
	c->maxend = malloc((in->n + 1) * sizeof(*c->maxend));
	if (!v || !c->r || !c->ehabi || !c->maxend) {
		free(v);
		return -1;
	}
	for (u32 i = 0; i < in->n; i++)
		v[i] = &in->funcs[i];
	qsort(v, in->n, sizeof(*v), cover_cmp);
	for (u32 i = 0; i < in->n; i++) {
		c->r[i] = (struct pa_range){ v[i]->addr, v[i]->addr + v[i]->size };
		c->ehabi[i] = pa_is_ehabi(v[i]);
		if (c->r[i].hi > max)
			max = c->r[i].hi;
		c->maxend[i] = max;
	}
	free(v);
	return 0;
}

void pa_cover_free(struct pa_cover *c)
{
	free(c->r);
	free(c->ehabi);
	free(c->maxend);
}

/* Is [lo, hi) covered by EHABI rules only, or by nothing? */
bool pa_only_ehabi(const struct pa_cover *c, u32 lo, u32 hi)
{
	u32 a = 0, b = c->n;

	while (a < b) {		/* the first range whose prefix reaches lo */
		u32 mid = a + (b - a) / 2;

		if (c->maxend[mid] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < c->n && c->r[a].lo < hi; a++)
		if (c->r[a].hi > lo && !c->ehabi[a])
			return false;
	return true;
}

/* The part [lo, hi) of EHABI function @f, with its bytes, added to @in. */
int pa_add_piece(struct tb_input *in, const struct tb_cfi_func *f,
		 u32 lo, u32 hi)
{
	struct tb_cfi_func *g = tb_input_add(in);

	if (!g || !(g->ehabi = malloc(f->ehabi_len ? f->ehabi_len : 1)))
		return -1;
	*g = (struct tb_cfi_func){ .addr = lo, .size = hi - lo,
				   .source = f->source, .ehabi = g->ehabi,
				   .ehabi_len = f->ehabi_len,
				   .ehabi_entry = f->ehabi_entry && lo == f->addr };
	memcpy(g->ehabi, f->ehabi, f->ehabi_len);
	return 0;
}

/* The first of @done (sorted, disjoint) that ends above @addr. */
static u32 first_ending_above(const struct tb_input *done, u32 addr)
{
	u32 lo = 0, hi = done->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (done->funcs[mid].addr + done->funcs[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * EHABI functions with the analysed ranges @done (sorted by address,
 * disjoint) cut out of them; the rest keeps its bytes.  Then @done.
 */
int pa_carve(struct tb_input *in, struct tb_input *done)
{
	struct tb_input out = { 0 };

	for (u32 i = 0; i < in->n; i++) {
		struct tb_cfi_func *f = &in->funcs[i], *g;
		u32 at = f->addr, end = f->addr + f->size, k;

		if (!pa_is_ehabi(f)) {
			if (!(g = tb_input_add(&out)))
				return -1;
			*g = *f;
			memset(f, 0, sizeof(*f));
			continue;
		}
		for (k = first_ending_above(done, at); at < end; k++) {
			const struct tb_cfi_func *d = k < done->n ?
						      &done->funcs[k] : NULL;
			u32 hi = d && d->addr < end ? d->addr : end;

			if (hi > at && pa_add_piece(&out, f, at, hi))
				return -1;
			if (!d || d->addr >= end)
				break;
			at = d->addr + d->size;
		}
	}
	for (u32 k = 0; k < done->n; k++) {
		struct tb_cfi_func *g = tb_input_add(&out);

		if (!g)
			return -1;
		*g = done->funcs[k];
		memset(&done->funcs[k], 0, sizeof(done->funcs[k]));
	}
	tb_input_free(in);
	*in = out;
	return 0;
}
