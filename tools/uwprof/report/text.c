// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format text (top functions, or modules with --sort dso,
 * by self and by total, as perf report --stdio lists them; with
 * --children each top function's callers and callees) and --stats (how
 * unwinds ended, per module and per function).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const char *stop_desc(unsigned int stop)
{
	return uwd_stop_complete(stop) ? "fully unwound" : "stopped early";
}

static void header(const struct rp_profile *p, const struct rp_text_opts *o,
		   FILE *out)
{
	double secs = p->last_ns > p->first_ns ? (p->last_ns - p->first_ns) / 1e9 : 0;
	unsigned int s;
	bool first = true;

	fprintf(out, "# uwprof report of %s\n", o->input);
	fprintf(out, "# %llu samples of %u process%s at %u Hz over %.2f s; "
		"lost %llu%s\n", (unsigned long long)p->samples, p->processes,
		p->processes == 1 ? "" : "es", p->hdr.freq_hz, secs,
		(unsigned long long)p->lost,
		p->have_stats ? "" : " (not known: the recording did not finish)");
	fprintf(out, "# fully unwound: %.1f%% (%llu of %llu samples)",
		rp_pct(uwd_complete_count(p->stops), p->samples),
		(unsigned long long)uwd_complete_count(p->stops),
		(unsigned long long)p->samples);
	for (s = 1; s < UWPROF_STOP_NR; s++)
		if (p->stops[s]) {
			fprintf(out, "%s %s %llu", first ? "; stopped early:" : ",",
				uwd_stop_name(s), (unsigned long long)p->stops[s]);
			first = false;
		}
	fprintf(out, "\n");
	if (p->filtering)
		fprintf(out, "# filtered: %llu samples kept, %llu left out\n",
			(unsigned long long)p->samples,
			(unsigned long long)p->filtered);
	fprintf(out, "#\n");
}

static int name_width(const struct rp_profile *p, const uint32_t *ids,
		      unsigned int n)
{
	int w = 6;

	for (unsigned int i = 0; i < n; i++) {
		int l = (int)strlen(rp_func_module(p, ids[i]));

		if (l > w)
			w = l;
	}
	return w > 24 ? 24 : w;
}

static void table(const struct rp_profile *p, bool by_total, unsigned int top,
		  FILE *out)
{
	uint32_t *ids = rp_sorted_funcs(p, by_total);
	unsigned int n = p->nfuncs < top ? p->nfuncs : top, shown = 0;
	int w = name_width(p, ids, n);

	fprintf(out, "# Top functions by %s\n#\n", by_total ?
		"total samples (the function and what it called)" :
		"self samples (the function itself)");
	fprintf(out, "# %7s %7s %9s  %-*s  %s\n", by_total ? "Total" : "Self",
		by_total ? "Self" : "Total", "Samples", w, "Module", "Function");
	for (unsigned int i = 0; i < n; i++) {
		const struct rp_func *f = &p->funcs[ids[i]];
		uint64_t key = by_total ? f->total : f->self;
		uint64_t other = by_total ? f->self : f->total;

		if (!key)
			break;
		fprintf(out, "  %6.2f%% %6.2f%% %9llu  %-*s  %s\n",
			rp_pct(key, p->samples), rp_pct(other, p->samples),
			(unsigned long long)key, w, rp_func_module(p, ids[i]),
			f->name);
		shown++;
	}
	if (!shown)
		fprintf(out, "  (no samples)\n");
	fprintf(out, "#\n");
	free(ids);
}

/*
 * Samples whose stack holds something @match accepts: the totals of the
 * nodes where it first appears on the path from the root.  @on[n] is set
 * for nodes at or below such a node (parents come before their children
 * in p->nodes).
 */
typedef bool (*node_match)(const struct rp_profile *p, uint32_t func, uint32_t key);

static uint64_t outermost(const struct rp_profile *p, node_match match,
			  uint32_t key, bool *on)
{
	uint64_t sum = 0;

	on[0] = false;
	for (uint32_t n = 1; n < p->nnodes; n++) {
		const struct rp_node *nd = &p->nodes[n];
		bool m = match(p, nd->func, key);

		if (m && !on[nd->parent])
			sum += nd->total;
		on[n] = m || on[nd->parent];
	}
	return sum;
}

