// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report: read uwprof.data, symbolize (ELF symbol tables, source
 * lines through libdw on request) and print a report: top functions as
 * text, folded stacks, every sample as perf script prints them, pprof, an
 * SVG flame graph, JSON, or unwind outcomes (--stats).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/symbols.h"
#include "uwprof.h"

enum rp_format { F_TEXT, F_FOLDED, F_PERF_SCRIPT, F_PPROF, F_SVG, F_JSON };

static const char *const format_names[] = {
	[F_TEXT] = "text", [F_FOLDED] = "folded", [F_PERF_SCRIPT] = "perf-script",
	[F_PPROF] = "pprof", [F_SVG] = "svg", [F_JSON] = "json",
};

struct report_opts {
	const char *input;
	const char *output;
	const char *title;
	enum rp_format format;
	bool stats;
	bool children;
	bool no_lines;		/* --no-lines: pprof without file:line */
	bool by_dso;
	unsigned int top;
	struct rp_opts rp;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uwprof report [options] [FILE]\n"
		"\n"
		"Report on a data file written by 'uwprof record' (default uwprof.data).\n"
		"\n"
		"  -i, --input FILE      the data file (or give it as the argument)\n"
		"  -o, --output FILE     write here instead of stdout\n"
		"  -f, --format FORMAT   text (default): top functions by self and total\n"
		"                        folded: 'a;b;c count' lines (FlameGraph, speedscope)\n"
		"                        perf-script: every sample as 'perf script' prints\n"
		"                          it (stackcollapse-perf.pl, speedscope, Firefox\n"
		"                          Profiler)\n"
		"                        pprof:  gzip'd profile.proto (go tool pprof)\n"
		"                        svg:    a flame graph (click to zoom, search)\n"
		"                        json:   functions, stacks and outcomes\n"
		"                          (docs/USAGE.md has the schema)\n"
		"      --stats           how unwinds ended, per module and per function\n"
		"      --symfs DIR       look for unstripped copies of the profiled files\n"
		"                        in DIR (by build-id or by path); may be repeated\n"
		"      --lines           add source file:line to function names, and\n"
		"                        show inlined functions as frames of their own\n"
		"                        (pprof has them by default, as Line entries)\n"
		"      --no-lines        pprof: functions only, no file:line or inlined\n"
		"                        frames\n"
		"      --no-demangle     keep C++ names mangled\n"
		"  -s, --sort KEY        text report rows: sym (functions, default) or dso\n"
		"                        (modules)\n"
		"      --children        text report: also each top function's callers\n"
		"                        and callees\n"
		"      --top N           rows per table in text and --stats (default 30)\n"
		"      --title TEXT      title of the flame graph\n"
		"      --per-process     folded and svg: each process's stacks under a\n"
		"                        root of its name (the default for 'record -a')\n"
		"      --no-per-process  one tree for every process\n"
		"  -q, --quiet           no warnings about missing symbols\n"
		"\n"
		"Which samples count, in every format (each may be a comma list):\n"
		"      --pid PID         samples of these processes\n"
		"      --tid TID         samples of these threads\n"
		"  -c, --comm NAME       samples of processes with this name (the base\n"
		"                        name of their executable)\n"
		"      --time START,END  samples taken in [START, END], seconds as\n"
		"                        -f perf-script prints them; either may be empty\n");
}

static int parse_format(const char *s, enum rp_format *f)
{
	for (unsigned int i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i])) {
			*f = (enum rp_format)i;
			return 0;
		}
	uw_err("report: unknown format '%s'; use text, folded, perf-script, pprof, "
	       "svg or json", s);
	return -1;
}

static int add_symfs(struct report_opts *o, const char *dir)
{
	const char **g = realloc(o->rp.symfs, (o->rp.nsymfs + 1) * sizeof(*g));

	if (!g)
		return -1;
	g[o->rp.nsymfs++] = dir;
	o->rp.symfs = g;
	return 0;
}

/* "1,2,3" into a list of numbers. */
static int parse_ids(const char *what, const char *s, uint32_t **v,
		     unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	uint32_t id, *g;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		g = realloc(*v, (*n + 1) * sizeof(*g));
		if (!uw_parse_u32(tok, &id) || !g) {
			uw_err("report: --%s wants numbers separated by commas, not '%s'",
			       what, s);
			free(g ? g : *v);
			*v = NULL;
			free(copy);
			return -1;
		}
		g[(*n)++] = id;
		*v = g;
	}
	free(copy);
	return 0;
}

