// SPDX-License-Identifier: GPL-2.0
/*
 * Function discovery: the starts of functions no symbol names, and how
 * far each one's code reaches.  Passes over all known starts walk each
 * function (discover_walk.c) up to the next known start; the calls they
 * make are new starts at once; branches out of a function and code
 * addresses stored as data are taken after the pass, and only where no
 * walked function's code or data lies (a label inside a function, whose
 * address a computed goto takes, is code some path already reached).
 * Passes repeat until one adds no start, so every walk's bounds are the
 * final ones (a walk whose inputs are unchanged since its last one is
 * repeated from memory: discover_memo.c).  What is found becomes
 * symbols for prologue analysis, which still justifies or refuses each
 * function on its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table/decode_once.h"
#include "table/discover.h"
#include "table/elf.h"

#define DC_MAX_PASSES	16

static const char dc_name[] = "";

static int add_fn(struct dc *d, u32 a, bool thumb, bool nomode, bool sym)
{
	u8 *f = dc_flag(d, a);

	if (*f & DC_START) {
		return 0;
	}
	if (d->nfn == d->capfn) {
		u32 cap = d->capfn ? 2 * d->capfn : 1024;
		struct dc_fn *v = realloc(d->fn, cap * sizeof(*v));

		if (!v)
			return -1;
		d->fn = v;
		d->capfn = cap;
	}
	d->fn[d->nfn++] = (struct dc_fn){ a, 0, thumb, nomode, sym, false, 0 };

	*f |= DC_START | (thumb ? DC_THUMB : 0) | (nomode ? DC_NOMODE : 0);
	d->starts[(a - d->lo) >> 7] |= 1ull << ((a - d->lo) >> 1 & 63);
	return 1;
}

/*
 * Code bytes a start may lie at: aligned, inside an executable section
 * other than the PLT's (whose stubs the PLT pass decodes).
 */
static bool placeable(struct dc *d, u32 a, bool thumb)
{
	const struct tb_sec *s = dc_inside(d, a) && !(a & (thumb ? 1 : 3)) ?
				 tb_elf_sec(d->e, a) : NULL;

	return s && strcmp(s->name, ".plt") && strcmp(s->name, ".iplt");
}

/*
 * May a function start at @a (aligned for @thumb)?  Not outside
 * placeable() code, nor inside a symbol whose size says where its
 * function ends.  Neither the sections nor the symbols change while
 * discovery runs, and each pass offers the same refused candidates again
 * (a quarter of a million lookups for libc): each halfword's answer is
 * kept, two bits of d->fixed (1 may, 2 may not, 0 not asked yet).
 */
static bool may_start(struct dc *d, u32 a, bool thumb)
{
	u32 i = (a - d->lo) >> 1, sh = (i & 3) * 2;
	const struct tb_sym *s;
	u8 *m;

	if (!dc_inside(d, a) || (a & (thumb ? 1 : 3)))
		return false;
	m = &d->fixed[i >> 2];
	if (!(*m >> sh & 3)) {
		s = tb_elf_sym(d->e, a);
		*m |= (placeable(d, a, thumb) &&
		       !(s && s->size && s->addr != a) ? 1 : 2) << sh;
	}
	return (*m >> sh & 3) == 1;
}

/* Halfwords of padding (nop, mov r8, r8, zero fill, ARM nop, lld's
 * fill). */
static bool padding_at(struct dc *d, u32 a)
{
	u32 avail = 0;
	const struct tb_sec *s = tb_elf_sec(d->e, a);
	const u8 *b;
	u16 h;

	if (!s)
		return false;
	for (u32 i = 0; i < d->e->nsecs; i++)
		if (&d->e->secs[i] == s && d->secb[i]) {
			b = d->secb[i] + (a - s->addr);
			avail = s->size - (a - s->addr);
			if (avail < 2)
				return false;
			h = b[0] | b[1] << 8;
			return h == 0 || h == 0xbf00 || h == 0x46c0 ||
			       h == 0xf000 || h == 0xe320 || h == 0xe1a0 ||
			       h == 0xd4d4;	/* lld's fill */
		}
	return false;
}

/*
 * A start whose instruction set no source says (unwind entries).  An
 * entry may start on the alignment padding before its function (glibc's
 * CANTUNWIND entries do): the function starts after it.
 */
