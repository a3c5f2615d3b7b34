// SPDX-License-Identifier: GPL-2.0
/*
 * pa_listed_writes() (prologue_insn.c) against capstone 4's
 * cs_regs_access(): for every instruction capstone decodes, the registers
 * the detail lists as written must be, slot for slot, those the call
 * returns.  Inputs: every Thumb halfword and ARM word of the executable
 * sections of the test libc, the lua builds and the stock root's
 * libstdc++ (those absent are named as skipped), and pseudo-random words.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "table/prologue_int.h"

struct wcmp {
	csh cs[2];
	cs_insn *in;
	uint64_t tried, diff;
};

static void wcmp_open(struct wcmp *c)
{
	memset(c, 0, sizeof(*c));
	for (int t = 0; t < 2; t++) {
		CHECK(cs_open(CS_ARCH_ARM, t ? CS_MODE_THUMB : CS_MODE_ARM,
			      &c->cs[t]) == CS_ERR_OK);
		cs_option(c->cs[t], CS_OPT_DETAIL, CS_OPT_ON);
	}
	c->in = cs_malloc(c->cs[0]);
}

static void wcmp_close(struct wcmp *c)
{
	cs_free(c->in, 1);
	cs_close(&c->cs[0]);
	cs_close(&c->cs[1]);
}

/* One instruction at @b (if capstone decodes it), both ways. */
static void wcmp_one(struct wcmp *c, bool thumb, const u8 *b, size_t size,
		     u32 addr)
{
	uint64_t want = 0;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	uint64_t at = addr;

	if (!cs_disasm_iter(c->cs[thumb], &b, &size, &at, c->in))
		return;
	c->tried++;
	CHECK(cs_regs_access(c->cs[thumb], c->in, rd, &nrd, wr, &nwr) == 0);
	for (int i = 0; i < nwr; i++) {
		int s = pa_slot_of(wr[i]);

		if (s >= 0)
			want |= 1ull << s;
	}
	if (pa_listed_writes(c->in) != want) {
		if (c->diff++ < 10)
			printf("differ: %s %s %s at 0x%x\n", thumb ? "thumb" : "arm",
			       c->in->mnemonic, c->in->op_str, addr);
	}
}

static void wcmp_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	struct wcmp c;

	if (fd < 0) {
		printf("skipped: %s (absent)\n", path);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(e != NULL);
	wcmp_open(&c);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		for (uint64_t o = 0; o + 2 <= d->d_size; o += 2) {
			const u8 *b = (const u8 *)d->d_buf + o;

			wcmp_one(&c, true, b, d->d_size - o, (u32)(sh.sh_addr + o));
			if (!(o & 3) && d->d_size - o >= 4)
				wcmp_one(&c, false, b, d->d_size - o,
					 (u32)(sh.sh_addr + o));
		}
	}
	printf("%s: %llu instructions, %llu differ\n", path,
	       (unsigned long long)c.tried, (unsigned long long)c.diff);
	CHECK(c.tried > 0 && c.diff == 0);
	wcmp_close(&c);
	elf_end(e);
	close(fd);
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
