/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table generator as a function: what "uwprof table INPUT
 * --prologue-analysis --build-id-dir DIR" does, for uwprof record's tables
 * made on the device (record/autotable.c).  No types beyond libc's.
 */
#ifndef UWPROF_TABLE_MAKE_H
#define UWPROF_TABLE_MAKE_H

#include <stdint.h>

/*
 * Write DIR/<build-id>.uwt for the ARM32 ELF @input, made with prologue
 * analysis and function discovery (a separate debug file under
 * /usr/lib/debug is read when one matches).  With @bid_len, the input
 * must have build-id @bid (the file as mapped): another is refused.
 * Returns UWPROF_EXIT_OK (0) or another UWPROF_EXIT_* code, with the
 * reason printed.
 */
int tb_make_table(const char *input, const char *build_id_dir,
		  const uint8_t *bid, uint32_t bid_len);

#endif
