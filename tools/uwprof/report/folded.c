// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format folded: one "outer;...;leaf count" line per
 * distinct stack, as FlameGraph and speedscope read.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void print_path(const struct rp_profile *p, uint32_t n, FILE *out,
		       const char *sep)
{
	uint32_t chain[4096], depth = 0;

	for (; n && depth < 4096; n = p->nodes[n].parent)
		chain[depth++] = n;
	while (depth-- > 0)
		fprintf(out, "%s%s", p->funcs[p->nodes[chain[depth]].func].name,
			depth ? sep : "");
}

int rp_write_folded(const struct rp_profile *p, FILE *out)
{
	for (uint32_t n = rp_next_node(p, 0); n; n = rp_next_node(p, n))
		if (p->nodes[n].self) {
			print_path(p, n, out, ";");
			fprintf(out, " %llu\n", (unsigned long long)p->nodes[n].self);
		}
	return ferror(out) ? -1 : 0;
}
