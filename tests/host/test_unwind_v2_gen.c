// SPDX-License-Identifier: GPL-2.0
/* The test table writer: see test_unwind_v2_gen.h. */
#include <stdlib.h>
#include <string.h>
#include "test_unwind_v2_gen.h"

#define PAGE_SHIFT 17

void uw2g_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

uint32_t uw2g_uleb(uint8_t *out, uint32_t v)
{
	uint32_t n = 0;

	do {
		out[n] = v & 0x7f;
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* A growable byte buffer; tests are small, so failure just aborts. */
struct gbuf {
	uint8_t *p;
	uint32_t len, cap;
};

static void gb_put(struct gbuf *b, const void *src, uint32_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static uint32_t find_bytes(const struct gbuf *b, const uint8_t *s, uint32_t n,
			   uint32_t stride)
{
	for (uint32_t i = 0; i + n <= b->len; i += stride)
		if (!memcmp(b->p + i, s, n))
			return i;
	return UINT32_MAX;
}

/* The UIT index of @r's sequence, appending it if it is new. */
static uint32_t uit_index(struct gbuf *uit, const struct uw2g_row *r)
{
	uint32_t at = find_bytes(uit, r->seq, r->len, 1);

	if (at != UINT32_MAX)
		return at;
	at = uit->len;
	gb_put(uit, r->seq, r->len);
	return at;
}

static uint32_t fot_list(struct gbuf *fot, struct gbuf *uit,
			 const struct uw2g_func *f, struct gbuf *starts)
{
	struct gbuf list = { 0 };
	uint8_t tmp[10];
	uint32_t at;

	for (uint32_t i = 0; i < f->nrows; i++) {
		gb_put(&list, tmp, uw2g_uleb(tmp, f->rows[i].off));
		gb_put(&list, tmp, uw2g_uleb(tmp, uit_index(uit, &f->rows[i])));
	}
	/* share only whole lists that start where an earlier list started */
	for (uint32_t i = 0; i < starts->len; i += 4) {
		memcpy(&at, starts->p + i, 4);
		if (at + list.len <= fot->len &&
		    !memcmp(fot->p + at, list.p, list.len)) {
			free(list.p);
			return at;
		}
	}
	at = fot->len;
	gb_put(starts, &at, 4);
	gb_put(fot, list.p, list.len);
	free(list.p);
	return at;
}

uint32_t uw2g_build(const struct uw2g_func *f, uint32_t nf,
		    uint32_t text_size, uint8_t *out, uint32_t cap)
{
	uint32_t npages = text_size ? ((text_size - 1) >> PAGE_SHIFT) + 1 : 1;
	struct gbuf fot = { 0 }, uit = { 0 }, starts = { 0 }, ft = { 0 };
	uint32_t size = 0, fi = 0, off;
	uint8_t e[4];

	for (uint32_t i = 0; i < nf; i++) {
		uint32_t idx = fot_list(&fot, &uit, &f[i], &starts);
		uint32_t poff = (f[i].start >> 1) & 0xffff;

		if (idx > 0xffff)
			goto out;
		e[0] = poff;
		e[1] = poff >> 8;
		e[2] = idx;
		e[3] = idx >> 8;
		gb_put(&ft, e, 4);
	}
	size = 32 + 4 * npages + ft.len + fot.len + uit.len;
	if (size > cap) {
		size = 0;
		goto out;
	}
	off = 32;
	uw2g_put32(out, off);
	uw2g_put32(out + 4, npages);
	for (uint32_t p = 0; p < npages; p++) {
		while (fi < nf && (f[fi].start >> PAGE_SHIFT) < p)
			fi++;
		uw2g_put32(out + off + 4 * p, fi);
	}
	off += 4 * npages;
	uw2g_put32(out + 8, off);
	uw2g_put32(out + 12, nf);
	memcpy(out + off, ft.p, ft.len);
	off += ft.len;
	uw2g_put32(out + 16, off);
	uw2g_put32(out + 20, fot.len);
	memcpy(out + off, fot.p, fot.len);
	off += fot.len;
	uw2g_put32(out + 24, off);
	uw2g_put32(out + 28, uit.len);
	memcpy(out + off, uit.p, uit.len);
out:
	free(fot.p);
	free(uit.p);
	free(starts.p);
	free(ft.p);
	return size;
}
