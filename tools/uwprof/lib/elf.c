// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF layer of the libc-only side: build-id and load segments of an
 * ELF32 file, or of the vDSO image in memory, and its sections, with
 * <elf.h> and stdio.  The host's generator reads ELF through libelf
 * (table/elf.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* fopencookie, memfd_create */
#endif
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf.h"
#include "lib/regfile.h"
#include "lib/zip.h"

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
	return elf_info(uw_elf_fopen(path), info);
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
	FILE *f = uw_elf_fopen(path);
	int ret;

	if (!f)
		return 0;
	ret = !uw_elf_read_at(f, 0, id, sizeof(id)) && !memcmp(id, ELFMAG, SELFMAG) &&
	      id[EI_CLASS] == ELFCLASS64;
	fclose(f);
	return ret;
}

/* ---- what an image needs from its loader ---- */

#define DYN_MAX		1024		/* entries of a dynamic section read */
#define DYNSTR_MAX	(1u << 20)	/* bytes of its string table */

struct dyn_view {
	Elf32_Phdr loads[UW_ELF_MAX_LOADS];
	unsigned int nloads;
	Elf32_Phdr interp, dynamic;	/* p_filesz 0: none */
};

/* The file offset of link address @va (in a PT_LOAD's file bytes). */
static int va_offset(const struct dyn_view *v, uint32_t va, uint32_t *off)
{
	for (unsigned int i = 0; i < v->nloads; i++) {
		const Elf32_Phdr *ph = &v->loads[i];

		if (va >= ph->p_vaddr && va - ph->p_vaddr < ph->p_filesz) {
			*off = ph->p_offset + (va - ph->p_vaddr);
			return 0;
		}
	}
	return -1;
}

static int read_view(FILE *f, const Elf32_Ehdr *eh, struct dyn_view *v)
{
	Elf32_Phdr ph;

	memset(v, 0, sizeof(*v));
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (uw_elf_read_at(f, eh->e_phoff + (long)i * eh->e_phentsize, &ph,
				   sizeof(ph)))
			return -1;
		if (ph.p_type == PT_LOAD && v->nloads < UW_ELF_MAX_LOADS)
			v->loads[v->nloads++] = ph;
		else if (ph.p_type == PT_INTERP)
			v->interp = ph;
		else if (ph.p_type == PT_DYNAMIC)
			v->dynamic = ph;
	}
	return 0;
}

/* A string of the dynamic string table @str (@n bytes) into @out. */
static void dyn_string(const char *str, uint32_t n, uint32_t at, char *out,
		       size_t room)
{
	size_t len;

	out[0] = 0;
	if (at >= n)
		return;
	len = strnlen(str + at, n - at);
	if (len < room && at + len < n)
		memcpy(out, str + at, len + 1);
}

