// SPDX-License-Identifier: GPL-2.0
/*
 * The .uwt container: header, metadata, then the v2 blob (version 1), or
 * a list of parts and one v2 blob per part (version 2).  All fields are
 * little-endian u32; docs/TABLES.md has the byte layout.  Only libc here:
 * this file is also built into the static armhf tools.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/uwt.h"
#include "lib/regfile.h"

#define HDR_SIZE	16	/* magic, version, header+meta size */
#define META_FIXED	(4 * 10 + UWT_BUILD_ID_MAX)
#define SEG_SIZE	20
#define PART_SIZE	16	/* text_addr, text_size, blob offset, size */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t align8(uint32_t v)
{
	return (v + 7) & ~7u;
}

/* The fields before the blob size (version 1) or the part list. */
static uint8_t *put_meta(uint8_t *p, const struct uwt_meta *m)
{
	put32(p + 0, m->flags);
	put32(p + 4, m->sources);
	put32(p + 8, m->text_addr);
	put32(p + 12, m->text_size);
	put32(p + 16, m->funcs_total);
	put32(p + 20, m->funcs_in_table);
	put32(p + 24, m->funcs_ehabi_only);
	put32(p + 28, m->rows);
	put32(p + 32, m->text_covered);
	put32(p + 36, m->build_id_len);
	memcpy(p + 40, m->build_id, m->build_id_len);
	p += META_FIXED;
	put32(p, m->nsegs);
	p += 4;
	for (uint32_t i = 0; i < m->nsegs; i++, p += SEG_SIZE) {
		put32(p + 0, m->segs[i].vaddr);
		put32(p + 4, m->segs[i].offset);
		put32(p + 8, m->segs[i].filesz);
		put32(p + 12, m->segs[i].memsz);
		put32(p + 16, m->segs[i].flags);
	}
	return p;
}

uint8_t *uwt_build_parts(const struct uwt_meta *m, const struct uwt_part *parts,
			 uint32_t n, uint32_t *len)
{
	/* version 1: the blob size; version 2: a count and n entries */
	uint32_t dir = n == 1 ? 4 : 4 + PART_SIZE * n;
	uint64_t at, off[UWT_MAX_PARTS];
	uint8_t *b, *p;

	if (!n || n > UWT_MAX_PARTS || m->nsegs > UWT_MAX_SEGS ||
	    m->build_id_len > UWT_BUILD_ID_MAX)
		return NULL;
	/* Every blob starts 8-aligned so its tables stay 4-aligned in memory. */
	at = align8(HDR_SIZE + META_FIXED + 4 + SEG_SIZE * m->nsegs + dir);
	for (uint32_t i = 0; i < n; i++) {
		off[i] = at;
		at = (at + parts[i].blob_size + 7) & ~(uint64_t)7;
	}
	at = off[n - 1] + parts[n - 1].blob_size;
	if (at > UINT32_MAX)
		return NULL;
	b = calloc(1, at);
	if (!b)
		return NULL;
	memcpy(b, UWT_MAGIC, 8);
	put32(b + 8, n == 1 ? UWT_VERSION : UWT_VERSION_PARTS);
	put32(b + 12, off[0]);
	p = put_meta(b + HDR_SIZE, m);
	if (n == 1) {
		put32(p, parts[0].blob_size);
	} else {
		put32(p, n);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *e = p + 4 + PART_SIZE * i;

			put32(e + 0, parts[i].text_addr);
			put32(e + 4, parts[i].text_size);
			put32(e + 8, off[i]);
			put32(e + 12, parts[i].blob_size);
		}
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(b + off[i], parts[i].blob, parts[i].blob_size);
	*len = at;
	return b;
}

uint8_t *uwt_build(const struct uwt_meta *m, const uint8_t *blob,
		   uint32_t blob_size, uint32_t *len)
{
	struct uwt_part p = { m->text_addr, m->text_size, blob, blob_size };

	return uwt_build_parts(m, &p, 1, len);
}

void uwt_part(const struct uwt_file *f, uint32_t i, struct uwt_part *out)
{
	const uint8_t *e;

	if (f->nparts == 1) {
		*out = (struct uwt_part){ f->meta.text_addr, f->meta.text_size,
					  f->blob, f->blob_size };
		return;
	}
	/* version 2 only: version 1 files have no part list (NULL) */
	e = f->part_list + PART_SIZE * i;
	*out = (struct uwt_part){ get32(e), get32(e + 4),
				  f->part_list - f->part_list_off + get32(e + 8),
				  get32(e + 12) };
}

/*
 * Version 2's part list at @p: in address order, disjoint, inside the
 * file's text range, each blob 8-aligned inside the file.
 */
