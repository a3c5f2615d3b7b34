// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target that runs one uwprof subcommand on the input as a file:
 * the way hostile files reach the tools.  Built once per reader, with
 * FUZZ_CMD naming the harness:
 *
 *   report    uwprof report (data-file reader, symbolization, a writer
 *             picked by the input's length: text, folded, svg, json, pprof)
 *   dump      uwprof dump --hex (the .uwt container and v2 blob readers)
 *   table     uwprof table (ELF: DWARF, EHABI, PLT readers) --report --stats,
 *             and --prologue-analysis for inputs of odd length
 *   breakpad  uwprof table --breakpad (the breakpad reader)
 *
 * The input is written to a private directory; output goes to /dev/null.
 * The commands' own stdout is sent to /dev/null too; run with
 * -close_fd_mask=2 to silence their messages (libFuzzer keeps reporting).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uwprof.h"

#define MAX_CMDS 16

static const struct uwprof_cmd *cmds[MAX_CMDS];
static int ncmds;
static char dir[64], input[96], out[96], symfs[96];

/* Subcommands register here, as they do with uwprof.c's dispatcher. */
void uwprof_register(const struct uwprof_cmd *cmd)
{
	if (ncmds < MAX_CMDS)
		cmds[ncmds++] = cmd;
}

static int run(const char *name, int argc, char **argv)
{
	for (int i = 0; i < ncmds; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i]->run(argc, argv);
	abort();	/* the harness was linked without the command */
}

/* The fixture's ELF into a private --symfs: the test data stays read only. */
static void copy_symbols(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s/fixture' '%s/'", symfs,
		 FUZZ_SYMFS, symfs);
	if (system(cmd))
		abort();
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* In memory where there is a tmpfs: on a disk, writing the input and
	 * the command's outputs took most of each run. */
	snprintf(dir, sizeof(dir), "%s/uwprof-fuzz-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		abort();
	snprintf(input, sizeof(input), "%s/input", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	if (!freopen("/dev/null", "w", stdout))
		abort();
	copy_symbols();
	atexit(remove_dir);	/* a crash leaves it, with the input */
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	FILE *f = fopen(input, "wb");

	if (!f || (size && fwrite(data, size, 1, f) != 1) || fclose(f))
		abort();
}

static bool strict_off(void)
{
	const char *v = getenv("FUZZ_STRICT");

	return v && !strcmp(v, "0");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "text", "folded", "svg", "json",
					       "pprof" };
	int rc;

	write_input(data, size);
#if FUZZ_CMD_REPORT
	{
		/* --symfs: where the fixture's ELF is found. */
		char *argv[] = { "report", "-q", "--symfs", symfs, "-f",
				 (char *)formats[size % 5], "-o", "/dev/null",
				 input, NULL };

		rc = run("report", 8 + 1, argv);
	}
#elif FUZZ_CMD_DUMP
	{
		char *argv[] = { "dump", "--hex", input, NULL };

		rc = run("dump", 3, argv);
	}
#elif FUZZ_CMD_TABLE
	{
		/* prologue analysis (capstone over the file's code) on every
		 * other input */
		char *argv[] = { "table", input, "-o", out, "--no-debug-file",
				 "--report", "/dev/null", "--stats",
				 "--prologue-analysis", NULL };

		rc = run("table", 8 + (int)(size & 1), argv);
	}
#elif FUZZ_CMD_BREAKPAD
	{
		char *argv[] = { "table", "--breakpad", input, "--text-start",
				 "0x1000", "-o", out, NULL };

		rc = run("table", 7, argv);
	}
#else
#error "define one FUZZ_CMD_*"
#endif
	(void)formats;
	/*
	 * Any exit status but uwprof's own error is fine: exit 3 is a table
	 * the generator's own checks refuse, a defect like a crash, leak or
	 * sanitizer report.  FUZZ_STRICT=0 lets it pass (to look past one
	 * while it is being fixed).
	 */
	if (rc == UWPROF_EXIT_INTERNAL && !strict_off())
		abort();
	return 0;
}
