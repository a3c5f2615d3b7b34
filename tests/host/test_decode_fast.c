// SPDX-License-Identifier: GPL-2.0
/*
 * Our decoder (table/decode_fast.c) against capstone 4: every form it
 * gives must be the one capstone's detail packs into (tb_dec_pack), field
 * by field.  Inputs: every 16-bit Thumb encoding, outside IT blocks and
 * inside them; every Thumb halfword and ARM word of the executable
 * sections of real files (the test libc, the lua builds, the stock root's
 * libc and libstdc++, chromium's first 16 MiB: those absent are named as
 * skipped), and their Thumb code decoded in sequence, IT blocks and all,
 * as capstone's handle carries them; pseudo-random words in random
 * blocks.  Inside a block capstone's handle is brought into the block by
 * an IT (tb_it_encode()); after our decoder's IT, and where asked after
 * any instruction, the block it leaves is checked against the conditions
 * capstone gives the instructions that follow.  DECODE_FAST_FILES
 * (colon-separated) replaces the file list.
 */
#include <stdlib.h>
#include "harness.h"
#include "arm_code.h"
#include "table/decode_fast.h"
#include "table/decode_once.h"

struct cmp {
	csh cs[2];
	cs_insn *in;
	uint64_t tried, ours, diff, in_block;
	u32 shown;
	uint64_t miss[2][ARM_INS_ENDING];	/* capstone's ids we left to
						 * it, ARM and Thumb */
	bool shown_id[ARM_INS_ENDING];	/* a difference of it shown */
	uint64_t limit;		/* bytes of a section compared */
};

static void cmp_open(struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	th_cs_open(c->cs, &c->in);
}

static void cmp_close(struct cmp *c)
{
	th_cs_close(c->cs, c->in);
}

static void show_form(const char *who, const struct tb_dec_form *f)
{
	const struct tb_dec_rec *r = &f->rec;

	fprintf(stderr, "  %s: id %u size %u ops %u cc %u uf %u wb %u um %u mb %u vd %u cm %u cf %u vs %u regs",
		who, r->id, r->size, r->op_count, r->cc, r->update_flags,
		r->writeback, r->usermode, r->mem_barrier, r->vector_data,
		r->cps_mode, r->cps_flag, r->vector_size);
	for (u32 i = 0; i < (u32)r->nread + r->nwrite + r->ngroups; i++)
		fprintf(stderr, "%s%u", i == r->nread ? " w " :
			i == (u32)r->nread + r->nwrite ? " g " : " ", f->reg[i]);
	fprintf(stderr, "\n");
	for (u32 i = 0; i < r->op_count; i++) {
		const struct tb_dec_op *o = &f->op[i];
		u32 raw0, raw1;

		memcpy(&raw0, o->raw, 4);
		memcpy(&raw1, o->raw + 4, 4);
		fprintf(stderr, "    op%u type %u acc %u sub %u sh %u/%u lane %d vi %d raw %08x %08x\n",
			i, o->type, o->access, o->subtracted, o->shift.type,
			o->shift.value, o->neon_lane, o->vector_index, raw0, raw1);
	}
}

static bool same(const struct tb_dec_form *a, const struct tb_dec_form *b)
{
	const struct tb_dec_rec *x = &a->rec, *y = &b->rec;

	if (memcmp(x, y, sizeof(*x)))
		return false;
	if (memcmp(a->reg, b->reg, x->nread + x->nwrite + x->ngroups))
		return false;
	for (u32 i = 0; i < x->op_count; i++) {
		const struct tb_dec_op *p = &a->op[i], *q = &b->op[i];

		if (p->type != q->type || p->access != q->access ||
		    p->subtracted != q->subtracted ||
		    p->shift.type != q->shift.type ||
		    p->shift.value != q->shift.value ||
		    p->neon_lane != q->neon_lane ||
		    p->vector_index != q->vector_index ||
		    memcmp(p->raw, q->raw, sizeof(p->raw)))
			return false;
	}
	return true;
}

