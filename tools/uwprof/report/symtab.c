// SPDX-License-Identifier: GPL-2.0
/* The symbol back ends' shared part: the file search and the sorted table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/addrmap.h"
#include "lib/elf.h"
#include "lib/util.h"
#include "report/symbols.h"
#include "report/symtab.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)	/* at one address, globals first */
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t symtab_sort(struct sym *syms, size_t n)
{
	size_t i, o;

	if (!n)
		return 0;
	qsort(syms, n, sizeof(*syms), sym_cmp);
	for (i = 1, o = 1; i < n; i++)	/* one name per address */
		if (syms[i].addr != syms[o - 1].addr)
			syms[o++] = syms[i];
	return o;
}

static uint32_t word_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The length of the ARM stub at @p (@left bytes), or 0. */
static uint32_t plt_arm_stub(const uint8_t *p, uint32_t left)
{
	if (left >= 12 && (word_at(p) & 0xffffff00) == 0xe28fc600 &&
	    (word_at(p + 4) & 0xffffff00) == 0xe28cca00 &&
	    (word_at(p + 8) & 0xfffff000) == 0xe5bcf000)
		return left >= 16 && word_at(p + 12) == 0xd4d4d4d4 ? 16 : 12;
	if (left >= 16 && word_at(p) == 0xe59fc004 &&	/* ldr ip, [pc, #4] */
	    word_at(p + 4) == 0xe08cc00f && word_at(p + 8) == 0xe59cf000)
		return 16;
	return 0;
}

size_t symtab_plt_stubs(const uint8_t *code, uint32_t size, uint32_t addr,
			size_t n, uint32_t *start, uint32_t *len)
{
	uint32_t at, thumb, arm;
	size_t i;

	/* str lr, [sp, #-4]!, then GNU ld's 20 bytes or lld's 32 */
	if (size < 20 || word_at(code) != 0xe52de004)
		return 0;
	at = word_at(code + 4) == 0xe59fe004 ? 20 : 32;
	for (i = 0; i < n && at < size; i++, at += thumb + arm) {
		thumb = size - at >= 4 &&
			(word_at(code + at) == 0x46c04778 ||	/* bx pc; nop */
			 word_at(code + at) == 0xe7fd4778) ? 4 : 0;	/* bx pc; b . */
		arm = plt_arm_stub(code + at + thumb, size - at - thumb);
		if (!arm)
			break;
		start[i] = addr + at;
		len[i] = thumb + arm;
	}
	return i;
}

const char *symtab_lookup(const struct sym *syms, size_t n, uint32_t addr)
{
	size_t lo = 0, hi = n;
	const struct sym *s;

	while (lo < hi) {	/* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &syms[lo - 1];
	if (s->size)
		return addr - s->addr < s->size ? s->name : NULL;
	/* A sizeless symbol (hand-written code) runs to the next one. */
	return lo < n ? s->name : NULL;
}

const char *sym_path(const struct sym_file *f)
{
	return ((const struct sym_head *)f)->path;
}

int sym_bias(const struct sym_file *f, uint32_t start, uint32_t end,
	     uint32_t offset, uint32_t *bias)
{
	const struct sym_head *h = (const struct sym_head *)f;

	return uw_map_bias(h->loads, h->nloads, start, end, offset, bias);
}

const char *sym_lookup(const struct sym_file *f, uint32_t addr)
{
	const struct sym_head *h = (const struct sym_head *)f;

	return symtab_lookup(h->syms, h->nsyms, addr);
}

/* @path opened if it is an ELF file with the wanted build-id. */
static struct sym_file *try_path(const char *path, const uint8_t *bid,
				 uint32_t bidlen, bool *mismatch,
				 struct sym_file *(*open)(const char *path))
{
	struct uw_elf_info info;

	/* uw_elf_info() opens regular files only, and reads "APK!/ENTRY" */
	if (uw_elf_info(path, &info))
		return NULL;
	if (bidlen && (info.build_id_len != bidlen ||
		       memcmp(info.build_id, bid, bidlen))) {
		*mismatch = true;
		return NULL;
	}
	return open(path);
}

/* DIR/<base name of the archive>!/ENTRY */
static const char *apk_cand(char *cand, size_t room, const char *dir,
			    const char *archive, const char *entry)
{
	const char *b = strrchr(archive, '/');

	int n = snprintf(cand, room, "%s/%s" UW_ZIP_SEP "%s", dir,
			 b ? b + 1 : archive, entry);

	return n > 0 && (size_t)n < room ? cand : "";
}

struct sym_file *sym_search(const char *const *symfs, unsigned int nsymfs,
			    const char *path, const uint8_t *bid,
			    uint32_t bidlen, bool *mismatch,
			    struct sym_file *(*open)(const char *path))
{
	char hex[2 * UW_BUILD_ID_MAX + 1], cand[4096], archive[4096];
	const char *base = strrchr(path, '/'), *entry;
	struct sym_file *f;
	unsigned int i;

	*mismatch = false;
	entry = uw_zip_split(path, archive, sizeof(archive));
	uw_hex(bid, bidlen, hex);
	base = base ? base + 1 : path;
	/* the name 'uwprof vdso' gives the kernel's vDSO image by default */
	if (!strcmp(path, UW_VDSO_NAME))
		base = "vdso.so";
	/* By build-id in every directory first: a debug file beats a stripped copy. */
	for (i = 0; i < nsymfs && bidlen; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], hex);
		if ((f = try_path(cand, bid, bidlen, mismatch, open)))
			return f;
		snprintf(cand, sizeof(cand), "%s/%s.debug", symfs[i], hex);
		if ((f = try_path(cand, bid, bidlen, mismatch, open)))
			return f;
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", symfs[i],
			 hex, hex + 2);
		if ((f = try_path(cand, bid, bidlen, mismatch, open)))
			return f;
	}
	for (i = 0; i < nsymfs; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], path);
		if ((f = try_path(cand, bid, bidlen, mismatch, open)))
			return f;
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], base);
		if ((f = try_path(cand, bid, bidlen, mismatch, open)))
			return f;
		/* an APK's library: the APK copied into the directory */
		if (entry && (f = try_path(apk_cand(cand, sizeof(cand), symfs[i],
						    archive, entry),
					   bid, bidlen, mismatch, open)))
			return f;
	}
	/* As perf does: with --symfs, only there; without, the path itself. */
	return nsymfs ? NULL : try_path(path, bid, bidlen, mismatch, open);
}
