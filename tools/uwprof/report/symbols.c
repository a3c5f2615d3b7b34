// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols for uwprof report, through elfutils' libdwfl.
 *
 * uwprof finds the ELF file itself (by build-id in the --symfs
 * directories, then by path: the same rules as before libdwfl), and hands
 * it to libdwfl as an offline module.  libdwfl then finds what the file
 * lacks the way gdb and perf do: the separate debug file by build-id
 * under /usr/lib/debug/.build-id or the --symfs directories, or by
 * .gnu_debuglink; the MiniDebugInfo symbol table in .gnu_debugdata; and a
 * debuginfod server when DEBUGINFOD_URLS is set.  Function names come
 * from every symbol table it found, C++ names demangled; source lines and
 * inline chains from the DWARF it found.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf.h"
#include "lib/regfile.h"
#include "report/symbols.h"
#include "report/symtab.h"

/* libstdc++'s demangler (the C++ ABI's own entry point). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct sym_file {
	struct sym_head h;	/* first: symtab.c reads it */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* libdwfl's addresses minus link addresses */
	char **owned;		/* demangled names, freed with the file */
	size_t nowned;
};

/* Where libdwfl looks for debug files: its defaults plus --symfs. */
static char *debuginfo_path;

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

bool sym_demangle = true;

static void set_debuginfo_path(const char *const *symfs, unsigned int n)
{
	size_t len = 64;
	unsigned int i;

	if (debuginfo_path)
		return;
	for (i = 0; i < n; i++)
		len += strlen(symfs[i]) + 1;
	debuginfo_path = malloc(len);
	if (!debuginfo_path)
		return;
	/* "-": no CRC check of .gnu_debuglink files, as gdb's default */
	strcpy(debuginfo_path, "-:.debug:/usr/lib/debug");
	for (i = 0; i < n; i++) {
		strcat(debuginfo_path, ":");
		strcat(debuginfo_path, symfs[i]);
	}
}

static bool keep_symbol(const GElf_Sym *s, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	/* ARM mapping symbols ($a, $t, $d) mark code and data, not functions. */
	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       shndx != SHN_UNDEF && name && name[0] && name[0] != '$';
}

static const char *own(struct sym_file *f, char *s)
{
	char **grown = realloc(f->owned, (f->nowned + 1) * sizeof(*grown));

	if (!grown) {
		free(s);
		return NULL;
	}
	f->owned = grown;
	f->owned[f->nowned++] = s;
	return s;
}

/* @name demangled if it is a C++ name and demangling is on. */
static const char *demangled(struct sym_file *f, const char *name)
{
	char *d;
	int status;

	if (!sym_demangle || !name || strncmp(name, "_Z", 2))
		return name;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status)
		return name;
	return own(f, d) ?: name;
}

/* The section of @elf named @name, with its header in @sh, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) && !strcmp(n, name))
			return scn;
	return NULL;
}

/* The name of .rel.plt's entry @i ("printf"), or NULL. */
static const char *plt_name(Elf *elf, Elf_Data *rel, const GElf_Shdr *rsh,
			    int i)
{
	Elf_Scn *dsym = elf_getscn(elf, rsh->sh_link);
	GElf_Shdr dsh;
	GElf_Rel r;
	GElf_Sym sym;

	if (!dsym || !gelf_getshdr(dsym, &dsh) || !gelf_getrel(rel, i, &r) ||
	    !gelf_getsym(elf_getdata(dsym, NULL), (int)GELF_R_SYM(r.r_info),
			 &sym))
		return NULL;
	return elf_strptr(elf, dsh.sh_link, sym.st_name);
}

/*
 * The PLT's stubs, named as perf names them ("printf@plt"), into the
 * room for @room more symbols; sampled there, a stripped program's
 * calls into its libraries would take the name of the code before .plt.
 */
static void load_plt(struct sym_file *f, Elf *elf, size_t room)
{
	GElf_Shdr psh, rsh;
	Elf_Scn *pscn, *rscn;
	Elf_Data *rel, *code;
	uint32_t *start, *len;
	size_t n = 0, i;

	if (!room || !(pscn = section_named(elf, ".plt", &psh)) ||
	    !(rscn = section_named(elf, ".rel.plt", &rsh)) ||
	    rsh.sh_type != SHT_REL || psh.sh_type != SHT_PROGBITS)
		return;
	rel = elf_getdata(rscn, NULL);
	code = elf_getdata(pscn, NULL);
	start = calloc(room, sizeof(*start));
	len = calloc(room, sizeof(*len));
	if (rel && code && start && len && code->d_size == psh.sh_size)
		n = symtab_plt_stubs(code->d_buf, (uint32_t)code->d_size,
				     (uint32_t)psh.sh_addr, room, start, len);
	for (i = 0; i < n; i++) {
		const char *name = plt_name(elf, rel, &rsh, (int)i);
		size_t sz = name ? strlen(name) + sizeof("@plt") : 0;
		char *s = sz > sizeof("@plt") ? malloc(sz) : NULL;

		if (!s)
			continue;
		snprintf(s, sz, "%s@plt", name);
		if (!own(f, s))
			continue;
		f->h.syms[f->h.nsyms++] = (struct sym){
			.addr = start[i], .size = len[i], .name = s,
			.global = true,
		};
	}
	free(start);
	free(len);
}

/* How many stubs load_plt() may add. */
static size_t plt_room(Elf *elf)
{
	GElf_Shdr rsh;

	return section_named(elf, ".rel.plt", &rsh) && rsh.sh_entsize ?
	       rsh.sh_size / rsh.sh_entsize : 0;
}

/*
 * Every function symbol libdwfl found for the module (the file's own
 * tables, the debug file's, MiniDebugInfo's), and the PLT's stubs, at
 * link addresses, sorted.
 */
