// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof unwind: replay one unwind on the host, from table files, a stack
 * dump and a register set, with the same unwind_v2.c the module runs.
 * Other tools drive it, so its output is a fixed contract: one "#N 0x..."
 * line per frame, then "stop: REASON".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/regfile.h"
#include "lib/uwt.h"
#include "unwind_v2.h"
#include "uwprof.h"

#define MAX_TABLES	64
#define MAX_DEPTH_LIMIT	65536
#define DEFAULT_DEPTH	128
#define MAX_FILE_SIZE	(256u << 20)

static const char usage_text[] =
"usage: uwprof unwind --table FILE[@TEXT_START] [--table ...]\n"
"                     --stack FILE --stack-base ADDR [--reg NAME=VALUE ...]\n"
"                     [--max-depth N] [--chrome-compat] [--kernel-regs]\n"
"                     [--jit KIND:START-END ...]\n"
"\n"
"Replays one unwind with v2 tables and prints the frames it finds:\n"
"one line '#N 0xADDRESS' per frame (#0 is the sampled pc), then\n"
"'stop: REASON' (root, no-table, refused, bad-sp, no-progress,\n"
"read-fault, bad-opcode, max-depth, noreturn, budget or jit-chain).\n"
"\n"
"  --table FILE[@TEXT_START]  a table (.uwt container or raw v2 blob) for\n"
"                             code whose .text starts at TEXT_START; the\n"
"                             default is the container's link address, or\n"
"                             0 for a raw blob; repeatable\n"
"  --stack FILE               stack bytes; the first is at --stack-base\n"
"                             and the window ends at the last\n"
"  --stack-base ADDR          address of the stack file's first byte\n"
"  --reg NAME=VALUE           r0-r15, sp, lr, pc, fp or ip; pc is\n"
"                             required, sp defaults to --stack-base\n"
"  --max-depth N              most frames to report (default 128)\n"
"  --jit KIND:START-END       [START, END) is JIT code of a frame kind\n"
"                             (v8-arm: V8's frame chain in r11),\n"
"                             walked until it returns to tabled code;\n"
"                             repeatable\n"
"  --chrome-compat            Chrome's rules: callers looked up at the\n"
"                             return address itself, and every frame's\n"
"                             sp 8-byte aligned (else word alignment)\n"
"  --kernel-regs              the registers are those the kernel saved\n"
"                             on entry (a sample taken in the kernel):\n"
"                             after a clone system call r0 0 refuses\n"
"\n"
"Numbers are decimal or 0x-prefixed hex.  Exit status 2 on a bad\n"
"argument or an invalid table.\n";

struct loaded_table {
	const char *path;
	struct uwt_file file;	/* file.buf is ours to free */
	u32 text_start;
	bool have_text_start;
	struct uw2_table *parts;	/* file.nparts of them, ours to free */
};

/* Code of a frame kind other than tables (--jit). */
struct jit_range {
	u32 start, end;
	enum uw2_frames frames;
};

struct unwind_args {
	struct loaded_table tables[MAX_TABLES];
	u32 ntables;
	struct jit_range jit[MAX_TABLES];
	u32 njit;
	const char *stack_path;
	u32 stack_base;
	bool have_stack_base;
	struct uw2_regs regs;
	bool have_reg[16];
	u32 max_depth;
	unsigned int flags;
};

/* Read a whole file into a new buffer; a message and false on failure. */
static bool read_file(const char *path, u8 **buf, u32 *size)
{
	size_t len;

	if (uw_read_regular(path, MAX_FILE_SIZE, buf, &len)) {
		if (errno == EFBIG)
			uw_err("%s: larger than %u bytes", path, MAX_FILE_SIZE);
		else
			uw_err("%s: %s", path, uw_file_strerror(errno));
		return false;
	}
	*size = len;
	return true;
}

/*
 * Load one table file (a .uwt container or a raw blob) and validate it.
 * A container says where its .text was linked, which is where it runs in
 * a non-PIE program; TEXT_START overrides it.
 */
