/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Valid v2 tables built to cost the most: to validate (wt_build(), used by
 * attack_test.c in the VM and by fuzz/worst_table.c, which searches the
 * shapes on the host), and to unwind with (the sample attacks of
 * attack_test.c).  Every table here must pass validation: a refused one
 * tests nothing.
 */
#ifndef UWPROF_WORST_TABLES_H
#define UWPROF_WORST_TABLES_H

#include <stdint.h>
#include <string.h>

/* The shape of a table that fills a size (wt_build()). */
struct wt_shape {
	uint32_t list_pairs;	/* pairs per FOT list, 1..4096 */
	uint32_t uleb_bytes;	/* bytes per FOT number, 1..5 */
	uint32_t seq_ops;	/* opcodes per sequence with its Finish, 1..64 */
	uint32_t op;		/* 0: 00, 1: 8d ff 4a (pop 11, back), 2: b2 */
	uint32_t func_share;	/* 1 in func_share functions has a list, 1.. */
	uint32_t reverse;	/* lists and sequences named last first */
};

static inline void wt_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * The header of a table whose page table (@pages entries) follows it, then
 * @funcs function entries at @ft, the FOT at @fot and the UIT at @uit.
 */
static inline void wt_header(uint8_t *b, uint32_t pages, uint32_t ft,
			     uint32_t funcs, uint32_t fot, uint32_t fot_size,
			     uint32_t uit, uint32_t uit_size)
{
	const uint32_t h[8] = { 32, pages, ft, funcs, fot, fot_size, uit,
				uit_size };

	for (int i = 0; i < 8; i++)
		wt_put32(b + 4 * i, h[i]);
}

/* @v as a ULEB128 of exactly @w bytes (padded with continuation bits). */
static inline uint32_t wt_uleb(uint8_t *p, uint32_t v, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++) {
		p[i] = (v & 0x7f) | (i + 1 < w ? 0x80 : 0);
		v >>= 7;
	}
	return w;
}

/* Bytes a ULEB128 of @v needs, or @w if more. */
static inline uint32_t wt_width(uint32_t v, uint32_t w)
{
	uint32_t n = 1;

	while (v >>= 7)
		n++;
	return n > w ? n : w;
}

/* One sequence of @ops opcodes ending in Finish, of kind @op. */
static inline uint32_t wt_sequence(uint8_t *p, uint32_t ops, uint32_t op)
{
	uint32_t n = 0, k;

	for (k = 0; k + 1 < ops; k++) {
		if (op == 1 && k + 2 < ops) {
			p[n++] = 0x8d;	/* pop r4-r12, r14, r15 ... */
			p[n++] = 0xff;
			p[n++] = 0x4a;	/* ... vsp -= 44: back where it was */
			k++;
		} else if (op == 2) {
			p[n++] = 0xb2;	/* vsp += 0x204 + 4 * 0, in 5 bytes */
			n += wt_uleb(p + n, 0, 5);
		} else {
			p[n++] = 0x00;	/* vsp += 4 */
		}
	}
	p[n++] = 0xb0;
	return n;
}

/*
 * A valid table of at most @size bytes in @b of shape @sh; returns its
 * size.  Functions fill the pages (65,536 a page), FOT lists fill the
 * first 64 KiB of the FOT (the function table's index is 16 bits), and
 * each pair names its own sequence, the UIT holding what is left.
 */
static inline uint32_t wt_build(uint8_t *b, uint32_t size,
				const struct wt_shape *sh)
{
	uint32_t wo = wt_width(sh->list_pairs - 1, sh->uleb_bytes), wi;
	uint32_t funcs, pages, ft, fot, uit, fot_size, uit_size, i, n;
	uint32_t lists, pairs, seq_bytes, pair;
	uint8_t one[512];

	seq_bytes = wt_sequence(one, sh->seq_ops, sh->op);
	/* the UIT index's width for the largest the FOT could name */
	wi = wt_width(65536 * seq_bytes, sh->uleb_bytes);
	pair = wo + wi;
	lists = 65536 / (sh->list_pairs * pair);
	if (!lists)
		lists = 1;
	pairs = lists * sh->list_pairs;
	fot_size = pairs * pair;
	uit_size = pairs * seq_bytes;
	if (size < 64 + fot_size + uit_size)
		return 0;
	/* the rest is functions and their page table entries */
	funcs = (size - 32 - fot_size - uit_size) / 4;
	funcs -= funcs / 16384 + 1;
	pages = (funcs + 65535) / 65536;
	ft = 32 + 4 * pages;
	fot = ft + 4 * funcs;
	uit = fot + fot_size;
	wt_header(b, pages, ft, funcs, fot, fot_size, uit, uit_size);
	for (i = 0; i < pages; i++)
		wt_put32(b + 32 + 4 * i, 65536 * i);
	for (i = 0; i < funcs; i++) {
		/* a list's pair (suffix), or the function before's list */
		uint32_t k = i / sh->func_share % pairs, at;

		if (sh->reverse)
			k = pairs - 1 - k;
		at = k * pair;
		b[ft + 4 * i] = i;
		b[ft + 4 * i + 1] = i >> 8;
		b[ft + 4 * i + 2] = at;
		b[ft + 4 * i + 3] = at >> 8;
	}
	for (i = 0, n = fot; i < pairs; i++) {
		uint32_t off = sh->list_pairs - 1 - i % sh->list_pairs;
		uint32_t s = sh->reverse ? pairs - 1 - i : i;

		n += wt_uleb(b + n, off, wo);
		n += wt_uleb(b + n, s * seq_bytes, wi);
	}
	for (i = 0; i < pairs; i++)
		memcpy(b + uit + i * seq_bytes, one, seq_bytes);
	return uit + uit_size;
}

/*
 * The slowest shapes make worst-tables found (fuzz/worst_table.c, at
 * 1 MiB, validation and the table's shapes), and the plain extremes.
 */
static const struct wt_shape wt_shapes[] = {
	{ 16, 5, 64, 0, 1, 1 },		/* short lists, long wide sequences */
	{ 256, 1, 64, 0, 1, 0 },	/* longer lists, long sequences */
	{ 4096, 1, 2, 0, 1, 1 },	/* suffixes of long lists, named last first */
	{ 1, 5, 64, 2, 1, 0 },		/* long sequences of wide opcodes */
	{ 4096, 5, 64, 1, 1, 0 },	/* wide numbers, long lists, pops */
	{ 1, 1, 1, 0, 1, 0 },		/* nothing but functions */
};

#endif /* UWPROF_WORST_TABLES_H */
