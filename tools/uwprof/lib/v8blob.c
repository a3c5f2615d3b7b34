// SPDX-License-Identifier: GPL-2.0
/*
 * Where V8's embedded builtins are in a binary that holds them (libnode, a
 * static node): for uwprof record's --jit v8-arm without --jit-range, and
 * for the table generator, which tables the builtins it can prove
 * (table/v8builtins.c).
 *
 * V8 exports four accessors, v8::internal::DefaultEmbeddedBlobCode(),
 * DefaultEmbeddedBlobCodeSize() and the same two of the blob's data; each
 * returns a variable it reads through the GOT, and the compiler makes the
 * same ARM code of all:
 *
 *	ldr	Rb, [pc, #a]	@ the GOT, relative to the add's pc
 *	ldr	Ro, [pc, #b]	@ the variable's GOT entry, from the GOT
 *	add	Rb, pc, Rb
 *	...	ldr Rb, [Rb, Ro]; ldr r0, [Rb]
 *
 * The GOT entry is relocated (R_ARM_RELATIVE: the word in the file is
 * the variable's link address; R_ARM_GLOB_DAT: its symbol's value), and
 * so is the code variable (R_ARM_RELATIVE: the blob's link address); the
 * size variable holds the size.  Anything else is not recognized, and the
 * range is then left to --jit-range.  libc only, as record is.
 */
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf.h"
#include "lib/v8blob.h"

#define V8_CODE_FN	"_ZN2v88internal23DefaultEmbeddedBlobCodeEv"
#define V8_SIZE_FN	"_ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv"
#define V8_DATA_FN	"_ZN2v88internal23DefaultEmbeddedBlobDataEv"
#define V8_DSIZE_FN	"_ZN2v88internal27DefaultEmbeddedBlobDataSizeEv"
#define V8_SECTION_MAX	(64u << 20)
#define V8_HASHES	12u	/* three size_t hashes before the rows */
#define V8_CODE_ALIGN	32u	/* kCodeAlignment on 32-bit ARM */
#define V8_ROW_MAX	16u	/* words in a row, at most */

struct v8_elf {
	FILE *f;
	struct uw_elf_info info;
	Elf32_Shdr *sh;
	unsigned int nsh;
	Elf32_Sym *dynsym;
	unsigned int nsym;
	const char *dynstr;
	size_t strsize;
};

/* The word at link address @va, from the segment that holds it. */
static bool v8_word(const struct v8_elf *e, uint32_t va, uint32_t *w)
{
	for (uint32_t i = 0; i < e->info.nloads; i++) {
		const struct uw_seg *s = &e->info.loads[i];

		if (va >= s->vaddr && va - s->vaddr <= s->filesz &&
		    s->filesz - (va - s->vaddr) >= 4)
			return !uw_elf_read_at(e->f, s->offset + (va - s->vaddr),
					       w, 4);
	}
	return false;
}

/* The dynamic symbol table and its strings. */
static bool v8_dynsym(struct v8_elf *e)
{
	for (unsigned int i = 0; i < e->nsh; i++) {
		const Elf32_Shdr *s = &e->sh[i];

		if (s->sh_type != SHT_DYNSYM || s->sh_link >= e->nsh ||
		    s->sh_entsize != sizeof(Elf32_Sym))
			continue;
		e->dynsym = uw_elf_section(e->f, s, V8_SECTION_MAX);
		e->dynstr = uw_elf_section(e->f, &e->sh[s->sh_link],
					   V8_SECTION_MAX);
		e->nsym = s->sh_size / sizeof(Elf32_Sym);
		e->strsize = e->sh[s->sh_link].sh_size;
		return e->dynsym && e->dynstr;
	}
	return false;
}

static bool v8_symbol(const struct v8_elf *e, const char *name, uint32_t *va)
{
	for (unsigned int i = 0; i < e->nsym; i++)
		if (e->dynsym[i].st_name < e->strsize &&
		    e->dynsym[i].st_shndx != SHN_UNDEF &&
		    !strcmp(e->dynstr + e->dynsym[i].st_name, name)) {
			*va = e->dynsym[i].st_value;
			return true;
		}
	return false;
}

