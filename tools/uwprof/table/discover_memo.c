// SPDX-License-Identifier: GPL-2.0
/*
 * Function discovery's walks, done once while nothing they read changes.
 * Each pass of discovery walks every function again (fourteen passes for
 * a stripped libc), because a start found anywhere may end a function
 * sooner or leave data in it; most walks find exactly what they found
 * before, and were nearly all of discovery's time.
 *
 * A walk (discover_walk.c) reads the file's bytes, its start, its
 * instruction set, its bound (the next known start) and the flags of the
 * halfwords inside that bound (and the one at it); and the decoder's
 * Thumb IT state, empty between walks.  Given those, it sets the same
 * flags, names the same candidates and table targets and reaches as
 * far.  So each walk keeps, from its start to the highest halfword it
 * read or set, the flags before it (what it set, undone) and after it,
 * with what it set outside, and a walk asked again with the same inputs
 * is repeated from memory: the same output, byte for byte.  Only what a
 * walk touched is kept: before the starts are found, a bound may lie
 * megabytes past what the walk reaches.
 */
#include <stdlib.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/discover.h"
#include "table/elf.h"

struct dc_memo {
	u32 addr, end, maxend;	/* start and bound; what the walk reached */
	u32 hi;			/* above the highest halfword it touched */
	bool thumb, valid;
	u32 walk_bad, walk_returns;
	/* one allocation holds all four lists (clear() frees found) */
	struct dc_cand *found;
	u32 nfound;
	struct tb_jump *jumps;
	u32 njumps;
	struct dc_or *out;	/* flags set outside [addr, end] */
	u32 nout;
	u8 *before;		/* flags of [addr, hi) before the walk */
	u8 *after;		/* ... after it */
};

