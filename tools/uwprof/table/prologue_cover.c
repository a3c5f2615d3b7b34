// SPDX-License-Identifier: GPL-2.0
/*
 * Prologue analysis: what other rules cover.  Which code is covered by
 * EHABI rules only (a refusal, or opcodes that are wrong in prologues and
 * epilogues) or by nothing, so that analysis may replace it, and cutting
 * the analysed ranges out of EHABI functions, which keep the rest.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* qsort_r */
#endif
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

/*
 * The first of @n ranges by start whose prefix reaches past @x: @maxend[k]
 * the largest end of ranges 0 to k.  None before it holds @x.
 */
static u32 first_past(const u32 *maxend, u32 n, u32 x)
{
	u32 a = 0, b = n;

	while (a < b) {
		u32 mid = a + (b - a) / 2;

		if (maxend[mid] <= x)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Is [lo, hi) covered by EHABI rules only, or by nothing? */
bool pa_only_ehabi(const struct pa_cover *c, u32 lo, u32 hi)
{
	u32 a = first_past(c->maxend, c->n, lo);

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

/*
 * Functions whose rows a branch may run on in (shared_tail()): those with
 * rows of their own, not EHABI's.  The question, "which is the first of
 * @in's functions, in its order, to hold t?", was a scan of every
 * function for each branch, a million of them in Chrome-sized code.
 */
static bool findable(const struct tb_cfi_func *f)
{
	return f->nrows && !pa_is_ehabi(f);
}

static int find_cmp(const void *a, const void *b, void *arg)
{
	const struct tb_cfi_func *f = arg;
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	if (f[x].addr != f[y].addr)
		return f[x].addr < f[y].addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Room for @n indexes; false when memory runs out. */
static bool find_room(struct pa_find *fi, u32 n)
{
	u32 cap = fi->cap ? fi->cap : 1024;
	u32 *by, *maxend;

	if (n <= fi->cap)
		return true;
	while (cap < n)
		cap *= 2;
	by = realloc(fi->by, cap * sizeof(*by));
	if (by)
		fi->by = by;
	maxend = by ? realloc(fi->maxend, cap * sizeof(*maxend)) : NULL;
	if (!maxend)
		return false;
	fi->maxend = maxend;
	fi->cap = cap;
	return true;
}

/* by[] from fi->n on: its ends' running maximum. */
static void find_ends(struct pa_find *fi, u32 from)
{
	const struct tb_cfi_func *f = fi->in->funcs;

	for (u32 k = from; k < fi->nby; k++) {
		const struct tb_cfi_func *g = &f[fi->by[k]];
		/* an end past 2^32 (a hostile size) held at the top */
		u32 end = g->size > UINT32_MAX - g->addr ? UINT32_MAX :
			  g->addr + g->size;
		u32 prev = k ? fi->maxend[k - 1] : 0;

		fi->maxend[k] = end > prev ? end : prev;
	}
}

int pa_find_build(struct pa_find *fi, const struct tb_input *in, bool grows)
{
	memset(fi, 0, sizeof(*fi));
	fi->in = in;
	fi->grows = grows;
	if (grows)
		return 0;
	if (!find_room(fi, in->n + 1))
		return -1;
	for (u32 i = 0; i < in->n; i++)
		if (findable(&in->funcs[i]))
			fi->by[fi->nby++] = i;
	qsort_r(fi->by, fi->nby, sizeof(*fi->by), find_cmp, in->funcs);
	find_ends(fi, 0);
	fi->n = in->n;
	return 0;
}

void pa_find_free(struct pa_find *fi)
{
	free(fi->by);
	free(fi->maxend);
	memset(fi, 0, sizeof(*fi));
}

/* A growing input's new functions indexed; false if they are out of order. */
static bool find_grow(struct pa_find *fi)
{
	const struct tb_cfi_func *f = fi->in->funcs;
	u32 from = fi->nby;

	if (!fi->grows || fi->unsorted || fi->n == fi->in->n)
		return !fi->unsorted;
	if (!find_room(fi, fi->in->n + 1)) {
		fi->unsorted = true;	/* scanned instead */
		return false;
	}
	for (; fi->n < fi->in->n; fi->n++) {
		if (fi->n && f[fi->n].addr < f[fi->n - 1].addr) {
			fi->unsorted = true;
			return false;
		}
		if (findable(&f[fi->n]))
			fi->by[fi->nby++] = fi->n;
	}
	find_ends(fi, from);
	return true;
}

const struct tb_cfi_func *pa_find_first(struct pa_find *fi, u32 t, u32 not_at)
{
	const struct tb_cfi_func *f = fi->in->funcs;
	u32 a, best = UINT32_MAX;

	if (!find_grow(fi)) {
		for (u32 i = 0; i < fi->in->n; i++)
			if (t >= f[i].addr && t - f[i].addr < f[i].size &&
			    findable(&f[i]) && f[i].addr != not_at)
				return &f[i];
		return NULL;
	}
	for (a = first_past(fi->maxend, fi->nby, t); a < fi->nby && f[fi->by[a]].addr <= t; a++) {
		const struct tb_cfi_func *g = &f[fi->by[a]];

		if (t - g->addr < g->size && g->addr != not_at &&
		    fi->by[a] < best)
			best = fi->by[a];
	}
	return best == UINT32_MAX ? NULL : &f[best];
}
