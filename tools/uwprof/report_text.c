// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format text (top functions by self and by total, as
 * perf report --stdio lists them) and --stats (how unwinds ended, per
 * module and per function).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

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
	fprintf(out, "\n#\n");
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

int rp_write_text(const struct rp_profile *p, const struct rp_text_opts *o,
		  FILE *out)
{
	header(p, o, out);
	table(p, false, o->top, out);
	table(p, true, o->top, out);
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

static void stats_modules(const struct rp_profile *p, FILE *out)
{
	fprintf(out, "# Per module: where unwinds ended (the module of the last "
		"frame reached)\n#\n# %9s", "Samples");
	for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
		fprintf(out, " %10s", uwd_stop_name(s));
	fprintf(out, "  %-5s  %s\n", "Table", "Module");
	for (uint32_t m = 0; m < p->nmods; m++) {
		uint64_t n = 0;

		for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
			n += p->mods[m].stopped[s];
		fprintf(out, "  %9llu", (unsigned long long)n);
		for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
			fprintf(out, " %10llu", (unsigned long long)p->mods[m].stopped[s]);
		fprintf(out, "  %-5s  %s\n", p->mods[m].has_table ? "yes" : "no",
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

int rp_write_stats(const struct rp_profile *p, const struct rp_text_opts *o,
		   FILE *out)
{
	header(p, o, out);
	stats_outcomes(p, out);
	stats_modules(p, out);
	stats_functions(p, o->top, out);
	return ferror(out) ? -1 : 0;
}
