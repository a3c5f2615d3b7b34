/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers every part of uwprof shares (lib/util.c), libc only.
 */
#ifndef UWPROF_UTIL_H
#define UWPROF_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* Print "uwprof: <message>\n" to stderr. */
void uw_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a number in decimal or 0x-hex that must fit in 32 bits.  Returns
 * false (and prints nothing) on anything else.
 */
bool uw_parse_u32(const char *s, uint32_t *out);

/* Lower-case hex of @len bytes into @out (2 * len + 1 bytes). */
void uw_hex(const uint8_t *b, uint32_t len, char *out);

#endif
