/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uwprof command: one binary, one subcommand per file.
 *
 * A subcommand file registers itself with UWPROF_COMMAND(); uwprof.c finds
 * it by name.  Subcommands return an exit status: 0 on success, 1 when the
 * work itself failed, 2 on a usage error or bad input.
 */
#ifndef UWPROF_H
#define UWPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/util.h"	/* uw_err(), uw_parse_u32(), uw_hex() */

struct uwprof_cmd {
	const char *name;
	const char *summary;	/* one line for "uwprof help" */
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
};

void uwprof_register(const struct uwprof_cmd *cmd);

#define UWPROF_COMMAND(ident, cmd_name, cmd_summary, fn)		\
	static const struct uwprof_cmd uwprof_cmd_##ident = {		\
		.name = cmd_name, .summary = cmd_summary, .run = fn,	\
	};								\
	__attribute__((constructor)) static void uwprof_reg_##ident(void) \
	{ uwprof_register(&uwprof_cmd_##ident); }

/* The command's version, printed by 'uwprof --version'. */
#define UWPROF_VERSION	"0.1"

/*
 * Exit statuses shared by every subcommand: bad arguments or input are
 * 2; 3 is uwprof's own fault (a table its own checks refuse), which the
 * fuzzers treat as a crash.
 */
enum { UWPROF_EXIT_OK = 0, UWPROF_EXIT_FAIL = 1, UWPROF_EXIT_USAGE = 2,
       UWPROF_EXIT_INTERNAL = 3 };

#endif
