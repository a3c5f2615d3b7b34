// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof table: build a v2 unwind table from an ARM32 ELF (DWARF CFI, then
 * EHABI for what DWARF lacks) or from a breakpad symbol file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "uwprof.h"
#include "unwind_v2.h"
#include "table/table.h"
#include "table/elf.h"
#include "lib/uwt.h"
#include "table/prologue.h"
#include "table/discover.h"
#include "table/v8builtins.h"
#include "table/make.h"
#include "lib/regfile.h"

#define MAX_DEBUG_DIRS	16
#define MAX_JOBS	256
#define DEFAULT_DEBUG_DIR "/usr/lib/debug"

struct opts {
	const char *input;
	const char *breakpad;
	const char *out;
	const char *build_id_dir;
	const char *report;
	const char *debug_file;
	const char *debug_dirs[MAX_DEBUG_DIRS];
	u32 ndebug_dirs;
	bool no_debug_file;
	bool prologue;
	bool no_discovery;		/* --no-discovery: named functions only */
	u32 text_start;
	bool have_text_start;
	bool raw;
	bool compat;
	bool stats;
	u32 fot_index_max;		/* --test-fot-limit: 0, or split sooner */
	u32 jobs;			/* -j: prologue analysis's threads */
	/* tb_make_table: the build-id the input must have (0 bytes: any) */
	const u8 *want_bid;
	u32 want_bid_len;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof table ELF [options]\n"
		"       uwprof table --breakpad SYMFILE --text-start ADDR [options]\n"
		"\n"
		"Build an unwind info v2 table (Chrome's ARM32 format).  From an ELF:\n"
		"DWARF CFI (a separate debug file's .debug_frame, the ELF's .debug_frame,\n"
		".eh_frame), then .ARM.exidx/.ARM.extab for functions without DWARF.\n"
		"From breakpad: its STACK CFI records.\n"
		"\n"
		"  -o, --output FILE      write the table here\n"
		"      --build-id-dir DIR write DIR/<build-id>.uwt\n"
		"      --raw              the bare v2 blob instead of the .uwt container\n"
		"      --chrome-compat    Chrome's generator exactly (prologue rows only,\n"
		"                         no root marker, r0-r3/VFP saves as vsp skips)\n"
		"      --text-start ADDR  link address of .text (breakpad input)\n"
		"      --debug-file FILE  the ELF's separate debug file: its .debug_frame\n"
		"                         is read first (the build-ids must match)\n"
		"      --debug-dir DIR    look for DIR/.build-id/xx/rest.debug (repeatable;\n"
		"                         " DEFAULT_DEBUG_DIR " is always tried last)\n"
		"      --no-debug-file    use no separate debug file\n"
		"      --prologue-analysis  derive rules from the instructions of functions\n"
		"                         that would only refuse (CANTUNWIND, no unwind info)\n"
		"      --no-discovery     with --prologue-analysis: analyse only functions\n"
		"                         a symbol, exidx entry or the PLT names (no search\n"
		"                         for the starts of a stripped file's functions)\n"
		"  -j, --jobs N           with --prologue-analysis: analyse functions on N\n"
		"                         threads (default: one per online CPU); the\n"
		"                         table is the same for any N\n"
		"      --stats            print sizes and coverage\n"
		"      --test-fot-limit N for tests: split into parts as if a FOT list\n"
		"                         could start at byte N at most (not 65535)\n"
		"      --report FILE      list, per function, what could not be expressed\n"
		"                         and which functions are EHABI-only ('-': stdout)\n");
}

