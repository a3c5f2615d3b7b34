// SPDX-License-Identifier: GPL-2.0
/*
 * ELF metadata for the table generator, through libelf: .text, the
 * build-id, the PT_LOAD segments the container records, function symbols,
 * and the sizes of the unwind sections for --stats.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "table/decode_once.h"
#include "table/elf.h"
#include "lib/elf.h"
#include "lib/regfile.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct tb_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer the sized, global-looking name: longest size first. */
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* $a, $t, $d (optionally followed by ".suffix"). */
static void add_map(struct tb_elf *e, u32 addr, const char *name)
{
	struct tb_map *m;

	if (name[0] != '$' || !strchr("atd", name[1]) || !name[1] ||
	    (name[2] && name[2] != '.'))
		return;
	m = realloc(e->maps, (e->nmaps + 1) * sizeof(*m));
	if (!m)
		return;
	e->maps = m;
	e->maps[e->nmaps++] = (struct tb_map){ addr & ~1u, name[1] };
}

static int map_cmp(const void *a, const void *b)
{
	const struct tb_map *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void read_symbols(struct tb_elf *e, Elf *elf, Elf_Scn *scn,
			 GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct tb_sym *v;

	if (!d || !n)
		return;
	v = realloc(e->syms, (e->nsyms + n) * sizeof(*v));
	if (!v)
		return;
	e->syms = v;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (GELF_ST_TYPE(s.st_info) == STT_NOTYPE && name)
			add_map(e, s.st_value, name);
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC)
			continue;
		v[e->nsyms++] = (struct tb_sym){ s.st_value & ~1u, s.st_size,
						 name ? name : "",
						 s.st_value & 1, false };
	}
}

static int sec_cmp(const void *a, const void *b)
{
	const struct tb_sec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Symbols and mapping symbols by address; none at all is fine (NULL). */
void tb_elf_sort_symbols(struct tb_elf *e)
{
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	if (e->nmaps)
		qsort(e->maps, e->nmaps, sizeof(*e->maps), map_cmp);
}

void tb_elf_cover_code(struct tb_elf *e)
{
	const struct uwt_seg *seg = NULL;
	u32 lo = e->dot_text_addr, hi = e->dot_text_addr + e->dot_text_size;

	for (u32 i = 0; i < e->meta.nsegs; i++) {
		const struct uwt_seg *s = &e->meta.segs[i];

		if ((s->flags & PF_X) && lo >= s->vaddr &&
		    hi <= s->vaddr + s->memsz)
			seg = s;
	}
	if (!seg)
		return;
	for (u32 i = 0; i < e->nsecs; i++) {
		const struct tb_sec *x = &e->secs[i];

		if (x->addr < seg->vaddr ||
		    x->addr + x->size > seg->vaddr + seg->memsz)
			continue;
		if (x->addr < lo)
			lo = x->addr;
		if (x->addr + x->size > hi)
			hi = x->addr + x->size;
	}
	e->meta.text_addr = lo;
	e->meta.text_size = hi - lo;
}

const struct tb_sec *tb_elf_sec(const struct tb_elf *e, u32 addr)
{
	for (u32 i = 0; i < e->nsecs; i++)
		if (addr >= e->secs[i].addr &&
		    addr - e->secs[i].addr < e->secs[i].size)
			return &e->secs[i];
	return NULL;
}

Elf_Scn *tb_elf_next_named(Elf *elf, size_t shstrndx, Elf_Scn *scn,
			   GElf_Shdr *sh, const char **name)
{
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		*name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (*name)
			return scn;
	}
	return NULL;
}

/*
 * A linker's allocated sections do not overlap, so the one found last
 * answers for any address inside it (in a crafted file that overlaps
 * them, one of the overlapping sections answers, always within its
 * bytes): discovery reads a relocation's word, or a table's entry, at a
 * time (thousands for libc), nearly all in one section, and libelf's walk
 * over the headers cost more than the read.
 */
