// SPDX-License-Identifier: GPL-2.0
/*
 * record's guess of the files a program's loader will map
 * (tools/uwprof/record/needs.c), for tests/host/needs_cli.sh:
 *
 *   needs_probe EXE     one real path a line: EXE, its interpreter, the
 *                       DT_NEEDED closure in the order found
 */
#include <stdio.h>

#include "record/record.h"

static struct rec_needs n;

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: needs_probe EXE\n");
		return 2;
	}
	rec_image_needs(argv[1], &n);
	for (unsigned int i = 0; i < n.n; i++)
		printf("%s\n", n.path[i]);
	return n.n ? 0 : 1;
}
