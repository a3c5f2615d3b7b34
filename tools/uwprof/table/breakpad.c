// SPDX-License-Identifier: GPL-2.0
/*
 * Breakpad symbol files: the STACK CFI records that dump_syms writes.
 *
 *   STACK CFI INIT <addr> <size> <rules>     starts a function
 *   STACK CFI <addr> <rules>                 a row: the rules that change
 *
 * Rules are "NAME: postfix-expression" pairs.  Everything else in the
 * file (MODULE, FILE, FUNC, line records, STACK WIN) is ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "table/table.h"

enum { NAME_CFA = -2, NAME_RA = -3, NAME_UNKNOWN = -1 };

/* Register slot for a breakpad name; *rn says it was spelled "rN". */
static int reg_by_name(const char *s, size_t len, bool *rn)
{
	char buf[32];
	char *end;
	long v;

	*rn = false;
	if (len >= sizeof(buf))
		return NAME_UNKNOWN;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (!strcmp(buf, ".cfa"))
		return NAME_CFA;
	if (!strcmp(buf, ".ra"))
		return NAME_RA;
	if (!strcmp(buf, "sp"))
		return 13;
	if (!strcmp(buf, "lr"))
		return 14;
	if (!strcmp(buf, "pc"))
		return 15;
	if (!strcmp(buf, "fp"))
		return 11;
	if (!strcmp(buf, "ip"))
		return 12;
	if (buf[0] == 'r' && isdigit((unsigned char)buf[1])) {
		v = strtol(buf + 1, &end, 10);
		*rn = true;
		return (!*end && v < 16) ? (int)v : NAME_UNKNOWN;
	}
	if (buf[0] == 'd' && isdigit((unsigned char)buf[1])) {
		v = strtol(buf + 1, &end, 10);
		return (!*end && v < 32) ? TB_D0 + (int)v : NAME_UNKNOWN;
	}
	/* dump_syms names DWARF registers it has no name for like this;
	 * 256-287 are the VFP D registers. */
	if (!strncmp(buf, "unnamed_register", 16)) {
		v = strtol(buf + 16, &end, 10);
		return (!*end && v >= 256 && v < 288) ? TB_D0 + (int)(v - 256)
						       : NAME_UNKNOWN;
	}
	return NAME_UNKNOWN;
}

static bool parse_num(const char *s, s32 *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (s32)v;
	return true;
}

#define MAX_TOK 8

/* "REG N +" (or "REG") as a CFA rule. */
static void parse_cfa(char **t, int n, struct tb_row *row)
{
	bool rn;
	int r;
	s32 off = 0;

	row->cfa_kind = TB_CFA_EXPR;
	if (n < 1 || n == 2 || n > 3)
		return;
	r = reg_by_name(t[0], strlen(t[0]), &rn);
	if (r < 0 || r > 15)
		return;
	if (n == 3) {
		if (!parse_num(t[1], &off) || strcmp(t[2], "+"))
			return;
	}
	row->cfa_kind = TB_CFA_REG;
	row->cfa_reg = r;
	row->cfa_off = off;
}

static void parse_reg(char **t, int n, int self, struct tb_rule *rule)
{
	bool rn;
	s32 off = 0;

	rule->kind = TB_R_EXPR;
	if (n < 1)
		return;		/* "r4:" with nothing after it */
	if (n == 1) {
		int r = reg_by_name(t[0], strlen(t[0]), &rn);

		if (r >= 0 && r < 16) {
			rule->kind = r == self ? TB_R_SAME : TB_R_REG;
			rule->reg = r;
		}
		return;
	}
	if (strcmp(t[0], ".cfa"))
		return;
	if (n == 2 && !strcmp(t[1], "^")) {
		rule->kind = TB_R_OFFSET;
		rule->off = 0;
		return;
	}
	if ((n != 3 && n != 4) || !parse_num(t[1], &off) || strcmp(t[2], "+"))
		return;
	if (n == 4 && strcmp(t[3], "^"))
		return;
	rule->kind = n == 4 ? TB_R_OFFSET : TB_R_VAL_OFFSET;
	rule->off = off;
}

/*
 * Chrome's parsers match the text: .cfa first, then .ra, then "rN" saves,
 * or VFP saves after .cfa.  Track the order so --chrome-compat can refuse
 * what its regular expressions would.
 */
enum { ORD_CFA, ORD_RA, ORD_CORE, ORD_VFP };