static int read_dynamic(FILE *f, const struct dyn_view *v, struct uw_elf_deps *d)
{
	uint32_t n = v->dynamic.p_filesz / sizeof(Elf32_Dyn), strtab = 0,
		 strsz = 0, off, i;
	Elf32_Dyn *dyn;
	char *str = NULL;
	int ret = -1;

	if (!n)
		return 0;	/* static */
	n = n < DYN_MAX ? n : DYN_MAX;
	dyn = calloc(n, sizeof(*dyn));
	if (!dyn || uw_elf_read_at(f, v->dynamic.p_offset, dyn, n * sizeof(*dyn)))
		goto out;
	for (i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	if (!strsz || strsz > DYNSTR_MAX || va_offset(v, strtab, &off) ||
	    !(str = malloc(strsz)) || uw_elf_read_at(f, off, str, strsz))
		goto out;
	for (i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		uint32_t at = dyn[i].d_un.d_val;

		if (dyn[i].d_tag == DT_NEEDED && d->nneeded < UW_ELF_MAX_NEEDED) {
			dyn_string(str, strsz, at, d->needed[d->nneeded],
				   sizeof(d->needed[0]));
			d->nneeded += d->needed[d->nneeded][0] != 0;
		} else if (dyn[i].d_tag == DT_RUNPATH ||
			   (dyn[i].d_tag == DT_RPATH && !d->runpath[0])) {
			dyn_string(str, strsz, at, d->runpath, sizeof(d->runpath));
			d->rpath = dyn[i].d_tag == DT_RPATH;
		}
	}
	ret = 0;
out:
	free(str);
	free(dyn);
	return ret;
}

int uw_elf_deps(const char *path, struct uw_elf_deps *d)
{
	FILE *f = uw_elf_fopen(path);
	struct dyn_view v;
	Elf32_Ehdr eh;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (!f)
		return -1;
	if (uw_elf_read_at(f, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS32 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_ARM ||
	    eh.e_phentsize < sizeof(Elf32_Phdr) || read_view(f, &eh, &v))
		goto out;
	if (v.interp.p_filesz && v.interp.p_filesz < sizeof(d->interp) &&
	    !uw_elf_read_at(f, v.interp.p_offset, d->interp, v.interp.p_filesz))
		d->interp[v.interp.p_filesz] = 0;
	else
		d->interp[0] = 0;
	ret = read_dynamic(f, &v, d);
out:
	fclose(f);
	if (ret)
		errno = ENOEXEC;
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

/* ---- where an ELF is: a file, or a stored entry of a zip ---- */

static int src_fail(char *err, size_t errlen, int e, const char *fmt,
		    const char *a, const char *b)
{
	if (errlen)
		snprintf(err, errlen, fmt, a, b);
	errno = e;
	return -1;
}

/* The stored entry of the zip at @archive named @name, or holding @offset. */
static int src_in_zip(const char *archive, const char *name, uint64_t offset,
		      struct uw_elf_src *s, char *err, size_t errlen)
{
	struct uw_zip_entry ze;
	enum uw_zip_err why;
	char zerr[UW_ZIP_NAME_MAX + 200];
	FILE *f = uw_fopen_regular(archive);
	int e;

	if (!f)
		return src_fail(err, errlen, errno, "cannot open %s: %s", archive,
				uw_file_strerror(errno));
	if (uw_zip_find(f, name, offset, &ze, &why, zerr, sizeof(zerr))) {
		e = errno;
		fclose(f);
		if (why == UW_ZIP_NOT_ZIP)
			return src_fail(err, errlen, e, "%s%s", archive,
					" is not a zip archive (no end of central directory)");
		return src_fail(err, errlen, e, "%s: %s", archive, zerr);
	}
	s->fd = dup(fileno(f));
	e = errno;
	fclose(f);
	if (s->fd < 0)
		return src_fail(err, errlen, e, "cannot open %s: %s", archive,
				strerror(e));
	s->off = ze.data_off;
	s->size = ze.size;
	snprintf(s->entry, sizeof(s->entry), "%s", ze.name);
	return 0;
}

int uw_elf_src_open(const char *spec, struct uw_elf_src *s, char *err,
		    size_t errlen)
{
	char archive[4096];
	const char *entry;
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->fd = uw_open_regular(spec);
	if (s->fd >= 0) {
		if (fstat(s->fd, &st)) {
			int e = errno;

			close(s->fd);
			s->fd = -1;
			return src_fail(err, errlen, e, "cannot open %s: %s", spec,
					strerror(e));
		}
		s->size = (uint64_t)st.st_size;
		return 0;
	}
	if ((errno != ENOENT && errno != ENOTDIR) ||
	    !(entry = uw_zip_split(spec, archive, sizeof(archive))))
		return src_fail(err, errlen, errno, "cannot open %s: %s", spec,
				uw_file_strerror(errno));
	return src_in_zip(archive, entry, 0, s, err, errlen);
}

int uw_elf_src_mapped(const char *path, uint64_t offset, struct uw_elf_src *s,
		      char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	return src_in_zip(path, NULL, offset, s, err, errlen);
}

void uw_elf_src_close(struct uw_elf_src *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* A stream over [off, off + size) of the file: the ELF's bytes alone. */
struct window {
	int fd;
	uint64_t off, size, pos;
};

static ssize_t win_read(void *c, char *buf, size_t n)
{
	struct window *w = c;
	ssize_t got;

	if (w->pos >= w->size)
		return 0;
	if (n > w->size - w->pos)
		n = (size_t)(w->size - w->pos);
	got = pread(w->fd, buf, n, (off_t)(w->off + w->pos));
	if (got > 0)
		w->pos += (uint64_t)got;
	return got;
}

static int win_seek(void *c, off64_t *to, int whence)
{
	struct window *w = c;
	int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ?
		       (int64_t)w->pos : (int64_t)w->size;

	if (*to < -base)
		return -1;
	w->pos = (uint64_t)(base + *to);
	*to = (off64_t)w->pos;
	return 0;
}

static int win_close(void *c)
{
	struct window *w = c;

	close(w->fd);
	free(w);
	return 0;
}

FILE *uw_elf_src_stream(struct uw_elf_src *s)
{
	static const cookie_io_functions_t io = {
		.read = win_read, .seek = win_seek, .close = win_close,
	};
	struct window *w;
	FILE *f;

	if (!s->entry[0]) {	/* a file of its own: stdio as usual */
		f = fdopen(s->fd, "rb");
		if (f)
			s->fd = -1;
		return f;
	}
	w = malloc(sizeof(*w));
	if (!w)
		return NULL;
	*w = (struct window){ s->fd, s->off, s->size, 0 };
	f = fopencookie(w, "rb", io);
	if (!f) {
		free(w);
		return NULL;
	}
	s->fd = -1;
	return f;
}

FILE *uw_elf_fopen(const char *spec)
{
	struct uw_elf_src s;
	FILE *f;
	int e;

	if (uw_elf_src_open(spec, &s, NULL, 0))
		return NULL;
	f = uw_elf_src_stream(&s);
	e = errno;
	uw_elf_src_close(&s);
	errno = e;
	return f;
}

int uw_elf_src_fd(struct uw_elf_src *s)
{
	uint8_t buf[64 << 10];
	uint64_t done = 0;
	int fd, e;

	if (!s->entry[0]) {	/* the file itself */
		fd = s->fd;
		s->fd = -1;
		return fd;
	}
	fd = memfd_create("uwprof-elf", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < s->size) {
		size_t n = s->size - done < sizeof(buf) ?
			   (size_t)(s->size - done) : sizeof(buf);
		ssize_t got = pread(s->fd, buf, n, (off_t)(s->off + done));

		if (got <= 0 || write(fd, buf, (size_t)got) != got) {
			e = got ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		done += (uint64_t)got;
	}
	return fd;
}

int uw_elf_fd(const char *spec, char *err, size_t errlen)
{
	struct uw_elf_src s;
	int fd, e;

	if (uw_elf_src_open(spec, &s, err, errlen))
		return -1;
	fd = uw_elf_src_fd(&s);
	e = errno;
	if (fd < 0 && errlen)
		snprintf(err, errlen, "cannot read %s: %s", spec, strerror(e));
	uw_elf_src_close(&s);
	errno = e;
	return fd;
}
