// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .uwt reader in memory: the container parser
 * (lib/uwt.c), the v2 blob validator the kernel also runs
 * (uw2_table_init) and the dumper (inspect/dump.c), as "uwprof dump --hex"
 * uses them, without a file per input.  The input gets an exact-size heap
 * copy so ASan sees any read past it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "inspect/dump.h"
#include "lib/uwt.h"
#include "unwind_v2.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uwt_file u;
	struct uw2_table t;
	struct uw2_verror verr;
	char err[256];
	uint8_t *buf;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (size > UINT32_MAX || !(buf = malloc(size ? size : 1)))
		return 0;
	memcpy(buf, data, size);
	if (!uwt_parse(buf, (uint32_t)size, &u, err, sizeof(err))) {
		if (u.blob < buf || u.blob_size > size ||
		    u.blob + u.blob_size > buf + size)
			abort();
		for (uint32_t i = 0; i < u.nparts; i++) {
			struct uwt_part p;

			uwt_part(&u, i, &p);
			if (p.blob < buf || p.blob_size > size ||
			    p.blob + p.blob_size > buf + size)
				abort();
			if (uw2_table_init(&t, p.blob, p.blob_size, &verr) != UW2_OK)
				continue;
			tb_dump_table(devnull, &t, p.text_addr, false, true);
			tb_dump_coverage(devnull, &u,
					 tb_dump_table(devnull, &t, p.text_addr,
						       true, false));
		}
	}
	free(buf);
	return 0;
}
