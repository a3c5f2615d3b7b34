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

/*
 * Print every function and offset of @t, whose offsets count from @text;
 * with @stats only the summary.  Returns the table's size in bytes.
 */
u32 tb_dump_table(FILE *f, const struct uw2_table *t, u32 text, bool stats,
		  bool hex);

/* A container's coverage figures, for tables of @total bytes in all. */
void tb_dump_coverage(FILE *f, const struct uwt_file *file, u32 total);

#endif
