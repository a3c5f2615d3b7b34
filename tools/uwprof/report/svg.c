// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof report --format svg: a self-contained flame graph.  One box per
 * node of the call tree (callers below, callees above, width = samples),
 * each a <g class="n"> carrying its sample offset, count and depth, so
 * the embedded script can zoom (click a box; click "Reset zoom" to go
 * back) and search (a regular expression; matches turn magenta and the
 * share of samples they cover is shown).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define SVG_W		1200
#define SVG_PAD		10
#define SVG_ROW		16
#define SVG_TOP		50
#define SVG_BOTTOM	30
#define SVG_CHAR_W	7

/*
 * The length of the UTF-8 character at @s that XML 1.0 allows, or 0 for
 * an invalid sequence (bad lead or continuation byte, overlong form,
 * surrogate, beyond U+10FFFF, U+FFFE/U+FFFF) or a control character XML
 * cannot carry even as a reference.
 */
static size_t xml_char_len(const unsigned char *s)
{
	uint32_t c;
	size_t n;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
		return 0;
	return n;
}

/* Characters xml_str writes for @s: each bad byte counts as one. */
static size_t xml_chars(const char *s)
{
	size_t n = 0, k;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += k, n++)
		k = xml_char_len(p) ? xml_char_len(p) : 1;
	return n;
}

/*
 * At most @max characters of @s as XML text: markup characters escaped,
 * each byte that is not part of a valid character replaced by U+FFFD, and
 * never a cut inside a multi-byte character.
 */
static void xml_str(const char *s, size_t max, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; *p && i < max; i++) {
		size_t k = xml_char_len(p);

		switch (k ? *p : 0) {
		case 0: fputs("\xef\xbf\xbd", out); k = 1; break;
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fwrite(p, 1, k, out);
		}
		p += k;
	}
}

/* Warm colours picked by name, so a function has one colour everywhere. */
static void colour(const char *name, char *out, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	if (name[0] == '[')	/* no symbol: grey */
		snprintf(out, len, "rgb(%u,%u,%u)", 170 + h % 30, 170 + h % 30,
			 170 + h % 30);
	else
		snprintf(out, len, "rgb(%u,%u,%u)", 205 + h % 50,
			 60 + (h >> 8) % 150, 40 + (h >> 16) % 50);
}

static const char svg_script[] =
"<script><![CDATA[\n"
"'use strict';\n"
"var W = %d, PAD = %d, CW = %d, total = %llu, zo = 0, zn = total, re = null;\n"
"var boxes = Array.prototype.slice.call(document.querySelectorAll('g.n, g.root'));\n"
"function label(g, w) {\n"
"  var name = g.getAttribute('data-name'), fit = Math.floor((w - 6) / CW);\n"
"  if (fit < 3) return '';\n"
"  return name.length <= fit ? name : name.substring(0, fit - 2) + '..';\n"
"}\n"
"function layout() {\n"
"  var scale = (W - 2 * PAD) / zn;\n"
"  boxes.forEach(function (g) {\n"
"    var o = +g.getAttribute('data-o'), n = +g.getAttribute('data-n');\n"
"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"    var a = Math.max(o, zo), b = Math.min(o + n, zo + zn);\n"
"    if (b <= a) { g.style.display = 'none'; return; }\n"
"    g.style.display = '';\n"
"    var x = PAD + (a - zo) * scale, w = (b - a) * scale;\n"
"    r.setAttribute('x', x); r.setAttribute('width', w);\n"
"    t.setAttribute('x', x + 3); t.textContent = label(g, w);\n"
"  });\n"
"}\n"
"function zoom(g) {\n"
"  zo = +g.getAttribute('data-o'); zn = +g.getAttribute('data-n');\n"
"  document.getElementById('reset').style.opacity = zn < total ? 1 : 0.3;\n"
"  layout();\n"
"}\n"
"function paint() {\n"
"  var spans = [];\n"
"  boxes.forEach(function (g) {\n"
"    var r = g.querySelector('rect'), hit = re && re.test(g.getAttribute('data-name'));\n"
"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
"    if (hit) spans.push([+g.getAttribute('data-o'), +g.getAttribute('data-o') + +g.getAttribute('data-n')]);\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  var covered = 0, end = -1;\n"
"  spans.forEach(function (s) {\n"
"    if (s[1] <= end) return;\n"
"    covered += s[1] - Math.max(s[0], end); end = s[1];\n"
"  });\n"
"  document.getElementById('matched').textContent = re ?\n"
"    'Matched: ' + (100 * covered / total).toFixed(1) + '%%' : '';\n"
"}\n"
"function search() {\n"
"  var s = prompt('Search functions (regular expression)', re ? re.source : '');\n"
"  if (s === null) return;\n"
"  try { re = s ? new RegExp(s) : null; } catch (e) { alert(e); return; }\n"
"  paint();\n"
"}\n"
"boxes.forEach(function (g) {\n"
"  g.addEventListener('click', function () { zoom(g); });\n"
"  g.addEventListener('mouseover', function () {\n"
"    document.getElementById('details').textContent = g.querySelector('title').textContent;\n"
"  });\n"
"});\n"
"document.getElementById('reset').addEventListener('click', function () { zo = 0; zn = total; zoom(boxes[0]); });\n"
"document.getElementById('search').addEventListener('click', search);\n"
"document.getElementById('clear').addEventListener('click', function () { re = null; paint(); });\n"
"]]></script>\n";

