// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers every subcommand shares (uwprof.h), apart from the entry
 * point so that tests and fuzz harnesses can link the subcommands' code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "uwprof.h"

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