static void grow_add(struct dc *d, struct dc_or **v, u32 *n, u32 *cap,
		     u32 a, u8 bits)
{
	if (*n == *cap) {
		u32 c = *cap ? 2 * *cap : 64;
		struct dc_or *p = realloc(*v, c * sizeof(*p));

		if (!p) {
			d->out_fail = true;
			return;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = (struct dc_or){ a, bits };
}

void dc_out_add(struct dc *d, u32 a, u8 bits)
{
	grow_add(d, &d->out, &d->nout, &d->capout, a, bits);
}

void dc_undo_grow(struct dc *d, u32 a, u8 old)
{
	grow_add(d, &d->undo, &d->nundo, &d->capundo, a, old);
}

/* The decoder is between blocks, as it is at a walk's start and end. */
static bool it_empty(const struct dc *d)
{
	return !d->dec->it.n && !d->dec->it_lost;
}

static void clear(struct dc_memo *m)
{
	free(m->found);
	memset(m, 0, sizeof(*m));
}

static struct dc_memo *memo_of(struct dc *d, u32 k)
{
	if (k >= d->capmemo) {
		u32 cap = d->capfn > k ? d->capfn : k + 1;
		struct dc_memo *v = realloc(d->memo, cap * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + d->capmemo, 0, (cap - d->capmemo) * sizeof(*v));
		d->memo = v;
		d->capmemo = cap;
	}
	return &d->memo[k];
}

/*
 * Are the @n bytes at @a and @b the same?  Eight at a time, as unaligned
 * loads: the device C library's memcmp() shifts and merges words when the
 * two are not aligned alike, as a walk's flags and their copy mostly are
 * not, and a pass compares nearly every walked halfword's flags.
 */
static bool same_bytes(const u8 *a, const u8 *b, u32 n)
{
	uint64_t x, y;
	u32 i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static bool same_inputs(struct dc *d, const struct dc_memo *m,
			const struct dc_fn *f, u32 end)
{
	return m->valid && m->addr == f->addr && m->thumb == f->thumb &&
	       m->end == end && it_empty(d) &&
	       same_bytes(m->before, dc_flag(d, f->addr), (m->hi - f->addr) / 2);
}

/* Do again what the walk kept in @m did. */
static u32 repeat(struct dc *d, struct dc_memo *m)
{
	memcpy(dc_flag(d, m->addr), m->after, (m->hi - m->addr) / 2);
	for (u32 i = 0; i < m->nout; i++)
		*dc_flag(d, m->out[i].addr) |= (u8)m->out[i].bits;
	/* the candidates where they are kept: a pass repeats thousands of
	 * walks, and most of their candidates are never taken (after_walk) */
	d->cand = m->found;
	d->ncand = &m->nfound;
	for (u32 i = 0; i < m->njumps; i++)
		if (dc_jump_add(d, m->jumps[i].site, m->jumps[i].target))
			return -1u;
	d->walk_bad = m->walk_bad;
	d->walk_returns = m->walk_returns;
	return m->maxend;
}

/*
 * Keep the walk of @f just done (bound @end; @r its result, @j0 its first
 * table target): its candidates, table targets and flags set outside,
 * and the flags it touched after it and before it (the halfwords it
 * changed given back what they held), in one allocation: a walk is kept
 * for each of the thousands of functions.
 */
static void keep(struct dc *d, struct dc_memo *m, const struct dc_fn *f,
		 u32 end, u32 r, u32 j0)
{
	u32 hi = d->touch_hi > f->addr ? d->touch_hi : f->addr;
	u32 nh = (hi - f->addr) / 2, nj = d->njumps - j0;
	size_t sc = d->found.n * sizeof(*m->found), sj = nj * sizeof(*m->jumps);
	size_t so = d->nout * sizeof(*m->out);
	u8 *b = malloc(sc + sj + so + 2 * nh + 1);

	if (!b)
		return;
	m->addr = f->addr;
	m->thumb = f->thumb;
	m->end = end;
	m->hi = hi;
	m->maxend = r;
	m->walk_bad = d->walk_bad;
	m->walk_returns = d->walk_returns;
	/* each list's entries are words: the offsets keep them aligned */
	m->found = (struct dc_cand *)b;
	m->nfound = d->found.n;
	if (sc)
		memcpy(m->found, d->found.v, sc);
	m->jumps = (struct tb_jump *)(b + sc);
	m->njumps = nj;
	/* no jumps yet: d->jumps may be NULL, and NULL + 0 is undefined */
	if (sj)
		memcpy(m->jumps, d->jumps + j0, sj);
	m->out = (struct dc_or *)(b + sc + sj);
	m->nout = d->nout;
	if (so)
		memcpy(m->out, d->out, so);
	m->before = b + sc + sj + so;
	m->after = m->before + nh;
	memcpy(m->after, dc_flag(d, f->addr), nh);
	memcpy(m->before, m->after, nh);
	for (u32 i = d->nundo; i-- > 0;)
		m->before[(d->undo[i].addr - f->addr) / 2] = (u8)d->undo[i].bits;
	m->valid = true;
}

u32 dc_walk_cached(struct dc *d, u32 k)
{
	const struct dc_fn *f = &d->fn[k];
	struct dc_memo *m = memo_of(d, k);
	u32 end = dc_fn_bound(d, k), j0 = d->njumps, r;

	if (m && same_inputs(d, m, f, end))
		return repeat(d, m);
	if (m)
		clear(m);
	/* the halfword at the bound is read too (code after a last call) */
	d->nout = d->nundo = 0;
	d->out_fail = false;
	d->out_lo = f->addr;
	d->out_hi = dc_inside(d, end) ? end + 2 : end;
	d->touch_hi = f->addr;
	d->out_on = m && it_empty(d) && end > f->addr;
	r = dc_walk(d, k);
	d->cand = d->found.v;
	d->ncand = &d->found.n;
	if (d->out_on && !d->out_fail && r != -1u && it_empty(d)) {
		keep(d, m, f, end, r, j0);
		if (m->valid) {
			d->cand = m->found;
			d->ncand = &m->nfound;
		}
	}
	d->out_on = false;
	return r;
}

void dc_memo_free(struct dc *d)
{
	for (u32 i = 0; i < d->capmemo; i++)
		clear(&d->memo[i]);
	free(d->memo);
	free(d->out);
	free(d->undo);
}