static int add_bound(struct dc *d, u32 a)
{
	int m;

	for (u32 k = 0; k < 8 && padding_at(d, a); k++)
		a += 2;
	m = dc_guess_mode(d, a);

	if (!placeable(d, a, m == 1))
		return 0;
	if (m < 0)
		d->st->boundaries++;
	return add_fn(d, a, m == 1, m < 0, false);
}

/*
 * A Thumb trap halfword (udf, bkpt): clang ends a call that never
 * returns with "bkpt; udf #0", and V8's IMMEDIATE_CRASH is the same
 * pair, so a walk that stops at the call leaves them unreached.  Both
 * are 16-bit encodings, never the second half of a 32-bit instruction
 * whose first half a walk reached (that half is DC_IN).
 */
static bool trap_at(struct dc *d, u32 a)
{
	const struct tb_sec *s = tb_elf_sec(d->e, a);
	u32 i;

	for (i = 0; s && i < d->e->nsecs && i < 32; i++)
		if (&d->e->secs[i] == s && d->secb[i] && s->size - (a - s->addr) >= 2) {
			u8 hi = d->secb[i][a - s->addr + 1];

			return hi == 0xde || hi == 0xbe;
		}
	return false;
}

/*
 * An address stored as data starts a function only where it saves lr
 * as a prologue does, or right after code or data some walk reached (or
 * the start of a section), padding between (traps too before Thumb
 * code): a constant that happens to point into code no walk reached may
 * be anything.
 */
static bool after_known(struct dc *d, u32 a, bool thumb)
{
	for (u32 b = a, k = 0; k < 8; k++) {
		const struct tb_sec *s = tb_elf_sec(d->e, b);

		if (s && b == s->addr)
			return true;
		b -= 2;
		if (!dc_inside(d, b))
			return false;
		if (*dc_flag(d, b) & (DC_CODE | DC_IN | DC_DATA))
			return true;
		if (!padding_at(d, b) && !(thumb && trap_at(d, b)))
			return false;
	}
	return false;
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct dc_fn *fn = arg;
	u32 x = fn[*(const u32 *)a].addr, y = fn[*(const u32 *)b].addr;

	return x < y ? -1 : x > y;
}

/* Set bits [@i, @j) of bitmap @v (@i < @j). */
static void bits_set(uint64_t *v, u32 i, u32 j)
{
	uint64_t first = ~0ull << (i & 63);
	uint64_t last = ~0ull >> (63 - ((j - 1) & 63));

	if (i >> 6 == (j - 1) >> 6) {
		v[i >> 6] |= first & last;
		return;
	}
	v[i >> 6] |= first;
	for (u32 w = (i >> 6) + 1; w < (j - 1) >> 6; w++)
		v[w] = ~0ull;
	v[(j - 1) >> 6] |= last;
}

/*
 * d->walked, from the functions by address: a halfword past a function's
 * start, up to the next one's start, and before its reach.  Every late
 * candidate of a pass asks (inside_walked), and the same ones each pass.
 */
static void walked_build(struct dc *d)
{
	memset(d->walked, 0, (d->n / 64 + 1) * sizeof(*d->walked));
	for (u32 k = 0; k < d->norder; k++) {
		const struct dc_fn *f = &d->fn[d->order[k]];
		u32 next = k + 1 < d->norder ? d->fn[d->order[k + 1]].addr + 2 :
			   f->addr + f->size;
		u32 hi = f->addr + f->size < next ? f->addr + f->size : next;

		if (hi > d->lo + 2 * d->n)
			hi = d->lo + 2 * d->n;
		if (hi > f->addr + 2)
			bits_set(d->walked, (f->addr + 2 - d->lo) >> 1,
				 (hi - d->lo + 1) >> 1);
	}
}

/*
 * Merge order[0, @old), sorted before, with order[@old, nfn), sorted
 * now: equal addresses keep the older index first, as a sort of all of
 * them by qsort_r()'s stable merge sort would.
 */
