// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the uwprof.data reader (datafile.c) alone, in
 * memory, so it runs fast enough to find an off-by-one in seconds: the
 * input gets an exact-size heap copy, and every byte of every record the
 * reader hands out is read, so ASan reports a record reaching past the
 * file.  (fuzz_report runs the same reader with the whole report.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct uwd_file f;
	const void *rec;
	uint32_t type;
	size_t len;
	volatile uint8_t sum = 0;
	char err[256];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (uwd_parse("input", buf, size, &f, err, sizeof(err)))
		return 0;	/* it freed buf */
	while (uwd_next(&f, &type, &rec, &len)) {
		const uint8_t *p = rec;

		if (p < f.buf + f.hdr.header_size || len > f.size ||
		    p + len > f.buf + f.size)
			abort();
		for (size_t i = 0; i < len; i++)
			sum += p[i];
	}
	if (f.pos > f.size)
		abort();
	uwd_free(&f);
	return 0;
}
