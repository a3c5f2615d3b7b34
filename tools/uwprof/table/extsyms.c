// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols a stripped file keeps outside its own .symtab: the
 * MiniDebugInfo of Fedora and Android (.gnu_debugdata, an xz-compressed
 * ELF holding a .symtab of functions) and a separate debug file found by
 * .gnu_debuglink in the standard places.  libdwfl reads both as its
 * symbolizer does (report/symbols.c); its symbols join the ELF's, so that
 * function discovery and prologue analysis know those functions by name
 * and extent.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "lib/elf.h"
#include "table/elf.h"

static const Dwfl_Callbacks tb_dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* No debug file: libdwfl then reads the file's own MiniDebugInfo. */
static int no_debuginfo(Dwfl_Module *m, void **u, const char *name,
			Dwarf_Addr base, const char *file,
			const char *debuglink, GElf_Word crc, char **found)
{
	(void)m; (void)u; (void)name; (void)base; (void)file;
	(void)debuglink; (void)crc; (void)found;
	return -1;
}

/* --no-debug-file: nothing looked up outside the file itself. */
static const Dwfl_Callbacks tb_dwfl_own_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Is a symbol at @addr (Thumb bit cleared) already in @e->syms? */
static bool have_sym(const struct tb_elf *e, u32 addr)
{
	u32 i = tb_elf_first_sym(e, addr);

	return i < e->nsyms && e->syms[i].addr == addr;
}

static int add_syms(struct tb_elf *e, Dwfl_Module *m, int n)
{
	struct tb_sym *v = realloc(e->syms, (e->nsyms + n + 1) * sizeof(*v));
	u32 old = e->nsyms;

	if (!v)
		return -1;
	e->syms = v;
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(m, i, &s, &a, NULL,
							   NULL, NULL);

		if (!name || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || have_sym(e, s.st_value & ~1u))
			continue;
		v[e->nsyms++] = (struct tb_sym){ s.st_value & ~1u, s.st_size,
						 name, s.st_value & 1, false };
	}
	return (int)(e->nsyms - old);
}

int tb_elf_read_ext_symbols(struct tb_elf *e, const char *path,
			    bool debuglink)
{
	Dwfl *d;
	Dwfl_Module *m;
	int n;

	if (e->has_symtab ||
	    (!e->has_debugdata && !(debuglink && e->has_debuglink)))
		return 0;
	d = dwfl_begin(debuglink ? &tb_dwfl_cb : &tb_dwfl_own_cb);
	if (!d)
		return -1;
	/* libdwfl owns the descriptor (an archive entry's is a copy) */
	m = dwfl_report_offline(d, "", path, uw_elf_fd(path, NULL, 0));
	dwfl_report_end(d, NULL, NULL);
	n = m ? dwfl_module_getsymtab(m) : -1;
	if (n <= 1) {
		dwfl_end(d);
		return 0;
	}
	n = add_syms(e, m, n);
	if (n > 0)
		tb_elf_sort_symbols(e);
	/* the names live in libdwfl's copy until tb_elf_close */
	e->dwfl = d;
	return n;
}
