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