/* ---- --sort dso ---- */

/* A function's module as a row key: index, then [kernel], then [unknown]. */
static uint32_t dso_key(const struct rp_profile *p, uint32_t f)
{
	if (p->funcs[f].kernel)
		return p->nmods;
	return p->funcs[f].module == RP_NO_MODULE ? p->nmods + 1 : p->funcs[f].module;
}

static bool dso_match(const struct rp_profile *p, uint32_t f, uint32_t key)
{
	return dso_key(p, f) == key;
}

struct dso_row {
	uint32_t key;
	uint64_t self, total;
	const char *name;
};

static bool dso_by_total;

static int dso_cmp(const void *x, const void *y)
{
	const struct dso_row *a = x, *b = y;
	uint64_t ka = dso_by_total ? a->total : a->self;
	uint64_t kb = dso_by_total ? b->total : b->self;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void dso_table(const struct rp_profile *p, struct dso_row *rows,
		      uint32_t n, bool by_total, unsigned int top, FILE *out)
{
	unsigned int shown = 0;

	dso_by_total = by_total;
	qsort(rows, n, sizeof(*rows), dso_cmp);
	fprintf(out, "# Top modules by %s\n#\n", by_total ?
		"total samples (its code and what it called)" :
		"self samples (its own code)");
	fprintf(out, "# %7s %7s %9s  %s\n", by_total ? "Total" : "Self",
		by_total ? "Self" : "Total", "Samples", "Module");
	for (uint32_t i = 0; i < n && shown < top; i++) {
		uint64_t key = by_total ? rows[i].total : rows[i].self;
		uint64_t other = by_total ? rows[i].self : rows[i].total;

		if (!key)
			break;
		fprintf(out, "  %6.2f%% %6.2f%% %9llu  %s\n", rp_pct(key, p->samples),
			rp_pct(other, p->samples), (unsigned long long)key,
			rows[i].name);
		shown++;
	}
	if (!shown)
		fprintf(out, "  (no samples)\n");
	fprintf(out, "#\n");
}

static int dso_tables(const struct rp_profile *p, unsigned int top, FILE *out)
{
	uint32_t n = p->nmods + 2;
	struct dso_row *rows = calloc(n, sizeof(*rows));
	bool *on = malloc(p->nnodes * sizeof(*on));

	if (!rows || !on) {
		free(rows);
		free(on);
		return -1;
	}
	for (uint32_t k = 0; k < n; k++) {
		rows[k].key = k;
		rows[k].name = k < p->nmods ? p->mods[k].path :
			       k == p->nmods ? "[kernel]" : "[unknown]";
		rows[k].total = outermost(p, dso_match, k, on);
	}
	for (uint32_t f = 0; f < p->nfuncs; f++)
		rows[dso_key(p, f)].self += p->funcs[f].self;
	dso_table(p, rows, n, false, top, out);
	dso_table(p, rows, n, true, top, out);
	free(rows);
	free(on);
	return 0;
}

/* ---- --children: callers and callees ---- */

static bool func_match(const struct rp_profile *p, uint32_t f, uint32_t key)
{
	(void)p;
	return f == key;
}

/* The functions with a link weight in @w, heaviest first. */
static void print_links(const struct rp_profile *p, const uint64_t *w,
			const char *dir, FILE *out)
{
	uint32_t *ids = rp_sorted_funcs(p, true), n = 0;

	for (uint32_t i = 0; i < p->nfuncs; i++)	/* kept in total order */
		if (w[ids[i]])
			ids[n++] = ids[i];
	for (uint32_t i = 1; i < n; i++)	/* stable: ties stay by total */
		for (uint32_t j = i; j > 0 && w[ids[j]] > w[ids[j - 1]]; j--) {
			uint32_t x = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "      %6.2f%% %9llu  %-4s %s\n",
			rp_pct(w[ids[i]], p->samples), (unsigned long long)w[ids[i]],
			dir, p->funcs[ids[i]].name);
	free(ids);
}

static void func_links(const struct rp_profile *p, uint32_t f, bool *on,
		       uint64_t *from, uint64_t *to, uint64_t *from_root)
{
	memset(from, 0, p->nfuncs * sizeof(*from));
	memset(to, 0, p->nfuncs * sizeof(*to));
	*from_root = 0;
	outermost(p, func_match, f, on);
	for (uint32_t n = 1; n < p->nnodes; n++) {
		const struct rp_node *nd = &p->nodes[n];

		if (nd->func != f || on[nd->parent])
			continue;
		if (nd->parent)
			from[p->nodes[nd->parent].func] += nd->total;
		else
			*from_root += nd->total;
		for (uint32_t c = nd->child; c; c = p->nodes[c].next)
			to[p->nodes[c].func] += p->nodes[c].total;
	}
}

static int children(const struct rp_profile *p, unsigned int top, FILE *out)
{
	uint32_t *ids = rp_sorted_funcs(p, true);
	uint64_t *from = malloc((p->nfuncs + 1) * sizeof(*from));
	uint64_t *to = malloc((p->nfuncs + 1) * sizeof(*to));
	bool *on = malloc(p->nnodes * sizeof(*on));
	uint64_t root;

	if (!from || !to || !on) {
		free(ids);
		free(from);
		free(to);
		free(on);
		return -1;
	}
	fprintf(out, "# Callers and callees of the top functions by total samples\n"
		"# (from: the caller's samples through this function; to: the\n"
		"# callee's; recursion counted at its outermost call)\n#\n");
	for (uint32_t i = 0; i < p->nfuncs && i < top; i++) {
		const struct rp_func *fn = &p->funcs[ids[i]];

		if (!fn->total)
			break;
		fprintf(out, "  %6.2f%% total %6.2f%% self  %s  [%s]\n",
			rp_pct(fn->total, p->samples), rp_pct(fn->self, p->samples),
			fn->name, rp_func_module(p, ids[i]));
		func_links(p, ids[i], on, from, to, &root);
		if (root)
			fprintf(out, "      %6.2f%% %9llu  from (outermost frame)\n",
				rp_pct(root, p->samples), (unsigned long long)root);
		print_links(p, from, "from", out);
		if (fn->self)
			fprintf(out, "      %6.2f%% %9llu  self\n",
				rp_pct(fn->self, p->samples),
				(unsigned long long)fn->self);
		print_links(p, to, "to", out);
	}
	fprintf(out, "#\n");
	free(ids);
	free(from);
	free(to);
	free(on);
	return 0;
}

int rp_write_text(const struct rp_profile *p, const struct rp_text_opts *o,
		  FILE *out)
{
	header(p, o, out);
	if (o->by_dso) {
		if (dso_tables(p, o->top, out))
			return -1;
	} else {
		table(p, false, o->top, out);
		table(p, true, o->top, out);
	}
	if (o->children && children(p, o->top, out))
		return -1;
	return ferror(out) ? -1 : 0;
}

/* ---- --stats ---- */

static void stats_outcomes(const struct rp_profile *p, FILE *out)
{
	fprintf(out, "# How unwinds ended\n#\n# %9s %7s  %-12s\n", "Samples",
		"Share", "Stop");
	for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
		if (p->stops[s])
			fprintf(out, "  %9llu %6.2f%%  %-12s %s\n",
				(unsigned long long)p->stops[s],
				rp_pct(p->stops[s], p->samples), uwd_stop_name(s),
				stop_desc(s));
	if (p->kernel_ctx)
		fprintf(out, "# %llu samples were taken in the kernel (unwound from "
			"the saved user context)\n", (unsigned long long)p->kernel_ctx);
	fprintf(out, "#\n");
}

/* A module's table as the data file tells it (docs/DATAFILE.md). */
static const char *table_word(const struct rp_module *m)
{
	return m->has_table ? "yes" : m->table_by_module ? "module" : "no";
}

static void stats_modules(const struct rp_profile *p, FILE *out)
{
	fprintf(out, "# Per module: where unwinds ended (the module of the last "
		"frame reached).  Table: yes, attached; module, uploaded and\n"
		"# left to the module to attach by build-id as samples met the "
		"code (record did not see when); no, none\n#\n# %9s", "Samples");
	for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
		fprintf(out, " %10s", uwd_stop_name(s));
	fprintf(out, "  %-6s  %s\n", "Table", "Module");
	for (uint32_t m = 0; m < p->nmods; m++) {
		uint64_t n = 0;

		for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
			n += p->mods[m].stopped[s];
		fprintf(out, "  %9llu", (unsigned long long)n);
		for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
			fprintf(out, " %10llu", (unsigned long long)p->mods[m].stopped[s]);
		fprintf(out, "  %-6s  %s\n", table_word(&p->mods[m]),
			p->mods[m].path);
	}
	fprintf(out, "#\n");
}

struct stop_site {
	uint32_t func;
	unsigned int stop;
	uint64_t n;
};

static int site_cmp(const void *x, const void *y)
{
	const struct stop_site *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return (int)a->stop - (int)b->stop;
}

static void stats_functions(const struct rp_profile *p, unsigned int top,
			    FILE *out)
{
	struct stop_site *sites = malloc((p->nfuncs * UWPROF_STOP_NR + 1) *
					 sizeof(*sites));
	uint32_t n = 0;

	if (!sites)
		return;
	for (uint32_t f = 0; f < p->nfuncs; f++)
		for (unsigned int s = 1; s < UWPROF_STOP_NR; s++)
			if (p->funcs[f].stopped[s])
				sites[n++] = (struct stop_site){ f, s, p->funcs[f].stopped[s] };
	qsort(sites, n, sizeof(*sites), site_cmp);
	fprintf(out, "# Per function: where unwinds stopped early, and why\n#\n"
		"# %9s %7s  %-12s %-20s %s\n", "Samples", "Share", "Stop", "Module",
		"Function");
	for (uint32_t i = 0; i < n && i < top; i++)
		fprintf(out, "  %9llu %6.2f%%  %-12s %-20s %s\n",
			(unsigned long long)sites[i].n, rp_pct(sites[i].n, p->samples),
			uwd_stop_name(sites[i].stop), rp_func_module(p, sites[i].func),
			p->funcs[sites[i].func].name);
	if (!n)
		fprintf(out, "  (none: every unwind reached the outermost frame)\n");
	free(sites);
}

/* The share of @hits in @hits + @misses, and the lookups. */
static void lookup_line(const char *what, uint64_t hits, uint64_t misses,
			FILE *out)
{
	fprintf(out, "  %-18s %6.2f%% hits  (%llu of %llu lookups)\n", what,
		rp_pct(hits, hits + misses), (unsigned long long)hits,
		(unsigned long long)(hits + misses));
}

/* The module's lookup caches, all samples of the recording (unfiltered). */
static void stats_lookups(const struct rp_profile *p, FILE *out)
{
	const struct rp_lookups *l = &p->lookups;

	if (!p->have_stats)
		return;
	fprintf(out, "# The sample handler's lookup caches (every sample "
		"recorded, before filters)\n#\n");
	if (!p->have_lookups) {
		fprintf(out, "  (not counted: the module or the recorder is older "
			"than the counters)\n#\n");
		return;
	}
	lookup_line("sampled pcs", l->pc_hits, l->pc_misses, out);
	lookup_line("return addresses", l->ra_hits, l->ra_misses, out);
	fprintf(out, "  %-18s %6.2f%% of the return addresses\n#\n",
		"in the caller loop",
		rp_pct(l->ra_loop, l->ra_hits + l->ra_misses));
}

int rp_write_stats(const struct rp_profile *p, const struct rp_text_opts *o,
		   FILE *out)
{
	header(p, o, out);
	stats_outcomes(p, out);
	stats_lookups(p, out);
	stats_modules(p, out);
	stats_functions(p, o->top, out);
	return ferror(out) ? -1 : 0;
}
