// SPDX-License-Identifier: GPL-2.0
/* Parse /proc/PID/maps. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/procmaps.h"

/* 0, 1 for a line that is not one of our mappings, -1 for garbage. */
static int uw_parse_map_line(const char *line, struct uw_mapping *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pathpos = 0;
	size_t plen;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
		   &off, &pathpos) < 4 || !pathpos || strlen(perms) != 4 ||
	    start >= end)
		return -1;
	if (end > UINT32_MAX || off > UINT32_MAX)
		return 1;	/* not a 32-bit address: never ours */
	plen = strcspn(line + pathpos, "\n");
	if (plen >= sizeof(m->path))
		return 1;	/* a cut path would name another file */
	m->start = start;
	m->end = end;
	m->offset = off;
	m->exec = perms[2] == 'x';
	memcpy(m->path, line + pathpos, plen);
	m->path[plen] = 0;
	return 0;
}

/*
 * One whole line into @line; a line longer than the buffer is read to its
 * end and reported as 1, so its tail is never taken for a line of its own.
 */
static int read_line(FILE *f, char *line, int size)
{
	int c;

	if (!fgets(line, size, f))
		return -1;
	if (strchr(line, '\n') || feof(f))
		return 0;
	while ((c = fgetc(f)) != EOF && c != '\n')
		;
	return 1;
}

int uw_read_maps(pid_t pid, struct uw_mapping **out, unsigned int *n)
{
	char path[64];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	r = uw_parse_maps(f, out, n);
	fclose(f);
	return r;
}

int uw_parse_maps(FILE *f, struct uw_mapping **out, unsigned int *n)
{
	struct uw_mapping *maps = NULL, *grown;
	unsigned int count = 0, room = 0;
	char line[512];
	int r;

	while ((r = read_line(f, line, sizeof(line))) >= 0) {
		if (r)
			continue;	/* too long for a path we could open */
		if (count == room) {
			room = room ? room * 2 : 64;
			grown = realloc(maps, room * sizeof(*maps));
			if (!grown) {
				free(maps);
				return -ENOMEM;
			}
			maps = grown;
		}
		r = uw_parse_map_line(line, &maps[count]);
		if (r == 0)
			count++;
	}
	*out = maps;
	*n = count;
	return 0;
}