/*
 * The value the dynamic relocation at @va gives the word there: its
 * addend for R_ARM_RELATIVE (REL: the word in the file), its symbol's
 * value for R_ARM_GLOB_DAT.  False if none or another kind relocates it.
 */
static bool v8_relocated(const struct v8_elf *e, uint32_t va, uint32_t *val)
{
	for (unsigned int i = 0; i < e->nsh; i++) {
		const Elf32_Shdr *s = &e->sh[i];
		Elf32_Rel *r;
		bool found = false;

		if (s->sh_type != SHT_REL || s->sh_entsize != sizeof(Elf32_Rel))
			continue;
		r = uw_elf_section(e->f, s, V8_SECTION_MAX);
		for (size_t k = 0; r && k < s->sh_size / sizeof(*r); k++) {
			uint32_t type = ELF32_R_TYPE(r[k].r_info);
			uint32_t sym = ELF32_R_SYM(r[k].r_info);

			if (r[k].r_offset != va)
				continue;
			if (type == R_ARM_RELATIVE) {
				found = v8_word(e, va, val);
			} else if (type == R_ARM_GLOB_DAT && sym < e->nsym) {
				*val = e->dynsym[sym].st_value;
				found = true;
			}
			break;
		}
		free(r);
		if (found)
			return true;
	}
	return false;
}

/* "ldr Rt, [pc, #+imm]" (A1, no writeback): the literal's address. */
static bool v8_ldr_lit(uint32_t w, uint32_t at, uint32_t *rt, uint32_t *lit)
{
	if ((w & 0xffff0000u) != 0xe59f0000u)
		return false;
	*rt = (w >> 12) & 0xf;
	*lit = at + 8 + (w & 0xfff);
	return true;
}

/*
 * The link address of the variable accessor @fn reads (see the top of
 * the file), through its GOT entry.
 */
static bool v8_accessor_var(const struct v8_elf *e, uint32_t fn,
			    uint32_t *var)
{
	uint32_t w0, w1, w2, rb, ro, lit_b, lit_o, got, off, add_at = fn + 8;

	if (!v8_word(e, fn, &w0) || !v8_word(e, fn + 4, &w1) ||
	    !v8_word(e, add_at, &w2) || !v8_ldr_lit(w0, fn, &rb, &lit_b) ||
	    !v8_ldr_lit(w1, fn + 4, &ro, &lit_o) || rb == ro)
		return false;
	/* add Rb, pc, Rb */
	if (w2 != (0xe08f0000u | rb << 12 | rb))
		return false;
	if (!v8_word(e, lit_b, &got) || !v8_word(e, lit_o, &off))
		return false;
	return v8_relocated(e, add_at + 8 + got + off, var);
}

/* [@start, @start + @size) lies in one executable segment's file bytes. */
static bool v8_in_code(const struct v8_elf *e, uint32_t start, uint32_t size)
{
	for (uint32_t i = 0; i < e->info.nloads; i++) {
		const struct uw_seg *s = &e->info.loads[i];

		if ((s->flags & PF_X) && start >= s->vaddr &&
		    start - s->vaddr <= s->filesz &&
		    size <= s->filesz - (start - s->vaddr))
			return true;
	}
	return false;
}

static void v8_close(struct v8_elf *e)
{
	free(e->sh);
	free(e->dynsym);
	free((void *)e->dynstr);
	if (e->f)
		fclose(e->f);
}

/* The variable an accessor @fn_name reads, relocated, into @val. */
static bool v8_accessor(const struct v8_elf *e, const char *fn_name,
			bool relocated, uint32_t *val)
{
	uint32_t fn, var;

	if (!v8_symbol(e, fn_name, &fn) || !v8_accessor_var(e, fn, &var))
		return false;
	return relocated ? v8_relocated(e, var, val) : v8_word(e, var, val);
}

/* [@start, @start + @size) lies in one segment's file bytes. */
static bool v8_in_file(const struct v8_elf *e, uint32_t start, uint32_t size)
{
	for (uint32_t i = 0; i < e->info.nloads; i++) {
		const struct uw_seg *s = &e->info.loads[i];

		if (start >= s->vaddr && start - s->vaddr <= s->filesz &&
		    size <= s->filesz - (start - s->vaddr))
			return true;
	}
	return false;
}

