/* SPDX-License-Identifier: GPL-2.0 */
/* Reading v2 tables back: opcodes in words, function walks, part sizes. */
#ifndef UWPROF_TABLE_DUMP_H
#define UWPROF_TABLE_DUMP_H

#include <stdio.h>
#include "unwind_v2.h"
#include "lib/uwt.h"

/*
 * One sequence in words ("vsp += 16; pop {r4-r7, lr}; finish").  Stops
 * after finish, refuse or root, or at @len.  Returns the bytes read.
 */
u32 tb_ops_words(const u8 *ops, u32 len, char *out, size_t outlen);

/* Print every function and offset; with @stats only the summary. */
void tb_dump_table(FILE *f, const struct uw2_table *t,
		   const struct uwt_file *file, bool stats, bool hex);

#endif
