// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report: read uwprof.data, symbolize (ELF symbol tables, source
 * lines through libdw on request) and print a report: top functions as
 * text, folded stacks, pprof, an SVG flame graph, JSON, or unwind
 * outcomes (--stats).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uwprof.h"

enum rp_format { F_TEXT, F_FOLDED, F_PPROF, F_SVG, F_JSON };

static const char *const format_names[] = {
	[F_TEXT] = "text", [F_FOLDED] = "folded", [F_PPROF] = "pprof",
	[F_SVG] = "svg", [F_JSON] = "json",
};

struct report_opts {
	const char *input;
	const char *output;
	const char *title;
	enum rp_format format;
	bool stats;
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
		"                        pprof:  gzip'd profile.proto (go tool pprof)\n"
		"                        svg:    a flame graph (click to zoom, search)\n"
		"                        json:   functions, stacks and outcomes\n"
		"      --stats           how unwinds ended, per module and per function\n"
		"  -s, --symfs DIR       look for unstripped copies of the profiled files\n"
		"                        in DIR (by build-id or by path); may be repeated\n"
		"      --lines           add source file:line to function names (libdw)\n"
		"      --top N           rows per table in text and --stats (default 30)\n"
		"      --title TEXT      title of the flame graph\n"
		"  -q, --quiet           no warnings about missing symbols\n");
}

static int parse_format(const char *s, enum rp_format *f)
{
	for (unsigned int i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i])) {
			*f = (enum rp_format)i;
			return 0;
		}
	uw_err("report: unknown format '%s'; use text, folded, pprof, svg or json", s);
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

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "symfs", required_argument, NULL, 's' },
		{ "stats", no_argument, NULL, 'S' },
		{ "lines", no_argument, NULL, 'l' },
		{ "top", required_argument, NULL, 'T' },
		{ "title", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint32_t top;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:f:s:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case 'f':
			if (parse_format(optarg, &o->format))
				return -1;
			break;
		case 's':
			if (add_symfs(o, optarg))
				return -1;
			break;
		case 'S': o->stats = true; break;
		case 'l': o->rp.lines = true; break;
		case 'T':
			if (!uw_parse_u32(optarg, &top) || !top) {
				uw_err("report: --top wants a positive number, not '%s'", optarg);
				return -1;
			}
			o->top = top;
			break;
		case 't': o->title = optarg; break;
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
	return 0;
}

static int write_report(const struct rp_profile *p, const struct report_opts *o,
			FILE *out)
{
	struct rp_text_opts t = { .top = o->top, .input = o->input };
	char title[512];

	if (o->stats)
		return rp_write_stats(p, &t, out);
	switch (o->format) {
	case F_TEXT: return rp_write_text(p, &t, out);
	case F_FOLDED: return rp_write_folded(p, out);
	case F_PPROF: return rp_write_pprof(p, out);
	case F_JSON: return rp_write_json(p, out);
	case F_SVG:
		snprintf(title, sizeof(title), "%s: %llu samples, %.1f%% fully unwound",
			 o->input, (unsigned long long)p->samples,
			 rp_pct(uwd_complete_count(p->stops), p->samples));
		return rp_write_svg(p, o->title ? o->title : title, out);
	}
	return -1;
}

static int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .input = NULL, .top = 30 };
	struct rp_profile p;
	FILE *out = stdout;
	int ret;

	if (parse_args(argc, argv, &o)) {
		free(o.rp.symfs);
		return UWPROF_EXIT_USAGE;
	}
	if (!o.input)
		o.input = "uwprof.data";
	if (rp_load(o.input, &o.rp, &p)) {
		free(o.rp.symfs);
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
	free(o.rp.symfs);
	return ret;
}

UWPROF_COMMAND(report, "report", "report on uwprof.data: text, folded, pprof, svg, json, --stats",
	       cmd_report)
