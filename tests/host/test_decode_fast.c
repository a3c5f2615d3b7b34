// SPDX-License-Identifier: GPL-2.0
/*
 * Our decoder (table/decode_fast.c) against capstone 4: every form it
 * gives must be the one capstone's detail packs into (tb_dec_pack), field
 * by field.  Inputs: every 16-bit Thumb encoding; every Thumb halfword and
 * ARM word of the executable sections of real files (the test libc, the
 * lua builds, the stock root's libc and libstdc++, chromium's first
 * 16 MiB: those absent are named as skipped); pseudo-random words.
 * DECODE_FAST_FILES (colon-separated) replaces the file list.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "table/decode_fast.h"
#include "table/decode_once.h"

struct cmp {
	csh cs[2];
	cs_insn *in;
	uint64_t tried, ours, diff;
	u32 shown;
	uint64_t miss[2][ARM_INS_ENDING];	/* capstone's ids we left to
						 * it, ARM and Thumb */
	bool shown_id[ARM_INS_ENDING];	/* a difference of it shown */
};

static void cmp_open(struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	for (int t = 0; t < 2; t++) {
		CHECK(cs_open(CS_ARCH_ARM, t ? CS_MODE_THUMB : CS_MODE_ARM,
			      &c->cs[t]) == CS_ERR_OK);
		cs_option(c->cs[t], CS_OPT_DETAIL, CS_OPT_ON);
	}
	c->in = cs_malloc(c->cs[0]);
}

static void cmp_close(struct cmp *c)
{
	cs_free(c->in, 1);
	cs_close(&c->cs[0]);
	cs_close(&c->cs[1]);
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
			i, o->type, o->access, o->subtracted, o->shift_type,
			o->shift_value, o->neon_lane, o->vector_index, raw0, raw1);
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
		    p->shift_type != q->shift_type ||
		    p->shift_value != q->shift_value ||
		    p->neon_lane != q->neon_lane ||
		    p->vector_index != q->vector_index ||
		    memcmp(p->raw, q->raw, sizeof(p->raw)))
			return false;
	}
	return true;
}

/* One instruction both ways: capstone on a handle outside any IT block. */
static void cmp_one(struct cmp *c, bool thumb, const u8 *b, size_t size,
		    u32 addr)
{
	static const u8 none[4];
	struct tb_dec_form mine, theirs;
	const u8 *p = b;
	uint64_t at = addr;
	cs_insn *x = NULL;
	bool ok;

	memset(&mine, 0x5a, sizeof(mine));
	memset(&theirs, 0xa5, sizeof(theirs));
	c->tried++;
	if (cs_disasm(c->cs[thumb], none, 0, 0, 1, &x))
		cs_free(x, 1);
	ok = cs_disasm_iter(c->cs[thumb], &p, &size, &at, c->in) &&
	     c->in->id != ARM_INS_IT && tb_dec_pack(c->in, &theirs);
	if (!tb_fast_decode(thumb, b, p - b + size, addr, &mine)) {
		if (ok)
			c->miss[thumb][c->in->id]++;
		return;
	}
	c->ours++;
	if (ok && same(&mine, &theirs))
		return;
	c->diff++;
	if (c->shown++ >= 40 || c->shown_id[ok ? c->in->id : 0])
		return;
	c->shown_id[ok ? c->in->id : 0] = true;
	fprintf(stderr, "%s %02x%02x%02x%02x at 0x%x: %s %s\n",
		thumb ? "thumb" : "arm", b[0], b[1], size > 2 ? b[2] : 0,
		size > 3 ? b[3] : 0, addr, ok ? c->in->mnemonic : "(capstone: none)",
		ok ? c->in->op_str : "");
	if (ok)
		show_form("capstone", &theirs);
	show_form("ours", &mine);
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
	printf("%s: %llu decoded, %llu by ours, %llu different\n", what,
	       (unsigned long long)c->tried, (unsigned long long)c->ours,
	       (unsigned long long)c->diff);
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

		/* half the Thumb words 32-bit ones */
		if ((i & 3) == 3)
			w |= 0xe800;
		memcpy(b, &w, 4);
		cmp_one(&c, i & 1, b, 4, 0x10000 + (w & 0xfffc));
	}
	cmp_report(&c, "random words");
	CHECK(c.diff == 0);
	cmp_close(&c);
}

/* Every Thumb halfword and ARM word of @path's executable sections. */
static void cmp_file(const char *path, uint64_t limit)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	struct cmp c;

	if (fd < 0) {
		printf("skipped: %s (absent)\n", path);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(e != NULL);
	cmp_open(&c);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		for (uint64_t o = 0; o + 2 <= d->d_size && o < limit; o += 2) {
			size_t left = d->d_size - o;
			const u8 *b = (const u8 *)d->d_buf + o;

			cmp_one(&c, true, b, left, (u32)(sh.sh_addr + o));
			if (!(o & 3) && left >= 4)
				cmp_one(&c, false, b, left, (u32)(sh.sh_addr + o));
		}
	}
	cmp_report(&c, path);
	CHECK(c.diff == 0);
	cmp_close(&c);
	elf_end(e);
	close(fd);
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