/* "a,b": names; they point into argv. */
static int parse_comms(char *s, struct rp_filter *fl)
{
	char *tok, *save = NULL;
	const char **g;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		g = realloc(fl->comms, (fl->ncomms + 1) * sizeof(*g));
		if (!g)
			return -1;
		g[fl->ncomms++] = tok;
		fl->comms = g;
	}
	return 0;
}

/* Seconds with up to nine decimals into ns; false on anything else. */
static bool parse_secs(const char *s, size_t len, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000;
	size_t i = 0;
	bool digits = false;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits = true) {
		if (whole > UINT64_MAX / 10 / 1000000000)
			return false;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
	*ns = whole * 1000000000 + frac;
	return digits && i == len;
}

static int parse_time(const char *s, struct rp_filter *fl)
{
	const char *comma = strchr(s, ',');
	size_t a = comma ? (size_t)(comma - s) : 0;

	if (!comma || (a && !parse_secs(s, a, &fl->start_ns)) ||
	    (comma[1] && !parse_secs(comma + 1, strlen(comma + 1), &fl->end_ns)) ||
	    (!a && !comma[1])) {
		uw_err("report: --time wants START,END in seconds (as -f perf-script "
		       "prints them; either may be left out), not '%s'", s);
		return -1;
	}
	fl->has_start = a;
	fl->has_end = comma[1];
	if (fl->has_start && fl->has_end && fl->start_ns > fl->end_ns) {
		uw_err("report: --time %s: START is after END", s);
		return -1;
	}
	return 0;
}

static int parse_sort(const char *s, struct report_opts *o)
{
	if (!strcmp(s, "sym") || !strcmp(s, "dso")) {
		o->by_dso = !strcmp(s, "dso");
		return 0;
	}
	uw_err("report: --sort wants sym or dso, not '%s'", s);
	return -1;
}

enum { O_SYMFS = 256, O_STATS, O_LINES, O_NO_LINES, O_TOP, O_TITLE, O_PID, O_TID, O_TIME,
       O_CHILDREN, O_NO_DEMANGLE, O_PER_PROCESS, O_NO_PER_PROCESS };

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, O_CHILDREN },
		{ "per-process", no_argument, NULL, O_PER_PROCESS },
		{ "no-per-process", no_argument, NULL, O_NO_PER_PROCESS },
		{ "stats", no_argument, NULL, O_STATS },
		{ "lines", no_argument, NULL, O_LINES },
		{ "no-lines", no_argument, NULL, O_NO_LINES },
		{ "no-demangle", no_argument, NULL, O_NO_DEMANGLE },
		{ "top", required_argument, NULL, O_TOP },
		{ "title", required_argument, NULL, O_TITLE },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "comm", required_argument, NULL, 'c' },
		{ "comms", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, O_TIME },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rp_filter *fl = &o->rp.filter;
	uint32_t top;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:f:s:c:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case 'f':
			if (parse_format(optarg, &o->format))
				return -1;
			break;
		case O_SYMFS:
			if (add_symfs(o, optarg))
				return -1;
			break;
		case 's':
			if (parse_sort(optarg, o))
				return -1;
			break;
		case O_CHILDREN: o->children = true; break;
		case O_PER_PROCESS: o->rp.per_process = 1; break;
		case O_NO_PER_PROCESS: o->rp.per_process = 0; break;
		case O_PID:
			if (parse_ids("pid", optarg, &fl->pids, &fl->npids))
				return -1;
			break;
		case O_TID:
			if (parse_ids("tid", optarg, &fl->tids, &fl->ntids))
				return -1;
			break;
		case 'c':
			if (parse_comms(optarg, fl))
				return -1;
			break;
		case O_TIME:
			if (parse_time(optarg, fl))
				return -1;
			break;
		case O_STATS: o->stats = true; break;
		case O_LINES: o->rp.lines = true; o->no_lines = false; break;
		case O_NO_LINES: o->rp.lines = false; o->no_lines = true; break;
		case O_NO_DEMANGLE: sym_demangle = false; break;
		case O_TOP:
			if (!uw_parse_u32(optarg, &top) || !top) {
				uw_err("report: --top wants a positive number, not '%s'", optarg);
				return -1;
			}
			o->top = top;
			break;
		case O_TITLE: o->title = optarg; break;
		case 'q': o->rp.quiet = true; break;
		case 'h': usage(stdout); exit(UWPROF_EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc && !o->input)
		o->input = argv[optind++];
	if (optind < argc) {
		uw_err("report: one data file at a time ('%s' is extra)", argv[optind]);
		return -1;
	}
	if (o->stats && o->format != F_TEXT) {
		uw_err("report: --stats is a text report; drop --format");
		return -1;
	}
	if ((o->children || o->by_dso) && (o->format != F_TEXT || o->stats)) {
		uw_err("report: --children and --sort are for the text report");
		return -1;
	}
