/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The common ARM and Thumb-2 instructions decoded without capstone, into
 * the form capstone 4's detail would give them (decode_once.h's struct
 * tb_dec_form): capstone fills its detail while printing the
 * instruction's text, nearly all of function discovery's time on
 * Chrome-sized code.  What this decoder does not know, capstone decodes;
 * tests/host/test_decode_fast.c holds the two to the same forms.
 */
#ifndef UWPROF_TABLE_DECODE_FAST_H
#define UWPROF_TABLE_DECODE_FAST_H

#include "table/table.h"

struct tb_dec_form;

/*
 * The instruction at @addr (@b, @size bytes there), ARM or Thumb, as
 * capstone would decode it outside any IT block: true and @f filled, or
 * false where this decoder does not know it (never decodes an IT).
 */
bool tb_fast_decode(bool thumb, const u8 *b, size_t size, u32 addr,
		    struct tb_dec_form *f);

#endif
