/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal v2 table writer for tests, the benchmark and fuzz seeds.  It
 * lays tables out the way the producer does (header, page table, function
 * table, FOT, UIT, packed) but does none of the CFI work: callers give the
 * opcode sequences directly.
 */
#ifndef TEST_UNWIND_V2_GEN_H
#define TEST_UNWIND_V2_GEN_H

#include <stdint.h>

/* One (offset, sequence) pair; off is in 2-byte units from the start. */
struct uw2g_row {
	uint32_t off;
	const uint8_t *seq;
	uint32_t len;
};

/* A function at byte offset @start from .text; rows by descending off. */
struct uw2g_func {
	uint32_t start;
	const struct uw2g_row *rows;
	uint32_t nrows;
};

/*
 * Write a blob for @nf functions sorted by start (the first at 0) covering
 * @text_size bytes of .text.  Identical sequences share UIT bytes and
 * functions with the same rows share a FOT list.  Returns the blob size,
 * or 0 if it does not fit in @cap or a FOT index passes 16 bits.
 */
uint32_t uw2g_build(const struct uw2g_func *f, uint32_t nf,
		    uint32_t text_size, uint8_t *out, uint32_t cap);

/* Append a ULEB128; returns the bytes written. */
uint32_t uw2g_uleb(uint8_t *out, uint32_t v);

/* Store a little-endian word. */
void uw2g_put32(uint8_t *p, uint32_t v);

#endif
