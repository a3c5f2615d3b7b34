// SPDX-License-Identifier: GPL-2.0
/*
 * Lay converted functions out as a v2 blob (FORMAT-v2.md §5.5-5.8, §1):
 * fillers, the unwind instruction table ordered by use per byte, the
 * function offset table with shared lists, the page and function tables
 * and the header; or, when one blob's FOT index would overflow, as
 * several blobs over consecutive ranges (docs/TABLES.md, "Split tables").
 */
#include <stdlib.h>
#include <string.h>
#include "lib/uwt.h"
#include "table/table.h"

#define PAGE_SHIFT	17
#define FOT_INDEX_MAX	0xffff

static int func_cmp(const void *a, const void *b)
{
	const struct tb_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static void make_filler(struct tb_func *f, u32 addr, int kind)
{
	static const u8 trivial[] = { 0xb0 };
	struct tb_pair *p = calloc(1, sizeof(*p));

	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->filler = kind;
	f->npairs = 1;
	f->pairs = p;
	if (!p)
		return;
	if (kind == TB_FILL_REFUSE)
		tb_seq_put(&p->seq, tb_ops_refuse, 2);
	else
		tb_seq_put(&p->seq, trivial, sizeof(trivial));
}

/* The table's unit: halfwords counted from the text start. */
static u32 halfword(const struct tb_layout_opts *o, u32 addr)
{
	return (addr - o->text_start) >> 1;
}

struct tb_func *tb_add_fillers(struct tb_func *funcs, u32 n,
			       const struct tb_layout_opts *o, u32 *nout,
			       struct tb_notes *notes, char *err,
			       size_t errlen)
{
	struct tb_func *v = calloc(2 * (size_t)n + 2, sizeof(*v));
	u32 m = 0, end = 0;	/* halfword after the last entry */

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	qsort(funcs, n, sizeof(*funcs), func_cmp);
	for (u32 i = 0; i < n; i++) {
		struct tb_func *f = &funcs[i];
		u32 start = halfword(o, f->addr);

		/*
		 * Compared in halfwords, not bytes: an entry on an odd byte
		 * (a section at an odd address) starts in the halfword of
		 * the byte before it, so no filler fits in that one byte.
		 */
		/*
		 * The trailing refuse needs an address after the function:
		 * one that reaches the end of the address space (a corrupt
		 * section size) is left out like an overlapping one.
		 */
		if ((uint64_t)f->addr + f->size + 1 > UINT32_MAX) {
			tb_note_add(notes, f->addr, f->addr,
				    TB_N_OUTSIDE_TEXT, "ends 0x%llx",
				    (unsigned long long)f->addr + f->size);
			f->overlapped = true;
			continue;
		}
		if (m && start < end) {
			if (o->chrome_compat) {
				snprintf(err, errlen,
					 "functions at 0x%x and 0x%x overlap (Chrome's generator asserts; drop --chrome-compat to skip the later one)",
					 v[m - 1].addr, f->addr);
				free(v);
				return NULL;
			}
			tb_note_add(notes, f->addr, f->addr, TB_N_OVERLAP,
				    "ends 0x%x", f->addr + f->size);
			f->overlapped = true;
			continue;
		}
		if (!m && start)
			make_filler(&v[m++], o->text_start, TB_FILL_REFUSE);
		else if (m && start > end)
			make_filler(&v[m++], o->text_start + 2 * end,
				    o->gaps_refuse ? TB_FILL_REFUSE :
						     TB_FILL_TRIVIAL);
		v[m++] = *f;
		/* An odd end (a section or a record of odd size) takes its
		 * whole last halfword. */
		end = halfword(o, f->addr + f->size + 1);
	}
	/*
	 * Chrome adds the trailing refuse only when the end is inside a
	 * page; uwprof always adds it, so that a last function ending on a
	 * page boundary keeps page table entries for all of its pages.
	 */
	if (m && (!o->chrome_compat || (end & 0xffff)))
		make_filler(&v[m++], o->text_start + 2 * end, TB_FILL_REFUSE);
	*nout = m;
	return v;
}

static int seq_cmp(const struct tb_seq *a, const struct tb_seq *b)
{
	u32 n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->b, b->b, n);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/* count/len descending, then bytes descending (Python's order). */
static int uit_cmp(const void *pa, const void *pb)
{
	const struct tb_uit_seq *a = pa, *b = pb;
	unsigned long long l = (unsigned long long)a->count * b->seq.len;
	unsigned long long r = (unsigned long long)b->count * a->seq.len;

	if (l != r)
		return l > r ? -1 : 1;
	return -seq_cmp(&a->seq, &b->seq);
}

u32 tb_order_uit(struct tb_uit_seq *v, u32 n)
{
	u32 off = 0;

	qsort(v, n, sizeof(*v), uit_cmp);
	for (u32 i = 0; i < n; i++) {
		v[i].offset = off;
		off += v[i].seq.len;
	}
	return off;
}

/* A small open-addressing set of sequences, keyed by their bytes. */
struct seqset {
	struct tb_uit_seq *v;
	u32 n;
	u32 *slots;		/* index + 1, 0 = empty */
	u32 nslots;
};

static u32 bytes_hash(const u8 *b, u32 len)
{
	u32 h = 2166136261u ^ len;

	for (u32 i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static u32 seq_hash(const struct tb_seq *s)
{
	return bytes_hash(s->b, s->len);
}

static long seqset_find(const struct seqset *ss, const struct tb_seq *s,
			u32 *slot)
{
	u32 h = seq_hash(s) & (ss->nslots - 1);

	for (;; h = (h + 1) & (ss->nslots - 1)) {
		u32 k = ss->slots[h];

		if (!k) {
			*slot = h;
			return -1;
		}
		if (!seq_cmp(&ss->v[k - 1].seq, s))
			return k - 1;
	}
}

long tb_uit_lookup(const struct tb_uit_seq *v, u32 n, const struct tb_seq *s)
{
	for (u32 i = 0; i < n; i++)
		if (!seq_cmp(&v[i].seq, s))
			return v[i].offset;
	return -1;
}

/* Lists of (offset, uit offset) pairs, compared whole for sharing. */
struct flist {
	u32 func;		/* first function that uses it */
	u32 start;		/* FOT byte index */
	u32 len;		/* encoded bytes */
	u8 *bytes;
};

/*
 * The list equal to @b in lists[] through the hash slots (index + 1,
 * 0 = empty), or -1 and in *slot where to add it.
 */
static long flist_find(const struct flist *lists, const u32 *slots,
		       u32 nslots, const u8 *b, u32 len, u32 *slot)
{
	u32 h = bytes_hash(b, len) & (nslots - 1);

	for (;; h = (h + 1) & (nslots - 1)) {
		u32 k = slots[h];

		if (!k) {
			*slot = h;
			return -1;
		}
		if (lists[k - 1].len == len && !memcmp(lists[k - 1].bytes, b, len))
			return k - 1;
	}
}

static int flist_len_cmp(const void *a, const void *b)
{
	const struct flist *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->func < y->func ? -1 : 1;
}

static u8 *encode_list(const struct tb_func *f, const u32 *uit_off, u32 *len)
{
	u8 *b = malloc(f->npairs * 10 + 1);
	u32 o = 0;

	if (!b)
		return NULL;
	for (u32 i = 0; i < f->npairs; i++) {
		o += tb_uleb128(f->pairs[i].off >> 1, b + o);
		o += tb_uleb128(uit_off[i], b + o);
	}
	*len = o;
	return b;
}

long tb_build_fot(const struct tb_func *funcs, u32 n,
		  const struct tb_uit_seq *uit, u32 nuit, bool reorder,
		  u32 index_max, u8 **fot, u32 *index, char *err,
		  size_t errlen)
{
	struct flist *lists = calloc(n ? n : 1, sizeof(*lists));
	u32 *owner = calloc(n ? n : 1, sizeof(*owner));
	u32 nl = 0, size = 0, maxstart = 0, nlslots = 1, *lslots = NULL;
	struct seqset ss = { (struct tb_uit_seq *)uit, nuit, NULL, 1 };
	u8 *out;
	long ret = -1;

	if (!index_max)
		index_max = FOT_INDEX_MAX;
	if (!lists || !owner)
		goto oom;
	while (ss.nslots < 2 * nuit + 2)
		ss.nslots <<= 1;
	ss.slots = calloc(ss.nslots, sizeof(u32));
	while (nlslots < 2 * n + 2)
		nlslots <<= 1;
	lslots = calloc(nlslots, sizeof(u32));
	if (!ss.slots || !lslots)
		goto oom;
	for (u32 i = 0; i < nuit; i++) {
		u32 slot;

		if (seqset_find(&ss, &uit[i].seq, &slot) < 0)
			ss.slots[slot] = i + 1;
	}
	for (u32 i = 0; i < n; i++) {
		u32 *uo = calloc(funcs[i].npairs + 1, sizeof(u32)), len, j, slot = 0;
		u8 *b;
		long found;

		if (!uo)
			goto oom;
		for (j = 0; j < funcs[i].npairs; j++) {
			u32 slot;
			long k = seqset_find(&ss, &funcs[i].pairs[j].seq, &slot);

			if (k < 0) {
				snprintf(err, errlen, "internal: sequence not in UIT");
				free(uo);
				goto fail;
			}
			uo[j] = uit[k].offset;
		}
		b = encode_list(&funcs[i], uo, &len);
		free(uo);
		if (!b)
			goto oom;
		/* Whole-list sharing, through a hash of the encoded bytes. */
		found = flist_find(lists, lslots, nlslots, b, len, &slot);
		if (found >= 0) {
			free(b);
			j = (u32)found;
		} else {
			j = nl;
			lists[nl++] = (struct flist){ i, 0, len, b };
			lslots[slot] = nl;
		}
		owner[i] = j;
	}
	/* Address order first, as Chrome does. */
	for (u32 j = 0; j < nl; j++) {
		lists[j].start = size;
		if (size > maxstart)
			maxstart = size;
		size += lists[j].len;
	}
	if (maxstart > index_max && reorder) {
		/*
		 * Only where a list starts must fit in 16 bits: put the
		 * longest lists last, so the start of the last one is as
		 * low as it can be.
		 */
		u32 *map = calloc(nl, sizeof(u32));

		if (!map)
			goto oom;
		for (u32 j = 0; j < nl; j++)
			lists[j].start = j;	/* remember the old index */
		qsort(lists, nl, sizeof(*lists), flist_len_cmp);
		for (u32 j = 0; j < nl; j++)
			map[lists[j].start] = j;
		for (u32 i = 0; i < n; i++)
			owner[i] = map[owner[i]];
		free(map);
		size = maxstart = 0;
		for (u32 j = 0; j < nl; j++) {
			lists[j].start = size;
			maxstart = size;
			size += lists[j].len;
		}
	}
	if (maxstart > index_max) {
		snprintf(err, errlen,
			 "the function offset table needs a list to start at byte %u, beyond %s (%u)%s",
			 maxstart, index_max == FOT_INDEX_MAX ?
			 "the 16-bit index of the format" :
			 "the limit of --test-fot-limit", index_max, reorder ?
			 " even with the longest lists last" :
			 " in address order");
		ret = -2;
		goto fail;
	}
	out = malloc(size ? size : 1);
	if (!out)
		goto oom;
	for (u32 j = 0; j < nl; j++)
		memcpy(out + lists[j].start, lists[j].bytes, lists[j].len);
	for (u32 i = 0; i < n; i++)
		index[i] = lists[owner[i]].start;
	for (u32 j = 0; j < nl; j++)
		free(lists[j].bytes);
	free(lists);
	free(owner);
	free(ss.slots);
	free(lslots);
	*fot = out;
	return size;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	if (lists)
		for (u32 j = 0; j < nl; j++)
			free(lists[j].bytes);
	free(lists);
	free(owner);
	free(ss.slots);
	free(lslots);
	return ret;
}

int tb_build_pages(const struct tb_func *funcs, u32 n, u32 text_start,
		   const u32 *index, u32 **pages, u32 *npages,
		   u8 **ftab, u32 *nftab)
{
	u32 last = n ? (funcs[n - 1].addr - text_start) >> PAGE_SHIFT : 0;
	u32 *pt = calloc(last + 1, sizeof(u32));
	u8 *ft = calloc(n ? n : 1, 4);
	u32 page = 0;

	if (!pt || !ft) {
		free(pt);
		free(ft);
		return -1;
	}
	pt[0] = 0;
	for (u32 i = 0; i < n; i++) {
		u32 off = funcs[i].addr - text_start;
		u32 p = off >> PAGE_SHIFT;
		u32 poff = (off >> 1) & 0xffff;

		/* Pages with no function start hold the next page's index. */
		while (page < p)
			pt[++page] = i;
		ft[4 * i + 0] = poff & 0xff;
		ft[4 * i + 1] = poff >> 8;
		ft[4 * i + 2] = index[i] & 0xff;
		ft[4 * i + 3] = index[i] >> 8;
	}
	*pages = pt;
	*npages = n ? last + 1 : 0;
	*ftab = ft;
	*nftab = n;
	return 0;
}

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static int collect_uit(const struct tb_func *v, u32 m,
		       struct tb_uit_seq **out, u32 *nout)
{
	u32 total = 0, n = 0;
	struct seqset ss = { NULL, 0, NULL, 1 };

	for (u32 i = 0; i < m; i++)
		total += v[i].npairs;
	while (ss.nslots < 2 * total + 2)
		ss.nslots <<= 1;
	ss.v = calloc(total ? total : 1, sizeof(*ss.v));
	ss.slots = calloc(ss.nslots, sizeof(u32));
	if (!ss.v || !ss.slots) {
		free(ss.v);
		free(ss.slots);
		return -1;
	}
	for (u32 i = 0; i < m; i++)
		for (u32 j = 0; j < v[i].npairs; j++) {
			u32 slot;
			long k = seqset_find(&ss, &v[i].pairs[j].seq, &slot);

			if (k < 0) {
				ss.v[n].seq = v[i].pairs[j].seq;
				ss.v[n].count = 0;
				k = n++;
				ss.n = n;
				ss.slots[slot] = k + 1;
			}
			ss.v[k].count++;
		}
	free(ss.slots);
	*out = ss.v;
	*nout = n;
	return 0;
}

/*
 * @v[0..n) (fillers included, sorted, contiguous) as one v2 blob whose
 * offsets count from @text_start.  Returns 0, 1 when the FOT overflows
 * its 16-bit index (@err says how), -1 with a message in @err.
 */
static int layout_one(const struct tb_func *v, u32 m, u32 text_start,
		      const struct tb_layout_opts *o, struct tb_blob *out,
		      char *err, size_t errlen)
{
	struct tb_uit_seq *uit = NULL;
	u32 nuit, uit_size, *index = NULL, *pt = NULL, npt, nft;
	u8 *fot = NULL, *ft = NULL, *blob, *p;
	long fot_size;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (collect_uit(v, m, &uit, &nuit))
		goto oom;
	uit_size = tb_order_uit(uit, nuit);
	index = calloc(m, sizeof(u32));
	if (!index)
		goto oom;
	fot_size = tb_build_fot(v, m, uit, nuit, !o->chrome_compat,
				o->fot_index_max, &fot, index, err, errlen);
	if (fot_size < 0) {
		ret = fot_size == -2 ? 1 : -1;
		goto done;
	}
	if (tb_build_pages(v, m, text_start, index, &pt, &npt, &ft, &nft))
		goto oom;
	out->size = 32 + 4 * npt + 4 * nft + fot_size + uit_size;
	blob = calloc(1, out->size);
	if (!blob)
		goto oom;
	p = blob;
	put32(p + 0, 32);
	put32(p + 4, npt);
	put32(p + 8, 32 + 4 * npt);
	put32(p + 12, nft);
	put32(p + 16, 32 + 4 * npt + 4 * nft);
	put32(p + 20, fot_size);
	put32(p + 24, 32 + 4 * npt + 4 * nft + fot_size);
	put32(p + 28, uit_size);
	p += 32;
	for (u32 i = 0; i < npt; i++, p += 4)
		put32(p, pt[i]);
	memcpy(p, ft, 4 * nft);
	p += 4 * nft;
	memcpy(p, fot, fot_size);
	p += fot_size;
	for (u32 i = 0; i < nuit; i++)
		memcpy(p + uit[i].offset, uit[i].seq.b, uit[i].seq.len);
	out->data = blob;
	out->text_start = text_start;
	out->page_entries = npt;
	out->func_entries = nft;
	out->fot_size = fot_size;
	out->uit_size = uit_size;
	out->nseqs = nuit;
	ret = 0;
	goto done;
oom:
	snprintf(err, errlen, "out of memory");
done:
	free(uit);
	free(index);
	free(fot);
	free(pt);
	free(ft);
	return ret;
}

/*
 * Where the part starting at entry @a counts from: the text start for the
 * first, else the halfword of its first entry (an entry on an odd byte
 * starts in the halfword before it, tb_add_fillers()).
 */
static u32 part_start(const struct tb_func *v, u32 a,
		      const struct tb_layout_opts *o)
{
	return a ? v[a].addr & ~1u : o->text_start;
}

/* Parts made so far. */
struct parts {
	struct tb_blob *v;
	u32 n, room;
};

/*
 * @v[a..b) as one part, or, when that overflows an index of the format,
 * as two halves, each split again as needed.  A part before another ends
 * with a refuse filler at the next part's start, outside its range, so
 * that its last function keeps page entries for every page it spans.
 */
static int layout_range(const struct tb_func *v, u32 a, u32 b, bool last,
			const struct tb_layout_opts *o, struct parts *ps,
			char *err, size_t errlen)
{
	struct tb_func *w = (struct tb_func *)v + a;
	u32 n = b - a, mid;
	int r;

	if (ps->n == ps->room) {
		struct tb_blob *nv = realloc(ps->v, (ps->room * 2 + 4) *
					     sizeof(*nv));

		if (!nv) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		ps->v = nv;
		ps->room = ps->room * 2 + 4;
	}
	if (!last) {
		w = malloc((n + 1) * sizeof(*w));
		if (!w) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(w, v + a, n * sizeof(*w));
		make_filler(&w[n++], part_start(v, b, o), TB_FILL_REFUSE);
	}
	r = layout_one(w, n, part_start(v, a, o), o, &ps->v[ps->n], err,
		       errlen);
	if (!last) {
		free(w[n - 1].pairs);
		free(w);
	}
	if (r <= 0) {
		if (!r)
			ps->v[ps->n++].text_size = 0;	/* set by the caller */
		return r;
	}
	if (o->chrome_compat || b - a < 2) {
		size_t l = strlen(err);

		snprintf(err + l, errlen - l, o->chrome_compat ?
			 "; --chrome-compat makes one table, as Chrome reads one: drop it to split the table into parts" :
			 "; one function alone overflows it");
		return -1;
	}
	if (ps->n + 2 > UWT_MAX_PARTS) {
		snprintf(err, errlen,
			 "the table would need more than %u parts", UWT_MAX_PARTS);
		return -1;
	}
	mid = a + (b - a) / 2;
	r = layout_range(v, a, mid, false, o, ps, err, errlen);
	return r ? r : layout_range(v, mid, b, last, o, ps, err, errlen);
}

int tb_layout(struct tb_func *funcs, u32 nfuncs,
	      const struct tb_layout_opts *o, struct tb_blob **out, u32 *nout,
	      struct tb_notes *notes, char *err, size_t errlen)
{
	struct parts ps = { NULL, 0, 0 };
	struct tb_func *v;
	u32 m, end;
	int ret = -1;

	*out = NULL;
	*nout = 0;
	v = tb_add_fillers(funcs, nfuncs, o, &m, notes, err, errlen);
	if (!v)
		return -1;
	if (!m) {
		snprintf(err, errlen, "no function could be encoded; the table would be empty");
		goto done;
	}
	if (layout_range(v, 0, m, true, o, &ps, err, errlen)) {
		tb_blobs_free(ps.v, ps.n);
		goto done;
	}
	/* each part reaches the next; the last, the end of the range */
	end = o->text_size ? o->text_start + o->text_size :
	      v[m - 1].addr;
	for (u32 i = 0; i < ps.n; i++)
		ps.v[i].text_size = (i + 1 < ps.n ? ps.v[i + 1].text_start :
				     end) - ps.v[i].text_start;
	*out = ps.v;
	*nout = ps.n;
	ret = 0;
done:
	for (u32 i = 0; i < m; i++)
		if (v[i].filler)
			free(v[i].pairs);
	free(v);
	return ret;
}

void tb_blobs_free(struct tb_blob *b, u32 n)
{
	for (u32 i = 0; i < n; i++)
		free(b[i].data);
	free(b);
}
