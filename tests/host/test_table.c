// SPDX-License-Identifier: GPL-2.0
/*
 * The generator vectors of FORMAT-v2.md §6.3, against uwprof's own layers:
 * breakpad reading, encoders, Chrome's row parsers, complete sequences,
 * fillers, UIT ordering, FOT sharing, page tables and the header.
 */
#include <stdlib.h>
#include "harness.h"
#include "table/table.h"
#include "lib/uwt.h"
#include "unwind_v2.h"

#define BYTES(...) ((const u8[]){ __VA_ARGS__ })
#define NB(...) (sizeof((const u8[]){ __VA_ARGS__ }))

static FILE *text(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

static struct tb_row row(const char *rules)
{
	struct tb_row r;

	memset(&r, 0, sizeof(r));
	CHECK(tb_parse_breakpad_rules(rules, &r));
	return r;
}

/* ---- _TestReadFunctionCfi ---- */

TEST(read_filter_tombstone)
{
	struct tb_input in = { 0 };
	char err[128];
	FILE *f = text("file name\nSTACK CFI INIT 0 \nSTACK CFI 100 \n"
		       "STACK CFI INIT 1 \nSTACK CFI 200 \n");

	CHECK(!tb_read_breakpad(f, &in, err, sizeof(err)));
	CHECK_EQ_U32(in.n, 1);
	CHECK_EQ_U32(in.funcs[0].addr, 0);	/* 1: Thumb code at 0 */
	CHECK_EQ_U32(in.funcs[0].nrows, 2);
	CHECK_EQ_U32(in.funcs[0].rows[1].addr, 0x200);
	fclose(f);
	tb_input_free(&in);
}

TEST(read_tombstone_filtered)
{
	struct tb_input in = { 0 };
	char err[128];
	FILE *f = text("STACK CFI INIT 0 50 .cfa: sp 0 + .ra: lr\n"
		       "STACK CFI 2 .cfa: sp 24 + .ra: .cfa -4 + ^\n"
		       "STACK CFI INIT 15b6490 4 .cfa: sp 0 + .ra: lr\n");

	CHECK(!tb_read_breakpad(f, &in, err, sizeof(err)));
	CHECK_EQ_U32(in.n, 1);
	CHECK_EQ_U32(in.funcs[0].addr, 0x15b6490);
	CHECK_EQ_U32(in.funcs[0].size, 4);
	CHECK_EQ_U32(in.funcs[0].nrows, 1);
	CHECK_EQ_U32(in.funcs[0].rows[0].cfa_reg, 13);
	CHECK_EQ_U32(in.funcs[0].rows[0].r[TB_RA].kind, TB_R_REG);
	fclose(f);
	tb_input_free(&in);
}

TEST(read_single_and_multiple_functions)
{
	struct tb_input in = { 0 };
	char err[128];
	FILE *f = text("STACK CFI INIT 15b6490 4 .cfa: sp 0 + .ra: lr\n"
		       "STACK CFI 2 .cfa: sp 24 + .ra: .cfa -4 + ^ r4: .cfa -16 + ^ r5: .cfa -12 + ^ r7: .cfa -8 + ^\n"
		       "STACK CFI INIT 15b655a 26 .cfa: sp 0 + .ra: lr\n"
		       "STACK CFI 15b655c .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^\n");
	const struct tb_row *r;

	CHECK(!tb_read_breakpad(f, &in, err, sizeof(err)));
	CHECK_EQ_U32(in.n, 2);
	CHECK_EQ_U32(in.funcs[0].nrows, 2);
	r = &in.funcs[0].rows[1];
	CHECK_EQ_U32(r->addr, 2);
	CHECK_EQ_U32(r->cfa_off, 24);
	CHECK_EQ_U32(r->r[TB_RA].kind, TB_R_OFFSET);
	CHECK_EQ_U32(r->r[TB_RA].off, (u32)-4);
	CHECK_EQ_U32(r->r[5].off, (u32)-12);
	CHECK_EQ_U32(r->r[6].kind, TB_R_UNSET);
	CHECK_EQ_U32(in.funcs[1].addr, 0x15b655a);
	CHECK_EQ_U32(in.funcs[1].size, 0x26);
	CHECK_EQ_U32(in.funcs[1].rows[1].addr, 0x15b655c);
	fclose(f);
	tb_input_free(&in);
}

TEST(read_malformed_line_is_an_error)
{
	struct tb_input in = { 0 };
	char err[128] = "";
	FILE *f = text("STACK CFI INIT zz 4 .cfa: sp 0 +\n");

	CHECK(tb_read_breakpad(f, &in, err, sizeof(err)) < 0);
	CHECK(strstr(err, "line 1") != NULL);
	fclose(f);
	tb_input_free(&in);
}

/*
 * A name with no expression after it ("r4:" at the end): the parser read
 * the expression's first token from an uninitialised slot (found by
 * fuzz_breakpad).  The rule is one uwprof cannot express, nothing more.
 */
TEST(rules_name_without_expression)
{
	struct tb_row row;

	memset(&row, 0, sizeof(row));
	CHECK(tb_parse_breakpad_rules(".cfa: sp 8 + .ra: .cfa -4 + ^ r4:", &row));
	CHECK_EQ_U32(row.cfa_kind, TB_CFA_REG);
	CHECK_EQ_U32(row.cfa_off, 8);
	CHECK_EQ_U32(row.r[TB_RA].kind, TB_R_OFFSET);
	CHECK_EQ_U32(row.r[4].kind, TB_R_EXPR);
	memset(&row, 0, sizeof(row));
	CHECK(tb_parse_breakpad_rules(".cfa: .ra:", &row));
	CHECK_EQ_U32(row.cfa_kind, TB_CFA_EXPR);
	CHECK_EQ_U32(row.r[TB_RA].kind, TB_R_EXPR);
}

/*
 * Rows packed (table/rows.c) come back field for field, through the
 * iterator and unpacked: addresses going back, offsets of either sign
 * and at the ends of 32 bits, every register, the CFA changing or not.
 */
static bool row_eq(const struct tb_row *a, const struct tb_row *b)
{
	if (a->addr != b->addr || a->cfa_kind != b->cfa_kind ||
	    a->cfa_reg != b->cfa_reg || a->cfa_off != b->cfa_off ||
	    a->compat_unparsable != b->compat_unparsable)
		return false;
	for (int i = 0; i < TB_NREGS; i++)
		if (a->r[i].kind != b->r[i].kind || a->r[i].reg != b->r[i].reg ||
		    a->r[i].off != b->r[i].off)
			return false;
	return true;
}

TEST(rows_packed_round_trip)
{
	static const s32 offs[] = { 0, -4, 4, 0x7fffffff, INT32_MIN, -0x12345 };
	struct tb_cfi_func f = { .addr = 0x1000, .size = 0x100 };
	struct tb_row *want = calloc(64, sizeof(*want));
	const struct tb_row *r;
	struct tb_rows_it it;
	u32 n = 0;

	for (u32 i = 0; i < 64; i++) {
		struct tb_row *w = tb_func_add_row(&f);

		CHECK(w != NULL);
		w->addr = i == 7 ? 0xfff : 0x1000 + 2 * i + (i > 40 ? 0x10000 : 0);
		w->cfa_kind = i % 5 ? TB_CFA_REG : TB_CFA_EXPR;
		w->cfa_reg = i % 3 ? 13 : 11;
		w->cfa_off = offs[i % 6];
		w->compat_unparsable = i % 4 == 1;
		w->r[i % TB_NREGS] = (struct tb_rule){ TB_R_OFFSET, 0,
						      offs[(i + 1) % 6] };
		w->r[(3 * i) % TB_NREGS] = (struct tb_rule){ TB_R_REG, i, 0 };
		w->r[TB_RA].kind = i % 2 ? TB_R_NORETURN : TB_R_SAME;
		want[i] = *w;
	}
	CHECK(!tb_rows_pack(&f));
	CHECK(f.rows == NULL && f.packed != NULL && f.nrows == 64);
	CHECK(f.packed_len < 64 * sizeof(struct tb_row) / 8);
	tb_rows_begin(&it, &f);
	for (; (r = tb_rows_next(&it)); n++)
		CHECK(n < 64 && row_eq(r, &want[n]));
	CHECK_EQ_U32(n, 64);
	CHECK(!tb_rows_unpack(&f));
	CHECK(f.packed == NULL && f.nrows == 64);
	for (u32 i = 0; i < 64; i++)
		CHECK(row_eq(&f.rows[i], &want[i]));
	tb_rows_free(&f);
	CHECK(f.rows == NULL && !f.nrows);
	free(want);
}

/* ---- _TestUleb128Encode ---- */

TEST(uleb128)
{
	u8 b[8];

	CHECK_EQ_U32(tb_uleb128(0, b), 1);
	CHECK_EQ_U32(b[0], 0);
	CHECK_EQ_U32(tb_uleb128(1, b), 1);
	CHECK_EQ_U32(b[0], 1);
	CHECK_EQ_U32(tb_uleb128(127, b), 1);
	CHECK_EQ_U32(b[0], 0x7f);
	CHECK_EQ_U32(tb_uleb128(128, b), 2);
	CHECK_MEM(b, BYTES(0x80, 0x01), 2);
	CHECK_EQ_U32(tb_uleb128(16384, b), 3);
	CHECK_MEM(b, BYTES(0x80, 0x80, 0x01), 3);
}

/* ---- _TestEncodeStackPointerUpdate ---- */

static void check_sp(s32 off, const u8 *want, int n, int line)
{
	u8 b[8];
	int got = tb_enc_sp(off, b);

	if (got != n || memcmp(b, want, n))
		th_fail(__FILE__, line, "sp %d: got %d bytes %02x %02x", off,
			got, b[0], b[1]);
}

#define SP(off, ...) check_sp(off, BYTES(__VA_ARGS__), NB(__VA_ARGS__), __LINE__)

TEST(encode_sp_update)
{
	u8 b[8];

	SP(4, 0x00);
	SP(-4, 0x40);
	SP(0x100, 0x3f);
	SP(-0x100, 0x7f);
	SP(16, 0x03);
	SP(-16, 0x43);
	SP(0x204, 0xb2, 0x00);
	SP(0x208, 0xb2, 0x01);
	SP(0x104, 0x3f, 0x00);
	SP(0x200, 0x3f, 0x3f);
	SP(-0x200, 0x7f, 0x7f);
	CHECK(tb_enc_sp(101, b) < 0);
	CHECK(tb_enc_sp(0, b) < 0);
	CHECK(tb_enc_sp(-0x204, b) < 0);
}

/* ---- _TestEncodePop ---- */

static u32 mask_of(const int *r, int n)
{
	u32 m = 0;

	for (int i = 0; i < n; i++)
		m |= 1u << r[i];
	return m;
}

static void check_pop(const int *r, int nr, const u8 *want, int n, int line)
{
	u8 b[4];
	int got = tb_enc_pop(mask_of(r, nr), b);

	if (got != n || memcmp(b, want, n))
		th_fail(__FILE__, line, "pop: got %d bytes %02x %02x", got,
			b[0], b[1]);
}

#define REGS(...) ((const int[]){ __VA_ARGS__ }), (int)(sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))
#define POP(r, ...) check_pop(r, BYTES(__VA_ARGS__), NB(__VA_ARGS__), __LINE__)

TEST(encode_pop)
{
	u8 b[4];

	for (int r = 0; r < 4; r++)
		CHECK(tb_enc_pop(1u << r, b) < 0);
	CHECK(tb_enc_pop(1u << 16, b) < 0);
	CHECK(tb_enc_pop(0, b) < 0);
	POP(REGS(4), 0x80, 0x01);
	POP(REGS(7), 0x80, 0x08);
	POP(REGS(14), 0x84, 0x00);
	POP(REGS(15), 0x88, 0x00);
	POP(REGS(4, 14), 0xa8);
	POP(REGS(4, 5, 14), 0xa9);
	POP(REGS(4, 5, 6, 7, 8, 9, 10, 11, 14), 0xaf);
	POP(REGS(4, 15), 0x88, 0x01);
	POP(REGS(7, 8, 14), 0x84, 0x18);
	POP(REGS(4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), 0x87, 0xff);
	POP(REGS(4, 5, 6, 7, 8, 9, 11, 14), 0x84, 0xbf);
}

/* ---- _TestEncodeAddressUnwind ---- */

static struct tb_seq act_bytes(struct tb_action a, bool *ok)
{
	struct tb_seq s = { 0 };

	*ok = tb_enc_action(&a, &s);
	return s;
}

TEST(encode_address_unwind)
{
	struct tb_seq s;
	bool ok;

	s = act_bytes((struct tb_action){ .kind = TB_A_RETURN_TO_LR }, &ok);
	CHECK(ok && s.len == 1 && s.b[0] == 0xb0);
	s = act_bytes((struct tb_action){ .kind = TB_A_NO_ACTION }, &ok);
	CHECK(ok && s.len == 0);
	s = act_bytes((struct tb_action){ .kind = TB_A_UPDATE_SP_POP, .sp = 4,
					  .regs = mask_of(REGS(4, 14)) }, &ok);
	CHECK(ok && s.len == 2 && !memcmp(s.b, BYTES(0x00, 0xa8), 2));
	s = act_bytes((struct tb_action){ .kind = TB_A_UPDATE_SP_POP, .sp = 4 },
		      &ok);
	CHECK(ok && s.len == 1 && s.b[0] == 0x00);
	s = act_bytes((struct tb_action){ .kind = TB_A_UPDATE_SP_POP,
					  .regs = mask_of(REGS(4, 14)) }, &ok);
	CHECK(ok && s.len == 1 && s.b[0] == 0xa8);
	s = act_bytes((struct tb_action){ .kind = TB_A_RESTORE_SP, .reg = 4,
					  .sp = 4 }, &ok);
	CHECK(ok && s.len == 2 && !memcmp(s.b, BYTES(0x94, 0x00), 2));
	s = act_bytes((struct tb_action){ .kind = TB_A_RESTORE_SP, .reg = 4 },
		      &ok);
	CHECK(ok && s.len == 1 && s.b[0] == 0x94);
	/* "no register" is unrepresentable in C; an out-of-range one fails. */
	s = act_bytes((struct tb_action){ .kind = TB_A_RESTORE_SP, .reg = 16 },
		      &ok);
	CHECK(!ok);
}

/* ---- _TestEncodeAddressUnwinds.testEncodeOrder ---- */

TEST(complete_sequences_order)
{
	struct tb_action a[2] = {
		{ .off = 0, .kind = TB_A_RETURN_TO_LR },
		{ .off = 4, .kind = TB_A_UPDATE_SP_POP, .sp = 4 },
	};
	struct tb_pair p[2];

	CHECK(tb_complete_seqs(a, 2, p));
	CHECK_EQ_U32(p[0].off, 4);
	CHECK_EQ_U32(p[0].seq.len, 2);
	CHECK_MEM(p[0].seq.b, BYTES(0x00, 0xb0), 2);
	CHECK_EQ_U32(p[1].off, 0);
	CHECK_EQ_U32(p[1].seq.len, 1);
	CHECK_EQ_U32(p[1].seq.b[0], 0xb0);
}

/* ---- _TestEncodeFunctionUnwinds ---- */

static struct tb_pair ret_pair = { 0, { 1, { 0xb0 } } };

static struct tb_func fn(u32 addr, u32 size)
{
	return (struct tb_func){ .addr = addr, .size = size, .npairs = 1,
				 .pairs = &ret_pair };
}

static struct tb_func *fill(struct tb_func *in, u32 n, u32 text, bool compat,
			    u32 *m, char *err)
{
	struct tb_layout_opts o = { .chrome_compat = compat,
				    .text_start = text };

	return tb_add_fillers(in, n, &o, m, NULL, err, 128);
}

TEST(functions_encode_order)
{
	struct tb_func in[2] = { fn(100, (1 << 17) - 100), fn(0, 100) };
	char err[128];
	u32 m;
	struct tb_func *v = fill(in, 2, 0, true, &m, err);

	CHECK(v && m == 2);
	if (v && m == 2) {
		CHECK_EQ_U32(v[0].addr, 0);
		CHECK_EQ_U32(v[1].addr, 100);
		CHECK_EQ_U32((v[1].addr >> 1) & 0xffff, 50);
	}
	free(v);
}

TEST(functions_filling_gaps)
{
	struct tb_func in[2] = { fn(0, 50), fn(100, (1 << 17) - 100) };
	char err[128];
	u32 m;
	struct tb_func *v = fill(in, 2, 0, true, &m, err);

	CHECK(v && m == 3);
	if (v && m == 3) {
		CHECK_EQ_U32(v[1].addr >> 1, 25);
		CHECK_EQ_U32(v[1].filler, TB_FILL_TRIVIAL);
		CHECK_EQ_U32(v[1].pairs[0].seq.b[0], 0xb0);
		CHECK_EQ_U32(v[2].addr >> 1, 50);
		CHECK_EQ_U32(v[2].filler, TB_FILL_NONE);
	}
	free(v);
}

/* --prologue-analysis of an ELF: no function is known in a gap */
TEST(functions_filling_gaps_refuse)
{
	struct tb_func in[2] = { fn(0, 50), fn(100, (1 << 17) - 100) };
	struct tb_layout_opts o = { .text_start = 0, .gaps_refuse = true };
	struct tb_notes notes = { 0 };
	char err[128];
	u32 m = 0;
	struct tb_func *v = tb_add_fillers(in, 2, &o, &m, &notes, err,
					   sizeof(err));

	CHECK(v && m == 4);
	if (v && m == 4) {
		CHECK_EQ_U32(v[1].addr >> 1, 25);
		CHECK_EQ_U32(v[1].filler, TB_FILL_REFUSE);
		CHECK_EQ_U32(v[1].pairs[0].seq.b[0], 0x80);
		CHECK_EQ_U32(v[1].pairs[0].seq.b[1], 0x00);
	}
	free(v);
}

TEST(functions_filling_last_and_first_page)
{
	struct tb_func in[2] = { fn(1100, 100), fn(1200, 100) };
	char err[128];
	u32 m;
	struct tb_func *v = fill(in, 2, 1100, true, &m, err);

	CHECK(v && m == 3);
	if (v && m == 3) {
		CHECK_EQ_U32((v[1].addr - 1100) >> 1, 50);
		CHECK_EQ_U32((v[2].addr - 1100) >> 1, 100);
		CHECK_EQ_U32(v[2].filler, TB_FILL_REFUSE);
		CHECK_MEM(v[2].pairs[0].seq.b, BYTES(0x80, 0x00), 2);
	}
	free(v);
	v = fill(in, 2, 1000, true, &m, err);
	CHECK(v && m == 4);
	if (v && m == 4) {
		CHECK_EQ_U32(v[0].addr, 1000);
		CHECK_EQ_U32(v[0].filler, TB_FILL_REFUSE);
		CHECK_EQ_U32((v[1].addr - 1000) >> 1, 50);
		CHECK_EQ_U32((v[2].addr - 1000) >> 1, 100);
		CHECK_EQ_U32((v[3].addr - 1000) >> 1, 150);
		CHECK_EQ_U32(v[3].filler, TB_FILL_REFUSE);
	}
	free(v);
}

TEST(functions_overlapped)
{
	struct tb_func in[2] = { fn(0, 100), fn(50, 100) };
	char err[128] = "";
	struct tb_notes notes = { 0 };
	struct tb_layout_opts o = { .text_start = 0 };
	u32 m;
	struct tb_func *v = fill(in, 2, 0, true, &m, err);

	CHECK(!v);
	CHECK(strstr(err, "overlap") != NULL);
	/* Without --chrome-compat the later function is dropped, noted. */
	v = tb_add_fillers(in, 2, &o, &m, &notes, err, sizeof(err));
	CHECK(v && m == 2 && v[0].addr == 0 && v[1].filler == TB_FILL_REFUSE);
	CHECK_EQ_U32(notes.n, 1);
	CHECK_EQ_U32(notes.v[0].reason, TB_N_OVERLAP);
	free(v);
	free(notes.v);
}

TEST(functions_on_odd_bytes_keep_their_halfwords)
{
	/* 0x1005 is in the halfword of 0x1004, where 0x1000 ends: no
	 * filler; 0x1009 after the odd end 0x1009 overlaps. */
	struct tb_func in[3] = { fn(0x1000, 4), fn(0x1005, 4), fn(0x1009, 2) };
	struct tb_notes notes = { 0 };
	struct tb_layout_opts o = { .text_start = 0x1000 };
	char err[128];
	u32 m;
	struct tb_func *v = tb_add_fillers(in, 3, &o, &m, &notes, err,
					   sizeof(err));

	CHECK(v && m == 3);
	if (v && m == 3) {
		CHECK_EQ_U32(v[1].addr, 0x1005);
		CHECK_EQ_U32(v[2].addr, 0x100a);
		CHECK_EQ_U32(v[2].filler, TB_FILL_REFUSE);
	}
	CHECK_EQ_U32(notes.n, 1);
	free(v);
	free(notes.v);
}

TEST(last_function_on_page_boundary_keeps_its_pages)
{
	/* Chrome's gap: no trailing filler when the end is page aligned. */
	struct tb_func in[1] = { fn(0, 2 << 17) };
	char err[128];
	u32 m;
	struct tb_func *v = fill(in, 1, 0, true, &m, err);

	CHECK(v && m == 1);
	free(v);
	v = fill(in, 1, 0, false, &m, err);
	CHECK(v && m == 2 && v[1].addr == (2 << 17));
	free(v);
}

/* ---- parsers: _TestNullParser, _TestPushOrSubSpParser, ... ---- */

static struct tb_action parse(const char *rules, u32 off, s32 *cfa, int *ret,
			      bool *epi)
{
	struct tb_row r = row(rules);
	struct tb_action a;

	r.addr = 0x1000 + off;
	*ret = tb_compat_parse_row(&r, 0x1000, cfa, &a, epi);
	return a;
}

TEST(parser_null)
{
	s32 cfa = 0;
	int ret;
	bool epi;
	struct tb_action a = parse(".cfa: sp 0 + .ra: lr", 0, &cfa, &ret, &epi);

	CHECK(ret == 1 && a.kind == TB_A_RETURN_TO_LR && cfa == 0 && !epi);
}

static void check_push(const char *rules, s32 prev, s32 sp, u32 regs,
		       s32 cfa_after, int line)
{
	s32 cfa = prev;
	int ret;
	bool epi;
	struct tb_action a = parse(rules, 20, &cfa, &ret, &epi);

	if (ret != 1 || a.kind != TB_A_UPDATE_SP_POP || a.sp != sp ||
	    a.regs != regs || cfa != cfa_after || a.off != 20)
		th_fail(__FILE__, line, "%s: ret %d kind %d sp %d regs %x cfa %d",
			rules, ret, a.kind, a.sp, a.regs, cfa);
}

#define PUSH(rules, prev, sp, regs, cfa) \
	check_push(rules, prev, sp, mask_of regs, cfa, __LINE__)

TEST(parser_push_or_sub_sp)
{
	PUSH(".cfa: sp 4 +", 0, 4, (REGS(0)) & ~1u, 4);
	PUSH(".cfa: sp 4 + .ra: .cfa -4 + ^", 0, 0, (REGS(14)), 4);
	PUSH(".cfa: sp 8 + .ra: .cfa -4 + ^", 0, 4, (REGS(14)), 8);
	PUSH(".cfa: sp 12 + .ra: .cfa -4 + ^ r4: .cfa -12 + ^ r7: .cfa -8 + ^",
	     0, 0, (REGS(4, 7, 14)), 12);
	PUSH(".cfa: sp 16 + .ra: .cfa -4 + ^ r4: .cfa -12 + ^ r7: .cfa -8 + ^",
	     0, 4, (REGS(4, 7, 14)), 16);
	PUSH("r4: .cfa -8 + ^ r7: .cfa -4 + ^", 0, 0, (REGS(4, 7)), 0);
	PUSH(".cfa: sp 8 + r4: .cfa -8 + ^ r7: .cfa -4 + ^", 0, 0,
	     (REGS(4, 7)), 8);
	PUSH("r10: .cfa -8 + ^ r7: .cfa -4 + ^", 0, 0, (REGS(7, 10)), 0);
	PUSH(".cfa: sp 16 + .ra: .cfa -4 + ^ r3: .cfa -16 + ^ r4: .cfa -12 + ^ r5: .cfa -8 + ^",
	     0, 4, (REGS(4, 5, 14)), 16);
}

TEST(parser_vpush_and_store_sp)
{
	s32 cfa = 24;
	int ret;
	bool epi;
	struct tb_action a;

	a = parse(".cfa: sp 40 + unnamed_register264: .cfa -40 + ^ unnamed_register265: .cfa -32 + ^",
		  20, &cfa, &ret, &epi);
	CHECK(ret == 1 && a.kind == TB_A_UPDATE_SP_POP && a.sp == 16 &&
	      !a.regs && cfa == 40);
	cfa = 24;
	a = parse("unnamed_register264: .cfa -40 + ^ unnamed_register265: .cfa -32 + ^",
		  20, &cfa, &ret, &epi);
	CHECK(ret == 1 && a.kind == TB_A_NO_ACTION && cfa == 24);
	cfa = 12;
	a = parse(".cfa: r7 8 +", 20, &cfa, &ret, &epi);
	CHECK(ret == 1 && a.kind == TB_A_RESTORE_SP && a.reg == 7 &&
	      a.sp == -4 && cfa == 8 && !epi);
}

/* ---- _TestParseAddressCfi ---- */

TEST(parse_address_cfi)
{
	s32 cfa = 100;
	int ret;
	bool epi;
	struct tb_action a;

	a = parse(".cfa: sp 100 + .ra: .cfa -4 + ^", 0x300, &cfa, &ret, &epi);
	CHECK(ret == 1 && a.off == 0x300 && !epi && cfa == 100);
	/* Unhandled: an expression rule no parser takes; CFA kept. */
	a = parse(".cfa: sp 8 + .ra: .cfa 4 - ^", 0x300, &cfa, &ret, &epi);
	CHECK(ret == 0 && cfa == 100);
	/* Epilogue: the CFA drops. */
	a = parse(".cfa: sp 8 +", 0x300, &cfa, &ret, &epi);
	CHECK(ret == 1 && epi && cfa == 8);
	/* Precedence: the null parser wins over push for its exact text. */
	cfa = 0;
	a = parse(".cfa: sp 0 + .ra: lr", 0, &cfa, &ret, &epi);
	CHECK(ret == 1 && a.kind == TB_A_RETURN_TO_LR);
	(void)a;
}

/* ---- _TestGenerateUnwinds ---- */

static int convert(const char *sym, struct tb_func *out, struct tb_notes *n,
		   char *err)
{
	struct tb_input in = { 0 };
	FILE *f = text(sym);
	int ret = -2;

	if (!tb_read_breakpad(f, &in, err, 128) && in.n == 1)
		ret = tb_convert_compat(&in.funcs[0], out, n, err, 128);
	fclose(f);
	tb_input_free(&in);
	return ret;
}

TEST(generate_unwinds)
{
	struct tb_func out;
	struct tb_notes notes = { 0 };
	char err[128];

	CHECK_EQ_U32(convert("STACK CFI INIT 100 400 .cfa: sp 0 + .ra: lr\n"
			     "STACK CFI 300 .cfa: sp 0 + .ra: lr\n",
			     &out, &notes, err), 1);
	CHECK(out.npairs == 2 && out.pairs[0].off == 0x200 &&
	      out.pairs[1].off == 0);
	free(out.pairs);
	/* An unhandled row is dropped (and noted), the function kept. */
	CHECK_EQ_U32(convert("STACK CFI INIT 100 400 .cfa: sp 0 + .ra: lr\n"
			     "STACK CFI 200 .cfa: sp 8 + .ra: .cfa 4 - ^\n"
			     "STACK CFI 300 .cfa: sp 4 + .ra: .cfa -4 + ^\n",
			     &out, &notes, err), 1);
	CHECK(out.npairs == 2 && out.pairs[0].off == 0x200);
	CHECK(notes.n == 1 && notes.v[0].reason == TB_N_UNPARSED &&
	      notes.v[0].addr == 0x200);
	free(out.pairs);
	notes.n = 0;
	/* The epilogue row ends processing. */
	CHECK_EQ_U32(convert("STACK CFI INIT 100 400 .cfa: sp 0 + .ra: lr\n"
			     "STACK CFI 200 .cfa: sp 8 + .ra: .cfa -4 + ^\n"
			     "STACK CFI 300 .cfa: sp 0 +\n"
			     "STACK CFI 302 .cfa: sp 8 +\n",
			     &out, &notes, err), 1);
	CHECK(out.npairs == 2 && out.pairs[0].off == 0x100);
	CHECK(notes.n == 1 && notes.v[0].reason == TB_N_EPILOGUE);
	free(out.pairs);
	/* The first action must be return-to-lr at offset 0. */
	CHECK_EQ_U32(convert("STACK CFI INIT 100 400 .cfa: sp 8 + .ra: .cfa 4 - ^\n"
			     "STACK CFI 300 .cfa: sp 0 + .ra: lr\n",
			     &out, &notes, err), (u32)-1);
	free(notes.v);
}

TEST(worked_example_5_9)
{
	struct tb_func out;
	struct tb_notes notes = { 0 };
	char err[128];

	CHECK_EQ_U32(convert("STACK CFI INIT 1000 20 .cfa: sp 0 + .ra: lr\n"
			     "STACK CFI 1002 .cfa: sp 16 + .ra: .cfa -4 + ^ r4: .cfa -16 + ^ r5: .cfa -12 + ^ r7: .cfa -8 + ^\n"
			     "STACK CFI 1004 .cfa: r7 8 +\n",
			     &out, &notes, err), 1);
	CHECK_EQ_U32(out.npairs, 3);
	CHECK_EQ_U32(out.pairs[0].seq.len, 5);
	CHECK_MEM(out.pairs[0].seq.b, BYTES(0x97, 0x41, 0x84, 0x0b, 0xb0), 5);
	CHECK_MEM(out.pairs[1].seq.b, BYTES(0x84, 0x0b, 0xb0), 3);
	CHECK_EQ_U32(out.pairs[2].seq.len, 1);
	free(out.pairs);
	free(notes.v);
}

/* ---- _TestEncodeUnwindInstructionTable ---- */

static struct tb_uit_seq useq(const u8 *b, u32 n, u32 count)
{
	struct tb_uit_seq s = { .count = count };

	tb_seq_put(&s.seq, b, n);
	return s;
}

static long at(const struct tb_uit_seq *v, const u8 *b, u32 n)
{
	struct tb_uit_seq s = useq(b, n, 0);

	return tb_uit_lookup(v, 3, &s.seq);
}

TEST(uit_order)
{
	struct tb_uit_seq v[3];
	struct tb_uit_seq one = useq(BYTES(0x03), 1, 1);

	CHECK_EQ_U32(tb_order_uit(&one, 1), 1);
	CHECK_EQ_U32(one.offset, 0);

	v[0] = useq(BYTES(0x01, 0x02, 0x03), 3, 1);
	v[1] = useq(BYTES(0x00, 0x03), 2, 1);
	v[2] = useq(BYTES(0x03), 1, 1);
	CHECK_EQ_U32(tb_order_uit(v, 3), 6);
	CHECK_EQ_U32(at(v, BYTES(0x03), 1), 0);
	CHECK_EQ_U32(at(v, BYTES(0x00, 0x03), 2), 1);
	CHECK_EQ_U32(at(v, BYTES(0x01, 0x02, 0x03), 3), 3);

	v[0] = useq(BYTES(0x03), 1, 1);
	v[1] = useq(BYTES(0x00, 0x03), 2, 2);
	v[2] = useq(BYTES(0x01, 0x02, 0x03), 3, 3);
	tb_order_uit(v, 3);
	CHECK_EQ_U32(at(v, BYTES(0x03), 1), 0);
	CHECK_EQ_U32(at(v, BYTES(0x01, 0x02, 0x03), 3), 1);
	CHECK_EQ_U32(at(v, BYTES(0x00, 0x03), 2), 4);
}

/* ---- _TestFunctionOffsetTable ---- */

static struct tb_uit_seq fot_uit[3];
static struct tb_pair seq1[2], seq2[2];

static void fot_setup(void)
{
	fot_uit[0] = useq(BYTES(0x03), 1, 0);
	fot_uit[0].offset = 52;
	fot_uit[1] = useq(BYTES(0x01, 0x03), 2, 0);
	fot_uit[1].offset = 50;
	fot_uit[2] = useq(BYTES(0x02, 0x03), 2, 0);
	fot_uit[2].offset = 80;
	seq1[0] = (struct tb_pair){ 0x20, fot_uit[1].seq };
	seq1[1] = (struct tb_pair){ 0, fot_uit[0].seq };
	seq2[0] = (struct tb_pair){ 0x400, fot_uit[2].seq };
	seq2[1] = (struct tb_pair){ 0, fot_uit[0].seq };
}

TEST(fot_entries)
{
	struct tb_pair single[2];
	struct tb_func f[3] = { { .npairs = 2, .pairs = single } };
	u32 index[3];
	char err[128];
	u8 *fot;
	long n;

	fot_setup();
	single[0] = (struct tb_pair){ 0x400, fot_uit[1].seq };
	single[1] = (struct tb_pair){ 0, fot_uit[0].seq };
	n = tb_build_fot(f, 1, fot_uit, 3, false, 0, &fot, index, err, 128);
	CHECK_EQ_U32(n, 5);
	CHECK_MEM(fot, BYTES(0x80, 0x04, 0x32, 0x00, 0x34), 5);
	CHECK_EQ_U32(index[0], 0);
	free(fot);

	f[0] = (struct tb_func){ .npairs = 2, .pairs = seq1 };
	f[1] = (struct tb_func){ .npairs = 2, .pairs = seq2 };
	f[2] = f[0];
	for (u32 k = 2; k <= 3; k++) {
		n = tb_build_fot(f, k, fot_uit, 3, false, 0, &fot, index, err, 128);
		CHECK_EQ_U32(n, 9);
		CHECK_MEM(fot, BYTES(0x10, 0x32, 0x00, 0x34, 0x80, 0x04, 0x50,
				     0x00, 0x34), 9);
		CHECK_EQ_U32(index[0], 0);
		CHECK_EQ_U32(index[1], 4);
		if (k == 3)
			CHECK_EQ_U32(index[2], 0);
		free(fot);
	}
}

TEST(fot_u16_limit)
{
	/* 70000 distinct one-pair lists of 2-3 bytes each: over 64 KiB. */
	u32 n = 70000;
	struct tb_func *f = calloc(n, sizeof(*f));
	struct tb_pair *p = calloc(n, sizeof(*p));
	u32 *index = calloc(n, sizeof(u32));
	struct tb_uit_seq u = useq(BYTES(0xb0), 1, 1);
	char err[256] = "";
	u8 *fot = NULL;
	long size;

	for (u32 i = 0; i < n; i++) {
		p[i] = (struct tb_pair){ 2 * (i + 1), u.seq };
		f[i] = (struct tb_func){ .npairs = 1, .pairs = &p[i] };
	}
	size = tb_build_fot(f, n, &u, 1, true, 0, &fot, index, err, sizeof(err));
	CHECK(size < 0);
	CHECK(strstr(err, "65535") != NULL);
	free(fot);
	/* 20000 short lists and one huge one: fits only if it goes last. */
	n = 20001;
	free(p);
	p = calloc(n + 40000, sizeof(*p));
	for (u32 i = 0; i < 20000; i++) {
		p[i] = (struct tb_pair){ 2 * (i + 1), u.seq };
		f[i + 1] = (struct tb_func){ .npairs = 1, .pairs = &p[i] };
	}
	for (u32 i = 0; i < 40000; i++)
		p[20000 + i] = (struct tb_pair){ 2 * (40000 - i), u.seq };
	f[0] = (struct tb_func){ .npairs = 40000, .pairs = &p[20000] };
	fot = NULL;
	size = tb_build_fot(f, n, &u, 1, false, 0, &fot, index, err, sizeof(err));
	CHECK(size < 0);
	free(fot);
	fot = NULL;
	size = tb_build_fot(f, n, &u, 1, true, 0, &fot, index, err, sizeof(err));
	CHECK(size > 0xffff);
	for (u32 i = 0; i < n; i++)
		if (index[i] > 0xffff)
			th_fail(__FILE__, __LINE__, "list %u at %u", i, index[i]);
	CHECK(index[0] > index[1]);
	free(fot);
	free(f);
	free(p);
	free(index);
}

/* ---- _TestEncodePageTableAndFunctionTable ---- */

TEST(page_and_function_tables)
{
	struct tb_func f[3] = {
		{ .addr = 0 }, { .addr = 0x8000 << 1 },
		{ .addr = (1 << 17) + (0x8000 << 1) },
	};
	u32 index[3] = { 0x100, 0x200, 0x300 }, *pt, npt, nft;
	u8 *ft;
	const u8 want[] = { 0, 0, 0, 1, 0, 0x80, 0, 2, 0, 0x80, 0, 3 };

	CHECK(!tb_build_pages(f, 3, 0, index, &pt, &npt, &ft, &nft));
	CHECK_EQ_U32(npt, 2);
	CHECK(pt[0] == 0 && pt[1] == 2);
	CHECK_EQ_U32(nft, 3);
	CHECK_MEM(ft, want, 12);
	free(pt);
	free(ft);
	f[2].addr = (4 << 17) + (0x8000 << 1);
	CHECK(!tb_build_pages(f, 3, 0, index, &pt, &npt, &ft, &nft));
	CHECK_EQ_U32(npt, 5);
	for (u32 i = 1; i < 5; i++)
		CHECK_EQ_U32(pt[i], 2);
	CHECK_MEM(ft, want, 12);
	free(pt);
	free(ft);
}

/* ---- _TestEncodeUnwindInfo: header and concatenation ---- */

TEST(encode_tables_header)
{
	/* One page, two functions, a 2-byte FOT and a 3-byte UIT. */
	struct tb_pair a[1] = { { 0, { 3, { 0x00, 0xa8, 0xb0 } } } };
	struct tb_pair b[1] = { { 0, { 3, { 0x00, 0xa8, 0xb0 } } } };
	struct tb_func f[2] = { { .addr = 0x10, .size = 0x10, .npairs = 1,
				  .pairs = a },
				{ .addr = 0x20, .size = 0x10, .npairs = 1,
				  .pairs = b } };
	struct tb_layout_opts o = { .chrome_compat = true, .text_start = 0x10 };
	struct tb_blob *blobs, blob;
	u32 nblobs;
	char err[128];
	const u32 want[8] = { 32, 1, 36, 3, 48, 4, 52, 5 };

	/* f[0], f[1] share a list; the refuse filler at 0x30 adds one. */
	CHECK(!tb_layout(f, 2, &o, &blobs, &nblobs, NULL, err, sizeof(err)));
	CHECK_EQ_U32(nblobs, 1);
	blob = blobs[0];
	free(blobs);
	CHECK_EQ_U32(blob.size, 32 + 4 + 12 + 4 + 5);
	for (int i = 0; i < 8; i++)
		CHECK_EQ_U32(((u32)blob.data[4 * i]) |
			     ((u32)blob.data[4 * i + 1] << 8), want[i]);
	/* UIT: "80 00" and "00 a8 b0"; the first has count/len 1/2 against
	 * 2/3, so it comes last. */
	CHECK_MEM(blob.data + 52, BYTES(0x00, 0xa8, 0xb0, 0x80, 0x00), 5);
	CHECK_MEM(blob.data + 48, BYTES(0x00, 0x00, 0x00, 0x03), 4);
	free(blob.data);
}

/* ---- split tables: parts over consecutive ranges ---- */

#define SPLIT_TEXT	0x10000
#define SPLIT_N		3000
#define SPLIT_BIG	1499	/* spans pages, ends the first half */

/* The UIT bytes the parts give for @pc, or NULL. */
static const u8 *split_lookup(const struct tb_blob *b, u32 n,
			      const struct uw2_table *t, u32 pc)
{
	u32 instr, fot, uit;

	for (u32 k = 0; k < n; k++) {
		if (pc < b[k].text_start || pc - b[k].text_start >= b[k].text_size)
			continue;
		if (!uw2_lookup_function(&t[k], pc - b[k].text_start, &instr,
					 &fot) ||
		    !uw2_lookup_sequence(&t[k], fot, instr, &uit))
			return NULL;
		return t[k].uit + uit;
	}
	return NULL;
}

TEST(layout_split_parts)
{
	struct tb_func *f = calloc(SPLIT_N, sizeof(*f));
	struct tb_pair *p = calloc(2 * SPLIT_N, sizeof(*p));
	struct tb_layout_opts o = { .text_start = SPLIT_TEXT,
				    .fot_index_max = 400 };
	struct uw2_table *t;
	struct uw2_verror verr;
	struct tb_blob *b;
	u32 nb, at = SPLIT_TEXT;
	char err[256];

	for (u32 i = 0; i < SPLIT_N; i++) {
		u32 size = i == SPLIT_BIG ? 0x50000 : 0x60;

		/* distinct lists: a push of i % 60 words at i % 40 halfwords */
		p[2 * i] = (struct tb_pair){ 2 * (1 + i % 40),
					     { 2, { i % 60, 0xb0 } } };
		p[2 * i + 1] = (struct tb_pair){ 0, { 1, { 0xb0 } } };
		f[i] = (struct tb_func){ .addr = at, .size = size, .npairs = 2,
					 .pairs = &p[2 * i] };
		at += size;
	}
	o.text_size = at - SPLIT_TEXT;
	CHECK(!tb_layout(f, SPLIT_N, &o, &b, &nb, NULL, err, sizeof(err)));
	CHECK(nb > 2);
	t = calloc(nb, sizeof(*t));
	/* consecutive ranges from the text start to its end */
	CHECK_EQ_U32(b[0].text_start, SPLIT_TEXT);
	for (u32 k = 0; k < nb; k++) {
		CHECK(uw2_table_init(&t[k], b[k].data, b[k].size, &verr) ==
		      UW2_OK);
		CHECK(b[k].fot_size <= 400 + 8);
		CHECK_EQ_U32(b[k].text_start + b[k].text_size,
			     k + 1 < nb ? b[k + 1].text_start : at);
	}
	/* every row comes back through the part holding it */
	for (u32 i = 0; i < SPLIT_N; i++) {
		const u8 *s0 = split_lookup(b, nb, t, f[i].addr);
		const u8 *s1 = split_lookup(b, nb, t, f[i].addr +
					    f[i].pairs[0].off);
		const u8 *last = split_lookup(b, nb, t,
					      f[i].addr + f[i].size - 2);

		if (!s0 || !s1 || !last || s0[0] != 0xb0 ||
		    s1[0] != (u8)(i % 60) || s1[1] != 0xb0 ||
		    last[0] != (u8)(i % 60))
			th_fail(__FILE__, __LINE__, "function %u at 0x%x", i,
				f[i].addr);
	}
	/* the big function keeps its rule on every page it spans */
	for (u32 pc = f[SPLIT_BIG].addr + 0x100;
	     pc < f[SPLIT_BIG].addr + f[SPLIT_BIG].size; pc += 0x8000) {
		const u8 *s = split_lookup(b, nb, t, pc);

		if (!s || s[0] != SPLIT_BIG % 60)
			th_fail(__FILE__, __LINE__, "pc 0x%x", pc);
	}
	tb_blobs_free(b, nb);
	free(t);
	/* --chrome-compat makes one table and says why it cannot */
	o.chrome_compat = true;
	CHECK(tb_layout(f, SPLIT_N, &o, &b, &nb, NULL, err, sizeof(err)));
	CHECK(strstr(err, "--chrome-compat makes one table") != NULL);
	free(f);
	free(p);
}

/* ---- the .uwt container with parts ---- */

TEST(uwt_parts_round_trip)
{
	static const u8 b0[] = { 1, 2, 3 }, b1[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12 },
			b2[] = { 13 };
	struct uwt_meta m = { .text_addr = 0x1000, .text_size = 0x3000,
			      .build_id_len = 2, .build_id = { 0xab, 0xcd },
			      .nsegs = 1, .segs = { { 0, 0, 0x5000, 0x5000, 5 } } };
	struct uwt_part in[3] = { { 0x1000, 0x1000, b0, 3 },
				  { 0x2000, 0x800, b1, 9 },
				  { 0x2800, 0x1800, b2, 1 } }, out;
	struct uwt_file f;
	u8 *c, *one, *save;
	u32 n, n1, pl;
	char err[256];

	c = uwt_build_parts(&m, in, 3, &n);
	CHECK(c != NULL);
	CHECK_EQ_U32(c[8], UWT_VERSION_PARTS);
	CHECK(!uwt_parse(c, n, &f, err, sizeof(err)));
	CHECK_EQ_U32(f.nparts, 3);
	CHECK_EQ_U32(f.meta.build_id[1], 0xcd);
	for (u32 i = 0; i < 3; i++) {
		uwt_part(&f, i, &out);
		CHECK_EQ_U32(out.text_addr, in[i].text_addr);
		CHECK_EQ_U32(out.text_size, in[i].text_size);
		CHECK_EQ_U32(out.blob_size, in[i].blob_size);
		CHECK_MEM(out.blob, in[i].blob, in[i].blob_size);
		CHECK_EQ_U32((u32)(out.blob - c) & 7, 0);
	}
	CHECK(f.blob == c + (c[12] | c[13] << 8));
	/* one part: version 1, the bytes uwt_build() always wrote */
	one = uwt_build(&m, b0, 3, &n1);
	free(uwt_build_parts(&m, (struct uwt_part[]){ { 0x1000, 0x3000, b0, 3 } },
			     1, &pl));
	CHECK_EQ_U32(one[8], UWT_VERSION);
	CHECK_EQ_U32(pl, n1);
	CHECK(!uwt_parse(one, n1, &f, err, sizeof(err)));
	CHECK_EQ_U32(f.nparts, 1);
	uwt_part(&f, 0, &out);
	CHECK_EQ_U32(out.text_addr, 0x1000);
	CHECK_EQ_U32(out.text_size, 0x3000);
	CHECK_MEM(out.blob, b0, 3);
	free(one);
	/* a broken part list is refused: each field in turn */
	pl = 16 + 72 + 4 + 20 + 4;	/* the first entry, after the count */
	save = malloc(n);
	memcpy(save, c, n);
	c[pl + 16] = 0x00;		/* part 1 starts inside part 0 */
	c[pl + 17] = 0x18;
	CHECK(uwt_parse(c, n, &f, err, sizeof(err)));
	CHECK(strstr(err, "part list") != NULL);
	memcpy(c, save, n);
	c[pl + 36] = 0xff;		/* part 2 past the file's text range */
	CHECK(uwt_parse(c, n, &f, err, sizeof(err)));
	memcpy(c, save, n);
	c[pl + 24]++;			/* part 1's blob not 8-aligned */
	CHECK(uwt_parse(c, n, &f, err, sizeof(err)));
	memcpy(c, save, n);
	c[pl + 44] = 0xff;		/* part 2's blob past the file */
	CHECK(uwt_parse(c, n, &f, err, sizeof(err)));
	memcpy(c, save, n);
	c[pl - 4] = 1;			/* a count of one is version 1's job */
	CHECK(uwt_parse(c, n, &f, err, sizeof(err)));
	CHECK(uwt_parse(c, pl + 8, &f, err, sizeof(err)));	/* truncated */
	free(save);
	free(c);
}
