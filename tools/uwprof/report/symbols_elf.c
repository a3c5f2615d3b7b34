// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols for uwprof report in the device binary, with libc only: function
 * names from the file's own .symtab (or, stripped, its .dynsym), found
 * the way symbols.c finds the file.  No separate debug files, source
 * lines, inline chains or demangling: those need the host's uwprof.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addrmap.h"
#include "lib/elf.h"
#include "lib/regfile.h"
#include "report/symbols.h"
#include "report/symtab.h"

#define SYMTAB_MAX	(64u << 20)	/* bytes of symbols and names read */

struct sym_file {
	struct sym_head h;	/* first: symtab.c reads it */
	char *names;		/* the string table the names point into */
	char *plt_names;	/* "printf@plt", one after another */
};

bool sym_demangle;		/* names stay as the file has them */

/* The function symbols of @tab (whose names are in @shs[tab->sh_link]). */
static int load_symbols(struct sym_file *sf, FILE *f, const Elf32_Shdr *shs,
			unsigned int nsh, const Elf32_Shdr *tab)
{
	Elf32_Sym *syms;
	size_t n, i;

	if (tab->sh_link >= nsh || tab->sh_entsize != sizeof(Elf32_Sym))
		return -1;
	syms = uw_elf_section(f, tab, SYMTAB_MAX);
	sf->names = uw_elf_section(f, &shs[tab->sh_link], SYMTAB_MAX);
	if (!syms || !sf->names) {
		free(syms);
		return -1;
	}
	n = tab->sh_size / sizeof(*syms);
	sf->h.syms = calloc(n ? n : 1, sizeof(*sf->h.syms));
	for (i = 1; sf->h.syms && i < n; i++) {
		const Elf32_Sym *s = &syms[i];
		int type = ELF32_ST_TYPE(s->st_info);
		const char *name = s->st_name < shs[tab->sh_link].sh_size ?
				   sf->names + s->st_name : "";

		/* ARM mapping symbols ($a, $t, $d) mark code and data */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s->st_shndx == SHN_UNDEF || !name[0] || name[0] == '$')
			continue;
		sf->h.syms[sf->h.nsyms++] = (struct sym){
			.addr = s->st_value & ~1u,	/* Thumb bit */
			.size = s->st_size,
			.name = name,
			.global = ELF32_ST_BIND(s->st_info) != STB_LOCAL,
		};
	}
	free(syms);
	sf->h.nsyms = symtab_sort(sf->h.syms, sf->h.nsyms);
	return sf->h.syms ? 0 : -1;
}

/* The section named @name, or NULL (@shnames: the names, @len bytes). */
static const Elf32_Shdr *section_named(const Elf32_Shdr *shs, unsigned int nsh,
				       const char *shnames, size_t len,
				       const char *name)
{
	unsigned int i;

	for (i = 0; i < nsh; i++)
		if (shs[i].sh_name < len && !strcmp(shnames + shs[i].sh_name, name))
			return &shs[i];
	return NULL;
}

/*
 * "NAME@plt" for .rel.plt's first @n entries, one after another in
 * sf->plt_names; 0, or -1 if they cannot be read.
 */
static int plt_names(struct sym_file *sf, FILE *f, const Elf32_Shdr *shs,
		     unsigned int nsh, const Elf32_Shdr *rsh, size_t n)
{
	const Elf32_Shdr *dsh = rsh->sh_link < nsh ? &shs[rsh->sh_link] : NULL;
	const Elf32_Shdr *ssh = dsh && dsh->sh_link < nsh ? &shs[dsh->sh_link] : NULL;
	Elf32_Rel *rel = uw_elf_section(f, rsh, SYMTAB_MAX);
	Elf32_Sym *dsym = ssh ? uw_elf_section(f, dsh, SYMTAB_MAX) : NULL;
	char *dstr = ssh ? uw_elf_section(f, ssh, SYMTAB_MAX) : NULL;
	size_t nsym = dsh ? dsh->sh_size / sizeof(*dsym) : 0, room = 0, i;
	char *at;

	for (i = 0; rel && dsym && dstr && i < n; i++) {
		uint32_t k = ELF32_R_SYM(rel[i].r_info);

		if (k >= nsym || dsym[k].st_name >= ssh->sh_size)
			break;
		room += strlen(dstr + dsym[k].st_name) + sizeof("@plt");
	}
	sf->plt_names = i == n ? malloc(room ? room : 1) : NULL;
	for (i = 0, at = sf->plt_names; at && i < n; i++)
		at += sprintf(at, "%s@plt",
			      dstr + dsym[ELF32_R_SYM(rel[i].r_info)].st_name) + 1;
	free(rel);
	free(dsym);
	free(dstr);
	return sf->plt_names ? 0 : -1;
}