static bool load_table_file(struct loaded_table *lt)
{
	struct uw2_verror err;
	char msg[256];

	if (uwt_load_file(lt->path, &lt->file, msg, sizeof(msg))) {
		uw_err("%s: %s", lt->path, msg);
		return false;
	}
	lt->parts = calloc(lt->file.nparts, sizeof(*lt->parts));
	if (!lt->parts) {
		uw_err("unwind: out of memory");
		return false;
	}
	for (u32 i = 0; i < lt->file.nparts; i++) {
		struct uwt_part p;

		uwt_part(&lt->file, i, &p);
		if (uw2_table_init(&lt->parts[i], p.blob, p.blob_size,
				   &err) != UW2_OK) {
			uw_err("%s: invalid v2 table%s: %s (blob offset 0x%x)",
			       lt->path, lt->file.nparts > 1 ? " (a part)" : "",
			       uw2_verr_str(err.code), err.offset);
			return false;
		}
	}
	if (!lt->have_text_start && lt->file.container)
		lt->text_start = lt->file.meta.text_addr;
	return true;
}

/* "FILE@TEXT_START": split at the last '@' when a number follows it. */
static void parse_table_spec(char *spec, struct loaded_table *lt)
{
	char *at = strrchr(spec, '@');
	u32 start;

	lt->path = spec;
	lt->text_start = 0;
	if (at && uw_parse_u32(at + 1, &start)) {
		*at = '\0';
		lt->text_start = start;
		lt->have_text_start = true;
	}
}

/* "KIND:START-END" (--jit): code of a frame kind, such as v8-arm. */
static bool parse_jit_spec(char *spec, struct unwind_args *a)
{
	char *colon = strchr(spec, ':'), *dash;
	struct jit_range *j = &a->jit[a->njit];
	u32 k;

	if (a->njit == MAX_TABLES) {
		uw_err("unwind: more than %d --jit ranges", MAX_TABLES);
		return false;
	}
	dash = colon ? strchr(colon, '-') : NULL;
	if (!dash) {
		uw_err("unwind: --jit '%s' is not KIND:START-END", spec);
		return false;
	}
	*colon = *dash = '\0';
	for (k = UW2_FRAMES_TABLE + 1; uw2_frames_name(k); k++)
		if (!strcmp(spec, uw2_frames_name(k)))
			break;
	if (!uw2_frames_name(k)) {
		uw_err("unwind: --jit: unknown frame kind '%s' (v8-arm)", spec);
		return false;
	}
	j->frames = k;
	if (!uw_parse_u32(colon + 1, &j->start) ||
	    !uw_parse_u32(dash + 1, &j->end) || j->start >= j->end) {
		uw_err("unwind: --jit %s: START-END must be numbers, START below END",
		       spec);
		return false;
	}
	a->njit++;
	return true;
}

static int reg_index(const char *name)
{
	static const struct { const char *name; int reg; } alias[] = {
		{ "sp", UW2_SP }, { "lr", UW2_LR }, { "pc", UW2_PC },
		{ "fp", UW2_FP }, { "ip", UW2_IP },
	};
	u32 n;

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcasecmp(name, alias[i].name))
			return alias[i].reg;
	if ((name[0] == 'r' || name[0] == 'R') && name[1] >= '0' &&
	    name[1] <= '9' && uw_parse_u32(name + 1, &n) && n < 16 &&
	    (name[1] != '0' || !name[2]))
		return n;
	return -1;
}

static bool parse_reg(char *arg, struct unwind_args *a)
{
	char *eq = strchr(arg, '=');
	u32 val;
	int reg;

	if (!eq) {
		uw_err("unwind: --reg wants NAME=VALUE, not '%s'", arg);
		return false;
	}
	*eq = '\0';
	reg = reg_index(arg);
	if (reg < 0) {
		uw_err("unwind: unknown register '%s' (r0-r15, sp, lr, pc, fp, ip)",
		       arg);
		return false;
	}
	if (!uw_parse_u32(eq + 1, &val)) {
		uw_err("unwind: bad value '%s' for %s", eq + 1, arg);
		return false;
	}
	a->regs.r[reg] = val;
	a->have_reg[reg] = true;
	return true;
}