static int order_merge(struct dc *d, u32 old)
{
	u32 *v = d->order, *m = realloc(d->merged, d->nfn * sizeof(*m));
	u32 i = 0, j = old, k = 0;

	if (!m)
		return -1;
	d->merged = m;
	while (i < old && j < d->nfn)
		m[k++] = d->fn[v[j]].addr < d->fn[v[i]].addr ? v[j++] : v[i++];
	while (i < old)
		m[k++] = v[i++];
	while (j < d->nfn)
		m[k++] = v[j++];
	memcpy(v, m, d->nfn * sizeof(*v));
	return 0;
}

/*
 * Index the walked functions by address (after a pass's walks): those
 * added since the last time sorted and merged in (a pass adds few of
 * the thousands already there; a function's address never changes).
 */
static int order_build(struct dc *d)
{
	u32 old = d->nsorted, *v = realloc(d->order, (d->nfn + 1) * sizeof(*v));

	if (!v)
		return -1;
	d->order = v;
	for (u32 i = old; i < d->nfn; i++)
		v[i] = i;
	qsort_r(v + old, d->nfn - old, sizeof(*v), order_cmp, d->fn);
	if (old && old < d->nfn && order_merge(d, old))
		return -1;
	d->norder = d->nsorted = d->nfn;
	d->last_lo = d->last_hi = 0;
	walked_build(d);
	return 0;
}

/*
 * Is @a (even, inside the flags) past the start of a walked function and
 * before its reach?
 */
static bool inside_walked(const struct dc *d, u32 a)
{
	u32 i = (a - d->lo) >> 1;

	if (a > d->last_lo && a < d->last_hi)
		return true;
	return d->walked[i >> 6] >> (i & 63) & 1;
}

/*
 * How many constant-making instructions a pointer's function may run
 * before its push of lr (dc_saves_lr): some only for a Thumb address
 * (the mode bit set) stored as data (a relocation's, or a word of a
 * static program's data, as busybox's table of applets).  A constant in
 * the code (a literal, movw/movt) is as often an offset that "add rN,
 * pc" makes an address (a GOT offset), which may land anywhere: on the
 * movw after an APCS prologue's "mov ip, sp" (gt_apcs.c).
 */
static u32 ptr_lead(const struct dc_cand *c)
{
	return c->thumb && !c->site ? DC_MAX_LEAD : 0;
}

/*
 * What the flags at a candidate that is no start yet refuse (@f those
 * flags), once never_taken() has let it through: unlike that, their
 * answer may change from pass to pass.
 */
static bool flags_refuse(struct dc *d, const struct dc_cand *c, bool late,
			 u8 f)
{
	/* a call may enter code another path runs through, never the
	 * middle of an instruction or data */
	if (f & (DC_IN | DC_DATA))
		return true;
	/* nor may a tail call or a pointer enter code between a walked
	 * function's start and the end of what its paths reached: a label
	 * its unresolved jumps reach, or a constant that is no pointer */
	if (late && !(f & DC_CODE) && inside_walked(d, c->addr) &&
	    !(ptr_lead(c) && dc_saves_lr(d, c->addr, c->thumb, 0)))
		return true;
	/*
	 * a branch from another function to code a path here reaches is
	 * taken only where nothing falls through into it (the function
	 * before ends, and the branches into it were taken as its own)
	 */
	return late && (f & DC_CODE) &&
	       (c->kind != DC_K_TAIL || !(f & DC_NOFALL));
}

/* A start known already at @a, its instruction set too? */
static bool known_start(struct dc *d, u32 a)
{
	return dc_inside(d, a) &&
	       (*dc_flag(d, a) & (DC_START | DC_NOMODE)) == DC_START;
}

/*
 * A candidate take() refuses now and in every later pass: outside the
 * flags, odd, where no function may start (may_start() reads only the
 * sections and symbols), or a start already in a known instruction set.
 * A start is dropped only right after its own walk (drop_last()), before
 * any other walk's candidates are looked at, so a start seen here stays.
 */
static bool never_taken(struct dc *d, const struct dc_cand *c)
{
	return !dc_inside(d, c->addr) || (c->addr & 1) ||
	       known_start(d, c->addr) || !may_start(d, c->addr, c->thumb);
}