/* The stubs of the PLT @psh whose entries .rel.plt @rsh lists, as symbols. */
static void add_plt(struct sym_file *sf, FILE *f, const Elf32_Shdr *shs,
		    unsigned int nsh, const Elf32_Shdr *psh,
		    const Elf32_Shdr *rsh)
{
	size_t n = rsh->sh_size / sizeof(Elf32_Rel), i;
	uint8_t *code = uw_elf_section(f, psh, SYMTAB_MAX);
	uint32_t *start = calloc(n ? n : 1, sizeof(*start));
	uint32_t *len = calloc(n ? n : 1, sizeof(*len));
	struct sym *grown = NULL;
	const char *name;

	n = code && start && len ?
	    symtab_plt_stubs(code, psh->sh_size, psh->sh_addr, n, start, len) : 0;
	if (n)
		grown = realloc(sf->h.syms, (sf->h.nsyms + n) * sizeof(*grown));
	if (grown)
		sf->h.syms = grown;
	if (grown && !plt_names(sf, f, shs, nsh, rsh, n))
		for (i = 0, name = sf->plt_names; i < n; i++) {
			grown[sf->h.nsyms++] = (struct sym){
				.addr = start[i], .size = len[i], .name = name,
				.global = true,
			};
			name += strlen(name) + 1;
		}
	free(code);
	free(start);
	free(len);
}

/*
 * The PLT's stubs, named as perf names them ("printf@plt"): sampled
 * there, a stripped program's calls into its libraries would take the
 * name of the code before .plt.
 */
static void load_plt(struct sym_file *sf, FILE *f, const Elf32_Shdr *shs,
		     unsigned int nsh)
{
	const Elf32_Shdr *psh, *rsh;
	char *shnames;
	Elf32_Ehdr eh;
	size_t len;

	if (uw_elf_read_at(f, 0, &eh, sizeof(eh)) || eh.e_shstrndx >= nsh)
		return;
	shnames = uw_elf_section(f, &shs[eh.e_shstrndx], SYMTAB_MAX);
	len = shs[eh.e_shstrndx].sh_size;
	psh = shnames ? section_named(shs, nsh, shnames, len, ".plt") : NULL;
	rsh = shnames ? section_named(shs, nsh, shnames, len, ".rel.plt") : NULL;
	if (psh && rsh && psh->sh_type == SHT_PROGBITS && rsh->sh_type == SHT_REL)
		add_plt(sf, f, shs, nsh, psh, rsh);
	free(shnames);
}

static struct sym_file *open_elf(const char *path)
{
	struct sym_file *sf = calloc(1, sizeof(*sf));
	const Elf32_Shdr *tab = NULL;
	Elf32_Shdr *shs = NULL;
	FILE *f = uw_elf_fopen(path);	/* a file, or "base.apk!/lib/..." */
	struct uw_elf_info info;
	unsigned int i, nsh = 0;

	if (!sf || !f || uw_elf_info(path, &info))
		goto fail;
	shs = uw_elf_sections(f, &nsh);
	if (!shs)
		goto fail;
	for (i = 0; i < nsh; i++)	/* .symtab, else .dynsym */
		if (shs[i].sh_type == SHT_SYMTAB ||
		    (shs[i].sh_type == SHT_DYNSYM && !tab))
			tab = &shs[i];
	if (tab && load_symbols(sf, f, shs, nsh, tab))
		goto fail;
	load_plt(sf, f, shs, nsh);
	sf->h.nsyms = symtab_sort(sf->h.syms, sf->h.nsyms);
	sf->h.nloads = info.nloads;
	memcpy(sf->h.loads, info.loads, sizeof(info.loads));
	sf->h.path = strdup(path);
	if (!sf->h.path)
		goto fail;
	free(shs);
	fclose(f);
	return sf;
fail:
	free(shs);
	if (f)
		fclose(f);
	sym_close(sf);
	return NULL;
}

struct sym_file *sym_open(const char *const *symfs, unsigned int nsymfs,
			  const char *path, const uint8_t *bid,
			  uint32_t bidlen, bool *mismatch)
{
	return sym_search(symfs, nsymfs, path, bid, bidlen, mismatch, open_elf);
}

void sym_close(struct sym_file *f)
{
	if (!f)
		return;
	free(f->h.syms);
	free(f->names);
	free(f->plt_names);
	free(f->h.path);
	free(f);
}

int sym_line(struct sym_file *f, uint32_t addr, const char **file, int *line)
{
	(void)f;
	(void)addr;
	(void)file;
	(void)line;
	return -1;	/* no DWARF reader in the device binary */
}

unsigned int sym_frames(struct sym_file *f, uint32_t addr,
			struct sym_frame *out, unsigned int max)
{
	if (!max)
		return 0;
	out[0] = (struct sym_frame){ .name = sym_lookup(f, addr) };
	return out[0].name ? 1 : 0;
}
