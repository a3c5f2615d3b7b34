// SPDX-License-Identifier: GPL-2.0
/* uwprof dump: show a v2 table (container or raw blob) in words. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "uwprof.h"
#include "unwind_v2.h"
#include "lib/uwt.h"
#include "inspect/dump.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof dump [--stats] [--hex] [--text-start ADDR] TABLE\n"
		"\n"
		"Print every function of a v2 table (a .uwt container or a raw blob)\n"
		"with every offset and its unwind opcodes in words.\n"
		"  --stats            sizes and coverage only\n"
		"  --hex              also show the opcode bytes\n"
		"  --text-start ADDR  .text address for a raw blob (default 0)\n");
}

static void print_meta(const struct uwt_file *u)
{
	const struct uwt_meta *m = &u->meta;
	char hex[2 * UWT_BUILD_ID_MAX + 1];

	uw_hex(m->build_id, m->build_id_len, hex);
	printf("container: build-id %s, %s 0x%x size 0x%x, sources%s%s%s%s%s%s%s%s\n",
	       m->build_id_len ? hex : "(none)",
	       m->flags & UWT_F_CHROME_COMPAT ? ".text" : "code",
	       m->text_addr, m->text_size,
	       m->sources & UWT_SRC_DEBUG_FRAME ? " debug_frame" : "",
	       m->sources & UWT_SRC_EH_FRAME ? " eh_frame" : "",
	       m->sources & UWT_SRC_EXIDX ? " exidx" : "",
	       m->sources & UWT_SRC_BREAKPAD ? " breakpad" : "",
	       m->sources & UWT_SRC_DEBUG_FILE ? " debug-file" : "",
	       m->sources & UWT_SRC_PROLOGUE ? " prologue-analysis" : "",
	       m->sources & UWT_SRC_PLT ? " plt" : "",
	       m->flags & UWT_F_CHROME_COMPAT ? ", chrome-compat" : "");
	for (u32 i = 0; i < m->nsegs; i++)
		printf("  LOAD vaddr 0x%x offset 0x%x filesz 0x%x memsz 0x%x %c%c%c\n",
		       m->segs[i].vaddr, m->segs[i].offset, m->segs[i].filesz,
		       m->segs[i].memsz, m->segs[i].flags & 4 ? 'R' : '-',
		       m->segs[i].flags & 2 ? 'W' : '-',
		       m->segs[i].flags & 1 ? 'X' : '-');
}

/*
 * Every part of @u (one unless the code was split), its addresses moved
 * by @shift (--text-start), then the coverage of the whole.
 */
static int dump_parts(const struct uwt_file *u, const char *path, bool stats,
		      bool hex, u32 shift)
{
	struct uw2_verror verr;
	struct uw2_table t;
	struct uwt_part p;
	u32 total = 0;

	for (u32 i = 0; i < u->nparts; i++) {
		uwt_part(u, i, &p);
		if (uw2_table_init(&t, p.blob, p.blob_size, &verr) != UW2_OK) {
			uw_err("dump: %s%s is not a valid v2 table: %s at byte %u",
			       path, u->nparts > 1 ? " (a part)" : "",
			       uw2_verr_str(verr.code), verr.offset);
			return UWPROF_EXIT_USAGE;
		}
		if (u->nparts > 1)
			printf("part %u of %u: code 0x%x size 0x%x\n", i + 1,
			       u->nparts, p.text_addr + shift, p.text_size);
		total += tb_dump_table(stdout, &t, p.text_addr + shift, stats,
				       hex);
	}
	if (stats) {
		if (u->nparts > 1)
			printf("parts: %u tables, %u bytes in all\n", u->nparts,
			       total);
		tb_dump_coverage(stdout, u, total);
	}
	return UWPROF_EXIT_OK;
}

static int cmd_dump(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "hex", no_argument, NULL, 'x' },
		{ "text-start", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool stats = false, hex = false, have_ts = false;
	struct uwt_file u;
	u32 ts = 0;
	char err[256];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's': stats = true; break;
		case 'x': hex = true; break;
		case 't':
			if (!uw_parse_u32(optarg, &ts)) {
				uw_err("dump: --text-start wants a 32-bit address, not '%s'",
				       optarg);
				return UWPROF_EXIT_USAGE;
			}
			have_ts = true;
			break;
		case 'h':
			usage(stdout);
			return UWPROF_EXIT_OK;
		default:
			usage(stderr);
			return UWPROF_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return UWPROF_EXIT_USAGE;
	}
	if (uwt_load_file(argv[optind], &u, err, sizeof(err))) {
		uw_err("dump: %s", err);
		return UWPROF_EXIT_USAGE;
	}
	if (u.meta.build_id_len || u.meta.nsegs)
		print_meta(&u);
	ret = dump_parts(&u, argv[optind], stats, hex,
			 have_ts ? ts - u.meta.text_addr : 0);
	free(u.buf);
	return ret;
}

UWPROF_COMMAND(dump, "dump", "show a v2 unwind table in words, or its --stats", cmd_dump)
