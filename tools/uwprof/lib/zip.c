// SPDX-License-Identifier: GPL-2.0
/*
 * A stored entry of a zip archive, from its central directory (PKWARE's
 * APPNOTE: the end-of-central-directory record at the end of the file,
 * the central directory it points to, each entry's local header before
 * its data).  Every offset and size comes from the file and is checked
 * against the file before it is used.  No zip64, no multi-disk archives:
 * an APK is neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/zip.h"

#define EOCD_SIG	0x06054b50u
#define CDIR_SIG	0x02014b50u
#define LOCAL_SIG	0x04034b50u
#define EOCD_SIZE	22u
#define CDIR_SIZE	46u
#define LOCAL_SIZE	30u
#define COMMENT_MAX	0xffffu
#define CDIR_MAX	(64u << 20)	/* bytes of central directory read */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_at(FILE *f, uint64_t off, void *buf, size_t n)
{
	if ((off_t)off < 0 || (uint64_t)(off_t)off != off ||
	    fseeko(f, (off_t)off, SEEK_SET))
		return -1;
	return fread(buf, 1, n, f) == n ? 0 : -1;
}

struct zctx {
	enum uw_zip_err why;
	char *err;
	size_t errlen;
};

static int fail(struct zctx *z, enum uw_zip_err why, const char *msg)
{
	static const int codes[] = {
		[UW_ZIP_IO] = EIO, [UW_ZIP_NOT_ZIP] = ENOEXEC,
		[UW_ZIP_MALFORMED] = ENOEXEC, [UW_ZIP_NOT_FOUND] = ENOENT,
		[UW_ZIP_COMPRESSED] = ENOEXEC,
	};

	z->why = why;
	snprintf(z->err, z->errlen, "%s", msg);
	errno = codes[why];
	return -1;
}

/* The end-of-central-directory record: the last one in the file's tail. */
static int find_eocd(FILE *f, struct zctx *z, uint64_t *size, uint8_t *eocd,
		     uint64_t *at)
{
	uint8_t *tail;
	off_t end;
	size_t n, i;

	if (fseeko(f, 0, SEEK_END) || (end = ftello(f)) < 0)
		return fail(z, UW_ZIP_IO, "cannot read the file");
	*size = (uint64_t)end;
	if (*size < EOCD_SIZE)
		return fail(z, UW_ZIP_NOT_ZIP, "");
	n = *size < EOCD_SIZE + COMMENT_MAX ? (size_t)*size : EOCD_SIZE + COMMENT_MAX;
	tail = malloc(n);
	if (!tail)
		return fail(z, UW_ZIP_IO, "out of memory");
	if (read_at(f, *size - n, tail, n)) {
		free(tail);
		return fail(z, UW_ZIP_IO, "cannot read the file");
	}
	for (i = n - EOCD_SIZE + 1; i-- > 0;) {
		if (le32(tail + i) != EOCD_SIG ||
		    i + EOCD_SIZE + le16(tail + i + 20) > n)
			continue;
		memcpy(eocd, tail + i, EOCD_SIZE);
		*at = *size - n + i;
		free(tail);
		return 0;
	}
	free(tail);
	return fail(z, UW_ZIP_NOT_ZIP, "");
}

/* The data offset of the entry whose local header is at @local. */
static int data_offset(FILE *f, struct zctx *z, uint64_t local, uint64_t limit,
		       uint32_t size, uint64_t *data)
{
	uint8_t h[LOCAL_SIZE];

	if (local + LOCAL_SIZE > limit || read_at(f, local, h, sizeof(h)) ||
	    le32(h) != LOCAL_SIG)
		return fail(z, UW_ZIP_MALFORMED,
			    "malformed zip: a local header is missing or cut short");
	*data = local + LOCAL_SIZE + le16(h + 26) + le16(h + 28);
	if (*data + size > limit)
		return fail(z, UW_ZIP_MALFORMED,
			    "malformed zip: an entry's data runs past the central directory");
	return 0;
}

static const char *method_name(uint16_t m)
{
	switch (m) {
	case 8: return "deflate";
	case 9: return "deflate64";
	case 12: return "bzip2";
	case 14: return "lzma";
	case 93: return "zstd";
	default: return "an unknown method";
	}
}

