// SPDX-License-Identifier: GPL-2.0
/* Runs every registered TEST and prints TAP plus a count line. */
#include <stdarg.h>
#include <stdlib.h>
#include "harness.h"

#define TH_MAX_TESTS 1024

static struct {
	const char *name;
	th_fn fn;
} th_tests[TH_MAX_TESTS];
static int th_count;
static int th_failed_now;

void th_register(const char *name, th_fn fn)
{
	if (th_count == TH_MAX_TESTS) {
		fprintf(stderr, "harness: more than %d tests\n", TH_MAX_TESTS);
		exit(2);
	}
	th_tests[th_count].name = name;
	th_tests[th_count].fn = fn;
	th_count++;
}

void th_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	th_failed_now = 1;
	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	printf("TAP version 13\n1..%d\n", th_count);
	for (int i = 0; i < th_count; i++) {
		th_failed_now = 0;
		th_tests[i].fn();
		fflush(stdout);
		if (th_failed_now)
			failed++;
		else
			passed++;
		printf("%sok %d - %s\n", th_failed_now ? "not " : "", i + 1,
		       th_tests[i].name);
	}
	printf("%s: %d passed, %d failed\n", argc > 0 ? argv[0] : "tests",
	       passed, failed);
	return failed ? 1 : 0;
}
