// SPDX-License-Identifier: GPL-2.0
/* uwprof: entry point and subcommand dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/datafile.h"
#include "uwprof.h"
#include "uapi/uwprof.h"

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
	fprintf(f, "\nRun 'uwprof help COMMAND' (or 'uwprof COMMAND --help') for a "
		"command's options;\n'uwprof --version' for the version.\n"
		"Exit status: 0 done, 1 failed, 2 bad arguments or input, "
		"3 uwprof's own error\n(please report it).\n");
}

static const struct uwprof_cmd *find_cmd(const char *name)
{
	for (int i = 0; i < ncmds; i++)
		if (!strcmp(name, cmds[i]->name))
			return cmds[i];
	return NULL;
}

static int version(void)
{
	printf("uwprof %s (data file version %d, device ABI %d)\n", UWPROF_VERSION,
	       UWD_VERSION, UWPROF_ABI_VERSION);
	return UWPROF_EXIT_OK;
}

/* "uwprof help CMD": the command's own --help. */
static int help(int argc, char **argv)
{
	static char opt[] = "--help";
	const struct uwprof_cmd *c;
	char *args[3];

	if (argc < 3) {
		usage(stdout);
		return UWPROF_EXIT_OK;
	}
	c = find_cmd(argv[2]);
	if (!c) {
		uw_err("no command '%s'; 'uwprof help' lists them", argv[2]);
		return UWPROF_EXIT_USAGE;
	}
	args[0] = argv[2];
	args[1] = opt;
	args[2] = NULL;
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return UWPROF_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return version();
	if (find_cmd(argv[1]))
		return find_cmd(argv[1])->run(argc - 1, argv + 1);
	uw_err("unknown command '%s'; 'uwprof help' lists them", argv[1]);
	return UWPROF_EXIT_USAGE;
}