/* The default of -j: as make -j and perf, the CPUs online. */
static u32 online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (u32)n;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "breakpad", required_argument, NULL, 'b' },
		{ "text-start", required_argument, NULL, 't' },
		{ "build-id-dir", required_argument, NULL, 'd' },
		{ "raw", no_argument, NULL, 'r' },
		{ "chrome-compat", no_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' },
		{ "report", required_argument, NULL, 'R' },
		{ "debug-file", required_argument, NULL, 'F' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "no-debug-file", no_argument, NULL, 'N' },
		{ "prologue-analysis", no_argument, NULL, 'P' },
		{ "no-discovery", no_argument, NULL, 'X' },
		{ "test-fot-limit", required_argument, NULL, 'L' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->jobs = online_cpus();
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'b': o->breakpad = optarg; break;
		case 'd': o->build_id_dir = optarg; break;
		case 'r': o->raw = true; break;
		case 'c': o->compat = true; break;
		case 's': o->stats = true; break;
		case 'R': o->report = optarg; break;
		case 'F': o->debug_file = optarg; break;
		case 'N': o->no_debug_file = true; break;
		case 'P': o->prologue = true; break;
		case 'X': o->no_discovery = true; break;
		case 'j':
			if (!uw_parse_u32(optarg, &o->jobs) || !o->jobs ||
			    o->jobs > MAX_JOBS) {
				uw_err("table: --jobs wants 1 to %d threads, not '%s'",
				       MAX_JOBS, optarg);
				return -1;
			}
			break;
		case 'L':
			if (!uw_parse_u32(optarg, &o->fot_index_max) ||
			    !o->fot_index_max || o->fot_index_max > 0xffff) {
				uw_err("table: --test-fot-limit wants 1 to 65535, not '%s'",
				       optarg);
				return -1;
			}
			break;
		case 'D':
			if (o->ndebug_dirs == MAX_DEBUG_DIRS - 1) {
				uw_err("table: at most %d --debug-dir options",
				       MAX_DEBUG_DIRS - 1);
				return -1;
			}
			o->debug_dirs[o->ndebug_dirs++] = optarg;
			break;
		case 't':
			if (!uw_parse_u32(optarg, &o->text_start)) {
				uw_err("table: --text-start wants a 32-bit address, not '%s'",
				       optarg);
				return -1;
			}
			o->have_text_start = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc) {
		uw_err("table: one input only ('%s' is extra)", argv[optind]);
		return -1;
	}
	if (!!o->input == !!o->breakpad) {
		uw_err("table: give an ELF file or --breakpad SYMFILE (one of them)");
		return -1;
	}
	if (o->breakpad && !o->have_text_start) {
		uw_err("table: --breakpad needs --text-start ADDR (the link address of .text, e.g. from 'readelf -S')");
		return -1;
	}
	if (o->breakpad && (o->debug_file || o->ndebug_dirs)) {
		uw_err("table: --debug-file/--debug-dir are for ELF input, not --breakpad");
		return -1;
	}
	if (o->no_debug_file && (o->debug_file || o->ndebug_dirs)) {
		uw_err("table: --no-debug-file contradicts --debug-file/--debug-dir; give one");
		return -1;
	}
	o->debug_dirs[o->ndebug_dirs++] = DEFAULT_DEBUG_DIR;
	if (o->build_id_dir && o->raw) {
		uw_err("table: --build-id-dir writes containers; drop --raw");
		return -1;
	}
	if (!o->out && !o->build_id_dir && !o->stats && !o->report) {
		uw_err("table: nothing to do; give -o FILE, --build-id-dir DIR, --stats or --report");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- */

struct gen {
	struct opts *o;
	struct tb_input in;
	struct tb_notes notes;
	struct tb_func *funcs;
	u32 nfuncs;
	struct uwt_meta meta;
	struct tb_blob *blobs;		/* one per part, in address order */
	u32 nblobs;
	u32 ehabi_only, root_funcs;
	u32 dbg_bytes, eh_bytes, exidx_bytes, extab_bytes, exidx_entries;
	const char *dbgfile;		/* separate debug file used, or NULL */
	u32 dbgfile_bytes;
	bool dbgfile_compressed;
	int noreturn_sites;		/* calls marked as never returning */
	int discovered;			/* function starts discovery added */
	struct tb_ehabi_stats ehabi;	/* EHABI-only functions' rows */
	struct tb_cfi_stats cfi;	/* DWARF CFI checked against the code */
	struct tb_v8_stats v8;		/* V8's builtins, if any */
	int v8_found;			/* tb_v8_builtins_pass() said 1 */
	struct tb_discover_stats dstats;
};

/*
 * Where table offsets can reach: from .text on to the end of the
 * executable segment holding it (code placed after .text, such as
 * __libc_freeres_fn, is still addressed from .text's start).
 */
static u32 code_end(const struct uwt_meta *m)
{
	for (u32 i = 0; i < m->nsegs; i++) {
		const struct uwt_seg *s = &m->segs[i];

		if ((s->flags & 1) && m->text_addr >= s->vaddr &&
		    m->text_addr < s->vaddr + s->memsz)
			return s->vaddr + s->memsz;
	}
	return m->text_size ? m->text_addr + m->text_size : UINT32_MAX;
}

static bool in_text(const struct uwt_meta *m, const struct tb_cfi_func *f)
{
	return f->addr >= m->text_addr && f->addr < code_end(m);
}

/*
 * A function of more rows than a FOT list may hold (UW2_FOT_PAIRS_MAX, a
 * bound the module checks) refuses as a whole: one refuse row.
 */
static void refuse_rows(struct tb_func *out, struct tb_notes *notes)
{

	tb_note_add(notes, out->addr, out->addr, TB_N_ROWS_MAX, "%u rows",
		    out->npairs);
	out->npairs = 1;
	out->pairs[0].off = 0;
	tb_seq_put(&out->pairs[0].seq, tb_ops_refuse, 2);
}

/* An EHABI function's pairs: its one sequence, or one per state. */
static int ehabi_pairs(struct gen *g, struct tb_cfi_func *f,
		       struct tb_func *out)
{
	u32 n = f->nepairs ? f->nepairs : 1;

	out->pairs = calloc(n, sizeof(*out->pairs));
	if (!out->pairs)
		return -1;
	out->npairs = n;
	if (f->nepairs) {
		/* offsets descending, as tb_func holds them */
		for (u32 k = 0; k < n; k++)
			out->pairs[k] = f->epairs[n - 1 - k];
		return 0;
	}
	/* --chrome-compat tables never hold the root marker. */
	if (g->o->compat && f->source == TB_SRC_ROOT)
		f->ehabi[0] = 0x80;
	tb_seq_put(&out->pairs[0].seq, f->ehabi, f->ehabi_len);
	return 0;
}

static int convert_all(struct gen *g)
{
	char err[256];

	g->funcs = calloc(g->in.n ? g->in.n : 1, sizeof(*g->funcs));
	if (!g->funcs)
		return -1;
	for (u32 i = 0; i < g->in.n; i++) {
		struct tb_cfi_func *f = &g->in.funcs[i];
		struct tb_func *out = &g->funcs[g->nfuncs];
		int r;

		if (!in_text(&g->meta, f)) {
			tb_note_add(&g->notes, f->addr, f->addr,
				    TB_N_OUTSIDE_TEXT, "code 0x%x-0x%x",
				    g->meta.text_addr, code_end(&g->meta));
			continue;
		}
		if (f->ehabi) {
			memset(out, 0, sizeof(*out));
			if (ehabi_pairs(g, f, out))
				return -1;
			out->addr = f->addr;
			out->size = f->size;
			out->source = f->source;
			r = 1;
		} else if (g->o->compat) {
			r = tb_convert_compat(f, out, &g->notes, err, sizeof(err));
			if (r < 0) {
				uw_err("table: %s", err);
				return -2;
			}
		} else {
			r = tb_convert_full(f, out, &g->notes);
		}
		/* its rows are pairs now (or noted): not held for the layout */
		tb_rows_free(f);
		if (r > 0 && out->npairs > UW2_FOT_PAIRS_MAX)
			refuse_rows(out, &g->notes);
		if (r > 0) {
			u32 end = f->addr + f->size;

			/* Keep text_size covering every function: it is the
			 * runtime range the table is attached to. */
			if (g->meta.text_size && end > g->meta.text_addr +
			    g->meta.text_size && end <= code_end(&g->meta))
				g->meta.text_size = end - g->meta.text_addr;
			g->nfuncs++;
			if (f->source == TB_SRC_EHABI)
				g->ehabi_only++;
			if (f->source == TB_SRC_ROOT)
				g->root_funcs++;
		}
	}
	return 0;
}

/*
 * Every function's every row must come back through the reader's own
 * lookups: the same uwprof unwinder code the kernel runs.
 */
static int self_check(struct gen *g, const struct uw2_table *tables)
{
	u32 k = 0;

	for (u32 i = 0; i < g->nfuncs; i++) {
		const struct tb_func *f = &g->funcs[i];
		const struct uw2_table *t;

		if (f->overlapped)	/* not in the table, noted */
			continue;
		/* the part holding the function (both in address order) */
		while (k + 1 < g->nblobs && f->addr >= g->blobs[k + 1].text_start)
			k++;
		t = &tables[k];
		for (u32 j = 0; j < f->npairs; j++) {
			u32 off = f->addr - g->blobs[k].text_start + f->pairs[j].off;
			u32 instr, fot, uit;

			if (!uw2_lookup_function(t, off, &instr, &fot) ||
			    instr != f->pairs[j].off >> 1 ||
			    !uw2_lookup_sequence(t, fot, instr, &uit) ||
			    uit + f->pairs[j].seq.len > t->uit_size ||
			    memcmp(t->uit + uit, f->pairs[j].seq.b,
				   f->pairs[j].seq.len)) {
				uw_err("table: internal error: the table does not give back the row at 0x%x (function 0x%x); please report this",
				       f->addr + f->pairs[j].off, f->addr);
				return -1;
			}
		}
	}
	return 0;
}

static void fill_meta(struct gen *g)
{
	u32 rows = 0, covered = 0;

	u32 text_end = g->meta.text_size ? g->meta.text_addr + g->meta.text_size
					 : UINT32_MAX;
	u32 at = g->meta.text_addr;

	/* tb_layout sorted the functions: count the union inside .text. */
	for (u32 i = 0; i < g->nfuncs; i++) {
		u32 lo = g->funcs[i].addr, hi = lo + g->funcs[i].size;

		rows += g->funcs[i].npairs;
		/* Code the table only refuses (CANTUNWIND) is not covered. */
		if (g->funcs[i].npairs == 1 && g->funcs[i].pairs[0].seq.len == 2 &&
		    g->funcs[i].pairs[0].seq.b[0] == 0x80 &&
		    !g->funcs[i].pairs[0].seq.b[1])
			continue;
		if (lo < at)
			lo = at;
		if (hi > text_end)
			hi = text_end;
		if (hi > lo) {
			covered += hi - lo;
			at = hi;
		}
	}
	g->meta.flags = g->o->compat ? UWT_F_CHROME_COMPAT : 0;
	if (g->v8_found > 0)
		g->meta.flags |= UWT_F_JIT_ROWS;
	g->meta.funcs_total = g->in.n;
	g->meta.funcs_in_table = g->nfuncs;
	g->meta.funcs_ehabi_only = g->ehabi_only;
	g->meta.rows = rows;
	g->meta.text_covered = covered;
}

static int write_file(const char *path, const u8 *b, u32 n)
{
	char tmp[4096];
	FILE *f;

	/* its own name: two writers of one table (two records) never meet */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		uw_err("table: cannot write %s: %s", tmp, strerror(errno));
		if (f)
			remove(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		uw_err("table: cannot rename %s to %s: %s", tmp, path,
		       strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* The container of every part; NULL and said why when it cannot be. */
static u8 *build_container(const struct gen *g, u32 *n)
{
	struct uwt_part *p;
	u8 *c;

	if (g->nblobs == 1)
		return uwt_build(&g->meta, g->blobs[0].data, g->blobs[0].size, n);
	p = calloc(g->nblobs, sizeof(*p));
	if (!p)
		return NULL;
	for (u32 i = 0; i < g->nblobs; i++)
		p[i] = (struct uwt_part){ g->blobs[i].text_start,
					  g->blobs[i].text_size,
					  g->blobs[i].data, g->blobs[i].size };
	c = uwt_build_parts(&g->meta, p, g->nblobs, n);
	free(p);
	return c;
}

static int write_outputs(struct gen *g)
{
	u8 *c = NULL;
	u32 n = 0;
	int ret = 0;

	if (g->o->raw && g->nblobs > 1) {
		uw_err("table: the code needs %u tables (parts), too large for one v2 table; a raw blob holds one: drop --raw to write them all in a .uwt container",
		       g->nblobs);
		return -1;
	}
	if (!g->o->raw || g->o->build_id_dir) {
		c = build_container(g, &n);
		if (!c) {
			uw_err("table: out of memory");
			return -1;
		}
	}
	if (g->o->out)
		ret = g->o->raw ? write_file(g->o->out, g->blobs[0].data,
					     g->blobs[0].size)
				: write_file(g->o->out, c, n);
	if (!ret && g->o->build_id_dir) {
		char hex[2 * UWT_BUILD_ID_MAX + 1], path[4096];

		if (!g->meta.build_id_len) {
			uw_err("table: %s has no build-id; use -o instead of --build-id-dir",
			       g->o->input ? g->o->input : g->o->breakpad);
			free(c);
			return -1;
		}
		uw_hex(g->meta.build_id, g->meta.build_id_len, hex);
		mkdir(g->o->build_id_dir, 0755);
		snprintf(path, sizeof(path), "%s/%s.uwt", g->o->build_id_dir, hex);
		ret = write_file(path, c, n);
	}
	free(c);
	return ret;
}

static const char *src_name(u8 s)
{
	static const char *const n[TB_SRC_COUNT] = {
		"breakpad", "debug_frame", "eh_frame", "exidx", "root",
		"debug-file", "prologue-analysis", "plt", "uncovered",
		"thread-entry", "v8-builtins" };

	return s < TB_SRC_COUNT ? n[s] : "?";
}

/* Functions not in the table (or kept with loss), by reason. */
static void count_reasons(const struct gen *g, u32 *by)
{
	memset(by, 0, TB_N_COUNT * sizeof(u32));
	for (u32 i = 0; i < g->notes.n; i++) {
		const struct tb_note *n = &g->notes.v[i];
		bool seen = false;

		/* Count each (function, reason) once. */
		for (u32 j = i; j-- > 0 && g->notes.v[j].func == n->func;)
			if (g->notes.v[j].reason == n->reason)
				seen = true;
		if (!seen)
			by[n->reason]++;
	}
}

static void print_stats(struct gen *g, FILE *f)
{
	u32 by[TB_N_COUNT], src[TB_SRC_COUNT] = { 0 };
	struct tb_blob sum = { 0 }, *b = &sum;

	for (u32 i = 0; i < g->nblobs; i++) {
		sum.size += g->blobs[i].size;
		sum.page_entries += g->blobs[i].page_entries;
		sum.func_entries += g->blobs[i].func_entries;
		sum.fot_size += g->blobs[i].fot_size;
		sum.uit_size += g->blobs[i].uit_size;
		sum.nseqs += g->blobs[i].nseqs;
	}
	for (u32 i = 0; i < g->nfuncs; i++)
		src[g->funcs[i].source]++;
	fprintf(f, "functions: %u in the inputs, %u in the table",
		g->meta.funcs_total, g->meta.funcs_in_table);
	for (int s = 0; s < TB_SRC_COUNT; s++)
		if (src[s])
			fprintf(f, ", %u from %s", src[s], src_name(s));
	fprintf(f, "\nrows: %u (offset, sequence) pairs, %u distinct sequences\n",
		g->meta.rows, b->nseqs);
	if (g->discovered)
		fprintf(f, "functions discovered (no symbol): %d; found as call targets %u, tail-call targets %u, address-taken code %u, code after a function %u; %u starts of unknown instruction set; %u passes\n",
			g->discovered, g->dstats.calls, g->dstats.tails,
			g->dstats.pointers, g->dstats.gaps,
			g->dstats.boundaries, g->dstats.passes);
	if (g->ehabi.rows || g->ehabi.refused || g->ehabi.pieces)
		fprintf(f, "EHABI-only functions: %u with rows per state (%u with no prologue; %u stretches after an epilogue refused), %u refused (prologue or epilogue not the opcodes'), %u pieces after analysed code refused\n",
			g->ehabi.rows, g->ehabi.frameless, g->ehabi.windows,
			g->ehabi.refused, g->ehabi.pieces);
	if (g->cfi.agree || g->cfi.replaced || g->cfi.patched || g->cfi.unchecked)
		fprintf(f, "DWARF CFI against the code: %u functions agree, %u contradicted (analysed rows used), %u contradicted where states were assumed (there %u stretches of %u bytes given analysed rows, %u of %u bytes refused), %u not analysed (CFI kept unchecked)\n",
			g->cfi.agree, g->cfi.replaced, g->cfi.patched,
			g->cfi.followed, g->cfi.followed_bytes, g->cfi.refused,
			g->cfi.refused_bytes, g->cfi.unchecked);
	if (g->v8_found > 0)
		fprintf(f, "V8's embedded builtins at 0x%x-0x%x: %u, %u of them frameless leaves (tabled), the rest refused (V8's frame walk)\n",
			g->v8.start, g->v8.end, g->v8.builtins, g->v8.leaves);
	if (g->noreturn_sites)
		fprintf(f, "calls that never return (return address saved nowhere): %d\n",
			g->noreturn_sites);
	if (g->nblobs > 1)
		fprintf(f, "parts: %u tables over consecutive ranges (in one, a FOT list would start past byte %u, the limit of its index); sizes below are their sums\n",
			g->nblobs, g->o->fot_index_max ? g->o->fot_index_max :
			0xffff);
	fprintf(f, "bytes: %u total = header %u + page table %u + function table %u + FOT %u + UIT %u\n",
		b->size, 32 * g->nblobs, 4 * b->page_entries,
		4 * b->func_entries, b->fot_size, b->uit_size);
	if (g->meta.funcs_in_table)
		fprintf(f, "bytes/function: %.2f\n",
			(double)b->size / g->meta.funcs_in_table);
	if (g->meta.text_size)
		fprintf(f, ".text covered: %u of %u bytes (%.1f%%)\n",
			g->meta.text_covered, g->meta.text_size,
			100.0 * g->meta.text_covered / g->meta.text_size);
	if (g->exidx_bytes || g->dbg_bytes || g->eh_bytes) {
		fprintf(f, "input unwind sections: .ARM.exidx %u + .ARM.extab %u = %u bytes (%u entries",
			g->exidx_bytes, g->extab_bytes,
			g->exidx_bytes + g->extab_bytes, g->exidx_entries);
		if (g->exidx_entries)
			fprintf(f, ", %.2f bytes/entry",
				(double)(g->exidx_bytes + g->extab_bytes) /
				g->exidx_entries);
		fprintf(f, "); .debug_frame %u", g->dbg_bytes);
		if (src[TB_SRC_DEBUG_FRAME])
			fprintf(f, " (%.2f bytes/function)",
				(double)g->dbg_bytes / src[TB_SRC_DEBUG_FRAME]);
		fprintf(f, "; .eh_frame %u\n", g->eh_bytes);
	}
	if (g->dbgfile)
		fprintf(f, "debug file: %s (.debug_frame %u bytes%s, %u functions from it)\n",
			g->dbgfile, g->dbgfile_bytes,
			g->dbgfile_compressed ? " uncompressed" : "",
			src[TB_SRC_DEBUG_FILE]);
	count_reasons(g, by);
	fprintf(f, "not expressed, by reason (functions):");
	bool any = false;

	for (int r = 0; r < TB_N_COUNT; r++)
		if (by[r]) {
			fprintf(f, "%s %s %u", any ? "," : "", tb_reason_name(r),
				by[r]);
			any = true;
		}
	fprintf(f, "%s\n", any ? "" : " none");
}

static const char *func_name(struct gen *g, struct tb_elf *e, u32 addr)
{
	const struct tb_sym *s = e ? tb_elf_sym(e, addr) : NULL;

	(void)g;
	return s && s->name[0] ? s->name : "?";
}

static int write_report(struct gen *g, struct tb_elf *e)
{
	FILE *f = strcmp(g->o->report, "-") ? fopen(g->o->report, "w") : stdout;

	if (!f) {
		uw_err("table: cannot write %s: %s", g->o->report, strerror(errno));
		return -1;
	}
	fprintf(f, "# function  address  reason  detail\n");
	for (u32 i = 0; i < g->notes.n; i++) {
		const struct tb_note *n = &g->notes.v[i];

		fprintf(f, "%s 0x%x 0x%x %s %s\n", func_name(g, e, n->func),
			n->func, n->addr, tb_reason_name(n->reason), n->detail);
	}
	/* Every function's source; the fillers came from none. */
	for (u32 i = 0; i < g->nfuncs; i++) {
		const struct tb_func *fn = &g->funcs[i];
		const char *src = src_name(fn->source);

		if (fn->filler)
			continue;
		if (fn->source == TB_SRC_EHABI)
			src = "ehabi-only";
		fprintf(f, "%s 0x%x 0x%x %s %u bytes\n",
			func_name(g, e, fn->addr), fn->addr, fn->addr, src,
			fn->size);
	}
	if (f != stdout)
		fclose(f);
	return 0;
}

/*
 * The separate debug file, if one is given or found by build-id.  A file
 * that does not match the ELF is an error, never silently skipped: its
 * CFI would describe other code.
 */
static int attach_debug_file(struct gen *g, struct tb_elf *e)
{
	char path[4096], err[1024];

	if (g->o->no_debug_file ||
	    !tb_find_debug_file(e, g->o->debug_file, g->o->debug_dirs,
				g->o->ndebug_dirs, path, sizeof(path)))
		return 0;
	if (tb_elf_attach_debug(e, path, err, sizeof(err))) {
		uw_err("table: %s: %s", g->o->input, err);
		return -1;
	}
	return 0;
}

/* Something besides PLT stubs and refusals of code outside .text. */
static bool has_unwind_info(const struct tb_input *in)
{
	for (u32 i = 0; i < in->n; i++)
		if (in->funcs[i].source != TB_SRC_PLT &&
		    in->funcs[i].source != TB_SRC_UNCOVERED)
			return true;
	return false;
}

static int read_inputs(struct gen *g, struct tb_elf *e)
{
	char err[512];

	if (g->o->breakpad) {
		FILE *f = uw_fopen_regular(g->o->breakpad);
		int r;

		if (!f) {
			uw_err("table: cannot open %s: %s", g->o->breakpad,
			       uw_file_strerror(errno));
			return UWPROF_EXIT_USAGE;
		}
		r = tb_read_breakpad(f, &g->in, err, sizeof(err)) ||
		    tb_breakpad_check(&g->in, err, sizeof(err));
		fclose(f);
		if (r) {
			uw_err("table: %s: %s", g->o->breakpad, err);
			return UWPROF_EXIT_USAGE;
		}
		g->meta.text_addr = g->o->text_start;
		g->meta.sources = UWT_SRC_BREAKPAD;
		return 0;
	}
	if (tb_elf_open(e, g->o->input, err, sizeof(err))) {
		uw_err("table: %s", err);
		return UWPROF_EXIT_USAGE;
	}
	/* a stripped file's MiniDebugInfo or debuglink symbols */
	if (tb_elf_read_ext_symbols(e, g->o->input, !g->o->no_debug_file) < 0) {
		uw_err("table: %s: out of memory", g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	if (attach_debug_file(g, e))
		return UWPROF_EXIT_USAGE;
	/* The table covers all executable code of .text's segment;
	 * --chrome-compat keeps Chrome's .text. */
	if (!g->o->compat)
		tb_elf_cover_code(e);
	e->entry_found_later = g->o->prologue && !g->o->compat &&
			       !g->o->no_discovery;
	if (tb_read_dwarf(e, &g->in, err, sizeof(err)) < 0 ||
	    tb_read_ehabi(e, &g->in, &g->notes, err, sizeof(err)) < 0) {
		uw_err("table: %s: %s", g->o->input, err);
		return UWPROF_EXIT_FAIL;
	}
	/* --chrome-compat tables never hold the root marker. */
	if (!g->o->compat && tb_add_uncovered_roots(e, &g->in) < 0) {
		uw_err("table: %s: out of memory", g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* Clone wrappers: exact rules, their child path root. */
	if (!g->o->compat && tb_thread_entry_pass(e, &g->in, &g->notes) < 0) {
		uw_err("table: %s: thread entry analysis failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* Stripped code: function starts no symbol names, for the analysis */
	if (g->o->prologue && !g->o->compat && !g->o->no_discovery &&
	    (g->discovered = tb_discover(e, &g->in, &g->dstats)) < 0) {
		uw_err("table: %s: function discovery failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* Clone wrappers among the functions found, as those named above */
	if (g->discovered > 0 && tb_thread_entry_found_pass(e, &g->in) < 0) {
		uw_err("table: %s: thread entry analysis failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* After the roots, so thread entry code is never analysed. */
	if (g->o->prologue && !g->o->compat &&
	    tb_prologue_pass(e, &g->in, &g->notes, &g->cfi,
			     g->o->jobs) < 0) {
		uw_err("table: %s: prologue analysis failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* EHABI-only functions left: prologues and epilogues checked */
	if (!g->o->compat && tb_ehabi_rows_pass(e, &g->in, &g->notes,
						&g->ehabi) < 0) {
		uw_err("table: %s: EHABI prologue check failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* V8's builtins: their own rules in place of any other's */
	if (g->o->prologue && !g->o->compat &&
	    (g->v8_found = tb_v8_builtins_pass(e, g->o->input, &g->in,
						&g->v8)) < 0) {
		uw_err("table: %s: V8's builtins: decoding failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	tb_discover_drop_maps(e);
	/* Last: PLT stubs and refusals only where nothing else applies. */
	if (!g->o->compat && tb_plt_pass(e, &g->in, &g->notes) < 0) {
		uw_err("table: %s: PLT decoding failed (capstone or out of memory)",
		       g->o->input);
		return UWPROF_EXIT_FAIL;
	}
	/* After every source: marks calls in the rows they all gave. */
	if (!g->o->compat) {
		g->noreturn_sites = tb_noreturn_pass(e, &g->in);
		if (g->noreturn_sites < 0) {
			uw_err("table: %s: call decoding failed (capstone or out of memory)",
			       g->o->input);
			return UWPROF_EXIT_FAIL;
		}
	}
	g->meta = e->meta;
	if (g->o->have_text_start)
		g->meta.text_addr = g->o->text_start;
	g->dbg_bytes = e->debug_frame_bytes;
	g->dbgfile_bytes = e->dbg_frame_bytes;
	g->dbgfile_compressed = e->dbg_frame_compressed;
	if (e->dbg_elf)
		g->dbgfile = e->dbg_path;
	g->eh_bytes = e->eh_frame_bytes;
	g->exidx_bytes = e->exidx_bytes;
	g->extab_bytes = e->extab_bytes;
	g->exidx_entries = e->exidx_entries;
	if (!has_unwind_info(&g->in)) {
		uw_err("table: %s has no unwind information (.debug_frame, .eh_frame or .ARM.exidx); give its debug file (--debug-file/--debug-dir), build it with -g or -funwind-tables, or try --prologue-analysis",
		       g->o->input);
		return UWPROF_EXIT_USAGE;
	}
	return 0;
}

/*
 * Table offsets count halfwords from the text start and code lies on
 * halfwords: from an odd start (a section at an odd address, a mistyped
 * --text-start) every function is a byte off its table entry, and
 * neighbours look like overlaps.
 */
static int check_text_start(const struct gen *g, const struct tb_elf *e)
{
	const struct tb_sec *s;
	u32 a = g->meta.text_addr;

	if (!(a & 1))
		return 0;
	if (g->o->have_text_start) {
		uw_err("table: --text-start 0x%x is odd; code starts on a halfword",
		       a);
		return -1;
	}
	s = tb_elf_sec(e, a);
	uw_err("table: %s: its code starts at the odd address 0x%x (%s); ARM and Thumb code start on a halfword",
	       g->o->input, a, s ? s->name : "?");
	return -1;
}

/* The input is the file asked for: its build-id is the one wanted. */
static int check_build_id(const struct gen *g)
{
	char have[2 * UWT_BUILD_ID_MAX + 1] = "", want[2 * UWT_BUILD_ID_MAX + 1];

	if (!g->o->want_bid_len ||
	    (g->meta.build_id_len == g->o->want_bid_len &&
	     !memcmp(g->meta.build_id, g->o->want_bid, g->o->want_bid_len)))
		return 0;
	uw_hex(g->meta.build_id, g->meta.build_id_len, have);
	uw_hex(g->o->want_bid, g->o->want_bid_len, want);
	uw_err("table: %s has build-id %s, not %s (the file mapped): it changed since",
	       g->o->input, have[0] ? have : "(none)", want);
	return -1;
}

static int generate(struct opts *o);

static int cmd_table(int argc, char **argv)
{
	struct opts o;

	if (parse_args(argc, argv, &o))
		return UWPROF_EXIT_USAGE;
	return generate(&o);
}

int tb_make_table(const char *input, const char *build_id_dir,
		  const uint8_t *bid, uint32_t bid_len)
{
	struct opts o;

	memset(&o, 0, sizeof(o));
	o.input = input;
	o.build_id_dir = build_id_dir;
	o.prologue = true;
	/* uwprof record makes its tables in as many processes as CPUs */
	o.jobs = 1;
	o.debug_dirs[o.ndebug_dirs++] = DEFAULT_DEBUG_DIR;
	o.want_bid = bid;
	o.want_bid_len = bid_len;
	return generate(&o);
}

/*
 * Validate every part as the module does (with a memo, so sharing costs
 * nothing) into @t.  Returns 0, or -1 with the error printed.
 */
static int check_parts(struct gen *g, struct uw2_table *t)
{
	struct uw2_verror verr = { UW2_OK, 0 };

	for (u32 i = 0; i < g->nblobs; i++) {
		const struct tb_blob *b = &g->blobs[i];
		void *memo = calloc(1, UW2_MEMO_BYTES(b->size));

		if (!memo || uw2_table_init_memo(&t[i], b->data, b->size, memo,
						 &verr) != UW2_OK) {
			uw_err("table: internal error: the generated table (part %u) fails validation (%s at byte %u); please report this",
			       i, memo ? uw2_verr_str(verr.code) :
			       "out of memory", verr.offset);
			free(memo);
			return -1;
		}
		free(memo);
	}
	return 0;
}

/* uwprof table's work once its options are read. */
static int generate(struct opts *o)
{
	struct gen g;
	struct tb_elf e = { .fd = -1 };
	struct tb_layout_opts lo;
	struct uw2_table *t = NULL;
	char err[512];
	int ret;

	memset(&g, 0, sizeof(g));
	g.o = o;
	ret = read_inputs(&g, &e);
	if (!ret && (check_text_start(&g, &e) || check_build_id(&g)))
		ret = UWPROF_EXIT_USAGE;
	if (ret)
		goto out;
	ret = convert_all(&g);
	if (ret) {
		ret = ret == -2 ? UWPROF_EXIT_USAGE : UWPROF_EXIT_FAIL;
		goto out;
	}
	lo = (struct tb_layout_opts){ o->compat, g.meta.text_addr,
				      g.meta.text_size,
				      o->prologue && !o->compat && !o->breakpad,
				      o->fot_index_max };
	if (tb_layout(g.funcs, g.nfuncs, &lo, &g.blobs, &g.nblobs, &g.notes,
		      err, sizeof(err))) {
		uw_err("table: %s", err);
		ret = UWPROF_EXIT_FAIL;
		goto out;
	}
	/* breakpad input has no text size: the parts' span gives it */
	if (g.nblobs > 1 && !g.meta.text_size)
		g.meta.text_size = g.blobs[g.nblobs - 1].text_start +
				   g.blobs[g.nblobs - 1].text_size -
				   g.meta.text_addr;
	t = calloc(g.nblobs, sizeof(*t));
	if (!t || check_parts(&g, t) || self_check(&g, t)) {
		ret = t ? UWPROF_EXIT_INTERNAL : UWPROF_EXIT_FAIL;
		if (!t)
			uw_err("table: out of memory");
		goto out;
	}
	fill_meta(&g);
	ret = UWPROF_EXIT_OK;
	if (write_outputs(&g))
		ret = UWPROF_EXIT_FAIL;
	if (o->stats)
		print_stats(&g, stdout);
	if (o->report && write_report(&g, e.elf ? &e : NULL))
		ret = UWPROF_EXIT_FAIL;
out:
	for (u32 i = 0; i < g.nfuncs; i++)
		free(g.funcs[i].pairs);
	free(g.funcs);
	free(g.notes.v);
	free(t);
	tb_blobs_free(g.blobs, g.nblobs);
	tb_input_free(&g.in);
	if (e.elf)
		tb_elf_close(&e);
	return ret;
}

UWPROF_COMMAND(table, "table", "build a v2 unwind table from an ARM32 ELF or breakpad symbols",
	       cmd_table)