static int parse_parts(const uint8_t *b, uint32_t size, const uint8_t *p,
		       struct uwt_file *out, uint32_t blob_off)
{
	const struct uwt_meta *m = &out->meta;
	uint64_t text_end = (uint64_t)m->text_addr + m->text_size;
	uint64_t prev_end = m->text_addr, dir_end;
	uint32_t n;

	if ((uint32_t)(p - b) + 4 > size)
		return -1;
	n = get32(p);
	dir_end = (uint64_t)(p - b) + 4 + (uint64_t)PART_SIZE * n;
	if (n < 2 || n > UWT_MAX_PARTS || dir_end > size)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = p + 4 + PART_SIZE * i;
		uint64_t addr = get32(e), tsize = get32(e + 4);
		uint64_t off = get32(e + 8), bsize = get32(e + 12);

		if (addr < prev_end || !tsize || addr + tsize > text_end ||
		    off < dir_end || (off & 7) || off + bsize > size ||
		    (!i && off != blob_off))
			return -1;
		prev_end = addr + tsize;
	}
	out->nparts = n;
	out->part_list = p + 4;
	out->part_list_off = (uint32_t)(p - b) + 4;
	out->blob = b + blob_off;
	out->blob_size = get32(p + 4 + 12);
	return 0;
}

int uwt_parse(const void *buf, uint32_t size, struct uwt_file *out,
	      char *err, size_t errlen)
{
	const uint8_t *b = buf, *p;
	struct uwt_meta *m = &out->meta;
	uint32_t blob_off, version, blob_size;

	memset(out, 0, sizeof(*out));
	out->nparts = 1;
	if (size < 8 || memcmp(b, UWT_MAGIC, 8)) {
		out->blob = b;		/* a raw v2 blob */
		out->blob_size = size;
		return 0;
	}
	out->container = true;
	if (size < HDR_SIZE + META_FIXED + 4)
		goto short_file;
	version = get32(b + 8);
	if (version != UWT_VERSION && version != UWT_VERSION_PARTS) {
		snprintf(err, errlen,
			 "container version %u; this uwprof reads versions %u and %u (regenerate the table with this uwprof)",
			 version, UWT_VERSION, UWT_VERSION_PARTS);
		return -1;
	}
	blob_off = get32(b + 12);
	p = b + HDR_SIZE;
	m->flags = get32(p + 0);
	m->sources = get32(p + 4);
	m->text_addr = get32(p + 8);
	m->text_size = get32(p + 12);
	m->funcs_total = get32(p + 16);
	m->funcs_in_table = get32(p + 20);
	m->funcs_ehabi_only = get32(p + 24);
	m->rows = get32(p + 28);
	m->text_covered = get32(p + 32);
	m->build_id_len = get32(p + 36);
	if (m->build_id_len > UWT_BUILD_ID_MAX)
		goto corrupt;
	memcpy(m->build_id, p + 40, m->build_id_len);
	p += META_FIXED;
	m->nsegs = get32(p);
	p += 4;
	if (m->nsegs > UWT_MAX_SEGS ||
	    (uint32_t)(p - b) + SEG_SIZE * m->nsegs + 4 > size)
		goto corrupt;
	for (uint32_t i = 0; i < m->nsegs; i++, p += SEG_SIZE) {
		m->segs[i].vaddr = get32(p + 0);
		m->segs[i].offset = get32(p + 4);
		m->segs[i].filesz = get32(p + 8);
		m->segs[i].memsz = get32(p + 12);
		m->segs[i].flags = get32(p + 16);
	}
	if (version == UWT_VERSION_PARTS) {
		if (parse_parts(b, size, p, out, blob_off))
			goto corrupt;
		return 0;
	}
	blob_size = get32(p);
	if (blob_off < (uint32_t)(p - b) + 4 || blob_off > size ||
	    blob_size != size - blob_off)
		goto corrupt;
	out->blob = b + blob_off;
	out->blob_size = blob_size;
	return 0;
short_file:
	snprintf(err, errlen, "container truncated (%u bytes)", size);
	return -1;
corrupt:
	snprintf(err, errlen,
		 "container header inconsistent (segment count, build-id length, blob size or part list)");
	return -1;
}

int uwt_load_file(const char *path, struct uwt_file *out, char *err,
		  size_t errlen)
{
	uint8_t *buf;
	size_t len;

	if (uw_read_regular(path, 0x7fffffff, &buf, &len)) {
		if (errno == EFBIG || errno == ENOMEM)
			snprintf(err, errlen, "%s: too large", path);
		else
			snprintf(err, errlen, "cannot open %s: %s", path,
				 uw_file_strerror(errno));
		return -1;
	}
	if (uwt_parse(buf, len, out, err, errlen)) {
		free(buf);
		return -1;
	}
	out->buf = buf;
	out->size = len;
	return 0;
}
