// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format perf-script: every sample in the text layout of
 * 'perf script' with call chains, which stackcollapse-perf.pl, speedscope
 * and the Firefox Profiler read:
 *
 *   COMM PID/TID SECONDS.MICROS: PERIOD cpu-clock:
 *   <tab>ADDRESS FUNCTION (MODULE PATH)      leaf first
 *   ...
 *   <blank line>
 *
 * There is no CPU column: without one the header also matches importers
 * that expect perf's per-process layout.
 */
#include "report/report.h"

static const char *module_path(const struct rp_profile *p, uint32_t f)
{
	uint32_t m = p->funcs[f].module;

	if (p->funcs[f].kernel)
		return "[kernel.kallsyms]";
	return m == RP_NO_MODULE ? "[unknown]" : p->mods[m].path;
}

static void write_sample(const struct rp_profile *p, const struct rp_sample *k,
			 uint64_t period, FILE *out)
{
	uint32_t frame = 0;

	if (k->comm != UINT32_MAX)
		fputs(p->comms[k->comm], out);
	else
		fprintf(out, ":%u", k->pid);	/* perf's name for an unknown comm */
	fprintf(out, " %u/%u %llu.%06llu: %llu cpu-clock:\n", k->pid, k->tid,
		(unsigned long long)(k->time_ns / 1000000000),
		(unsigned long long)(k->time_ns % 1000000000 / 1000),
		(unsigned long long)period);
	/* The leaf node's path to the root is the stack, leaf first. */
	for (uint32_t n = k->leaf; n; n = p->nodes[n].parent) {
		uint32_t f = p->nodes[n].func, addr = 0;

		/* an inlined frame shares the address of the one around it */
		if (!p->funcs[f].kernel && frame < k->nframes)
			addr = p->addrs[k->frames + (p->funcs[f].inlined ?
						     frame : frame++)];
		fprintf(out, "\t%8x %s (%s)\n", addr, p->funcs[f].name,
			module_path(p, f));
	}
	fputc('\n', out);
}

int rp_write_perf_script(const struct rp_profile *p, FILE *out)
{
	uint64_t period = p->hdr.freq_hz ? 1000000000ull / p->hdr.freq_hz : 1;

	for (uint32_t i = 0; i < p->nsmp; i++)
		write_sample(p, &p->smp[i], period, out);
	return ferror(out) ? -1 : 0;
}