/* Empty capstone's IT state, then enter block @it (NULL: none). */
static void cs_block(struct cmp *c, const struct tb_it *it)
{
	static const u8 none[4];
	cs_insn *x = NULL;
	u32 h;
	u8 b[2];
	const u8 *p = b;
	size_t n = 2;
	uint64_t at = 0;

	if (cs_disasm(c->cs[1], none, 0, 0, 1, &x))
		cs_free(x, 1);
	if (!it || !it->n)
		return;
	h = tb_it_encode(it);
	b[0] = (u8)h;
	b[1] = (u8)(h >> 8);
	CHECK(cs_disasm_iter(c->cs[1], &p, &n, &at, c->in) &&
	      c->in->id == ARM_INS_IT);
}

/*
 * The block capstone's handle is in, from the conditions it gives the
 * next four "mov r0, r0" (ARM_CC_AL past the block): @it's?  Moves the
 * handle on.
 */
static bool cs_in_block(struct cmp *c, const struct tb_it *it)
{
	static const u8 mov[2] = { 0x00, 0x46 };

	for (u32 i = 0; i < 4; i++) {
		const u8 *p = mov;
		size_t n = 2;
		uint64_t at = 0;

		if (!cs_disasm_iter(c->cs[1], &p, &n, &at, c->in) ||
		    c->in->detail->arm.cc != (i < it->n ? it->cc[i] + 1u :
					      (u32)ARM_CC_AL))
			return false;
	}
	return true;
}

/* A difference (@ok: capstone decoded it, into @theirs). */
static void differ(struct cmp *c, bool thumb, const u8 *b, size_t size,
		   u32 addr, bool ok, const struct tb_dec_form *theirs,
		   const struct tb_dec_form *mine, const char *what)
{
	c->diff++;
	if (c->shown++ >= 40 || c->shown_id[ok ? c->in->id : 0])
		return;
	c->shown_id[ok ? c->in->id : 0] = true;
	fprintf(stderr, "%s %02x%02x%02x%02x at 0x%x%s: %s %s\n",
		thumb ? "thumb" : "arm", b[0], b[1], size > 2 ? b[2] : 0,
		size > 3 ? b[3] : 0, addr, what,
		ok ? c->in->mnemonic : "(capstone: none)", ok ? c->in->op_str : "");
	if (ok)
		show_form("capstone", theirs);
	if (mine)
		show_form("ours", mine);
}

/*
 * Our decoder on what capstone decoded into c->in (@ok) from @b, in
 * block @it, which moves on; @probe: check the block it leaves against
 * capstone's handle (always after an IT).  Whether ours decoded it.
 */
static bool cmp_ours(struct cmp *c, bool thumb, const u8 *b, size_t size,
		     u32 addr, bool ok, struct tb_it *it, bool probe)
{
	struct tb_dec_form mine, theirs;
	bool in = it->n;

	memset(&mine, 0x5a, sizeof(mine));
	memset(&theirs, 0xa5, sizeof(theirs));
	c->tried++;
	ok = ok && tb_dec_pack(c->in, &theirs);
	if (!tb_fast_decode(thumb, b, size, addr, it, &mine)) {
		if (ok)
			c->miss[thumb][c->in->id]++;
		return false;
	}
	c->ours++;
	c->in_block += in;
	if (!ok || !same(&mine, &theirs))
		differ(c, thumb, b, size, addr, ok, &theirs, &mine,
		       in ? " in a block" : "");
	else if ((probe || c->in->id == ARM_INS_IT) && !cs_in_block(c, it))
		differ(c, thumb, b, size, addr, ok, &theirs, &mine,
		       " (the block left)");
	return true;
}

/* One instruction both ways, capstone's handle brought into block @it. */
static void cmp_in(struct cmp *c, bool thumb, const u8 *b, size_t size,
		   u32 addr, struct tb_it *it, bool probe)
{
	const u8 *p = b;
	size_t left = size;
	uint64_t at = addr;
	bool ok;

	if (thumb)
		cs_block(c, it);
	ok = cs_disasm_iter(c->cs[thumb], &p, &left, &at, c->in);
	cmp_ours(c, thumb, b, size, addr, ok, it, probe);
}

