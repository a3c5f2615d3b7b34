/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding a stored file inside a zip archive (an APK): Android maps a
 * library straight from the APK when it is stored uncompressed with its
 * data page-aligned (extractNativeLibs=false), so the ELF starts at a
 * file offset inside the archive.  The central directory is read with
 * libc only (record runs static on the device); nothing is decompressed.
 * docs/USAGE.md, "Libraries inside APKs".
 */
#ifndef UWPROF_ZIP_H
#define UWPROF_ZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* perf's and simpleperf's separator: "base.apk!/lib/armeabi-v7a/libfoo.so" */
#define UW_ZIP_SEP	"!/"

#define UW_ZIP_NAME_MAX	256

struct uw_zip_entry {
	char name[UW_ZIP_NAME_MAX];	/* as the central directory has it */
	uint64_t data_off;		/* file offset of its first byte */
	uint32_t size;			/* stored: compressed = uncompressed */
};

/* What uw_zip_find() says beside -1 (also in errno, as below). */
enum uw_zip_err {
	UW_ZIP_OK = 0,
	UW_ZIP_IO,		/* reading the file failed (errno: EIO or the read's) */
	UW_ZIP_NOT_ZIP,		/* no end-of-central-directory record (ENOEXEC) */
	UW_ZIP_MALFORMED,	/* truncated or inconsistent (ENOEXEC) */
	UW_ZIP_NOT_FOUND,	/* no such entry / no entry holds the offset (ENOENT) */
	UW_ZIP_COMPRESSED,	/* the entry is compressed or encrypted (ENOEXEC) */
};

/*
 * Find an entry of the zip archive @f: by @name (an entry name, no
 * leading '/'), or when @name is NULL the entry whose data holds file
 * offset @offset.  The entry must be stored: method 0, not encrypted,
 * its sizes equal.  Returns 0 with *@out filled, or -1 with *@why (may be
 * NULL) and errno set and a message in @err ("" for UW_ZIP_NOT_ZIP, which
 * is not an error when the file may be a plain ELF).
 */
int uw_zip_find(FILE *f, const char *name, uint64_t offset,
		struct uw_zip_entry *out, enum uw_zip_err *why, char *err,
		size_t errlen);

/*
 * Split @spec at its first "!/": the archive's path into @archive, the
 * entry's name (after the "!/") returned.  NULL if @spec has no "!/" or
 * the archive's path does not fit @room.
 */
const char *uw_zip_split(const char *spec, char *archive, size_t room);

#endif