static int v8_open(const char *path, struct v8_elf *e)
{
	if (uw_elf_info(path, &e->info))
		return -1;
	e->f = fopen(path, "rb");
	if (!e->f)
		return -1;
	e->sh = uw_elf_sections(e->f, &e->nsh);
	return e->sh && v8_dynsym(e) ? 0 : -1;
}

/* The code's range: the blob's code accessors, the code in a segment. */
static bool v8_code(const struct v8_elf *e, struct uw_v8_blob *b)
{
	return v8_accessor(e, V8_CODE_FN, true, &b->code) &&
	       v8_accessor(e, V8_SIZE_FN, false, &b->code_size) &&
	       b->code_size && v8_in_code(e, b->code, b->code_size);
}

int uw_v8_blob(const char *path, struct uw_v8_blob *b)
{
	struct v8_elf e = { 0 };
	int ret;

	memset(b, 0, sizeof(*b));
	ret = !v8_open(path, &e) && v8_code(&e, b) ? 0 : -1;
	v8_close(&e);
	return ret;
}

/*
 * The rows of @words words each, from @rows (@nrows fit in the data),
 * tile [0, @code_size): their number, or 0.
 */
static uint32_t v8_tiles(const uint32_t *rows, uint32_t nrows, uint32_t words,
			 uint32_t code_size)
{
	uint32_t at = 0, i;

	for (i = 0; i < nrows && at < code_size; i++) {
		const uint32_t *r = rows + i * words;

		if (r[0] != at || !r[1] || r[1] >= code_size - at)
			return 0;
		at += (r[1] + V8_CODE_ALIGN) & ~(V8_CODE_ALIGN - 1);
	}
	return at == code_size ? i : 0;
}

/* The builtins from the data's rows (see the top of the file). */
static int v8_rows(const struct v8_elf *e, struct uw_v8_blob *b,
		   struct uw_v8_builtin **out, uint32_t *n)
{
	uint32_t *d, nw, words, found = 0, count = 0, k;
	long off = -1;

	for (uint32_t i = 0; i < e->info.nloads; i++) {
		const struct uw_seg *s = &e->info.loads[i];

		if (b->data >= s->vaddr && b->data - s->vaddr <= s->filesz)
			off = (long)(s->offset + (b->data - s->vaddr));
	}
	if (off < 0 || b->data_size <= V8_HASHES ||
	    b->data_size > V8_SECTION_MAX)
		return -1;
	d = malloc(b->data_size);
	if (!d || uw_elf_read_at(e->f, off, d, b->data_size)) {
		free(d);
		return -1;
	}
	nw = (b->data_size - V8_HASHES) / 4;
	for (words = 2; words <= V8_ROW_MAX; words++) {
		k = v8_tiles(d + V8_HASHES / 4, nw / words, words,
			     b->code_size);
		if (k) {
			found = words;
			count += !!k;
			*n = k;
		}
	}
	*out = count == 1 ? calloc(*n, sizeof(**out)) : NULL;
	for (k = 0; *out && k < *n; k++) {
		(*out)[k].start = b->code + d[V8_HASHES / 4 + k * found];
		(*out)[k].len = d[V8_HASHES / 4 + k * found + 1];
	}
	free(d);
	return *out ? 0 : -1;
}

int uw_v8_builtins(const char *path, struct uw_v8_blob *b,
		   struct uw_v8_builtin **out, uint32_t *n)
{
	struct v8_elf e = { 0 };
	int ret = -1;

	memset(b, 0, sizeof(*b));
	*out = NULL;
	*n = 0;
	if (!v8_open(path, &e) && v8_code(&e, b) &&
	    v8_accessor(&e, V8_DATA_FN, true, &b->data) &&
	    v8_accessor(&e, V8_DSIZE_FN, false, &b->data_size) &&
	    v8_in_file(&e, b->data, b->data_size))
		ret = v8_rows(&e, b, out, n);
	v8_close(&e);
	return ret;
}