#ifdef UWPROF_DEVICE_BUILD
	/* the device binary is libc only: no protobuf-c, zlib or libdw */
	if (o->format == F_PPROF || o->rp.lines) {
		uw_err("report: %s is made by the host's uwprof; copy the data "
		       "file off the device and run 'uwprof report' there",
		       o->rp.lines ? "--lines" : "pprof");
		return -1;
	}
#endif
	o->rp.keep_samples = o->format == F_PERF_SCRIPT || o->format == F_PPROF;
	/* the other formats name the process per sample (pprof's labels) */
	if (o->format != F_FOLDED && o->format != F_SVG)
		o->rp.per_process = 0;
	return 0;
}

static int write_report(const struct rp_profile *p, const struct report_opts *o,
			FILE *out)
{
	struct rp_text_opts t = {
		.top = o->top, .input = o->input, .children = o->children,
		.by_dso = o->by_dso,
	};
	char title[512];

	if (o->stats)
		return rp_write_stats(p, &t, out);
	switch (o->format) {
	case F_TEXT: return rp_write_text(p, &t, out);
	case F_FOLDED: return rp_write_folded(p, out);
	case F_PERF_SCRIPT: return rp_write_perf_script(p, out);
#ifndef UWPROF_DEVICE_BUILD
	/* file:line by default, as pprof's own profiles carry them */
	case F_PPROF: return rp_write_pprof(p, !o->no_lines, out);
#else
	case F_PPROF: return -1;	/* refused by parse_args() */
#endif
	case F_JSON: return rp_write_json(p, out);
	case F_SVG:
		snprintf(title, sizeof(title), "%s: %llu samples, %.1f%% fully unwound",
			 o->input, (unsigned long long)p->samples,
			 rp_pct(uwd_complete_count(p->stops), p->samples));
		return rp_write_svg(p, o->title ? o->title : title, out);
	}
	return -1;
}

static void free_opts(struct report_opts *o)
{
	free(o->rp.symfs);
	free(o->rp.filter.pids);
	free(o->rp.filter.tids);
	free(o->rp.filter.comms);
}

static int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .input = NULL, .top = 30, .rp.per_process = -1 };
	struct rp_profile p;
	FILE *out = stdout;
	int ret;

	if (parse_args(argc, argv, &o)) {
		free_opts(&o);
		return UWPROF_EXIT_USAGE;
	}
	if (!o.input)
		o.input = "uwprof.data";
	if (rp_load(o.input, &o.rp, &p)) {
		free_opts(&o);
		return UWPROF_EXIT_USAGE;
	}
	if (o.output && !(out = fopen(o.output, "wb"))) {
		uw_err("report: cannot create %s: %s", o.output, strerror(errno));
		ret = UWPROF_EXIT_FAIL;
	} else {
		ret = write_report(&p, &o, out) ? UWPROF_EXIT_FAIL : UWPROF_EXIT_OK;
		if ((out != stdout && fclose(out)) || (out == stdout && fflush(out)) ||
		    ret) {
			uw_err("report: writing %s failed: %s",
			       o.output ? o.output : "stdout", strerror(errno));
			ret = UWPROF_EXIT_FAIL;
		}
	}
	rp_free(&p);
	free_opts(&o);
	return ret;
}

UWPROF_COMMAND(report, "report",
	       "report on uwprof.data: text, folded, perf-script, pprof, svg, json, --stats",
	       cmd_report)
