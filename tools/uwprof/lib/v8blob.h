/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V8's embedded builtins inside a binary (libnode, a static node), found
 * by V8's exported accessors (lib/v8blob.c says how).  libc only.
 */
#ifndef UWPROF_LIB_V8BLOB_H
#define UWPROF_LIB_V8BLOB_H

#include <stdint.h>

/* The blob at link addresses; data_size 0 when only the code was read. */
struct uw_v8_blob {
	uint32_t code, code_size;
	uint32_t data, data_size;
};

/* One builtin's code: [start, start + len), then its padding. */
struct uw_v8_builtin {
	uint32_t start, len;
};

/* The blob's code in the file @path: 0, or -1 if none is recognized. */
int uw_v8_blob(const char *path, struct uw_v8_blob *b);

/*
 * The blob and each builtin in it, from the data's rows (malloc'd into
 * *@out, *@n of them, in address order, tiling the code): 0, or -1 when
 * the blob or its rows are not recognized (*@out NULL then).
 */
int uw_v8_builtins(const char *path, struct uw_v8_blob *b,
		   struct uw_v8_builtin **out, uint32_t *n);

#endif
