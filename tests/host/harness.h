/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small harness for plain C host tests.
 *
 *	TEST(name) { CHECK(x == 1); CHECK_EQ_U32(a, b); }
 *
 * Every TEST in a binary registers itself; harness.c runs them all, prints
 * one TAP line per test and ends with "N passed, N failed".  A failed CHECK
 * prints the file, line and expression, marks the test failed and carries
 * on, so one run shows every broken assertion.
 */
#ifndef UWPROF_TEST_HARNESS_H
#define UWPROF_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*th_fn)(void);

void th_register(const char *name, th_fn fn);
void th_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)							\
	static void name(void);						\
	__attribute__((constructor)) static void th_reg_##name(void)	\
	{ th_register(#name, name); }					\
	static void name(void)

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			th_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define CHECK_EQ_U32(a, b)						\
	do {								\
		uint32_t th_a = (a), th_b = (b);			\
		if (th_a != th_b)					\
			th_fail(__FILE__, __LINE__,			\
				"%s == %s: 0x%x != 0x%x",		\
				#a, #b, th_a, th_b);			\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *th_a = (a), *th_b = (b);			\
		if (!th_a || !th_b || strcmp(th_a, th_b))		\
			th_fail(__FILE__, __LINE__,			\
				"%s == %s: \"%s\" != \"%s\"",		\
				#a, #b, th_a ? th_a : "(null)",		\
				th_b ? th_b : "(null)");		\
	} while (0)

#define CHECK_MEM(a, b, n)						\
	do {								\
		if (memcmp((a), (b), (n)))				\
			th_fail(__FILE__, __LINE__,			\
				"%s == %s (%zu bytes)", #a, #b,		\
				(size_t)(n));				\
	} while (0)

#endif