const u8 *tb_elf_read(struct tb_elf *e, u32 addr, u32 size, bool ro)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	if (e->rd_b && addr - e->rd_addr < e->rd_size &&
	    size <= e->rd_size - (addr - e->rd_addr))
		return !ro || e->rd_ro ? e->rd_b + (addr - e->rd_addr) : NULL;
	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size ||
		    size > sh.sh_size - (addr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size < sh.sh_size)
			return NULL;
		e->rd_b = d->d_buf;
		e->rd_addr = (u32)sh.sh_addr;
		e->rd_size = (u32)sh.sh_size;
		e->rd_ro = !(sh.sh_flags & SHF_WRITE) &&
			   sh.sh_type == SHT_PROGBITS;
		return !ro || e->rd_ro ? e->rd_b + (addr - e->rd_addr) : NULL;
	}
	return NULL;
}

const u8 *tb_elf_sec_bytes(struct tb_elf *e, const struct tb_sec *s)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_addr != s->addr ||
		    sh.sh_size != s->size || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		return d && d->d_size >= sh.sh_size ? d->d_buf : NULL;
	}
	return NULL;
}

static void read_build_id(Elf_Scn *scn, u8 *id, u32 *len)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz <= UWT_BUILD_ID_MAX) {
			*len = nh.n_descsz;
			memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
		}
	}
}

static bool is_arm32(const GElf_Ehdr *eh)
{
	return eh->e_ident[EI_CLASS] == ELFCLASS32 && eh->e_machine == EM_ARM &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB;
}

int tb_elf_open(struct tb_elf *e, const char *path, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	GElf_Ehdr eh;
	size_t shstrndx, nph;
	bool have_text = false;

	memset(e, 0, sizeof(*e));
	e->dbg_fd = -1;
	elf_version(EV_CURRENT);
	/* a file, or a stored entry of a zip ("base.apk!/lib/...") */
	e->fd = uw_elf_fd(path, err, errlen);
	if (e->fd < 0)
		return -1;
	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		snprintf(err, errlen, "%s is not an ELF file", path);
		goto fail;
	}
	if (!is_arm32(&eh)) {
		snprintf(err, errlen,
			 "%s is not a little-endian 32-bit ARM ELF (v2 tables are for ARM32 code)",
			 path);
		goto fail;
	}
	if (elf_getshdrstrndx(e->elf, &shstrndx) || elf_getphdrnum(e->elf, &nph)) {
		snprintf(err, errlen, "%s: broken section or program headers", path);
		goto fail;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    e->meta.nsegs == UWT_MAX_SEGS)
			continue;
		e->meta.segs[e->meta.nsegs++] = (struct uwt_seg){
			ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz,
			ph.p_flags };
	}
	while ((scn = tb_elf_next_named(e->elf, shstrndx, scn, &sh, &name))) {
		if ((sh.sh_flags & SHF_EXECINSTR) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type == SHT_PROGBITS && sh.sh_size &&
		    e->nsecs < TB_MAX_SECS) {
			struct tb_sec *x = &e->secs[e->nsecs++];

			x->addr = sh.sh_addr;
			x->size = sh.sh_size;
			snprintf(x->name, sizeof(x->name), "%s", name);
		}
		if (!strcmp(name, ".text")) {
			e->dot_text_addr = sh.sh_addr;
			e->dot_text_size = sh.sh_size;
			e->meta.text_addr = sh.sh_addr;
			e->meta.text_size = sh.sh_size;
			have_text = true;
		} else if (!strcmp(name, ".ARM.exidx")) {
			e->exidx_bytes = sh.sh_size;
			e->exidx_entries = sh.sh_size / 8;
		} else if (!strcmp(name, ".ARM.extab")) {
			e->extab_bytes = sh.sh_size;
		} else if (!strcmp(name, ".debug_frame")) {
			e->debug_frame_bytes = sh.sh_size;
		} else if (!strcmp(name, ".eh_frame")) {
			e->eh_frame_bytes = sh.sh_size;
		} else if (!strcmp(name, ".gnu_debugdata")) {
			e->has_debugdata = true;
		} else if (!strcmp(name, ".gnu_debuglink")) {
			e->has_debuglink = true;
		} else if (sh.sh_type == SHT_NOTE) {
			read_build_id(scn, e->meta.build_id,
				      &e->meta.build_id_len);
		}
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			read_symbols(e, e->elf, scn, &sh);
		if (sh.sh_type == SHT_SYMTAB)
			e->has_symtab = true;
	}
	if (!have_text) {
		snprintf(err, errlen, "%s has no .text section", path);
		goto fail;
	}
	tb_elf_sort_symbols(e);
	qsort(e->secs, e->nsecs, sizeof(*e->secs), sec_cmp);
	return 0;
