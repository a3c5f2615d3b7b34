// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for uwprof report in memory: the data-file reader, the
 * call-tree model and one of the writers (text and stats, folded, JSON,
 * pprof, SVG) over each input, without symbols (fuzz_report covers
 * symbolization through the command, at a fraction of the speed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A --symfs where nothing is found: no file is opened per input. */
	static const char *symfs[] = { "/nonexistent-uwprof-fuzz" };
	const struct rp_opts o = { .symfs = symfs, .nsymfs = 1, .quiet = true,
				    .keep_samples = true };
	const struct rp_text_opts t = { .top = 20, .input = "input" };
	struct rp_profile p;
	struct uwd_file f;
	char err[256];
	uint8_t *buf;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (!(buf = malloc(size ? size : 1)))
		return 0;
	memcpy(buf, data, size);
	if (uwd_parse("input", buf, size, &f, err, sizeof(err)))
		return 0;
	if (rp_load_file(&f, "input", &o, &p))
		return 0;
	/* one writer per input, picked by its length as fuzz_report does:
	 * every writer on every input took three times as long per input */
	switch (size % 5) {
	case 0:
		rp_write_text(&p, &t, devnull);
		rp_write_stats(&p, &t, devnull);
		break;
	case 1:
		rp_write_folded(&p, devnull);
		break;
	case 2:
		rp_write_json(&p, devnull);
		break;
	case 3:
		rp_write_pprof(&p, false, devnull);
		break;
	default:
		rp_write_svg(&p, "title", devnull);
		break;
	}
	rp_free(&p);
	return 0;
}
