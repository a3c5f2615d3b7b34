// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report: JIT code's names from the perf map and jitdump files a
 * JIT writes (node --perf-basic-prof, --perf-prof), as record copied them
 * into the data file.  A JIT reuses addresses as code is collected, and
 * neither file says when code went: as perf does, the symbol seen last
 * that covers an address names it.  libc only.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/datafile.h"
#include "report/containers.h"
#include "report/jitsyms.h"

/* jitdump (perf's tools/perf/util/jitdump.h layout): header, records. */
#define JD_MAGIC	0x4a695444u	/* "JiTD" written little-endian */
#define JD_HEADER_MIN	40
#define JD_REC_HEADER	16		/* id, total_size, timestamp */
#define JD_CODE_LOAD	0
#define JD_LOAD_FIXED	40		/* pid, tid, vma, code_addr, size, index */
/* how far back a lookup looks for an older symbol that also covers it */
#define JIT_LOOK_BACK	64

static void add_sym(struct rp_jitsyms *j, uint32_t pid, uint64_t start,
		    uint64_t size, const char *name, size_t nlen)
{
	struct rp_jit_sym *s;

	if (!size || start > UINT32_MAX || size > UINT32_MAX - start) {
		j->bad++;
		return;
	}
	j->syms = rp_grow(j->syms, &j->room, j->n, sizeof(*j->syms));
	s = &j->syms[j->n];
	s->name = strndup(name, nlen);
	if (!s->name)
		return;
	s->pid = pid;
	s->start = (uint32_t)start;
	s->end = (uint32_t)(start + size);
	s->seq = j->n++;
}

/* "START SIZE name" lines, both numbers hex without 0x (perf's format). */
static void add_perf_map(struct rp_jitsyms *j, uint32_t pid, const char *p,
			 size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end;
		char line[64], *rest, *name;
		size_t n = eol - p < 63 ? eol - p : 63;
		unsigned long long start, size;

		memcpy(line, p, n);
		line[n] = 0;
		start = strtoull(line, &rest, 16);
		size = rest != line && *rest == ' ' ?
		       strtoull(rest + 1, &name, 16) : 0;
		if (size && *name == ' ')
			add_sym(j, pid, start, size, p + (name + 1 - line),
				eol - (p + (name + 1 - line)));
		else if (eol > p)
			j->bad++;
		p = eol + 1;
	}
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The code-load records of a jitdump; others (debug info, close) skipped. */
static void add_jitdump(struct rp_jitsyms *j, uint32_t pid, const uint8_t *b,
			size_t len)
{
	size_t pos, hsize;

	if (len < JD_HEADER_MIN || le32(b) != JD_MAGIC) {
		j->bad++;
		return;
	}
	hsize = le32(b + 8);
	for (pos = hsize < JD_HEADER_MIN ? JD_HEADER_MIN : hsize;
	     pos <= len && len - pos >= JD_REC_HEADER;) {
		uint32_t id = le32(b + pos), size = le32(b + pos + 4);
		const uint8_t *r = b + pos + JD_REC_HEADER;
		const uint8_t *nul;

		if (size < JD_REC_HEADER || size > len - pos) {
			j->bad++;	/* cut short: the JIT was still writing */
			return;
		}
		if (id == JD_CODE_LOAD &&
		    size >= JD_REC_HEADER + JD_LOAD_FIXED + 1) {
			nul = memchr(r + JD_LOAD_FIXED, 0,
				     size - JD_REC_HEADER - JD_LOAD_FIXED);
			if (nul)
				add_sym(j, pid, le64(r + 16), le64(r + 24),
					(const char *)r + JD_LOAD_FIXED,
					nul - (r + JD_LOAD_FIXED));
			else
				j->bad++;
		}
		pos += size;
	}
}

void rp_jit_add(struct rp_jitsyms *j, const void *rec, size_t len)
{
	struct uwd_jitmap m;

	if (len < sizeof(m)) {
		j->bad++;
		return;
	}
	memcpy(&m, rec, sizeof(m));
	if (m.size > len - sizeof(m)) {
		j->bad++;
		return;
	}
	if (m.format == UWD_JIT_PERF_MAP)
		add_perf_map(j, m.pid, (const char *)rec + sizeof(m), m.size);
	else if (m.format == UWD_JIT_DUMP)
		add_jitdump(j, m.pid, (const uint8_t *)rec + sizeof(m), m.size);
}

static int sym_cmp(const void *x, const void *y)
{
	const struct rp_jit_sym *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void rp_jit_done(struct rp_jitsyms *j)
{
	if (j->n)
		qsort(j->syms, j->n, sizeof(*j->syms), sym_cmp);
}

const char *rp_jit_name(const struct rp_jitsyms *j, uint32_t pid,
			uint32_t addr)
{
	uint32_t lo = 0, hi = j->n, mid, k, look;
	const struct rp_jit_sym *best = NULL, *s;
	/* the last symbol of @pid starting at or before @addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		s = &j->syms[mid];
		if (s->pid < pid || (s->pid == pid && s->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo, look = 0; k && look < JIT_LOOK_BACK; k--, look++) {
		s = &j->syms[k - 1];
		if (s->pid != pid)
			break;
		if (addr < s->end && (!best || s->seq > best->seq))
			best = s;
	}
	return best ? best->name : NULL;
}

void rp_jit_free(struct rp_jitsyms *j)
{
	for (uint32_t i = 0; i < j->n; i++)
		free(j->syms[i].name);
	free(j->syms);
	memset(j, 0, sizeof(*j));
}