static void load_symbols(struct sym_file *f, GElf_Addr bias, Elf *elf)
{
	int n = dwfl_module_getsymtab(f->mod), i;
	size_t o, room = plt_room(elf);

	if (n < 0)
		n = 0;
	f->h.syms = calloc((size_t)n + room + 1, sizeof(*f->h.syms));
	if (!f->h.syms)
		return;
	load_plt(f, elf, room);
	for (i = 1; i < n; i++) {
		const char *name;
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym s;

		name = dwfl_module_getsym_info(f->mod, i, &s, &addr, &shndx,
					       NULL, NULL);
		if (!keep_symbol(&s, shndx, name))
			continue;
		f->h.syms[f->h.nsyms++] = (struct sym){
			.addr = (uint32_t)(addr - bias) & ~1u,	/* Thumb bit */
			.size = (uint32_t)s.st_size,
			.name = name,
			.global = GELF_ST_BIND(s.st_info) != STB_LOCAL,
		};
	}
	f->h.nsyms = symtab_sort(f->h.syms, f->h.nsyms);
	for (o = 0; o < f->h.nsyms; o++)
		f->h.syms[o].name = demangled(f, f->h.syms[o].name);
}

static void load_phdrs(struct sym_file *f, Elf *elf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && f->h.nloads < UW_ELF_MAX_LOADS; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->h.loads[f->h.nloads++] = (struct uw_seg){
				.vaddr = (uint32_t)ph.p_vaddr,
				.offset = (uint32_t)ph.p_offset,
				.filesz = (uint32_t)ph.p_filesz,
				.memsz = (uint32_t)ph.p_memsz,
				.flags = ph.p_flags,
			};
}

/* libdwfl's address of link address @addr (its offline layout). */
static Dwarf_Addr dwfl_addr(const struct sym_file *f, uint32_t addr)
{
	return addr + f->bias;
}

static struct sym_file *open_elf(const char *path)
{
	struct sym_file *f = calloc(1, sizeof(*f));
	Elf *elf;
	int fd;

	if (!f)
		return NULL;
	/* a file, or a stored entry of a zip ("base.apk!/lib/...") */
	fd = uw_elf_fd(path, NULL, 0);
	if (fd < 0)
		goto fail;
	f->dwfl = dwfl_begin(&sym_callbacks);
	if (!f->dwfl) {
		close(fd);
		goto fail;
	}
	/* libdwfl owns fd from here */
	f->mod = dwfl_report_offline(f->dwfl, path, path, fd);
	dwfl_report_end(f->dwfl, NULL, NULL);
	elf = f->mod ? dwfl_module_getelf(f->mod, &f->bias) : NULL;
	if (!elf || gelf_getclass(elf) != ELFCLASS32)
		goto fail;
	f->h.path = strdup(path);
	load_phdrs(f, elf);
	if (!f->h.path || !f->h.nloads)
		goto fail;
	load_symbols(f, f->bias, elf);
	return f;
fail:
	sym_close(f);
	return NULL;
}

struct sym_file *sym_open(const char *const *symfs, unsigned int nsymfs,
			  const char *path, const uint8_t *bid,
			  uint32_t bidlen, bool *mismatch)
{
	elf_version(EV_CURRENT);
	set_debuginfo_path(symfs, nsymfs);
	return sym_search(symfs, nsymfs, path, bid, bidlen, mismatch, open_elf);
}

void sym_close(struct sym_file *f)
{
	if (!f)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);
	while (f->nowned)
		free(f->owned[--f->nowned]);
	free(f->owned);
	free(f->h.syms);
	free(f->h.path);
	free(f);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

int sym_line(struct sym_file *f, uint32_t addr, const char **file, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, dwfl_addr(f, addr));
	const char *src;

	if (!l || !(src = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL)))
		return -1;
	*file = base_name(src);
	return 0;
}

/* A scope's function name: its linkage name demangled, else its name. */
static const char *scope_name(struct sym_file *f, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die,
						DW_AT_MIPS_linkage_name, &a));
	if (name)
		return demangled(f, name);
	return dwarf_diename(die);
}

/* The call site of an inlined scope: file (base name) and line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file,
		      int *line)
{
	Dwarf_Files *files;
	Dwarf_Attribute a;
	Dwarf_Word n = 0, l = 0;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &l) == 0)
		*line = (int)l;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &n) == 0 &&
	    dwarf_getsrcfiles(cu, &files, NULL) == 0)
		*file = base_name(dwarf_filesrc(files, n, NULL, NULL));
}

unsigned int sym_frames(struct sym_file *f, uint32_t addr,
			struct sym_frame *out, unsigned int max)
{
	Dwarf_Addr a = dwfl_addr(f, addr), bias;
	Dwarf_Die *cu, *scopes = NULL;
	unsigned int n = 0;
	int nscopes, i;

	if (!max)
		return 0;
	out[0] = (struct sym_frame){ .name = sym_lookup(f, addr) };
	sym_line(f, addr, &out[0].file, &out[0].line);
	cu = dwfl_module_addrdie(f->mod, a, &bias);
	nscopes = cu ? dwarf_getscopes(cu, a - bias, &scopes) : -1;
	/* Innermost first: each inlined scope, then the function around it. */
	for (i = 0; i < nscopes && n + 1 < max; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		out[n].name = scope_name(f, &scopes[i]) ?: out[n].name;
		n++;
		out[n] = (struct sym_frame){ .name = sym_lookup(f, addr) };
		call_site(cu, &scopes[i], &out[n].file, &out[n].line);
	}
	free(scopes);
	return out[0].name ? n + 1 : 0;
}
