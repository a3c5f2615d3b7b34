// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers every part of uwprof shares (util.h), apart from the entry
 * point so that tests and fuzz harnesses can link the subcommands' code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "lib/util.h"

void uw_err(const char *fmt, ...)
{
	va_list ap;

	fputs("uwprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool uw_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

void uw_hex(const uint8_t *b, uint32_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * len] = 0;
}