/* Take a candidate: 1 added, 0 not, -1 memory. */
static int take(struct dc *d, const struct dc_cand *c, bool late)
{
	u8 f;

	if (never_taken(d, c))
		return 0;
	f = *dc_flag(d, c->addr);
	if (!(f & DC_START) && flags_refuse(d, c, late, f))
		return 0;
	if (f & DC_START) {
		if (c->kind != DC_K_BOUND) {
			for (u32 i = 0; i < d->nfn; i++)
				if (d->fn[i].addr == c->addr) {
					d->fn[i].nomode = false;
					d->fn[i].thumb = c->thumb;
				}
			*dc_flag(d, c->addr) = (f & ~(DC_NOMODE | DC_THUMB)) |
					       (c->thumb ? DC_THUMB : 0);
			return 1;
		}
		return 0;
	}
	if (c->kind == DC_K_PTR &&
	    !dc_saves_lr(d, c->addr, c->thumb, ptr_lead(c)) &&
	    !after_known(d, c->addr, c->thumb))
		return 0;
	/* an even constant names ARM code only where the bytes read as ARM
	 * code: an offset that "add rX, pc" makes an address is a constant
	 * too, and may land on Thumb code (zstd) */
	if (c->kind == DC_K_PTR && !c->thumb && dc_guess_mode(d, c->addr) != 0)
		return 0;

	return add_fn(d, c->addr, c->thumb, false, false);
}

static void count(struct dc *d, enum dc_kind k)
{

	if (k == DC_K_CALL)
		d->st->calls++;
	else if (k == DC_K_TAIL)
		d->st->tails++;
	else if (k == DC_K_PTR)
		d->st->pointers++;
	else if (k == DC_K_GAP)
		d->st->gaps++;
}

/*
 * The last walk's candidates (d->cand): those named by an instruction
 * that later proved to be data (a literal pool decoded before its load)
 * are passed over; calls are taken now, the rest after the pass.  Each
 * pass repeats most walks from memory and names their candidates again,
 * nine in ten of them never taken: those leave the list, in place.
 */
static int after_walk(struct dc *d, bool adding, u32 *added)
{
	struct dc_cand *v = d->cand;
	u32 n = *d->ncand, kept = 0;

	if (!adding)
		return 0;
	for (u32 i = 0; i < n; i++) {
		const struct dc_cand c = v[i];
		int r;

		if (never_taken(d, &c))
			continue;
		v[kept++] = c;
		if (c.site && dc_inside(d, c.site) &&
		    (*dc_flag(d, c.site) & DC_DATA))
			continue;
		if (c.kind != DC_K_CALL) {
			if (dc_cands_add(&d->later, c.addr, c.thumb, c.kind,
					 c.site))
				return -1;
			continue;
		}
		r = take(d, &c, false);
		if (r < 0)
			return -1;
		if (r) {
			count(d, c.kind);
			(*added)++;
		}
	}
	*d->ncand = kept;
	return 0;
}

/*
 * Did the last walk decode every instruction its paths reached, and
 * return somewhere?  Data or code of the other instruction set read as
 * code seldom does both.
 */
static bool walk_clean(const struct dc *d, bool must_return)
{
	return !d->walk_bad && (d->walk_returns || !must_return);
}

/*
 * Forget the function just added and walked: its marks (nothing else
 * marked inside its reach during its walk) and its start.
 */
static void drop_last(struct dc *d)
{
	struct dc_fn *f = &d->fn[--d->nfn];

	/* its index may come back for another function */
	if (d->nsorted > d->nfn)
		d->nsorted = 0;
	for (u32 a = f->addr; a < f->addr + f->size; a += 2)
		*dc_flag(d, a) &= DC_START | DC_THUMB | DC_NOMODE;
	*dc_flag(d, f->addr) = 0;
	d->found.n = 0;
	d->last_lo = d->last_hi = 0;
}

/*
 * Walk the function just added (@k), as a pass would.  A walk that
 * reaches an undecodable instruction, or with @ret no return, drops the
 * function: 1.  (A function a pointer names may never return: a thread's
 * loop.)
 */
