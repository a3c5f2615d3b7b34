// SPDX-License-Identifier: GPL-2.0
/*
 * The .uwt container: header, metadata, then the v2 blob.  All fields are
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

uint8_t *uwt_build(const struct uwt_meta *m, const uint8_t *blob,
		   uint32_t blob_size, uint32_t *len)
{
	uint32_t meta = META_FIXED + SEG_SIZE * m->nsegs;
	/* The blob starts 8-aligned so its tables stay 4-aligned in memory. */
	uint32_t blob_off = (HDR_SIZE + meta + 8 + 7) & ~7u;
	uint8_t *b, *p;

	if (m->nsegs > UWT_MAX_SEGS || m->build_id_len > UWT_BUILD_ID_MAX)
		return NULL;
	b = calloc(1, blob_off + blob_size);
	if (!b)
		return NULL;
	memcpy(b, UWT_MAGIC, 8);
	put32(b + 8, UWT_VERSION);
	put32(b + 12, blob_off);
	p = b + HDR_SIZE;
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
	put32(p, blob_size);
	memcpy(b + blob_off, blob, blob_size);
	*len = blob_off + blob_size;
	return b;
}

int uwt_parse(const void *buf, uint32_t size, struct uwt_file *out,
	      char *err, size_t errlen)
{
	const uint8_t *b = buf, *p;
	struct uwt_meta *m = &out->meta;
	uint32_t blob_off, version, blob_size;

	memset(out, 0, sizeof(*out));
	if (size < 8 || memcmp(b, UWT_MAGIC, 8)) {
		out->blob = b;		/* a raw v2 blob */
		out->blob_size = size;
		return 0;
	}
	out->container = true;
	if (size < HDR_SIZE + META_FIXED + 4)
		goto short_file;
	version = get32(b + 8);
	if (version != UWT_VERSION) {
		snprintf(err, errlen,
			 "container version %u; this uwprof reads version %u (regenerate the table with this uwprof)",
			 version, UWT_VERSION);
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
		 "container header inconsistent (segment count, build-id length or blob size)");
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
