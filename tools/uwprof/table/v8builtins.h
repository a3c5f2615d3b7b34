/* SPDX-License-Identifier: GPL-2.0 */
/* V8's embedded builtins: their rules (table/v8builtins.c). */
#ifndef UWPROF_TABLE_V8BUILTINS_H
#define UWPROF_TABLE_V8BUILTINS_H

#include "table/table.h"

struct tb_elf;

/* What tb_v8_builtins_pass() did, for --stats. */
struct tb_v8_stats {
	u32 builtins;		/* builtins the blob's rows name */
	u32 leaves;		/* of which frameless leaves, tabled */
	u32 start, end;		/* the blob's code, link addresses */
};

/*
 * If the file at @path (opened as @e) holds V8's embedded builtins, each
 * gets its rule in @in in place of any other: 1 (the table then takes
 * UWT_F_JIT_ROWS); 0 when it holds none recognized, or other rules cross
 * the blob's edges (nothing changed); -1 on error (capstone, memory).
 */
int tb_v8_builtins_pass(struct tb_elf *e, const char *path,
			struct tb_input *in, struct tb_v8_stats *st);

#endif