struct svg_ctx {
	const struct rp_profile *p;
	FILE *out;
	uint64_t *off;
	uint32_t *depth;
	int height;
};

static void box(const struct svg_ctx *c, uint32_t n)
{
	const struct rp_node *nd = &c->p->nodes[n];
	const char *name = n ? c->p->funcs[nd->func].name : "all";
	double scale = (double)(SVG_W - 2 * SVG_PAD) / (double)c->p->nodes[0].total;
	double x = SVG_PAD + (double)c->off[n] * scale, w = (double)nd->total * scale;
	int y = c->height - SVG_BOTTOM - (int)(c->depth[n] + 1) * SVG_ROW;
	int fit = (int)((w - 6) / SVG_CHAR_W);
	char fill[32];

	if (n)
		colour(name, fill, sizeof(fill));
	else
		snprintf(fill, sizeof(fill), "rgb(200,200,200)");
	fprintf(c->out, "<g class=\"%s\" data-o=\"%llu\" data-n=\"%llu\" "
		"data-d=\"%u\" data-name=\"", n ? "n" : "root",
		(unsigned long long)c->off[n], (unsigned long long)nd->total,
		c->depth[n]);
	xml_str(name, SIZE_MAX, c->out);
	fprintf(c->out, "\"><title>");
	xml_str(name, SIZE_MAX, c->out);
	if (n) {
		/* a path is any bytes but '/' and NUL: escaped as names are */
		fputs(" (", c->out);
		xml_str(rp_func_module(c->p, nd->func), SIZE_MAX, c->out);
		fputs(")", c->out);
	}
	fprintf(c->out, ": %llu samples, %.2f%%; self %llu</title>",
		(unsigned long long)nd->total, rp_pct(nd->total, c->p->samples),
		(unsigned long long)nd->self);
	fprintf(c->out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\" data-fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">",
		x, y, w, SVG_ROW - 1, fill, fill, x + 3, y + SVG_ROW - 4);
	if (fit >= 3) {
		size_t len = xml_chars(name);

		xml_str(name, len <= (size_t)fit ? len : (size_t)fit - 2, c->out);
		if (len > (size_t)fit)
			fputs("..", c->out);
	}
	fprintf(c->out, "</text></g>\n");
}

/* Offsets and depths, parents before children (nodes are made that way). */
static void lay_out(struct svg_ctx *c)
{
	const struct rp_profile *p = c->p;

	c->off[0] = 0;
	c->depth[0] = 0;
	for (uint32_t n = 0; n < p->nnodes; n++) {
		uint64_t acc = c->off[n];

		for (uint32_t k = p->nodes[n].child; k; k = p->nodes[k].next) {
			c->off[k] = acc;
			c->depth[k] = c->depth[n] + 1;
			acc += p->nodes[k].total;
		}
	}
}

int rp_write_svg(const struct rp_profile *p, const char *title, FILE *out)
{
	struct svg_ctx c = { .p = p, .out = out };

	c.off = calloc(p->nnodes, sizeof(*c.off));
	c.depth = calloc(p->nnodes, sizeof(*c.depth));
	if (!c.off || !c.depth) {
		free(c.off);
		free(c.depth);
		return -1;
	}
	lay_out(&c);
	c.height = SVG_TOP + (int)(p->max_depth + 1) * SVG_ROW + SVG_BOTTOM;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", SVG_W,
		c.height, SVG_W, c.height);
	fprintf(out, "<style>text { font: 12px monospace; fill: #000; } "
		"g.n, g.root { cursor: pointer; } g.n:hover rect { stroke: #000; "
		"stroke-width: 0.5; } .ui { cursor: pointer; fill: #336; }</style>\n");
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 16px\">",
		SVG_W / 2);
	xml_str(title, SIZE_MAX, out);
	fprintf(out, "</text>\n<text id=\"reset\" class=\"ui\" x=\"%d\" y=\"24\" "
		"style=\"opacity: 0.3\">Reset zoom</text>\n<text id=\"search\" "
		"class=\"ui\" x=\"%d\" y=\"24\">Search</text>\n<text id=\"clear\" "
		"class=\"ui\" x=\"%d\" y=\"24\">Clear</text>\n<text id=\"matched\" "
		"x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n<text id=\"details\" "
		"x=\"%d\" y=\"%d\"></text>\n", SVG_PAD, SVG_W - 160, SVG_W - 90,
		SVG_W - SVG_PAD, c.height - 10, SVG_PAD, c.height - 10);
	if (p->nodes[0].total)
		for (uint32_t n = 0; n < p->nnodes; n++)
			box(&c, n);
	fprintf(out, svg_script, SVG_W, SVG_PAD, SVG_CHAR_W,
		(unsigned long long)p->nodes[0].total);
	fprintf(out, "</svg>\n");
	free(c.off);
	free(c.depth);
	return ferror(out) ? -1 : 0;
}
