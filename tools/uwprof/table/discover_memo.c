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
 * halfwords inside that bound; and the decoder's Thumb IT state, empty
 * between walks.  Given those, it sets the same flags, names the same
 * candidates and table targets and reaches as far.  So the flags inside
 * the bound are kept from before and after each walk, with what it set
 * outside the bound, and a walk asked again with the same inputs is
 * repeated from memory: the same output, byte for byte.
 */
#include <stdlib.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/discover.h"
#include "table/elf.h"

struct dc_memo {
	u32 addr, end, maxend;	/* start and bound; what the walk reached */
	bool thumb, valid;
	u32 walk_bad, walk_returns;
	u8 *before;		/* flags of [addr, end) before the walk */
	u8 *after;		/* ... after it */
	struct dc_cand *found;
	u32 nfound;
	struct tb_jump *jumps;
	u32 njumps;
	struct dc_or *out;	/* flags set outside [addr, end) */
	u32 nout;
};

void dc_out_add(struct dc *d, u32 a, u8 bits)
{
	if (d->nout == d->capout) {
		u32 cap = d->capout ? 2 * d->capout : 64;
		struct dc_or *v = realloc(d->out, cap * sizeof(*v));

		if (!v) {
			d->out_fail = true;
			return;
		}
		d->out = v;
		d->capout = cap;
	}
	d->out[d->nout++] = (struct dc_or){ a, bits };
}

/* The decoder is between blocks, as it is at a walk's start and end. */
static bool it_empty(const struct dc *d)
{
	return !d->dec->it.n && !d->dec->it_lost;
}

static void clear(struct dc_memo *m)
{
	free(m->before);
	free(m->found);
	free(m->jumps);
	free(m->out);
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

static bool same_inputs(struct dc *d, const struct dc_memo *m,
			const struct dc_fn *f, u32 end)
{
	return m->valid && m->addr == f->addr && m->thumb == f->thumb &&
	       m->end == end && it_empty(d) &&
	       !memcmp(m->before, dc_flag(d, f->addr), (end - f->addr) / 2);
}

/* Do again what the walk kept in @m did. */
static u32 repeat(struct dc *d, const struct dc_memo *m)
{
	memcpy(dc_flag(d, m->addr), m->after, (m->end - m->addr) / 2);
	for (u32 i = 0; i < m->nout; i++)
		*dc_flag(d, m->out[i].addr) |= (u8)m->out[i].bits;
	d->found.n = 0;
	for (u32 i = 0; i < m->nfound; i++)
		if (dc_cands_add(&d->found, m->found[i].addr, m->found[i].thumb,
				 m->found[i].kind, m->found[i].site))
			return -1u;
	for (u32 i = 0; i < m->njumps; i++)
		if (dc_jump_add(d, m->jumps[i].site, m->jumps[i].target))
			return -1u;
	d->walk_bad = m->walk_bad;
	d->walk_returns = m->walk_returns;
	return m->maxend;
}

static void *dup(const void *p, size_t n)
{
	void *v = malloc(n ? n : 1);

	if (v && n)
		memcpy(v, p, n);
	return v;
}

/* Keep the walk just done (@end its result, @j0 its first table target). */
static void keep(struct dc *d, struct dc_memo *m, u32 end, u32 j0)
{
	u32 nh = (m->end - m->addr) / 2;

	m->maxend = end;
	m->walk_bad = d->walk_bad;
	m->walk_returns = d->walk_returns;
	m->after = m->before + nh;
	memcpy(m->after, dc_flag(d, m->addr), nh);
	m->nfound = d->found.n;
	m->found = dup(d->found.v, d->found.n * sizeof(*d->found.v));
	m->njumps = d->njumps - j0;
	m->jumps = dup(d->jumps + j0, m->njumps * sizeof(*d->jumps));
	m->nout = d->nout;
	m->out = dup(d->out, d->nout * sizeof(*d->out));
	m->valid = m->found && m->jumps && m->out && !d->out_fail &&
		   it_empty(d);
}

u32 dc_walk_cached(struct dc *d, u32 k)
{
	const struct dc_fn *f = &d->fn[k];
	struct dc_memo *m = memo_of(d, k);
	u32 end = dc_walk_bound(d, f->addr), j0 = d->njumps, r;
	bool fresh = it_empty(d) && end > f->addr && dc_inside(d, end - 2);

	if (m && same_inputs(d, m, f, end))
		return repeat(d, m);
	if (m)
		clear(m);
	if (m && fresh) {
		m->before = malloc(end - f->addr);	/* before, then after */
		fresh = m->before != NULL;
	}
	if (m && fresh) {
		m->addr = f->addr;
		m->thumb = f->thumb;
		m->end = end;
		memcpy(m->before, dc_flag(d, f->addr), (end - f->addr) / 2);
	}
	d->nout = 0;
	d->out_fail = false;
	d->out_lo = f->addr;
	d->out_hi = end;
	d->out_on = m && fresh;
	r = dc_walk(d, k);
	d->out_on = false;
	if (m && fresh && r != -1u)
		keep(d, m, r, j0);
	return r;
}

void dc_memo_free(struct dc *d)
{
	for (u32 i = 0; i < d->capmemo; i++)
		clear(&d->memo[i]);
	free(d->memo);
	free(d->out);
}
