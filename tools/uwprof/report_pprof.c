// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format pprof: the call tree as a gzip'd profile.proto
 * message, which "go tool pprof" reads.  The handful of messages needed
 * are encoded here directly (varints and length-delimited fields); zlib
 * does the gzip.
 *
 * One location per function (pprof shows functions, and the tree has
 * already merged addresses into them), one sample per distinct stack,
 * values "samples/count" and "cpu/nanoseconds" (samples x the period).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report.h"
#include "uwprof.h"

struct pb {
	uint8_t *b;
	size_t n, cap;
};

static void pb_put(struct pb *p, const void *d, size_t n)
{
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		uint8_t *g;

		while (cap < p->n + n)
			cap *= 2;
		g = realloc(p->b, cap);
		if (!g) {
			uw_err("report: out of memory");
			exit(UWPROF_EXIT_FAIL);
		}
		p->b = g;
		p->cap = cap;
	}
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(p, b, n);
}

/* Field @num as a varint (wire type 0); zero values are left out. */
static void pb_uint(struct pb *p, unsigned int num, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, (uint64_t)num << 3);
	pb_varint(p, v);
}

/* Field @num, length-delimited (wire type 2): a nested message or bytes. */
static void pb_bytes(struct pb *p, unsigned int num, const void *d, size_t n)
{
	pb_varint(p, (uint64_t)num << 3 | 2);
	pb_varint(p, n);
	pb_put(p, d, n);
}

static void pb_sub(struct pb *p, unsigned int num, struct pb *sub)
{
	pb_bytes(p, num, sub->b, sub->n);
	sub->n = 0;
}

/* The string table: index 0 is "", as profile.proto requires. */
struct strtab {
	char **s;
	uint32_t n, room;
	struct rp_map ids;
};

static uint32_t str_id(struct strtab *t, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t id;

	for (const char *c = s; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (;; h = h + 1 == UINT64_MAX ? 0 : h + 1) {
		if (h == UINT64_MAX)
			continue;
		if (!rp_map_get(&t->ids, h, &id))
			break;
		if (!strcmp(t->s[id], s))
			return id;
	}
	if (t->n == t->room) {
		t->room = t->room ? t->room * 2 : 256;
		t->s = realloc(t->s, t->room * sizeof(*t->s));
		if (!t->s) {
			uw_err("report: out of memory");
			exit(UWPROF_EXIT_FAIL);
		}
	}
	t->s[t->n] = strdup(s);	/* callers may pass a scratch buffer */
	if (!t->s[t->n]) {
		uw_err("report: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	rp_map_put(&t->ids, h, t->n);
	return t->n++;
}

static void value_type(struct pb *out, unsigned int num, struct strtab *st,
		       const char *type, const char *unit)
{
	struct pb v = { 0 };

	pb_uint(&v, 1, str_id(st, type));
	pb_uint(&v, 2, str_id(st, unit));
	pb_bytes(out, num, v.b, v.n);
	free(v.b);
}

static void samples(const struct rp_profile *p, uint64_t period, struct pb *out)
{
	struct pb s = { 0 }, ids = { 0 }, vals = { 0 };

	for (uint32_t n = 1; n < p->nnodes; n++) {
		if (!p->nodes[n].self)
			continue;
		for (uint32_t k = n; k; k = p->nodes[k].parent)	/* leaf first */
			pb_varint(&ids, p->nodes[k].func + 1);
		pb_varint(&vals, p->nodes[n].self);
		pb_varint(&vals, p->nodes[n].self * period);
		pb_sub(&s, 1, &ids);	/* packed location_id */
		pb_sub(&s, 2, &vals);	/* packed value */
		pb_sub(out, 2, &s);
	}
	free(s.b);
	free(ids.b);
	free(vals.b);
}

static void mappings(const struct rp_profile *p, struct strtab *st, struct pb *out)
{
	char hex[2 * UWD_BUILD_ID_MAX + 1];
	struct pb m = { 0 };

	for (uint32_t i = 0; i < p->nmods; i++) {
		const struct rp_module *mod = &p->mods[i];

		for (uint32_t k = 0; k < mod->build_id_len; k++)
			sprintf(hex + 2 * k, "%02x", mod->build_id[k]);
		hex[2 * mod->build_id_len] = 0;
		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, mod->start);
		pb_uint(&m, 3, mod->end);
		pb_uint(&m, 4, mod->offset);
		pb_uint(&m, 5, str_id(st, mod->path));
		pb_uint(&m, 6, str_id(st, hex));
		pb_uint(&m, 7, mod->sym != NULL);
		pb_sub(out, 3, &m);
	}
	free(m.b);
}

static void locations(const struct rp_profile *p, struct strtab *st, struct pb *out)
{
	struct pb l = { 0 }, line = { 0 }, fn = { 0 };

	for (uint32_t f = 0; f < p->nfuncs; f++) {
		uint32_t mod = p->funcs[f].module;

		pb_uint(&line, 1, f + 1);
		pb_uint(&l, 1, f + 1);
		if (mod != RP_NO_MODULE)
			pb_uint(&l, 2, mod + 1);
		pb_sub(&l, 4, &line);
		pb_sub(out, 4, &l);
	}
	for (uint32_t f = 0; f < p->nfuncs; f++) {
		uint32_t name = str_id(st, p->funcs[f].name);

		pb_uint(&fn, 1, f + 1);
		pb_uint(&fn, 2, name);
		pb_uint(&fn, 3, name);
		pb_sub(out, 5, &fn);
	}
	free(l.b);
	free(line.b);
	free(fn.b);
}

static int gzip_write(const struct pb *msg, FILE *out)
{
	uint8_t buf[65536];
	z_stream z = { 0 };
	int ret;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = msg->b;
	z.avail_in = (uInt)msg->n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, out) !=
		    sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -1;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(out) ? -1 : 0;
}

int rp_write_pprof(const struct rp_profile *p, FILE *out)
{
	uint64_t period = p->hdr.freq_hz ? 1000000000ull / p->hdr.freq_hz : 1000000;
	struct strtab st = { 0 };
	struct pb msg = { 0 }, strs = { 0 };
	int ret;

	str_id(&st, "");
	value_type(&msg, 1, &st, "samples", "count");
	value_type(&msg, 1, &st, "cpu", "nanoseconds");
	samples(p, period, &msg);
	mappings(p, &st, &msg);
	locations(p, &st, &msg);
	pb_uint(&msg, 9, p->hdr.start_realtime_ns);
	pb_uint(&msg, 10, p->last_ns > p->first_ns ? p->last_ns - p->first_ns : 0);
	value_type(&msg, 11, &st, "cpu", "nanoseconds");
	pb_uint(&msg, 12, period);
	/* The string table goes last: every id above is in it by now. */
	for (uint32_t i = 0; i < st.n; i++)
		pb_bytes(&strs, 6, st.s[i], strlen(st.s[i]));
	pb_put(&msg, strs.b ? strs.b : (uint8_t *)"", strs.n);
	ret = gzip_write(&msg, out);
	free(msg.b);
	free(strs.b);
	for (uint32_t i = 0; i < st.n; i++)
		free(st.s[i]);
	free(st.s);
	rp_map_free(&st.ids);
	return ret;
}
