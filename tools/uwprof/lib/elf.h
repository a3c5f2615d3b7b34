/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GNU build-id and PT_LOAD segments of a 32-bit ELF file, read with
 * libc only (record runs static on the device, without libelf).
 */
#ifndef UWPROF_BUILDID_H
#define UWPROF_BUILDID_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/addrmap.h"
#include "lib/zip.h"

#define UW_ELF_MAX_LOADS	16
#define UW_BUILD_ID_MAX		32

struct uw_elf_info {
	uint32_t build_id_len;		/* 0: the file has no build-id note */
	uint8_t build_id[UW_BUILD_ID_MAX];
	uint32_t nloads;
	struct uw_seg loads[UW_ELF_MAX_LOADS];
};

/*
 * Read @path (a file, or "ARCHIVE!/ENTRY": below).  Returns 0, or -1
 * with errno set (ENOEXEC: not a little-endian 32-bit ELF file).
 */
int uw_elf_info(const char *path, struct uw_elf_info *info);

/*
 * The vDSO the kernel mapped into this process: the image every 32-bit
 * process on this kernel has.  -1 with errno ENOENT if there is none.
 */
int uw_vdso_image(const uint8_t **image, size_t *len);
/* uw_elf_info() of that image. */
int uw_vdso_info(struct uw_elf_info *info);

/* The name /proc/PID/maps and the side-band give its mapping. */
#define UW_VDSO_NAME	"[vdso]"

/* What an image asks its loader for (PT_INTERP, the dynamic section). */
#define UW_ELF_MAX_NEEDED	64
#define UW_ELF_NAME_MAX		256

struct uw_elf_deps {
	char interp[UW_ELF_NAME_MAX];	/* PT_INTERP, "" if none */
	/* DT_RUNPATH, else DT_RPATH (searched before LD_LIBRARY_PATH) */
	char runpath[1024];
	int rpath;			/* runpath is the older DT_RPATH */
	unsigned int nneeded;		/* DT_NEEDED, in order */
	char needed[UW_ELF_MAX_NEEDED][UW_ELF_NAME_MAX];
};

/*
 * The loader and libraries the 32-bit ARM ELF file @path names.  Returns
 * 0, or -1 with errno set (ENOEXEC: not a little-endian 32-bit ARM ELF).
 * Names that do not fit are left out.
 */
int uw_elf_deps(const char *path, struct uw_elf_deps *d);

/* Read @n bytes at @off of @f: 0, or -1 if they are not all there. */
int uw_elf_read_at(FILE *f, long off, void *buf, size_t n);

/*
 * The section headers of the ELF32 file @f, malloc'd, and their number
 * in *@n; NULL if it has none or they cannot be read.
 */
Elf32_Shdr *uw_elf_sections(FILE *f, unsigned int *n);

/*
 * A section's bytes, malloc'd with a NUL after them (a string table's
 * names end inside); NULL if it is empty, larger than @max or cannot be
 * read.
 */
void *uw_elf_section(FILE *f, const Elf32_Shdr *sh, size_t max);

/* 1 if @path is a 64-bit ELF file (a 64-bit program, which v2 tables
 * cannot describe), else 0. */
int uw_elf_is_64bit(const char *path);

/*
 * Where an ELF is.  Every reader of the tools opens an ELF by a name
 * that is either a file's path or "ARCHIVE!/ENTRY" (perf's and
 * simpleperf's convention): the stored (uncompressed) entry ENTRY of the
 * zip archive ARCHIVE, an APK's library mapped in place (lib/zip.h).  A
 * path that names an existing file is that file, "!/" or not.
 */
struct uw_elf_src {
	int fd;			/* the file or the archive, or -1 */
	uint64_t off;		/* the ELF's first byte in it */
	uint64_t size;		/* the ELF's bytes */
	char entry[UW_ZIP_NAME_MAX];	/* the archive entry's name, "" for a file */
};

/*
 * Open the ELF named @spec.  0, or -1 with errno set and, if @errlen, a
 * message in @err (a compressed entry, a malformed zip, no such entry...).
 */
int uw_elf_src_open(const char *spec, struct uw_elf_src *s, char *err,
		    size_t errlen);

/*
 * The ELF a mapping of zip archive @path at file offset @offset maps: the
 * stored entry whose data holds the offset.  0, or -1 as above (errno
 * ENOEXEC and the message "... is not a zip archive" when @path is not
 * one).
 */
int uw_elf_src_mapped(const char *path, uint64_t offset, struct uw_elf_src *s,
		      char *err, size_t errlen);

void uw_elf_src_close(struct uw_elf_src *s);

/*
 * A stdio stream over the ELF's bytes alone (offset 0 is its first
 * byte); it takes @s's descriptor.  NULL with errno set.
 */
FILE *uw_elf_src_stream(struct uw_elf_src *s);

/*
 * A descriptor whose file is exactly the ELF, for readers that take one
 * (libelf, libdwfl): the file's own, or for an archive entry an
 * anonymous memory file holding a copy of its bytes.  Takes @s's
 * descriptor; -1 with errno set.
 */
int uw_elf_src_fd(struct uw_elf_src *s);

/* uw_elf_src_open() then uw_elf_src_stream(); NULL with errno set. */
FILE *uw_elf_fopen(const char *spec);

/* uw_elf_src_open() then uw_elf_src_fd(); -1 with a message in @err. */
int uw_elf_fd(const char *spec, char *err, size_t errlen);

#endif
