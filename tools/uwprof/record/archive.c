// SPDX-License-Identifier: GPL-2.0
/* Libraries mapped from inside zip archives (archive.h). */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf.h"
#include "lib/regfile.h"
#include "lib/zip.h"
#include "record/archive.h"

/* An ELF file (or unreadable): not an archive, nothing more to read. */
static bool elf_or_unreadable(const char *path)
{
	unsigned char magic[SELFMAG];
	int fd = uw_open_regular(path);
	bool ret;

	if (fd < 0)
		return true;
	ret = read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic) ||
	      !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ret;
}

bool rec_archive_mapping(const struct uw_mapping *m, char *spec, size_t room,
			 uint32_t *elf_off)
{
	struct uw_elf_src s;
	int n;

	if (m->path[0] != '/' || elf_or_unreadable(m->path) ||
	    uw_elf_src_mapped(m->path, m->offset, &s, NULL, 0))
		return false;
	uw_elf_src_close(&s);
	if (s.off > m->offset)
		return false;
	n = snprintf(spec, room, "%s" UW_ZIP_SEP "%s", m->path, s.entry);
	if (n < 0 || (size_t)n >= room) {
		/* cannot be named: record it as the file it is */
		snprintf(spec, room, "%s", m->path);
		return false;
	}
	*elf_off = (uint32_t)s.off;
	return true;
}

bool rec_same_file(const char *seen, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(seen, path, n) &&
	       (!seen[n] || !strncmp(seen + n, UW_ZIP_SEP, strlen(UW_ZIP_SEP)));
}
