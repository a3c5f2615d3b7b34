// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format json: samples, stops, modules, functions and
 * the distinct stacks as function indices (docs/USAGE.md).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "report/report.h"

static void json_str(const char *s, FILE *out)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_modules(const struct rp_profile *p, FILE *out)
{
	char hex[2 * UWD_BUILD_ID_MAX + 1];

	fprintf(out, "  \"modules\": [");
	for (uint32_t m = 0; m < p->nmods; m++) {
		const struct rp_module *mod = &p->mods[m];

		uw_hex(mod->build_id, mod->build_id_len, hex);
		fprintf(out, "%s\n    {\"path\": ", m ? "," : "");
		json_str(mod->path, out);
		fprintf(out, ", \"build_id\": \"%s\", \"has_table\": %s, "
			"\"table_by_module\": %s, \"symbols\": %s, \"stopped\": {",
			hex, mod->has_table ? "true" : "false",
			mod->table_by_module ? "true" : "false",
			mod->sym ? "true" : "false");
		for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
			fprintf(out, "%s\"%s\": %llu", s ? ", " : "", uwd_stop_name(s),
				(unsigned long long)mod->stopped[s]);
		fprintf(out, "}}");
	}
	fprintf(out, "\n  ],\n");
}

static void json_functions(const struct rp_profile *p, FILE *out)
{
	fprintf(out, "  \"functions\": [");
	for (uint32_t f = 0; f < p->nfuncs; f++) {
		fprintf(out, "%s\n    {\"name\": ", f ? "," : "");
		json_str(p->funcs[f].name, out);
		fprintf(out, ", \"module\": ");
		if (p->funcs[f].module == RP_NO_MODULE)
			fprintf(out, "null");
		else
			fprintf(out, "%u", p->funcs[f].module);
		fprintf(out, ", \"self\": %llu, \"total\": %llu}",
			(unsigned long long)p->funcs[f].self,
			(unsigned long long)p->funcs[f].total);
	}
	fprintf(out, "\n  ],\n");
}

static void json_stacks(const struct rp_profile *p, FILE *out)
{
	bool first = true;

	fprintf(out, "  \"stacks\": [");
	for (uint32_t n = rp_next_node(p, 0); n; n = rp_next_node(p, n)) {
		uint32_t chain[4096], depth = 0;

		if (!p->nodes[n].self)
			continue;
		for (uint32_t k = n; k && depth < 4096; k = p->nodes[k].parent)
			chain[depth++] = p->nodes[k].func;
		fprintf(out, "%s\n    {\"count\": %llu, \"frames\": [", first ? "" : ",",
			(unsigned long long)p->nodes[n].self);
		while (depth-- > 0)
			fprintf(out, "%u%s", chain[depth], depth ? ", " : "");
		fprintf(out, "]}");
		first = false;
	}
	fprintf(out, "\n  ]\n");
}

int rp_write_json(const struct rp_profile *p, FILE *out)
{
	fprintf(out, "{\n  \"format\": \"uwprof-report\",\n  \"version\": 1,\n");
	fprintf(out, "  \"freq_hz\": %u,\n  \"samples\": %llu,\n  \"lost\": %llu,\n",
		p->hdr.freq_hz, (unsigned long long)p->samples,
		(unsigned long long)p->lost);
	fprintf(out, "  \"stops\": {");
	for (unsigned int s = 0; s < UWPROF_STOP_NR; s++)
		fprintf(out, "%s\"%s\": %llu", s ? ", " : "", uwd_stop_name(s),
			(unsigned long long)p->stops[s]);
	fprintf(out, "},\n");
	json_modules(p, out);
	json_functions(p, out);
	json_stacks(p, out);
	fprintf(out, "}\n");
	return ferror(out) ? -1 : 0;
}