static int walk_new(struct dc *d, u32 k, u32 *added, bool ret)
{
	u32 end = dc_walk_cached(d, k);

	if (end == -1u)
		return -1;
	d->fn[k].size = end > d->fn[k].addr ? end - d->fn[k].addr : 0;
	if (!walk_clean(d, ret)) {
		drop_last(d);
		return 1;
	}
	if (after_walk(d, true, added))
		return -1;
	d->last_lo = d->fn[k].addr;
	d->last_hi = end;
	d->last_thumb = d->fn[k].thumb;
	return 0;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct dc_cand *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Code addresses stored as data, tried after each pass in address order:
 * one taken is walked at once, so that the next one, which may follow
 * it, is known to follow code.  Those taken leave the list.
 */
static long take_ptrs(struct dc *d, u32 added)
{
	u32 keep = 0;

	for (u32 i = 0; i < d->ptrs.n; i++) {
		int r = take(d, &d->ptrs.v[i], true);
		u32 k = d->nfn - 1;

		if (r < 0)
			return -1;
		if (!r) {
			/* one outside the text is no start, now or later */
			if (dc_inside(d, d->ptrs.v[i].addr) &&
			    !(*dc_flag(d, d->ptrs.v[i].addr) & DC_START))
				d->ptrs.v[keep++] = d->ptrs.v[i];
			continue;
		}
		r = walk_new(d, k, &added, false);
		if (r < 0)
			return -1;
		if (!r) {
			count(d, DC_K_PTR);
			added++;
		}
	}
	d->ptrs.n = keep;
	return added;
}

/*
 * The first code after a walked function's reach (its padding skipped)
 * that no walk reached, when nothing else names a start any more: code
 * a compiler emits there is the next function, which only a pointer
 * the program computes, or a caller nothing reached, names.  Taken in
 * address order and walked at once, so a run of them is found in one
 * sweep.  Its instruction set is guessed as an unwind entry's is, and
 * its walk must be clean (walk_clean), or it is dropped.
 */
/*
 * Do the eight flags at @i all hold one of @bits?  (No byte of the
 * masked word is zero: the bits are below 0x80.)
 */
static bool all_have(const struct dc *d, u32 i, u8 bits)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t w;

	memcpy(&w, d->fl + i, 8);
	w &= bits * ones;
	return !((w - ones) & ~w & (ones << 7));
}

static long take_gaps(struct dc *d)
{
	const u8 any = DC_CODE | DC_IN | DC_DATA | DC_START;
	u32 added = 0;

	for (u32 i = 1; i < d->n; i++) {
		u32 a;
		u8 prev, f;
		struct dc_cand c;
		int r, m;

		/* reached code: nothing starts in it (most of the text) */
		while (i + 8 <= d->n && all_have(d, i, any))
			i += 8;
		if (i >= d->n)
			break;
		a = d->lo + 2 * i;
		prev = d->fl[i - 1];
		f = d->fl[i];
		if ((f & (DC_CODE | DC_IN | DC_DATA | DC_START)) ||
		    !(prev & (DC_CODE | DC_IN | DC_DATA)))
			continue;
		while (i < d->n && padding_at(d, a) &&
		       !(d->fl[i] & (DC_CODE | DC_IN | DC_DATA | DC_START))) {
			i++;
			a += 2;
		}
		if (i >= d->n || (d->fl[i] & (DC_CODE | DC_IN | DC_DATA | DC_START)))
			continue;
		m = dc_guess_mode(d, a);
		if (m < 0)
			continue;
		c = (struct dc_cand){ a, 0, m == 1, DC_K_GAP };
		r = take(d, &c, true);
		if (r > 0) {
			int w = walk_new(d, d->nfn - 1, &added, true);

			r = w < 0 ? -1 : !w;
		}
		if (r < 0)
			return -1;
		if (r == 1) {
			count(d, DC_K_GAP);
			added++;
		}
	}
	return added;
}

/* Every flag but the starts' cleared: eight halfwords a step. */
static void forget_walks(struct dc *d)
{
	const u8 keep = DC_START | DC_THUMB | DC_NOMODE;
	u32 i = 0;

	for (; i + 8 <= d->n; i += 8) {
		uint64_t w;

		memcpy(&w, d->fl + i, 8);
		w &= keep * 0x0101010101010101ull;
		memcpy(d->fl + i, &w, 8);
	}
	for (; i < d->n; i++)
		d->fl[i] &= keep;
}