bool tb_parse_breakpad_rules(const char *s, struct tb_row *row)
{
	char *copy = strdup(s), *save = NULL, *tok;
	char *names[64];
	char *toks[64][MAX_TOK];
	int ntok[64] = { 0 };
	int nn = 0, last_ord = -1;
	bool good = true;

	if (!copy)
		return false;
	for (tok = strtok_r(copy, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		size_t len = strlen(tok);

		if (tok[len - 1] == ':') {
			if (nn == 64) {
				good = false;
				break;
			}
			tok[len - 1] = 0;
			names[nn++] = tok;
		} else if (!nn || ntok[nn - 1] == MAX_TOK) {
			good = false;	/* an expression with no name */
			break;
		} else {
			toks[nn - 1][ntok[nn - 1]++] = tok;
		}
	}
	for (int i = 0; good && i < nn; i++) {
		bool rn;
		int r = reg_by_name(names[i], strlen(names[i]), &rn);
		int ord;

		if (r == NAME_CFA) {
			parse_cfa(toks[i], ntok[i], row);
			ord = ORD_CFA;
		} else if (r == NAME_RA) {
			parse_reg(toks[i], ntok[i], -1, &row->r[TB_RA]);
			ord = ORD_RA;
		} else if (r >= 0) {
			parse_reg(toks[i], ntok[i], r, &row->r[r]);
			ord = r >= TB_D0 ? ORD_VFP : ORD_CORE;
			if (r < TB_D0 && !rn)
				row->compat_unparsable = true;
		} else {
			row->compat_unparsable = true;	/* unknown name */
			continue;
		}
		if (ord < last_ord || (ord == ORD_VFP && last_ord == ORD_CORE) ||
		    (ord == ORD_VFP && last_ord == ORD_RA))
			row->compat_unparsable = true;
		last_ord = ord;
	}
	free(copy);
	return good;
}

struct tb_cfi_func *tb_input_add(struct tb_input *in)
{
	if (in->n == in->cap) {
		u32 cap = in->cap ? in->cap * 2 : 256;
		struct tb_cfi_func *v = realloc(in->funcs, cap * sizeof(*v));

		if (!v)
			return NULL;
		in->funcs = v;
		in->cap = cap;
	}
	memset(&in->funcs[in->n], 0, sizeof(in->funcs[0]));
	return &in->funcs[in->n++];
}

struct tb_row *tb_func_add_row(struct tb_cfi_func *f)
{
	/* Grow by powers of two: nrows is the only size kept. */
	if (!(f->nrows & (f->nrows - 1)) || !f->nrows) {
		u32 cap = f->nrows ? f->nrows * 2 : 1;
		struct tb_row *v = realloc(f->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		f->rows = v;
	}
	memset(&f->rows[f->nrows], 0, sizeof(f->rows[0]));
	return &f->rows[f->nrows++];
}

void tb_input_free(struct tb_input *in)
{
	for (u32 i = 0; i < in->n; i++) {
		tb_rows_free(&in->funcs[i]);
		free(in->funcs[i].name);
		free(in->funcs[i].ehabi);
		free(in->funcs[i].epairs);
	}
	free(in->funcs);
	memset(in, 0, sizeof(*in));
}

static bool parse_hex(const char **p, u32 *out)
{
	char *end;
	unsigned long long v;

	while (**p == ' ')
		(*p)++;
	if (!isxdigit((unsigned char)**p))
		return false;
	errno = 0;
	v = strtoull(*p, &end, 16);
	if (errno || v > UINT32_MAX)
		return false;
	*p = end;
	*out = (u32)v;
	return true;
}

static int func_cmp(const void *a, const void *b)
{
	const struct tb_cfi_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Rows are deltas in address order (several lines may add rules at one
 * address), inside their INIT record. */
static bool rows_in_order(const struct tb_cfi_func *f, char *err,
			  size_t errlen)
{
	for (u32 j = 1; j < f->nrows; j++) {
		u32 at = f->rows[j].addr;

		if (at < f->rows[j - 1].addr ||
		    (f->size && at - f->addr >= f->size)) {
			snprintf(err, errlen,
				 "STACK CFI row at %#x is before the row above it or outside its INIT record at %#x",
				 at, f->addr);
			return false;
		}
	}
	return true;
}

int tb_breakpad_check(struct tb_input *in, char *err, size_t errlen)
{
	if (in->n > 1)
		qsort(in->funcs, in->n, sizeof(in->funcs[0]), func_cmp);
	for (u32 i = 0; i < in->n; i++) {
		const struct tb_cfi_func *a = i ? &in->funcs[i - 1] : NULL;

		if (!rows_in_order(&in->funcs[i], err, errlen))
			return -1;
		if (in->funcs[i].addr + in->funcs[i].size < in->funcs[i].addr) {
			snprintf(err, errlen,
				 "STACK CFI INIT record at %#x runs past the top of the address space",
				 in->funcs[i].addr);
			return -1;
		}
		if (a && (a->addr == in->funcs[i].addr ||
			  (a->size && in->funcs[i].addr - a->addr < a->size))) {
			snprintf(err, errlen,
				 "STACK CFI INIT records at %#x and %#x overlap",
				 a->addr, in->funcs[i].addr);
			return -1;
		}
	}
	return 0;
}

int tb_read_breakpad(FILE *f, struct tb_input *in, char *err, size_t errlen)
{
	struct tb_cfi_func *cur = NULL;
	char *line = NULL;
	size_t cap = 0;
	u32 lineno = 0;
	bool tomb = false;

	while (getline(&line, &cap, f) > 0) {
		const char *p = line;
		struct tb_row *row;
		u32 addr, at, size = 0;
		bool init;

		lineno++;
		if (strncmp(p, "STACK CFI ", 10))
			continue;
		p += 10;
		init = !strncmp(p, "INIT ", 5);
		if (init)
			p += 5;
		if (!parse_hex(&p, &addr) ||
		    (init && *p == ' ' && p[1] && p[1] != '\n' &&
		     !parse_hex(&p, &size)))
			goto bad;
		at = addr & ~1u;	/* the Thumb bit, as DWARF's may carry */
		if (init) {
			/* INIT 0: code the linker discarded. */
			tomb = addr == 0;
			cur = NULL;
			if (tomb)
				continue;
			cur = tb_input_add(in);
			if (!cur)
				goto oom;
			cur->addr = at;
			/* whole halfwords: the table's unit */
			cur->size = size ? ((addr + size + 1) & ~1u) - at : 0;
			cur->source = TB_SRC_BREAKPAD;
		} else if (tomb || !cur) {
			continue;
		}
		row = tb_func_add_row(cur);
		if (!row)
			goto oom;
		row->addr = at;
		if (!tb_parse_breakpad_rules(p, row))
			goto bad;
	}
	free(line);
	return 0;
bad:
	snprintf(err, errlen, "line %u: malformed STACK CFI record", lineno);
	free(line);
	return -1;
oom:
	snprintf(err, errlen, "out of memory");
	free(line);
	return -1;
}
