// SPDX-License-Identifier: GPL-2.0
/* ELF symbols (libelf) and source lines (libdw) for uwprof report. */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "regfile.h"
#include "symbols.h"

struct sym {
	uint32_t addr, size;
	const char *name;
	bool global;
};

struct sym_file {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	bool dw_tried;
	struct sym *syms;
	size_t nsyms;
	uint32_t nloads;
	struct uw_seg loads[UW_ELF_MAX_LOADS];
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)	/* at one address, globals first */
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool keep_symbol(const GElf_Sym *s, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	/* ARM mapping symbols ($a, $t, $d) mark code and data, not functions. */
	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       s->st_shndx != SHN_UNDEF && name && name[0] && name[0] != '$';
}

/* Functions of one symbol table section, appended to f->syms. */
static void read_symtab(struct sym_file *f, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct sym *grown;
	GElf_Sym s;

	if (!d || !n)
		return;
	grown = realloc(f->syms, (f->nsyms + n) * sizeof(*f->syms));
	if (!grown)
		return;
	f->syms = grown;
	for (i = 0; i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		name = elf_strptr(f->elf, sh->sh_link, s.st_name);
		if (!keep_symbol(&s, name))
			continue;
		f->syms[f->nsyms++] = (struct sym){
			.addr = (uint32_t)s.st_value & ~1u,	/* Thumb bit */
			.size = (uint32_t)s.st_size,
			.name = name,
			.global = GELF_ST_BIND(s.st_info) != STB_LOCAL,
		};
	}
}

/* .symtab if there is one (unstripped), else .dynsym. */
static void load_symbols(struct sym_file *f)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh, tsh;
	size_t i, o;

	while ((scn = elf_nextscn(f->elf, scn)))
		if (gelf_getshdr(scn, &sh)) {
			if (sh.sh_type == SHT_SYMTAB) {
				tab = scn;
				tsh = sh;
			} else if (sh.sh_type == SHT_DYNSYM) {
				dyn = scn;
				dsh = sh;
			}
		}
	if (tab)
		read_symtab(f, tab, &tsh);
	else if (dyn)
		read_symtab(f, dyn, &dsh);
	if (!f->nsyms)
		return;
	qsort(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp);
	for (i = 1, o = 1; i < f->nsyms; i++)	/* one name per address */
		if (f->syms[i].addr != f->syms[o - 1].addr)
			f->syms[o++] = f->syms[i];
	f->nsyms = o;
}

static void load_phdrs(struct sym_file *f)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return;
	for (i = 0; i < n && f->nloads < UW_ELF_MAX_LOADS; i++)
		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->nloads++] = (struct uw_seg){
				.vaddr = (uint32_t)ph.p_vaddr,
				.offset = (uint32_t)ph.p_offset,
				.filesz = (uint32_t)ph.p_filesz,
				.memsz = (uint32_t)ph.p_memsz,
				.flags = ph.p_flags,
			};
}

static struct sym_file *open_elf(const char *path)
{
	struct sym_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = uw_open_regular(path);
	if (f->fd < 0)
		goto fail;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF ||
	    gelf_getclass(f->elf) != ELFCLASS32)
		goto fail;
	f->path = strdup(path);
	return f;
fail:
	sym_close(f);
	return NULL;
}

/* @path if it is an ELF file with the wanted build-id. */
static struct sym_file *try_path(const char *path, const uint8_t *bid,
				 uint32_t bidlen, bool *mismatch)
{
	struct uw_elf_info info;
	struct sym_file *f;

	if (access(path, R_OK) || uw_elf_info(path, &info))
		return NULL;
	if (bidlen && (info.build_id_len != bidlen ||
		       memcmp(info.build_id, bid, bidlen))) {
		*mismatch = true;
		return NULL;
	}
	f = open_elf(path);
	if (f) {
		load_symbols(f);
		load_phdrs(f);
	}
	return f;
}

struct sym_file *sym_open(const char *const *symfs, unsigned int nsymfs,
			  const char *path, const uint8_t *bid,
			  uint32_t bidlen, bool *mismatch)
{
	char hex[2 * UW_BUILD_ID_MAX + 1], cand[4096];
	const char *base = strrchr(path, '/');
	struct sym_file *f;
	unsigned int i;

	elf_version(EV_CURRENT);
	*mismatch = false;
	uw_hex(bid, bidlen, hex);
	base = base ? base + 1 : path;
	/* By build-id in every directory first: a debug file beats a stripped copy. */
	for (i = 0; i < nsymfs && bidlen; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], hex);
		if ((f = try_path(cand, bid, bidlen, mismatch)))
			return f;
		snprintf(cand, sizeof(cand), "%s/%s.debug", symfs[i], hex);
		if ((f = try_path(cand, bid, bidlen, mismatch)))
			return f;
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", symfs[i],
			 hex, hex + 2);
		if ((f = try_path(cand, bid, bidlen, mismatch)))
			return f;
	}
	for (i = 0; i < nsymfs; i++) {
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], path);
		if ((f = try_path(cand, bid, bidlen, mismatch)))
			return f;
		snprintf(cand, sizeof(cand), "%s/%s", symfs[i], base);
		if ((f = try_path(cand, bid, bidlen, mismatch)))
			return f;
	}
	/* As perf does: with --symfs, only there; without, the path itself. */
	return nsymfs ? NULL : try_path(path, bid, bidlen, mismatch);
}

void sym_close(struct sym_file *f)
{
	if (!f)
		return;
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->syms);
	free(f->path);
	free(f);
}

const char *sym_path(const struct sym_file *f)
{
	return f->path;
}

int sym_bias(const struct sym_file *f, uint32_t start, uint32_t end,
	     uint32_t offset, uint32_t *bias)
{
	return uw_map_bias(f->loads, f->nloads, start, end, offset, bias);
}

const char *sym_lookup(const struct sym_file *f, uint32_t addr)
{
	size_t lo = 0, hi = f->nsyms;
	const struct sym *s;

	while (lo < hi) {	/* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &f->syms[lo - 1];
	if (s->size)
		return addr - s->addr < s->size ? s->name : NULL;
	/* A sizeless symbol (hand-written code) runs to the next one. */
	return lo < f->nsyms ? s->name : NULL;
}

int sym_line(struct sym_file *f, uint32_t addr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src, *slash;

	if (!f->dw_tried) {
		f->dw_tried = true;
		f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	}
	if (!f->dw || !dwarf_addrdie(f->dw, addr, &cu))
		return -1;
	l = dwarf_getsrc_die(&cu, addr);
	if (!l || dwarf_lineno(l, line) || !(src = dwarf_linesrc(l, NULL, NULL)))
		return -1;
	slash = strrchr(src, '/');
	*file = slash ? slash + 1 : src;
	return 0;
}