/* One instruction both ways, outside any IT block. */
static void cmp_one(struct cmp *c, bool thumb, const u8 *b, size_t size,
		    u32 addr)
{
	struct tb_it none = { 0 };

	cmp_in(c, thumb, b, size, addr, &none, false);
}

/* The ids of set @t capstone decoded most often for us, into @top, @id. */
static void most_missed(const struct cmp *c, int t, uint64_t *top, u32 *id)
{
	for (u32 i = 0; i < ARM_INS_ENDING; i++)
		for (int k = 0; k < 8; k++)
			if (c->miss[t][i] > top[k]) {
				memmove(top + k + 1, top + k, (7 - k) * sizeof(*top));
				memmove(id + k + 1, id + k, (7 - k) * sizeof(*id));
				top[k] = c->miss[t][i];
				id[k] = i;
				break;
			}
}

static void cmp_report(const struct cmp *c, const char *what)
{
	printf("%s: %llu decoded, %llu by ours (%llu in IT blocks), %llu different\n",
	       what, (unsigned long long)c->tried, (unsigned long long)c->ours,
	       (unsigned long long)c->in_block, (unsigned long long)c->diff);
	for (int t = 0; t < 2; t++) {
		uint64_t top[8] = { 0 };
		u32 id[8] = { 0 };

		most_missed(c, t, top, id);
		printf("  left to capstone most (%s):", t ? "Thumb" : "ARM");
		for (int k = 0; k < 8 && top[k]; k++)
			printf(" %s %llu", cs_insn_name(c->cs[1], id[k]),
			       (unsigned long long)top[k]);
		printf("\n");
	}
}

TEST(thumb16_every_encoding)
{
	struct cmp c;
	u8 b[4] = { 0 };

	cmp_open(&c);
	for (u32 h = 0; h < 0x10000; h++) {
		b[0] = (u8)h;
		b[1] = (u8)(h >> 8);
		cmp_one(&c, true, b, 2, 0x10000);
	}
	cmp_report(&c, "thumb 16-bit");
	CHECK(c.diff == 0);
	CHECK(c.ours > 50000);
	cmp_close(&c);
}

/* A block of @n (1-4) instructions from @r's bits: condition, then/else. */
static struct tb_it block_of(u32 r, u32 n)
{
	struct tb_it it = { .n = (u8)n };
	u32 cond = r % 14;

	for (u32 i = 0; i < n; i++)
		it.cc[i] = (u8)(i && (r >> (8 + i) & 1) ? cond ^ 1 : cond);
	return it;
}

/* Every 16-bit encoding inside blocks: the last of one, and the first of four. */
TEST(thumb16_in_blocks)
{
	struct cmp c;
	u8 b[4] = { 0 };

	cmp_open(&c);
	for (u32 h = 0; h < 0x10000; h++) {
		for (u32 n = 1; n <= 4; n += 3) {
			struct tb_it it = block_of(h * 7 + n, n);

			b[0] = (u8)h;
			b[1] = (u8)(h >> 8);
			cmp_in(&c, true, b, 2, 0x10000, &it, true);
		}
	}
	cmp_report(&c, "thumb 16-bit in IT blocks");
	CHECK(c.diff == 0);
	CHECK(c.in_block > 100000);
	cmp_close(&c);
}