int uw_zip_find(FILE *f, const char *name, uint64_t offset,
		struct uw_zip_entry *out, enum uw_zip_err *why, char *err,
		size_t errlen)
{
	struct zctx z = { UW_ZIP_OK, err, errlen };
	uint8_t eocd[EOCD_SIZE], *cd = NULL;
	uint64_t size, eocd_at, cd_off, cd_size, pos = 0;
	unsigned int count, i;
	int ret = -1;
	char msg[UW_ZIP_NAME_MAX + 160];

	if (errlen)
		err[0] = 0;
	if (find_eocd(f, &z, &size, eocd, &eocd_at))
		goto out;
	count = le16(eocd + 10);
	cd_size = le32(eocd + 12);
	cd_off = le32(eocd + 16);
	if (le16(eocd + 4) || le16(eocd + 6) || le16(eocd + 8) != count) {
		fail(&z, UW_ZIP_MALFORMED, "a multi-disk zip (not supported)");
		goto out;
	}
	if (count == 0xffff || cd_off == 0xffffffffu || cd_size == 0xffffffffu) {
		fail(&z, UW_ZIP_MALFORMED, "a zip64 archive (not supported)");
		goto out;
	}
	if (cd_off + cd_size > eocd_at || cd_size > CDIR_MAX) {
		fail(&z, UW_ZIP_MALFORMED,
		     "malformed or truncated zip: the central directory lies outside the file");
		goto out;
	}
	cd = malloc(cd_size ? cd_size : 1);
	if (!cd) {
		fail(&z, UW_ZIP_IO, "out of memory");
		goto out;
	}
	if (read_at(f, cd_off, cd, cd_size)) {
		fail(&z, UW_ZIP_IO, "cannot read the central directory");
		goto out;
	}
	for (i = 0; i < count; i++) {
		const uint8_t *e = cd + pos;
		uint16_t method, flags, nlen;
		uint32_t csize, usize;
		uint64_t local, data;

		if (pos + CDIR_SIZE > cd_size || le32(e) != CDIR_SIG ||
		    pos + CDIR_SIZE + le16(e + 28) + le16(e + 30) + le16(e + 32) > cd_size) {
			fail(&z, UW_ZIP_MALFORMED,
			     "malformed zip: a central directory entry is cut short");
			goto out;
		}
		flags = le16(e + 8);
		method = le16(e + 10);
		csize = le32(e + 20);
		usize = le32(e + 24);
		nlen = le16(e + 28);
		local = le32(e + 42);
		pos += CDIR_SIZE + nlen + le16(e + 30) + le16(e + 32);
		if (name) {
			if (strlen(name) != nlen || memcmp(name, e + CDIR_SIZE, nlen))
				continue;
		} else if (local > offset || offset - local >=
			   LOCAL_SIZE + 2u * 0xffff + (uint64_t)csize) {
			continue;	/* cannot hold it: no need to read the header */
		}
		if (data_offset(f, &z, local, cd_off, csize, &data))
			goto out;
		if (!name && (offset < data || offset - data >= csize))
			continue;
		if (nlen >= sizeof(out->name)) {
			fail(&z, UW_ZIP_MALFORMED, "an entry name too long");
			goto out;
		}
		memcpy(out->name, e + CDIR_SIZE, nlen);
		out->name[nlen] = 0;
		if (method || (flags & 1) || csize != usize) {
			snprintf(msg, sizeof(msg),
				 "entry %s is %s (method %u); only a stored (uncompressed) entry can be mapped and read in place",
				 out->name, flags & 1 ? "encrypted" : method_name(method),
				 method);
			fail(&z, UW_ZIP_COMPRESSED, msg);
			goto out;
		}
		out->data_off = data;
		out->size = csize;
		ret = 0;
		goto out;
	}
	if (name)
		snprintf(msg, sizeof(msg), "no entry %s in the zip", name);
	else
		snprintf(msg, sizeof(msg),
			 "no entry of the zip holds file offset 0x%llx",
			 (unsigned long long)offset);
	fail(&z, UW_ZIP_NOT_FOUND, msg);
out:
	free(cd);
	if (why)
		*why = z.why;
	return ret;
}

const char *uw_zip_split(const char *spec, char *archive, size_t room)
{
	const char *sep = strstr(spec, UW_ZIP_SEP);
	size_t n;

	if (!sep)
		return NULL;
	n = (size_t)(sep - spec);
	if (!n || n >= room)
		return NULL;
	memcpy(archive, spec, n);
	archive[n] = 0;
	return sep + strlen(UW_ZIP_SEP);
}