fail:
	tb_elf_close(e);
	return -1;
}

u32 tb_elf_text_halfwords(struct tb_elf *e)
{
	uint64_t code = 0;
	u32 lo = e->meta.text_addr & ~1u;
	u32 n = (e->meta.text_addr + e->meta.text_size - lo + 1) / 2;

	for (u32 i = 0; i < e->nsecs && i < 32; i++)
		if (tb_elf_sec_bytes(e, &e->secs[i]))
			code += e->secs[i].size;
	return 2ull * n > 2 * code + (1u << 20) ? 0 : n;
}

struct tb_dec *tb_elf_decoder(struct tb_elf *e)
{
	if (e->dec)
		return e->dec;
	e->dec = malloc(sizeof(*e->dec));
	if (e->dec && tb_dec_open(e->dec, e->meta.text_addr & ~1u,
				  tb_elf_text_halfwords(e))) {
		tb_dec_close(e->dec);
		free(e->dec);
		e->dec = NULL;
	}
	return e->dec;
}

void tb_elf_close(struct tb_elf *e)
{
	if (e->dec) {
		tb_dec_close(e->dec);
		free(e->dec);
		e->dec = NULL;
	}
	if (e->dwfl)
		dwfl_end(e->dwfl);
	e->dwfl = NULL;
	if (e->dbg_dwarf)
		dwarf_end(e->dbg_dwarf);
	if (e->dbg_elf)
		elf_end(e->dbg_elf);
	if (e->dbg_fd >= 0)
		close(e->dbg_fd);
	e->dbg_dwarf = e->dbg_elf = NULL;
	e->dbg_fd = -1;
	if (e->dwarf)
		dwarf_end(e->dwarf);
	e->dwarf = NULL;
	if (e->elf)
		elf_end(e->elf);
	if (e->fd > 0)
		close(e->fd);
	free(e->syms);
	e->syms = NULL;
	free(e->maps);
	e->maps = NULL;
	free(e->jumps);
	e->jumps = NULL;
	e->elf = NULL;
	e->fd = -1;
}

const struct tb_sym *tb_elf_sym(const struct tb_elf *e, u32 addr)
{
	u32 lo = 0, hi = e->nsyms;

	/* Last symbol starting at or before addr. */
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (e->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Among equal addresses the sort put the largest first. */
	while (lo > 1 && e->syms[lo - 2].addr == e->syms[lo - 1].addr)
		lo--;
	if (addr >= e->syms[lo - 1].addr + (e->syms[lo - 1].size ?
					    e->syms[lo - 1].size : 1))
		return NULL;
	return &e->syms[lo - 1];
}

static void hex_id(const u8 *id, u32 len, char *out)
{
	for (u32 i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = 0;
}

int tb_find_debug_file(const struct tb_elf *e, const char *file,
		       const char *const *dirs, u32 ndirs, char *out,
		       size_t outlen)
{
	char hex[2 * UWT_BUILD_ID_MAX + 1];

	if (file) {
		snprintf(out, outlen, "%s", file);
		return 1;
	}
	/* Without a build-id there is nothing to look up by, and nothing to
	 * check a found file against. */
	if (e->meta.build_id_len < 2)
		return 0;
	hex_id(e->meta.build_id, e->meta.build_id_len, hex);
	for (u32 i = 0; i < ndirs; i++) {
		snprintf(out, outlen, "%s/.build-id/%.2s/%s.debug", dirs[i], hex,
			 hex + 2);
		if (!access(out, R_OK))
			return 1;
	}
	return 0;
}

/* Section sizes and symbols of the debug file; its build-id in @id. */
static void scan_debug(struct tb_elf *e, u8 *id, u32 *idlen)
{
	Elf *elf = e->dbg_elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = tb_elf_next_named(elf, shstrndx, scn, &sh, &name))) {
		if (!strcmp(name, ".debug_frame") &&
		    sh.sh_type == SHT_PROGBITS) {
			GElf_Chdr ch;

			e->dbg_frame_bytes = sh.sh_size;
			e->dbg_frame_compressed = sh.sh_flags & SHF_COMPRESSED;
			if (e->dbg_frame_compressed && gelf_getchdr(scn, &ch))
				e->dbg_frame_bytes = ch.ch_size;
		} else if (sh.sh_type == SHT_NOTE) {
			read_build_id(scn, id, idlen);
		}
		/* .symtab names the local and asm functions .dynsym lacks. */
		if (sh.sh_type == SHT_SYMTAB)
			read_symbols(e, elf, scn, &sh);
	}
}

