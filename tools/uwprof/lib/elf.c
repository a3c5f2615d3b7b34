// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF layer of the libc-only side: build-id and load segments of an
 * ELF32 file, or of the vDSO image in memory, and its sections, with
 * <elf.h> and stdio.  The host's generator reads ELF through libelf
 * (table/elf.c).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "lib/elf.h"
#include "lib/regfile.h"

#define NOTE_MAX	4096
#define VDSO_MAX	(64 << 10)	/* a vDSO is a page or two */

/* Walk one PT_NOTE segment's notes for NT_GNU_BUILD_ID. */
static void scan_notes(const uint8_t *p, size_t n, struct uw_elf_info *info)
{
	size_t pos = 0;

	while (pos + sizeof(Elf32_Nhdr) <= n) {
		Elf32_Nhdr nh;
		size_t name_at, desc_at, next;

		memcpy(&nh, p + pos, sizeof(nh));
		name_at = pos + sizeof(nh);
		desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
		next = desc_at + ((nh.n_descsz + 3) & ~3u);
		if (nh.n_namesz > n || nh.n_descsz > n || next > n || next <= pos)
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name_at, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz <= UW_BUILD_ID_MAX) {
			memcpy(info->build_id, p + desc_at, nh.n_descsz);
			info->build_id_len = nh.n_descsz;
			return;
		}
		pos = next;
	}
}

int uw_elf_read_at(FILE *f, long off, void *buf, size_t n)
{
	return fseek(f, off, SEEK_SET) || fread(buf, 1, n, f) != n ? -1 : 0;
}

static int read_phdrs(FILE *f, const Elf32_Ehdr *eh, struct uw_elf_info *info)
{
	static uint8_t note[NOTE_MAX];
	Elf32_Phdr ph;
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (uw_elf_read_at(f, eh->e_phoff + (long)i * eh->e_phentsize, &ph,
			    sizeof(ph)))
			return -1;
		if (ph.p_type == PT_LOAD && info->nloads < UW_ELF_MAX_LOADS) {
			info->loads[info->nloads].vaddr = ph.p_vaddr;
			info->loads[info->nloads].offset = ph.p_offset;
			info->loads[info->nloads].filesz = ph.p_filesz;
			info->loads[info->nloads].memsz = ph.p_memsz;
			info->loads[info->nloads].flags = ph.p_flags;
			info->nloads++;
		} else if (ph.p_type == PT_NOTE && !info->build_id_len &&
			   ph.p_filesz <= NOTE_MAX &&
			   !uw_elf_read_at(f, ph.p_offset, note, ph.p_filesz)) {
			scan_notes(note, ph.p_filesz, info);
		}
	}
	return 0;
}

static int elf_info(FILE *f, struct uw_elf_info *info)
{
	Elf32_Ehdr eh;
	int ret;

	memset(info, 0, sizeof(*info));
	if (!f)
		return -1;
	if (uw_elf_read_at(f, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS32 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize < sizeof(Elf32_Phdr)) {
		fclose(f);
		errno = ENOEXEC;
		return -1;
	}
	ret = read_phdrs(f, &eh, info);
	fclose(f);
	if (ret)
		errno = ENOEXEC;
	return ret;
}

int uw_elf_info(const char *path, struct uw_elf_info *info)
{
	return elf_info(uw_fopen_regular(path), info);
}

int uw_vdso_image(const uint8_t **image, size_t *len)
{
	const Elf32_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t n;

	if (!eh) {
		errno = ENOENT;
		return -1;
	}
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS32) {
		errno = ENOEXEC;
		return -1;
	}
	/* the image ends with its section headers */
	n = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (n < sizeof(*eh) || n > VDSO_MAX) {
		errno = ENOEXEC;
		return -1;
	}
	*image = (const uint8_t *)eh;
	*len = n;
	return 0;
}

int uw_vdso_info(struct uw_elf_info *info)
{
	const uint8_t *image;
	size_t len;

	memset(info, 0, sizeof(*info));
	if (uw_vdso_image(&image, &len))
		return -1;
	return elf_info(fmemopen((void *)image, len, "r"), info);
}

int uw_elf_is_64bit(const char *path)
{
	unsigned char id[EI_NIDENT];
	FILE *f = uw_fopen_regular(path);
	int ret;

	if (!f)
		return 0;
	ret = !uw_elf_read_at(f, 0, id, sizeof(id)) && !memcmp(id, ELFMAG, SELFMAG) &&
	      id[EI_CLASS] == ELFCLASS64;
	fclose(f);
	return ret;
}

Elf32_Shdr *uw_elf_sections(FILE *f, unsigned int *n)
{
	Elf32_Shdr *shs;
	Elf32_Ehdr eh;

	if (uw_elf_read_at(f, 0, &eh, sizeof(eh)) ||
	    eh.e_shentsize != sizeof(Elf32_Shdr) || !eh.e_shnum)
		return NULL;
	shs = calloc(eh.e_shnum, sizeof(*shs));
	if (!shs || uw_elf_read_at(f, eh.e_shoff, shs, eh.e_shnum * sizeof(*shs))) {
		free(shs);
		return NULL;
	}
	*n = eh.e_shnum;
	return shs;
}

void *uw_elf_section(FILE *f, const Elf32_Shdr *sh, size_t max)
{
	void *p;

	if (!sh->sh_size || sh->sh_size > max)
		return NULL;
	p = malloc(sh->sh_size + 1);
	if (p && uw_elf_read_at(f, sh->sh_offset, p, sh->sh_size)) {
		free(p);
		return NULL;
	}
	if (p)
		((char *)p)[sh->sh_size] = 0;	/* names end inside */
	return p;
}