/* xorshift: the same words on every run */
static u32 next(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

TEST(random_words)
{
	struct cmp c;
	u32 s = 0x2545f491, n = getenv("DECODE_FAST_RANDOM") ?
		(u32)atoi(getenv("DECODE_FAST_RANDOM")) : 2000000;
	u8 b[4];

	cmp_open(&c);
	for (u32 i = 0; i < n; i++) {
		u32 w = next(&s);

		u32 r = next(&s);
		struct tb_it it = block_of(r, (i & 1) ? r >> 12 & 3 : 0);

		/* half the Thumb words 32-bit ones; a quarter in a block */
		if ((i & 3) == 3)
			w |= 0xe800;
		memcpy(b, &w, 4);
		cmp_in(&c, i & 1, b, 4, 0x10000 + (w & 0xfffc), &it, false);
	}
	cmp_report(&c, "random words");
	CHECK(c.diff == 0);
	cmp_close(&c);
}

/*
 * @b's Thumb code decoded in sequence on one handle, IT blocks and all,
 * as a walk over it: our decoder in the block capstone's handle is in,
 * followed as tb_dec does (tb_it_follow()).  Where it cannot be followed
 * both start again outside any block.
 */
static void cmp_sweep(struct cmp *c, const u8 *b, uint64_t len, u32 addr)
{
	struct tb_it it = { 0 };

	cs_block(c, NULL);
	for (uint64_t o = 0; o + 2 <= len;) {
		struct tb_it mine = it;
		const u8 *p = b + o;
		size_t left = len - o;
		uint64_t at = addr + o;
		u32 h = (u32)p[0] | (u32)p[1] << 8;
		bool ok = cs_disasm_iter(c->cs[1], &p, &left, &at, c->in);
		u32 size = ok ? c->in->size : 2;
		unsigned int id = ok ? c->in->id : 0;

		/* no probe: the handle goes on as the walk does */
		if (!(ok && id == ARM_INS_IT) &&
		    cmp_ours(c, true, b + o, len - o, addr + (u32)o, ok, &mine,
			     false) && ok) {
			struct tb_it want = it;

			if (tb_it_follow(&want, id, h) &&
			    (want.n != mine.n ||
			     memcmp(want.cc, mine.cc, want.n)))
				differ(c, true, b + o, len - o, addr + (u32)o,
				       false, NULL, NULL, " (the block left)");
		}
		if (ok && !tb_it_follow(&it, id, h)) {
			memset(&it, 0, sizeof(it));
			cs_block(c, NULL);
		}
		o += size;
	}
}

/* Every Thumb halfword and ARM word of one section, up to c->limit. */
static void cmp_code(void *arg, const u8 *b, uint64_t len, u32 addr)
{
	struct cmp *c = arg;

	for (uint64_t o = 0; o + 2 <= len && o < c->limit; o += 2) {
		cmp_one(c, true, b + o, len - o, addr + (u32)o);
		if (!(o & 3) && len - o >= 4)
			cmp_one(c, false, b + o, len - o, addr + (u32)o);
	}
	cmp_sweep(c, b, len < c->limit ? len : c->limit, addr);
}

/* Every Thumb halfword and ARM word of @path's executable sections. */
static void cmp_file(const char *path, uint64_t limit)
{
	struct cmp c;

	cmp_open(&c);
	c.limit = limit;
	if (th_exec_sections(path, cmp_code, &c)) {
		cmp_report(&c, path);
		CHECK(c.diff == 0);
	}
	cmp_close(&c);
}

TEST(real_files)
{
	const char *env = getenv("DECODE_FAST_FILES");
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	static const char *const rel[] = {
		"arm/root/lib/arm-linux-gnueabihf/libc.so.6",
		"arm/lua-gcc/lua", "arm/lua-clang/lua",
		"stock/root/usr/lib/arm-linux-gnueabihf/libstdc++.so.6",
		"chromium-stock/root/usr/lib/chromium/chromium",
	};
	char path[4096];

	if (env) {
		char *list = strdup(env), *save = NULL;

		for (char *p = strtok_r(list, ":", &save); p;
		     p = strtok_r(NULL, ":", &save))
			cmp_file(p, ~0ull);
		free(list);
		return;
	}
	for (u32 i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", build, rel[i]);
		cmp_file(path, strstr(rel[i], "chromium") ? 16u << 20 : ~0ull);
	}
}

/*
 * What tb_dec_insn() gives, read back as a form (tb_insn_form()), is
 * capstone's packed detail, and its address and size capstone's: on the
 * first visit (decoded, kept) and on the second (the kept form), with
 * @b's code decoded in sequence, IT blocks and all.
 */
struct views {
	struct cmp c;
	uint64_t tried, diff;
};

static void views_pass(struct views *v, struct tb_dec *dec, bool thumb,
		       const u8 *b, uint64_t len, u32 addr)
{
	struct tb_dec_form want, got;
	struct tb_insn in;

	cs_block(&v->c, NULL);
	tb_dec_reset_it(dec);
	for (uint64_t o = 0; o + 2 <= len;) {
		const u8 *p = b + o;
		size_t left = len - o;
		uint64_t at = addr + o;
		bool ok = cs_disasm_iter(v->c.cs[thumb], &p, &left, &at,
					 v->c.in);
		bool mine = tb_dec_insn(dec, thumb, b + o, len - o,
					addr + (u32)o, &in);

		v->tried++;
		if (ok != mine || (ok && (!tb_dec_pack(v->c.in, &want) ||
					  in.address != v->c.in->address ||
					  in.size != v->c.in->size))) {
			v->diff++;
		} else if (ok) {
			tb_insn_form(&in, &got);
			if (!same(&want, &got) && v->diff++ < 5)
				show_form("view", &got);
		}
		o += ok ? v->c.in->size : thumb ? 2 : 4;
	}
}

static void views_code(void *arg, const u8 *b, uint64_t len, u32 addr)
{
	struct views *v = arg;
	struct tb_dec dec;

	CHECK(tb_dec_open(&dec, addr, (u32)(len / 2)) == 0);
	for (int visit = 0; visit < 2; visit++) {
		views_pass(v, &dec, true, b, len, addr);
		views_pass(v, &dec, false, b, len & ~3ull, addr);
	}
	CHECK(dec.nrec > 0);
	tb_dec_close(&dec);
}

TEST(views_are_capstones)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[4096];
	struct views v = { 0 };

	cmp_open(&v.c);
	snprintf(path, sizeof(path), "%s/arm/lua-gcc/lua", build);
	if (!th_exec_sections(path, views_code, &v)) {
		cmp_close(&v.c);
		return;		/* named as skipped */
	}
	printf("%s: %llu instructions, %llu differ\n", path,
	       (unsigned long long)v.tried, (unsigned long long)v.diff);
	CHECK(v.tried > 10000);
	CHECK(v.diff == 0);
	cmp_close(&v.c);
}

