/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Libraries record finds inside archives: Android maps an app's library
 * straight from its APK when the library is stored uncompressed and page
 * aligned (extractNativeLibs=false), so the mapping's file is the APK and
 * its offset lands inside the stored ELF.  libc only.
 */
#ifndef UWPROF_RECORD_ARCHIVE_H
#define UWPROF_RECORD_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/procmaps.h"

/*
 * When @m's file is not an ELF but a zip whose stored entry holds file
 * offset m->offset: "PATH!/ENTRY" (the name every reader of the tools
 * opens it by, lib/elf.h) in @spec and the entry's data offset in
 * *@elf_off, and true.  False for anything else (@spec untouched).
 */
bool rec_archive_mapping(const struct uw_mapping *m, char *spec, size_t room,
			 uint32_t *elf_off);

/*
 * Whether a mapping record already holds, named @seen ("PATH" or
 * "PATH!/ENTRY"), is of file @path.
 */
bool rec_same_file(const char *seen, const char *path);

#endif
