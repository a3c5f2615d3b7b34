// SPDX-License-Identifier: GPL-2.0
/*
 * pa_listed_writes() (prologue_insn.c) against capstone 4's
 * cs_regs_access(): for every instruction capstone decodes, the registers
 * the detail lists as written must be, slot for slot, those the call
 * returns.  Inputs: every Thumb halfword and ARM word of the executable
 * sections of the test libc, the lua builds and the stock root's
 * libstdc++ (those absent are named as skipped), and pseudo-random words.
 */
#include <stdlib.h>
#include "harness.h"
#include "arm_code.h"
#include "table/prologue_int.h"

struct wcmp {
	csh cs[2];
	cs_insn *in;
	uint64_t tried, diff;
};

static void wcmp_open(struct wcmp *c)
{
	memset(c, 0, sizeof(*c));
	th_cs_open(c->cs, &c->in);
}

static void wcmp_close(struct wcmp *c)
{
	th_cs_close(c->cs, c->in);
}

/* One instruction at @b (if capstone decodes it), both ways. */
static void wcmp_one(struct wcmp *c, bool thumb, const u8 *b, size_t size,
		     u32 addr)
{
	uint64_t want = 0;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	uint64_t at = addr;
	struct tb_dec_form f;
	struct tb_insn in;

	if (!cs_disasm_iter(c->cs[thumb], &b, &size, &at, c->in))
		return;
	c->tried++;
	CHECK(tb_insn_of_cs(c->in, &f, &in));
	CHECK(cs_regs_access(c->cs[thumb], c->in, rd, &nrd, wr, &nwr) == 0);
	for (int i = 0; i < nwr; i++) {
		int s = pa_slot_of(wr[i]);

		if (s >= 0)
			want |= 1ull << s;
	}
	if (pa_listed_writes(&in) != want) {
		if (c->diff++ < 10)
			printf("differ: %s %s %s at 0x%x\n", thumb ? "thumb" : "arm",
			       c->in->mnemonic, c->in->op_str, addr);
	}
}

/* Every Thumb halfword and ARM word of one section. */
static void wcmp_code(void *arg, const u8 *b, uint64_t len, u32 addr)
{
	for (uint64_t o = 0; o + 2 <= len; o += 2) {
		wcmp_one(arg, true, b + o, len - o, addr + (u32)o);
		if (!(o & 3) && len - o >= 4)
			wcmp_one(arg, false, b + o, len - o, addr + (u32)o);
	}
}

static void wcmp_file(const char *path)
{
	struct wcmp c;

	wcmp_open(&c);
	if (th_exec_sections(path, wcmp_code, &c)) {
		printf("%s: %llu instructions, %llu differ\n", path,
		       (unsigned long long)c.tried, (unsigned long long)c.diff);
		CHECK(c.tried > 0 && c.diff == 0);
	}
	wcmp_close(&c);
}

TEST(real_files)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	static const char *const rel[] = {
		"arm/root/lib/arm-linux-gnueabihf/libc.so.6",
		"arm/lua-gcc/lua", "arm/lua-clang/lua",
		"stock/root/usr/lib/arm-linux-gnueabihf/libstdc++.so.6",
	};
	char path[4096];

	for (u32 i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", build, rel[i]);
		wcmp_file(path);
	}
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
	struct wcmp c;
	u32 s = 0x6d2b79f5;
	u8 b[4];

	wcmp_open(&c);
	for (u32 i = 0; i < 1000000; i++) {
		u32 w = next(&s);

		memcpy(b, &w, 4);
		wcmp_one(&c, i & 1, b, 4, 0x10000 + (w & 0xfffc));
	}
	printf("random words: %llu instructions, %llu differ\n",
	       (unsigned long long)c.tried, (unsigned long long)c.diff);
	CHECK(c.tried > 0 && c.diff == 0);
	wcmp_close(&c);
}
