// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof dump: a v2 table in words, one function and one offset per line,
 * in the spirit of readelf -u for .ARM.exidx.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "inspect/dump.h"
#include "lib/ehabi.h"

struct sbuf {
	char *p;
	size_t len, o;
};

static void sb(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->o >= s->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->p + s->o, s->len - s->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->o += n;
}

static const char *const rname[16] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"fp", "ip", "sp", "lr", "pc"
};

/* "{r4-r7, lr}" from a register mask, runs collapsed. */
static void reglist(struct sbuf *s, u32 mask)
{
	bool first = true;

	sb(s, "{");
	for (int r = 0; r < 16; r++) {
		int e = r;

		if (!(mask & (1u << r)))
			continue;
		/* Collapse runs within r0-r10 only; fp, ip, sp... by name. */
		while (e + 1 <= 10 && (mask & (1u << (e + 1))))
			e++;
		sb(s, "%s%s", first ? "" : ", ", rname[r]);
		if (e > r)
			sb(s, "%s%s", e == r + 1 ? ", " : "-", rname[e]);
		first = false;
		r = e;
	}
	sb(s, "}");
}

static void dlist(struct sbuf *s, u32 first, u32 count)
{
	if (count == 1)
		sb(s, "{d%u}", first);
	else
		sb(s, "{d%u-d%u}", first, first + count - 1);
}

u32 tb_ops_words(const u8 *ops, u32 len, char *out, size_t outlen)
{
	struct sbuf s = { out, outlen, 0 };
	struct uw_eh_op op;
	u32 i = 0;

	out[0] = 0;
	while (i < len) {
		if (s.o)
			sb(&s, "; ");
		switch (uw_eh_next(ops, len, &i, &op)) {
		case UW_EH_VSP_ADD:
			sb(&s, "vsp += %u", op.val);
			break;
		case UW_EH_VSP_SUB:
			sb(&s, "vsp -= %u", op.val);
			break;
		case UW_EH_VSP_REG:
			sb(&s, "vsp = %s", rname[op.val]);
			break;
		case UW_EH_POP:
			sb(&s, "pop ");
			reglist(&s, op.val);
			break;
		case UW_EH_VPOP:
			sb(&s, "vpop ");
			dlist(&s, op.first, op.count);
			if (op.fstmx)
				sb(&s, " (fstmx)");
			break;
		case UW_EH_FINISH:
			sb(&s, "finish");
			return i;
		case UW_EH_REFUSE:
			sb(&s, "refuse");
			return i;
		case UW_EH_ROOT:
			sb(&s, "root");
			return i;
		case UW_EH_NORETURN:
			sb(&s, "noreturn");
			return i;
		case UW_EH_CLONE:
			sb(&s, "clone: r0 0 root, else");
			break;
		case UW_EH_SPARE:
			sb(&s, "spare 0x%02x", op.byte);
			return i;
		case UW_EH_TRUNC:
			sb(&s, "<truncated>");
			return i;
		}
	}
	return i;
}

static u32 rd32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u32 rd16(const u8 *p)
{
	return p[0] | p[1] << 8;
}

/* The byte offset (from .text) of function entry @i. */
static u32 func_off(const struct uw2_table *t, u32 i)
{
	u32 p = 0;

	/* The page whose range holds entry i: the last p with pt[p] <= i. */
	for (u32 lo = 0, hi = t->page_count; lo < hi;) {
		u32 mid = (lo + hi) / 2;

		if (rd32(t->page_table + 4 * mid) <= i) {
			p = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return ((p << 16) + rd16(t->func_table + 4 * i)) << 1;
}

u32 tb_dump_table(FILE *f, const struct uw2_table *t, u32 text, bool stats,
		  bool hex)
{
	u32 total = UW2_HEADER_SIZE + 4 * t->page_count + 4 * t->func_count +
		    t->fot_size + t->uit_size;
	u32 rows = 0, refused = 0, roots = 0;
	char words[512];

	for (u32 i = 0; i < t->func_count; i++) {
		u32 off = func_off(t, i), fot = rd16(t->func_table + 4 * i + 2);
		u32 end = i + 1 < t->func_count ? func_off(t, i + 1) : off;
		u32 pos = fot, o, u;

		if (!stats)
			fprintf(f, "0x%x..0x%x: fot %u\n", text + off,
				text + end, fot);
		while (uw_uleb(t->fot, t->fot_size, &pos, &o) == UW_ULEB_OK &&
		       uw_uleb(t->fot, t->fot_size, &pos, &u) == UW_ULEB_OK) {
			u32 n = u < t->uit_size ?
				tb_ops_words(t->uit + u, t->uit_size - u, words,
					     sizeof(words)) : 0;

			rows++;
			if (strstr(words, "refuse"))
				refused++;
			if (strstr(words, "root"))
				roots++;
			if (!stats) {
				fprintf(f, "  +0x%-5x uit %-5u %s", o << 1, u,
					u < t->uit_size ? words : "<bad index>");
				if (hex) {
					fprintf(f, "   [");
					for (u32 k = 0; k < n; k++)
						fprintf(f, "%s%02x", k ? " " : "",
							t->uit[u + k]);
					fprintf(f, "]");
				}
				fprintf(f, "\n");
			}
			if (!o)
				break;
		}
	}
	if (!stats)
		return total;
	fprintf(f, "table: %u bytes: header %u, page table %u (%u pages), function table %u (%u entries), FOT %u, UIT %u\n",
		total, UW2_HEADER_SIZE, 4 * t->page_count, t->page_count,
		4 * t->func_count, t->func_count, t->fot_size, t->uit_size);
	fprintf(f, "entries: %u (functions and fillers), rows %u, refusing rows %u, root rows %u\n",
		t->func_count, rows, refused, roots);
	return total;
}

void tb_dump_coverage(FILE *f, const struct uwt_file *file, u32 total)
{
	if (file->container) {
		const struct uwt_meta *m = &file->meta;

		fprintf(f, "functions: %u in the inputs, %u in the table (%u EHABI-only), %u rows\n",
			m->funcs_total, m->funcs_in_table, m->funcs_ehabi_only,
			m->rows);
		if (m->funcs_in_table)
			fprintf(f, "bytes/function: %.1f\n",
				(double)total / m->funcs_in_table);
		if (m->text_size)
			fprintf(f, ".text covered: %u of %u bytes (%.1f%%)\n",
				m->text_covered, m->text_size,
				100.0 * m->text_covered / m->text_size);
	}
}
