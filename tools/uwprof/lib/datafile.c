// SPDX-License-Identifier: GPL-2.0
/* uwprof.data: writer (record) and reader (report).  docs/DATAFILE.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/datafile.h"
#include "lib/regfile.h"
#include "uapi/uwprof.h"
#include "unwind_v2.h"

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int uwd_open(struct uwd_writer *w, const char *path, uint32_t freq_hz,
	     uint32_t flags)
{
	struct uwd_header h = {
		.magic = UWD_MAGIC,
		.version = UWD_VERSION,
		.header_size = sizeof(h),
		.flags = flags,
		.freq_hz = freq_hz,
	};

	h.start_ns = clock_ns(CLOCK_MONOTONIC);
	h.start_realtime_ns = clock_ns(CLOCK_REALTIME);
	w->samples = 0;
	w->len = 0;
	w->buf = malloc(UWD_WRITE_BUF);
	if (!w->buf)
		return -1;
	w->f = fopen(path, "wb");
	/* unbuffered: @buf gathers the small records, blocks go as they are */
	if (w->f)
		setvbuf(w->f, NULL, _IONBF, 0);
	if (!w->f || fwrite(&h, sizeof(h), 1, w->f) != 1) {
		if (w->f)
			fclose(w->f);
		free(w->buf);
		return -1;
	}
	return 0;
}

static int uwd_flush(struct uwd_writer *w)
{
	if (w->len && fwrite(w->buf, w->len, 1, w->f) != 1)
		return -1;
	w->len = 0;
	return 0;
}

/* @n bytes of @p at @dst; returns the end. */
static uint8_t *uwd_append(uint8_t *dst, const void *p, size_t n)
{
	if (n)
		memcpy(dst, p, n);
	return dst + n;
}

/*
 * One record: @a (alen bytes), then @str with its NUL if given, padded.
 * Gathered in the buffer, emptied first when the record does not fit;
 * a record larger than the whole buffer goes straight to the file.
 */
int uwd_write(struct uwd_writer *w, uint32_t type, const void *a, size_t alen,
	      const char *str)
{
	static const uint8_t zero[8];
	size_t slen = str ? strlen(str) + 1 : 0;
	size_t body = sizeof(struct uwd_rec) + alen + slen;
	size_t pad = (8 - body % 8) % 8, total = body + pad;
	struct uwd_rec r = { .type = type, .size = (uint32_t)total };
	uint8_t *p;

	if (total > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (w->len + total > UWD_WRITE_BUF && uwd_flush(w))
		return -1;
	if (total <= UWD_WRITE_BUF) {
		p = uwd_append(w->buf + w->len, &r, sizeof(r));
		p = uwd_append(p, a, alen);
		p = uwd_append(p, str, slen);
		memset(p, 0, pad);
		w->len += total;
	} else if (fwrite(&r, sizeof(r), 1, w->f) != 1 ||
		   (alen && fwrite(a, alen, 1, w->f) != 1) ||
		   (slen && fwrite(str, slen, 1, w->f) != 1) ||
		   (pad && fwrite(zero, pad, 1, w->f) != 1)) {
		return -1;
	}
	w->samples += type == UWD_SAMPLE;
	return 0;
}

/*
 * @n sample records, the @len bytes read() gave (each rounded up to 8), as
 * one UWD_SAMPLES record: its header goes out with what was gathered, the
 * records straight from the caller's buffer, not copied into ours first.
 */
int uwd_write_samples(struct uwd_writer *w, const void *recs, size_t len,
		      uint32_t n)
{
	struct uwd_rec r = { .type = UWD_SAMPLES };

	if (!n)
		return 0;
	if (len % 8 || len > UINT32_MAX - sizeof(r)) {
		errno = EINVAL;
		return -1;
	}
	r.size = (uint32_t)(sizeof(r) + len);
	if (w->len + sizeof(r) > UWD_WRITE_BUF && uwd_flush(w))
		return -1;
	memcpy(w->buf + w->len, &r, sizeof(r));
	w->len += sizeof(r);
	if (uwd_flush(w) || fwrite(recs, len, 1, w->f) != 1)
		return -1;
	w->samples += n;
	return 0;
}

int uwd_close(struct uwd_writer *w, uint64_t end_ns)
{
	struct uwd_end e = { .end_ns = end_ns, .samples = w->samples };
	int ret = uwd_write(w, UWD_END, &e, sizeof(e), NULL);

	if (uwd_flush(w))
		ret = -1;
	if (fclose(w->f))
		ret = -1;
	free(w->buf);
	return ret;
}

int uwd_load(const char *path, struct uwd_file *f, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t size;

	memset(f, 0, sizeof(*f));
	if (uw_read_regular(path, SIZE_MAX, &buf, &size)) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 uw_file_strerror(errno));
		return -1;
	}
	return uwd_parse(path, buf, size, f, err, errlen);
}

