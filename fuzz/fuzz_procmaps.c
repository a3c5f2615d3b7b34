// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for /proc/PID/maps parsing (procmaps.c): the input as
 * the maps file.  Every mapping returned must be a usable one: a non-empty
 * range and a path that is a single NUL-terminated line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uw_mapping *m = NULL;
	unsigned int n = 0;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	if (uw_parse_maps(f, &m, &n))
		abort();	/* only out of memory may fail */
	fclose(f);
	for (unsigned int i = 0; i < n; i++)
		if (m[i].start >= m[i].end ||
		    !memchr(m[i].path, 0, sizeof(m[i].path)) ||
		    strchr(m[i].path, '\n'))
			abort();
	free(m);
	return 0;
}