/* One pass over every start; the number of starts it added, or -1. */
static long pass(struct dc *d, bool adding)
{
	u32 added = 0;
	long r;

	forget_walks(d);
	d->njumps = 0;

	for (u32 k = 0; k < d->nfn; k++) {
		u32 end;

		if (d->fn[k].nomode)
			continue;
		end = dc_walk_cached(d, k);
		if (end == -1u || after_walk(d, adding, &added))
			return -1;
		d->fn[k].size = end > d->fn[k].addr ? end - d->fn[k].addr : 0;
	}
	if (adding && order_build(d))
		return -1;
	for (u32 i = 0; adding && i < d->later.n; i++) {
		int r = take(d, &d->later.v[i], true);

		if (r < 0)
			return -1;
		if (r) {
			count(d, d->later.v[i].kind);
			added++;
		}
	}
	d->later.n = 0;
	if (!adding)
		return 0;
	r = take_ptrs(d, added);
	return r ? r : take_gaps(d);
}

static int seed(struct dc *d, const struct tb_input *in)
{
	struct dc_cands s = { 0 };
	int r = dc_seeds(d->e, in, &s);

	for (u32 i = 0; !r && i < s.n; i++) {
		const struct dc_cand *c = &s.v[i];

		if (c->kind == DC_K_BOUND) {
			r = add_bound(d, c->addr) < 0;
		} else if (c->kind == DC_K_PTR) {
			r = dc_cands_add(&d->ptrs, c->addr, c->thumb, c->kind, 0);
		} else if (placeable(d, c->addr, c->thumb)) {
			bool sym = tb_elf_sym(d->e, c->addr) &&
				   tb_elf_sym(d->e, c->addr)->addr == c->addr;

			r = add_fn(d, c->addr, c->thumb, false, sym) < 0;
			d->st->seeds++;
		}
	}
	free(s.v);
	/*
	 * in address order for take_ptrs(), whose passes keep that order
	 * (qsort() of no array, NULL and 0, is undefined: fuzz_table)
	 */
	if (!r && d->ptrs.n)
		qsort(d->ptrs.v, d->ptrs.n, sizeof(*d->ptrs.v), cand_cmp);
	return r ? -1 : 0;
}

static int setup(struct dc *d, struct tb_elf *e, struct tb_discover_stats *st)
{
	memset(d, 0, sizeof(*d));
	d->e = e;
	d->st = st;
	d->lo = e->meta.text_addr & ~1u;
	d->n = tb_elf_text_halfwords(e);	/* 0: no start is found */
	d->fl = calloc(d->n ? d->n : 1, 1);
	d->starts = calloc(d->n / 64 + 1, sizeof(*d->starts));
	d->fixed = calloc(d->n / 4 + 1, 1);
	d->walked = calloc(d->n / 64 + 1, sizeof(*d->walked));
	if (!d->fl || !d->starts || !d->fixed || !d->walked)
		return -1;
	for (u32 i = 0; i < e->nsecs && i < 32; i++)
		d->secb[i] = tb_elf_sec_bytes(e, &e->secs[i]);
	/* the walks start, as on a handle of their own, outside IT blocks */
	d->dec = tb_elf_decoder(e);
	if (!d->dec)
		return -1;
	tb_dec_reset_it(d->dec);
	d->insn = calloc(1, sizeof(*d->insn));
	return d->insn ? 0 : -1;
}

static void teardown(struct dc *d)
{
	free(d->insn);
	free(d->fl);
	free(d->starts);
	free(d->fixed);
	free(d->walked);
	free(d->fn);
	free(d->found.v);
	free(d->later.v);
	free(d->ptrs.v);
	free(d->order);
	free(d->merged);
	free(d->stack);
	free(d->jumps);
	dc_memo_free(d);
}

static int jump_cmp(const void *a, const void *b)
{
	const struct tb_jump *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->target < y->target ? -1 : x->target > y->target;
}

/*
 * The last pass's table targets, for prologue analysis to follow each
 * computed jump to exactly these (pa_flow_branch).
 */
