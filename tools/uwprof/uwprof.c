// SPDX-License-Identifier: GPL-2.0
/* uwprof: entry point and subcommand dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "uwprof.h"

#define UWPROF_MAX_CMDS 32

static const struct uwprof_cmd *cmds[UWPROF_MAX_CMDS];
static int ncmds;

void uwprof_register(const struct uwprof_cmd *cmd)
{
	if (ncmds < UWPROF_MAX_CMDS)
		cmds[ncmds++] = cmd;
}

static int cmd_compare(const void *a, const void *b)
{
	const struct uwprof_cmd *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uwprof COMMAND [ARGS]\n\ncommands:\n");
	qsort(cmds, ncmds, sizeof(cmds[0]), cmd_compare);
	for (int i = 0; i < ncmds; i++)
		fprintf(f, "  %-8s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "\nRun 'uwprof COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return UWPROF_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return UWPROF_EXIT_OK;
	}
	for (int i = 0; i < ncmds; i++)
		if (!strcmp(argv[1], cmds[i]->name))
			return cmds[i]->run(argc - 1, argv + 1);
	uw_err("unknown command '%s'; 'uwprof help' lists them", argv[1]);
	return UWPROF_EXIT_USAGE;
}
