// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report's flame graph with hostile symbol names: control
 * characters and invalid UTF-8 must not reach the XML, and a label cut to
 * its box never ends inside a multi-byte character.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "report/report.h"

/* A checker of its own (not the writer's): strict UTF-8 and XML chars. */
static const char *bad_byte(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
			   (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;

		if (!k || i + k > n || (c < 0x20 && c != '\n' && c != '\t') ||
		    (k == 2 && c < 0xc2))
			return (const char *)s + i;
		for (size_t j = 1; j < k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return (const char *)s + i;
		i += k;
	}
	return NULL;
}

/* root -> a (1 sample of 1000: a narrow box), root -> b (the rest). */
static char *svg_of(const char *name_a, const char *name_b, size_t *len)
{
	struct rp_func funcs[2] = {
		{ .name = (char *)name_a, .module = RP_NO_MODULE, .self = 1, .total = 1 },
		{ .name = (char *)name_b, .module = RP_NO_MODULE, .self = 999, .total = 999 },
	};
	struct rp_node nodes[3] = {
		{ .child = 1, .total = 1000 },
		{ .func = 0, .next = 2, .self = 1, .total = 1 },
		{ .func = 1, .self = 999, .total = 999 },
	};
	struct rp_profile p = { .funcs = funcs, .nfuncs = 2, .nodes = nodes,
				.nnodes = 3, .samples = 1000, .max_depth = 1 };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(f && !rp_write_svg(&p, "t\x01itle", f));
	fclose(f);
	return buf;
}

/* The <text> label of the box whose data-name starts with @prefix. */
static char *label_of(const char *svg, const char *prefix)
{
	char key[64];
	const char *g, *t, *e;

	snprintf(key, sizeof(key), "data-name=\"%s", prefix);
	g = strstr(svg, key);
	t = g ? strstr(g, "<text ") : NULL;
	t = t ? strchr(t, '>') : NULL;
	e = t ? strstr(t, "</text>") : NULL;
	return e ? strndup(t + 1, e - t - 1) : NULL;
}

TEST(svg_controls_and_bad_utf8_replaced)
{
	size_t len;
	char *svg = svg_of("a\x01\x1b[31m<b>&\xff\xc3", "b\xed\xa0\x80z\xc0\xaf", &len);
	const char *bad = bad_byte((const unsigned char *)svg, len);

	CHECK(!bad);
	if (bad)
		fprintf(stderr, "# bad byte at offset %zu\n", (size_t)(bad - svg));
	/* Markup escaped, each bad byte shown as U+FFFD. */
	CHECK(strstr(svg, "data-name=\"a\xef\xbf\xbd\xef\xbf\xbd[31m&lt;b&gt;&amp;"
		      "\xef\xbf\xbd\xef\xbf\xbd\""));
	/* A surrogate and an overlong '/' are not characters either. */
	CHECK(strstr(svg, "data-name=\"b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"
		      "\xef\xbf\xbd\xef\xbf\xbd\""));
	free(svg);
}

TEST(svg_label_cut_on_a_character_boundary)
{
	/* 400 two-byte characters: box b (999 of 1000) fits about 167. */
	char name[801 + 1], *svg, *label;
	size_t len, n;

	name[0] = 'b';
	for (int i = 0; i < 400; i++)
		memcpy(name + 1 + 2 * i, "\xc3\xa9", 2);
	name[801] = 0;
	svg = svg_of("a", name, &len);
	CHECK(!bad_byte((const unsigned char *)svg, len));
	label = label_of(svg, "b");
	CHECK(label);
	if (label) {
		n = strlen(label);
		/* "b", then whole characters, then "..". */
		CHECK(n > 3 && n < 801 && !strcmp(label + n - 2, ".."));
		CHECK((n - 3) % 2 == 0);
		CHECK(!strncmp(label, name, n - 2));
		/* Cut by characters, not bytes: (1178.8 - 6) / 7 = 167 fit,
		 * 165 of them the name's. */
		CHECK_EQ_U32((n - 3) / 2 + 1, 165);
	}
	free(label);
	free(svg);
}
