// SPDX-License-Identifier: GPL-2.0
/*
 * Where function discovery starts: what the ELF states about code without
 * symbols (its entry point, the dynamic section's DT_INIT and DT_FINI,
 * the constructor arrays, the starts of unwind entries) and the code
 * addresses it stores as data (relocations, or the words of a statically
 * linked program's data).  The addresses stored as
 * data are only candidates: discover.c keeps those that no function's
 * code already runs through.
 */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include "table/discover.h"
#include "table/elf.h"

int dc_cands_grow(struct dc_cands *c)
{
	u32 cap = c->cap ? 2 * c->cap : 1024;
	struct dc_cand *v = realloc(c->v, cap * sizeof(*v));

	if (!v)
		return -1;
	c->v = v;
	c->cap = cap;
	return 0;
}

/* Is @addr inside the code the table covers? */
static bool in_code(const struct tb_elf *e, u32 addr)
{
	return addr - e->meta.text_addr < e->meta.text_size &&
	       tb_elf_sec(e, addr);
}

/* A word stored as data that may be a code address: bit 0 the mode. */
static int add_pointer(const struct tb_elf *e, struct dc_cands *out, u32 w,
		       enum dc_kind k)
{
	bool thumb = w & 1;

	/* ARM code is word aligned: an even address that is not is data */
	if (!in_code(e, w & ~1u) || (!thumb && (w & 3)))
		return 0;
	return dc_cands_add(out, w & ~1u, thumb, k, 0);
}

bool dc_read_word(struct tb_elf *e, u32 addr, u32 *w)
{
	const u8 *b = tb_elf_read(e, addr, 4, false);

	if (b)
		memcpy(w, b, 4);
	return b;
}

/*
 * R_ARM_RELATIVE: the word in place is the link-time address (REL, so
 * the addend is there); R_ARM_ABS32 adds a section or local symbol's
 * value to it.  GLOB_DAT and JUMP_SLOT name global symbols, which are
 * seeds already.  Reads each entry's word through a cached section.
 */
static int scan_rel(struct tb_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		    struct dc_cands *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Data *syms = NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	Elf_Scn *ss = elf_getscn(e->elf, sh->sh_link);

	if (ss)
		syms = elf_getdata(ss, NULL);
	for (size_t i = 0; d && i < n; i++) {
		GElf_Rel r;
		GElf_Sym s;
		u32 w, type;

		if (!gelf_getrel(d, i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if (type != R_ARM_RELATIVE && type != R_ARM_ABS32)
			continue;
		if (!dc_read_word(e, r.r_offset, &w))
			continue;
		if (type == R_ARM_ABS32) {
			if (!syms || !gelf_getsym(syms, GELF_R_SYM(r.r_info), &s) ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			w += s.st_value;
		}
		if (add_pointer(e, out, w, DC_K_PTR))
			return -1;
	}
	return 0;
}

/*
 * A program without dynamic relocations (statically linked, not PIE)
 * stores code addresses as plain words: every aligned word of its data
 * that points into the code is a candidate.
 */
static int scan_data(struct tb_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		     struct dc_cands *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	if (!d || d->d_size < sh->sh_size)
		return 0;
	for (u32 off = (4 - (sh->sh_addr & 3)) & 3; off + 4 <= sh->sh_size;
	     off += 4) {
		u32 w;

		memcpy(&w, (const u8 *)d->d_buf + off, 4);
		if (add_pointer(e, out, w, DC_K_PTR))
			return -1;
	}
	return 0;
}

/* .init_array, .fini_array, .preinit_array: each word a function. */
static int scan_array(struct tb_elf *e, Elf_Scn *scn, struct dc_cands *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	for (u32 off = 0; d && off + 4 <= d->d_size; off += 4) {
		u32 w;

		memcpy(&w, (const u8 *)d->d_buf + off, 4);
		if (add_pointer(e, out, w, DC_K_SEED))
			return -1;
	}
	return 0;
}

/*
 * .ARM.exidx: each entry starts a function (CANTUNWIND ones too), its
 * address a prel31 offset from the entry's first word.
 */
static int scan_exidx(struct tb_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		      struct dc_cands *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	for (u32 off = 0; d && off + 8 <= d->d_size; off += 8) {
		u32 w, a;

		memcpy(&w, (const u8 *)d->d_buf + off, 4);
		a = sh->sh_addr + off + (u32)((s32)(w << 1) >> 1);
		if (in_code(e, a) && !(a & 1) &&
		    dc_cands_add(out, a, false, DC_K_BOUND, 0))
			return -1;
	}
	return 0;
}

/* A static program's .rel.iplt does not count: only a dynamic one's. */
static bool has_dyn_relocs(struct tb_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			return true;
	return false;
}

/*
 * The dynamic section's DT_INIT and DT_FINI: the loader calls each as a
 * function (the .init and .fini sections' code, and the crti code they
 * call).  Bit 0 the mode, as for any code pointer.  The arrays it names
 * (DT_INIT_ARRAY and the others) are their sections, scanned below.
 */
static int scan_dynamic(struct tb_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			struct dc_cands *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Dyn dyn;

		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if ((dyn.d_tag == DT_INIT || dyn.d_tag == DT_FINI) &&
		    add_pointer(e, out, (u32)dyn.d_un.d_ptr, DC_K_SEED))
			return -1;
	}
	return 0;
}

static int scan_sections(struct tb_elf *e, struct dc_cands *out)
{
	bool dyn = has_dyn_relocs(e);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int r = 0;

	while (!r && (scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_type == SHT_INIT_ARRAY || sh.sh_type == SHT_FINI_ARRAY ||
		    sh.sh_type == SHT_PREINIT_ARRAY)
			r = scan_array(e, scn, out);
		else if (sh.sh_type == SHT_DYNAMIC)
			r = scan_dynamic(e, scn, &sh, out);
		else if (sh.sh_type == SHT_ARM_EXIDX)
			r = scan_exidx(e, scn, &sh, out);
		else if (dyn && sh.sh_type == SHT_REL)
			r = scan_rel(e, scn, &sh, out);
		else if (!dyn && sh.sh_type == SHT_PROGBITS &&
			 !(sh.sh_flags & SHF_EXECINSTR))
			r = scan_data(e, scn, &sh, out);
	}
	return r;
}

int dc_seeds(struct tb_elf *e, const struct tb_input *in,
	     struct dc_cands *out)
{
	GElf_Ehdr eh;

	if (gelf_getehdr(e->elf, &eh) && eh.e_entry &&
	    add_pointer(e, out, eh.e_entry, DC_K_SEED))
		return -1;
	for (u32 i = 0; i < e->nsyms; i++)
		if (in_code(e, e->syms[i].addr) &&
		    dc_cands_add(out, e->syms[i].addr, e->syms[i].thumb,
				 DC_K_SEED, 0))
			return -1;
	/* DWARF FDEs start functions, in an instruction set they do not
	 * say (other inputs may start at a piece of an exidx range) */
	for (u32 i = 0; i < in->n; i++) {
		const struct tb_cfi_func *f = &in->funcs[i];

		if ((f->source == TB_SRC_DEBUG_FRAME ||
		     f->source == TB_SRC_EH_FRAME ||
		     f->source == TB_SRC_DEBUG_FILE) && f->size &&
		    in_code(e, f->addr) &&
		    dc_cands_add(out, f->addr, false, DC_K_BOUND, 0))
			return -1;
	}
	return scan_sections(e, out);
}
