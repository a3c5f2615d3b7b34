// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps parsing (procmaps.c) on lines the kernel writes and worse. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/procmaps.h"

static unsigned int parse(const char *text, struct uw_mapping **maps)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	unsigned int n = 0;

	*maps = NULL;
	CHECK(f && uw_parse_maps(f, maps, &n) == 0);
	if (f)
		fclose(f);
	return n;
}

TEST(maps_lines_as_the_kernel_writes_them)
{
	struct uw_mapping *m;
	unsigned int n = parse(
		"00010000-00020000 r-xp 00000000 08:01 1234       /usr/bin/lua5.4\n"
		"00030000-00031000 rw-p 00010000 08:01 1234       /usr/bin/lua5.4\n"
		"76f00000-76f01000 rw-p 00000000 00:00 0 \n"
		"7efdf000-7f000000 rw-p 00000000 00:00 0          [stack]\n", &m);

	CHECK_EQ_U32(n, 4);
	if (n == 4) {
		CHECK_EQ_U32(m[0].start, 0x10000);
		CHECK_EQ_U32(m[0].end, 0x20000);
		CHECK(m[0].exec && !m[1].exec);
		CHECK_EQ_U32(m[1].offset, 0x10000);
		CHECK_STR(m[0].path, "/usr/bin/lua5.4");
		CHECK_STR(m[2].path, "");
		CHECK_STR(m[3].path, "[stack]");
	}
	free(m);
}

/*
 * A file name is the user's to choose: one long enough to overflow the
 * line buffer used to have its tail parsed as a line of its own, so a
 * name ending in a maps line made up a mapping.
 */
TEST(maps_long_path_tail_is_not_a_line)
{
	char text[2048], name[700];
	struct uw_mapping *m;
	unsigned int n;

	memset(name, 'x', sizeof(name));
	memcpy(name + 300, "/00400000-00500000 r-xp 00000000 08:01 1 /fake", 47);
	name[sizeof(name) - 1] = 0;
	snprintf(text, sizeof(text),
		 "00010000-00020000 r-xp 00000000 08:01 1 /%s\n"
		 "00030000-00040000 r-xp 00000000 08:01 2 /lib/real.so\n", name);
	n = parse(text, &m);
	for (unsigned int i = 0; i < n; i++)
		CHECK(m[i].start != 0x400000);
	/* The long one cannot be opened by a cut name: left out. */
	CHECK_EQ_U32(n, 1);
	if (n)
		CHECK_STR(m[n - 1].path, "/lib/real.so");
	free(m);
}

TEST(maps_garbage_lines_skipped)
{
	struct uw_mapping *m;
	unsigned int n = parse(
		"00020000-00010000 r-xp 00000000 08:01 1 /backwards\n"
		"00010000-00020000 r 00000000 08:01 1 /short-perms\n"
		"not a line at all\n"
		"00010000-100020000 r-xp 00000000 08:01 1 /beyond-32-bits\n"
		"00010000-00020000 r-xp 00000000 08:01 1 /ok\n", &m);

	CHECK_EQ_U32(n, 1);
	if (n)
		CHECK_STR(m[0].path, "/ok");
	free(m);
}