/*
 * tb_dec gives an instruction inside a block without its text; the text
 * tb_dec_text() makes of it is capstone's of the same bytes decoded in
 * sequence (here an "ite eq" block of adds, and an add after it).
 */
TEST(text_in_block)
{
	static const u8 code[] = { 0x0c, 0xbf, 0x01, 0x30, 0x02, 0x30,
				   0x03, 0x30 };
	struct tb_dec dec;
	struct cmp c;
	cs_insn *ref = NULL;
	struct tb_insn in, *out = &in;
	size_t n;
	u32 off = 0;
	char buf[256], want[256];

	cmp_open(&c);
	CHECK(tb_dec_open(&dec, 0x10000, 64) == 0);
	n = cs_disasm(c.cs[1], code, sizeof(code), 0x10000, 0, &ref);
	CHECK(n == 4);
	tb_dec_reset_it(&dec);
	for (size_t i = 0; i < n; i++) {
		CHECK(tb_dec_insn(&dec, true, code + off, sizeof(code) - off,
				  0x10000 + off, out));
		tb_dec_text(c.cs[1], out, code + off, sizeof(code) - off, buf,
			    sizeof(buf));
		snprintf(want, sizeof(want), "%s %s", ref[i].mnemonic,
			 ref[i].op_str);
		CHECK_STR(buf, want);
		CHECK(out->detail->arm.cc == ref[i].detail->arm.cc);
		off += out->size;
	}
	cs_free(ref, n);
	tb_dec_close(&dec);
	cmp_close(&c);
}