int tb_elf_attach_debug(struct tb_elf *e, const char *path, char *err,
			size_t errlen)
{
	char want[2 * UWT_BUILD_ID_MAX + 1], got[2 * UWT_BUILD_ID_MAX + 1];
	u8 id[UWT_BUILD_ID_MAX];
	u32 idlen = 0;
	GElf_Ehdr eh;

	snprintf(e->dbg_path, sizeof(e->dbg_path), "%s", path);
	e->dbg_fd = uw_open_regular(path);
	if (e->dbg_fd < 0) {
		snprintf(err, errlen, "cannot open debug file %s: %s", path,
			 uw_file_strerror(errno));
		return -1;
	}
	e->dbg_elf = elf_begin(e->dbg_fd, ELF_C_READ, NULL);
	if (!e->dbg_elf || elf_kind(e->dbg_elf) != ELF_K_ELF ||
	    !gelf_getehdr(e->dbg_elf, &eh) || !is_arm32(&eh)) {
		snprintf(err, errlen, "debug file %s is not a 32-bit ARM ELF",
			 path);
		return -1;
	}
	scan_debug(e, id, &idlen);
	hex_id(e->meta.build_id, e->meta.build_id_len, want);
	hex_id(id, idlen, got);
	if (!e->meta.build_id_len || idlen != e->meta.build_id_len ||
	    memcmp(id, e->meta.build_id, idlen)) {
		snprintf(err, errlen,
			 "debug file %s has build-id %s but the ELF has %s: it belongs to another build (use the debug package of exactly this version, or drop --debug-file)",
			 path, idlen ? got : "(none)",
			 e->meta.build_id_len ? want : "(none)");
		return -1;
	}
	tb_elf_sort_symbols(e);
	return 0;
}

bool tb_thread_entry_sym(const char *name)
{
	static const char *const entries[] = {
		"__clone", "clone", "__clone3", "thread_start",	/* glibc */
		"__bionic_clone",				/* bionic */
	};

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(name, entries[i]))
			return true;
	return false;
}

u32 tb_elf_maps_upto(const struct tb_elf *e, u32 addr)
{
	u32 lo = 0, hi = e->nmaps;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (e->maps[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

u32 tb_elf_first_sym(const struct tb_elf *e, u32 addr)
{
	u32 lo = 0, hi = e->nsyms;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

char tb_elf_map_at(const struct tb_elf *e, u32 addr)
{
	u32 n = tb_elf_maps_upto(e, addr);

	/* the last mapping symbol at or before @addr */
	return n ? e->maps[n - 1].kind : 0;
}

/* Does the dynamic section name no library the file needs (DT_NEEDED)? */
static bool needs_none(const struct tb_elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize &&
		     i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_NEEDED)
				return false;
	}
	return true;
}

bool tb_elf_program_entry(const struct tb_elf *e, u32 addr)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n = 0;

	if (!gelf_getehdr(e->elf, &eh) || !eh.e_entry ||
	    (eh.e_entry & ~1ull) != addr)
		return false;
	if (eh.e_type == ET_EXEC)
		return true;
	if (eh.e_type != ET_DYN || elf_getphdrnum(e->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	/* no interpreter and no library needed: the dynamic loader itself
	 * (or a static PIE), where the kernel starts every dynamic process */
	return needs_none(e);
}