int uwd_parse(const char *path, uint8_t *buf, size_t size, struct uwd_file *f,
	      char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->size = size;
	if (f->size < 16 || memcmp(f->buf, UWD_MAGIC, 8)) {
		snprintf(err, errlen, "%s is not a uwprof data file "
			 "(no UWPROFD header); record one with 'uwprof record'", path);
		goto bad;
	}
	memcpy(&f->hdr, f->buf, f->size < sizeof(f->hdr) ? f->size : sizeof(f->hdr));
	if (f->hdr.version < UWD_VERSION_MIN || f->hdr.version > UWD_VERSION) {
		snprintf(err, errlen, "%s: data file version %u; this uwprof reads "
			 "versions %u to %u (use the uwprof that recorded it)",
			 path, f->hdr.version, UWD_VERSION_MIN, UWD_VERSION);
		goto bad;
	}
	if (f->hdr.header_size < sizeof(f->hdr) || f->hdr.header_size > f->size ||
	    f->hdr.header_size % 8) {
		snprintf(err, errlen, "%s: bad header size %u (file truncated?)",
			 path, f->hdr.header_size);
		goto bad;
	}
	f->pos = f->hdr.header_size;
	return 0;
bad:
	uwd_free(f);
	return -1;
}

/*
 * The next sample of the UWD_SAMPLES record being walked, as a UWD_SAMPLE
 * of its own.  A size that cannot be stepped over gives the rest of the
 * block as one, which its reader finds malformed.
 */
static void uwd_next_in_block(struct uwd_file *f, uint32_t *type,
			      const void **data, size_t *len)
{
	size_t left = f->blk_end - f->blk_pos, step;
	uint16_t size;

	*type = UWD_SAMPLE;
	*data = f->buf + f->blk_pos;
	step = left;
	if (left >= sizeof(size)) {
		memcpy(&size, f->buf + f->blk_pos, sizeof(size));
		if (size >= sizeof(size) && ((size_t)size + 7) / 8 * 8 <= left)
			step = ((size_t)size + 7) / 8 * 8;
	}
	*len = step;
	f->blk_pos += step;
}

int uwd_next(struct uwd_file *f, uint32_t *type, const void **data,
	     size_t *len)
{
	struct uwd_rec r;

	if (f->blk_pos < f->blk_end) {
		uwd_next_in_block(f, type, data, len);
		return 1;
	}
	if (f->pos >= f->size)
		return 0;
	if (f->size - f->pos < sizeof(r)) {
		f->cut_short = true;
		return 0;
	}
	memcpy(&r, f->buf + f->pos, sizeof(r));
	/* A size we cannot step over ends the walk: nothing after it can be found. */
	if (r.size < sizeof(r) || r.size % 8 || r.size > f->size - f->pos) {
		f->cut_short = true;
		return 0;
	}
	*type = r.type;
	*data = f->buf + f->pos + sizeof(r);
	*len = r.size - sizeof(r);
	f->pos += r.size;
	if (r.type == UWD_END)
		f->saw_end = true;
	if (r.type == UWD_SAMPLES) {
		f->blk_pos = f->pos - *len;
		f->blk_end = f->pos;
		return uwd_next(f, type, data, len);
	}
	return 1;
}

void uwd_rewind(struct uwd_file *f)
{
	f->pos = f->hdr.header_size;
	f->blk_pos = f->blk_end = 0;
}

void uwd_free(struct uwd_file *f)
{
	free(f->buf);
	f->buf = NULL;
}

/* The unwinder names its stops; the record's byte is the same enum. */
_Static_assert((int)UWPROF_STOP_NR == (int)UW2_STOP_COUNT,
	       "enum uwprof_stop and enum uw2_stop differ");

const char *uwd_stop_name(unsigned int stop)
{
	return uw2_stop_name((enum uw2_stop)stop);
}

bool uwd_stop_complete(unsigned int stop)
{
	return stop == UWPROF_STOP_ROOT || stop == UWPROF_STOP_NORETURN;
}

uint64_t uwd_complete_count(const uint64_t *stops)
{
	return stops[UWPROF_STOP_ROOT] + stops[UWPROF_STOP_NORETURN];
}