/* "--name VALUE" or "--name=VALUE"; advances *i past what it used. */
static bool option_value(int argc, char **argv, int *i, const char *name,
			 char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return false;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return true;
	}
	if (argv[*i][n])
		return false;
	if (*i + 1 >= argc) {
		*val = NULL;
		return true;
	}
	*val = argv[++*i];
	return true;
}

static bool parse_number_arg(const char *name, const char *val, u32 *out)
{
	if (!uw_parse_u32(val, out)) {
		uw_err("unwind: %s wants a number, not '%s'", name, val);
		return false;
	}
	return true;
}

/* One option at argv[*i]; false (with a message) on a bad argument. */
static bool parse_option(int argc, char **argv, int *i, struct unwind_args *a)
{
	static const char *const valued[] = {
		"--table", "--stack", "--stack-base", "--reg", "--max-depth",
		"--jit",
	};
	char *val = NULL;
	size_t k;

	if (!strcmp(argv[*i], "--chrome-compat")) {
		a->flags |= UW2_F_CHROME_COMPAT;
		return true;
	}
	if (!strcmp(argv[*i], "--kernel-regs")) {
		a->flags |= UW2_F_KERNEL_REGS;
		return true;
	}
	for (k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
		if (option_value(argc, argv, i, valued[k], &val))
			break;
	if (k == sizeof(valued) / sizeof(valued[0])) {
		uw_err("unwind: unknown argument '%s' (see --help)", argv[*i]);
		return false;
	}
	if (!val || !*val) {
		uw_err("unwind: %s needs a value", valued[k]);
		return false;
	}
	switch (k) {
	case 0:
		if (a->ntables == MAX_TABLES) {
			uw_err("unwind: more than %d tables", MAX_TABLES);
			return false;
		}
		parse_table_spec(val, &a->tables[a->ntables++]);
		return true;
	case 1:
		if (a->stack_path) {
			uw_err("unwind: --stack given twice");
			return false;
		}
		a->stack_path = val;
		return true;
	case 2:
		a->have_stack_base = true;
		return parse_number_arg("--stack-base", val, &a->stack_base);
	case 3:
		return parse_reg(val, a);
	case 5:
		return parse_jit_spec(val, a);
	default:
		if (!parse_number_arg("--max-depth", val, &a->max_depth))
			return false;
		if (a->max_depth > MAX_DEPTH_LIMIT) {
			uw_err("unwind: --max-depth above %d", MAX_DEPTH_LIMIT);
			return false;
		}
		return true;
	}
}

static bool parse_args(int argc, char **argv, struct unwind_args *a)
{
	a->max_depth = DEFAULT_DEPTH;
	for (int i = 1; i < argc; i++)
		if (!parse_option(argc, argv, &i, a))
			return false;
	if (!a->ntables || !a->stack_path || !a->have_stack_base) {
		uw_err("unwind: --table, --stack and --stack-base are required");
		return false;
	}
	if (!a->have_reg[UW2_PC]) {
		uw_err("unwind: --reg pc=VALUE is required");
		return false;
	}
	if (!a->have_reg[UW2_SP])
		a->regs.r[UW2_SP] = a->stack_base;
	return true;
}

static int compare_modules(const void *x, const void *y)
{
	const struct uw2_module *a = x, *b = y;

	return a->text_start < b->text_start ? -1 :
	       a->text_start > b->text_start;
}

/*
 * One module per table part and one per --jit range, sorted by text
 * start; a part's range comes from its file (the part's own range, moved
 * with the file's start).
 */
static bool build_modules(struct unwind_args *a, struct uw2_module *mods,
			  u32 n)
{
	u32 k = 0;

	for (u32 i = 0; i < a->ntables; i++) {
		const struct loaded_table *lt = &a->tables[i];

		for (u32 j = 0; j < lt->file.nparts; j++, k++) {
			struct uwt_part p;
			u32 start = lt->text_start, span;

			uwt_part(&lt->file, j, &p);
			/* a part's start, where the file's start puts it */
			if (lt->file.nparts > 1)
				start += p.text_addr - lt->file.meta.text_addr;
			/* breakpad-made containers know no .text size */
			span = p.text_size ? p.text_size :
			       uw2_table_text_span(&lt->parts[j]);
			mods[k].text_start = start;
			mods[k].text_end = span > 0xffffffffu - start ?
					   0xffffffffu : start + span;
			mods[k].table = &lt->parts[j];
			mods[k].frames = UW2_FRAMES_TABLE;
			mods[k].skip = 0;
		}
	}
	for (u32 i = 0; i < a->njit; i++, k++)
		mods[k] = (struct uw2_module){
			a->jit[i].start, a->jit[i].end, NULL, a->jit[i].frames, 0,
		};
	qsort(mods, n, sizeof(mods[0]), compare_modules);
	for (u32 i = 1; i < n; i++) {
		if (mods[i].text_start < mods[i - 1].text_end) {
			uw_err("unwind: ranges at 0x%08x and 0x%08x overlap (a raw blob covers whole 128 KiB pages)",
			       mods[i - 1].text_start, mods[i].text_start);
			return false;
		}
	}
	return true;
}

struct stack_buf {
	const u8 *bytes;
	u32 base;
};

static int stack_buf_read(void *ctx, u32 addr, u32 *val)
{
	const struct stack_buf *s = ctx;
	const u8 *p = s->bytes + (addr - s->base);

	*val = p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
	return 0;
}

static int replay(struct unwind_args *a, const u8 *stack_bytes, u32 size)
{
	struct uw2_module *mods;
	u32 nmods = a->njit;
	struct stack_buf sb = { stack_bytes, a->stack_base };
	struct uw2_stack stack = {
		.lo = a->stack_base, .hi = a->stack_base + size,
		.read = stack_buf_read, .ctx = &sb,
	};
	u32 *frames, n = 0;
	enum uw2_stop stop;

	for (u32 i = 0; i < a->ntables; i++)
		nmods += a->tables[i].file.nparts;
	mods = calloc(nmods, sizeof(*mods));
	frames = calloc(a->max_depth ? a->max_depth : 1, sizeof(*frames));
	if (!mods || !frames) {
		uw_err("unwind: out of memory");
		free(mods);
		free(frames);
		return UWPROF_EXIT_FAIL;
	}
	if (!build_modules(a, mods, nmods)) {
		free(mods);
		free(frames);
		return UWPROF_EXIT_USAGE;
	}
	stop = uw2_unwind(mods, nmods, &a->regs, &stack, frames,
			  a->max_depth, &n, a->flags);
	for (u32 i = 0; i < n; i++)
		printf("#%u 0x%08x\n", i, frames[i]);
	printf("stop: %s\n", uw2_stop_name(stop));
	free(mods);
	free(frames);
	return UWPROF_EXIT_OK;
}

static int run_with_inputs(struct unwind_args *a)
{
	u8 *stack_bytes = NULL;
	u32 size = 0;
	int rc = UWPROF_EXIT_USAGE;

	for (u32 i = 0; i < a->ntables; i++)
		if (!load_table_file(&a->tables[i]))
			return rc;
	if (!read_file(a->stack_path, &stack_bytes, &size))
		return rc;
	if (size > 0xffffffffu - a->stack_base)
		uw_err("unwind: stack window 0x%08x + %u bytes passes 4 GiB",
		       a->stack_base, size);
	else
		rc = replay(a, stack_bytes, size);
	free(stack_bytes);
	return rc;
}

static int cmd_unwind(int argc, char **argv)
{
	struct unwind_args *a;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return UWPROF_EXIT_OK;
		}
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		uw_err("unwind: out of memory");
		return UWPROF_EXIT_FAIL;
	}
	rc = parse_args(argc, argv, a) ? run_with_inputs(a) :
					 UWPROF_EXIT_USAGE;
	for (u32 i = 0; i < a->ntables; i++) {
		free(a->tables[i].file.buf);
		free(a->tables[i].parts);
	}
	free(a);
	return rc;
}

UWPROF_COMMAND(unwind, "unwind", "replay one unwind from tables, a stack dump and registers",
	       cmd_unwind)
