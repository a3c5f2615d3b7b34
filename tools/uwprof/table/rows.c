// SPDX-License-Identifier: GPL-2.0
/*
 * A function's rows kept packed.  A struct tb_row holds a rule for each
 * of 49 registers, 408 bytes, and prologue analysis states every rule in
 * every row: Chrome-sized code holds millions of them until conversion
 * (chromium: 1.8 GB of rows after the analysis).  A function's rows
 * differ little from one to the next, so each is kept as what differs
 * from the one before it, the first from an all-zero row:
 *
 *   ULEB128  its address minus the previous row's (modulo 2^32)
 *   byte     bit 0: the CFA fields differ; bit 1: compat_unparsable;
 *            bit 2: clone_r0
 *   [byte cfa_kind, byte cfa_reg, ZZ cfa_off]  when bit 0 is set
 *   byte     how many rules differ, then for each
 *   byte index, byte kind, byte reg, ZZ off
 *
 * ZZ: a signed value zigzagged into a ULEB128.  Unpacking gives back
 * every field as it was, so every reader sees the rows it would have
 * seen unpacked.
 */
#include <stdlib.h>
#include <string.h>
#include "table/table.h"
#include "lib/ehabi.h"

/* The most one row takes packed. */
#define ROW_MAX	(5 + 1 + 2 + 5 + 1 + TB_NREGS * (3 + 5))

static u32 zz(s32 v)
{
	return ((u32)v << 1) ^ (u32)(v >> 31);
}

static s32 unzz(u32 v)
{
	return (s32)(v >> 1) ^ -(s32)(v & 1);
}

static bool rule_eq(const struct tb_rule *a, const struct tb_rule *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* @r after @prev into @out; returns the bytes written. */
static u32 pack_row(const struct tb_row *prev, const struct tb_row *r, u8 *out)
{
	bool cfa = r->cfa_kind != prev->cfa_kind ||
		   r->cfa_reg != prev->cfa_reg || r->cfa_off != prev->cfa_off;
	u32 o = tb_uleb128(r->addr - prev->addr, out), count;

	out[o++] = cfa | r->compat_unparsable << 1 | r->clone_r0 << 2;
	if (cfa) {
		out[o++] = r->cfa_kind;
		out[o++] = r->cfa_reg;
		o += tb_uleb128(zz(r->cfa_off), out + o);
	}
	count = o++;
	out[count] = 0;
	for (u32 i = 0; i < TB_NREGS; i++) {
		if (rule_eq(&r->r[i], &prev->r[i]))
			continue;
		out[count]++;
		out[o++] = i;
		out[o++] = r->r[i].kind;
		out[o++] = r->r[i].reg;
		o += tb_uleb128(zz(r->r[i].off), out + o);
	}
	return o;
}

int tb_rows_pack(struct tb_cfi_func *f)
{
	static const struct tb_row zero;
	u8 *b, *v;
	u32 n = 0;

	if (!f->rows)
		return 0;
	b = malloc((size_t)f->nrows * ROW_MAX + 1);
	if (!b)
		return -1;
	for (u32 i = 0; i < f->nrows; i++)
		n += pack_row(i ? &f->rows[i - 1] : &zero, &f->rows[i], b + n);
	v = realloc(b, n ? n : 1);
	free(f->rows);
	f->rows = NULL;
	f->packed = v ? v : b;
	f->packed_len = n;
	return 0;
}

/* A ULEB128 of the stream; the stream is ours, so always whole. */
static u32 get(const struct tb_rows_it *it, u32 *pos)
{
	u32 v = 0;

	uw_uleb(it->f->packed, it->f->packed_len, pos, &v);
	return v;
}

/* The next packed row over the one in @it->row. */
static void unpack_row(struct tb_rows_it *it)
{
	const u8 *b = it->f->packed;
	struct tb_row *r = &it->row;
	u32 p = it->pos, flags, count;

	r->addr += get(it, &p);
	flags = b[p++];
	r->compat_unparsable = flags >> 1 & 1;
	r->clone_r0 = flags >> 2 & 1;
	if (flags & 1) {
		r->cfa_kind = b[p++];
		r->cfa_reg = b[p++];
		r->cfa_off = unzz(get(it, &p));
	}
	count = b[p++];
	while (count--) {
		struct tb_rule *u = &r->r[b[p]];

		u->kind = b[p + 1];
		u->reg = b[p + 2];
		p += 3;
		u->off = unzz(get(it, &p));
	}
	it->pos = p;
}

void tb_rows_begin(struct tb_rows_it *it, const struct tb_cfi_func *f)
{
	memset(it, 0, sizeof(*it));
	it->f = f;
}

const struct tb_row *tb_rows_next(struct tb_rows_it *it)
{
	if (it->i == it->f->nrows)
		return NULL;
	if (!it->f->packed)
		return &it->f->rows[it->i++];
	it->i++;
	unpack_row(it);
	return &it->row;
}

void tb_rows_free(struct tb_cfi_func *f)
{
	free(f->rows);
	free(f->packed);
	f->rows = NULL;
	f->packed = NULL;
	f->nrows = 0;
	f->packed_len = 0;
}

int tb_rows_unpack(struct tb_cfi_func *f)
{
	struct tb_rows_it it;
	const struct tb_row *r;
	struct tb_row *v;

	if (!f->packed)
		return 0;
	v = malloc((f->nrows ? f->nrows : 1) * sizeof(*v));
	if (!v)
		return -1;
	tb_rows_begin(&it, f);
	for (u32 i = 0; (r = tb_rows_next(&it)); i++)
		v[i] = *r;
	free(f->packed);
	f->packed = NULL;
	f->packed_len = 0;
	f->rows = v;
	return 0;
}