static void publish_jumps(struct dc *d)
{
	struct tb_elf *e = d->e;

	if (d->njumps)
		qsort(d->jumps, d->njumps, sizeof(*d->jumps), jump_cmp);
	free(e->jumps);
	e->jumps = d->jumps;
	e->njumps = d->njumps;
	d->jumps = NULL;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct tb_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int add_map(struct tb_elf *e, u32 *cap, u32 addr, char kind)
{
	if (e->nmaps && e->maps[e->nmaps - 1].kind == kind)
		return 0;
	if (e->nmaps == *cap) {
		struct tb_map *v;

		*cap = *cap ? 2 * *cap : 1024;
		v = realloc(e->maps, *cap * sizeof(*v));
		if (!v)
			return -1;
		e->maps = v;
	}
	e->maps[e->nmaps++] = (struct tb_map){ addr, kind };
	return 0;
}

/*
 * Mapping symbols from the walks, for a file without any: each walked
 * function's instruction set at its start, $d over what its code reads
 * as data, its instruction set again where code follows.
 */
static int make_maps(struct dc *d)
{
	struct tb_elf *e = d->e;
	u32 cap = 0;

	if (e->nmaps || order_build(d))
		return 0;
	for (u32 k = 0; k < d->norder; k++) {
		const struct dc_fn *f = &d->fn[d->order[k]];
		char mode = f->thumb ? 't' : 'a';

		if (f->nomode || !f->size)
			continue;
		if (e->nmaps && e->maps[e->nmaps - 1].addr >= f->addr)
			continue;	/* inside the one before */
		if (add_map(e, &cap, f->addr, mode))
			return -1;
		/* a map only where the kind changes (e->nmaps > 0 here) */
		for (u32 a = f->addr; a < f->addr + f->size; a += 2) {
			u8 fl = *dc_flag(d, a);
			char k = (fl & DC_DATA) ? 'd' : (fl & DC_CODE) ? mode : 0;

			if (k && k != e->maps[e->nmaps - 1].kind &&
			    add_map(e, &cap, a, k))
				return -1;
		}
	}
	e->maps_found = e->nmaps != 0;
	return 0;
}

void tb_discover_drop_maps(struct tb_elf *e)
{
	if (!e->maps_found)
		return;
	free(e->maps);
	e->maps = NULL;
	e->nmaps = 0;
	e->maps_found = false;
}

/* Every start found (not a symbol's) joins @e's symbols. */
static int publish(struct dc *d)
{
	struct tb_elf *e = d->e;
	struct tb_sym *v = realloc(e->syms, (e->nsyms + d->nfn + 1) * sizeof(*v));
	u32 added = 0;

	if (!v)
		return -1;
	e->syms = v;
	for (u32 k = 0; k < d->nfn; k++) {
		const struct dc_fn *f = &d->fn[k];

		if (f->sym || f->nomode || !f->size)
			continue;
		v[e->nsyms++] = (struct tb_sym){ f->addr, f->size, dc_name,
						 f->thumb, true };
		added++;
	}
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	return added;
}

/* UWPROF_DISCOVER_DEBUG: what the walks reached, and the largest gaps. */
static void debug_dump(struct dc *d)
{
	u32 reached = 0, gap = 0;

	for (u32 i = 0; i < d->n; i++) {
		bool r = d->fl[i] & (DC_CODE | DC_IN | DC_DATA);

		reached += r ? 2 : 0;
		if (!r) {
			gap += 2;
			continue;
		}
		if (gap >= 64)
			fprintf(stderr, "gap 0x%x-0x%x (%u)\n", d->lo + 2 * i - gap,
				d->lo + 2 * i, gap);
		gap = 0;
	}
	fprintf(stderr, "starts %u, reached %u of %u bytes, ptrs left %u\n",
		d->nfn, reached, 2 * d->n, d->ptrs.n);
}

int tb_discover(struct tb_elf *e, const struct tb_input *in,
		struct tb_discover_stats *st)
{
	struct dc d;
	long r = 0;

	memset(st, 0, sizeof(*st));
	if (setup(&d, e, st) || seed(&d, in)) {
		teardown(&d);
		return -1;
	}
	/* a last pass that adds nothing gives every walk its final bounds */
	do {
		st->passes++;
		r = pass(&d, st->passes < DC_MAX_PASSES);
	} while (r > 0);
	if (getenv("UWPROF_DISCOVER_DEBUG"))
		debug_dump(&d);
	if (r >= 0)
		r = publish(&d);
	if (r >= 0)
		publish_jumps(&d);
	if (r >= 0 && make_maps(&d))
		r = -1;
	teardown(&d);
	return (int)r;
}
