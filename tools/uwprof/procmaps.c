// SPDX-License-Identifier: GPL-2.0
/* Parse /proc/PID/maps. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

static int uw_parse_map_line(const char *line, struct uw_mapping *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pathpos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
		   &off, &pathpos) < 4 || !pathpos)
		return -1;
	if (end > UINT32_MAX)
		return 1;	/* not a 32-bit address: never ours */
	m->start = start;
	m->end = end;
	m->offset = off;
	m->exec = perms[2] == 'x';
	snprintf(m->path, sizeof(m->path), "%s", line + pathpos);
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

int uw_read_maps(pid_t pid, struct uw_mapping **out, unsigned int *n)
{
	struct uw_mapping *maps = NULL, *grown;
	unsigned int count = 0, room = 0;
	char path[64], line[512];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		if (count == room) {
			room = room ? room * 2 : 64;
			grown = realloc(maps, room * sizeof(*maps));
			if (!grown) {
				free(maps);
				fclose(f);
				return -ENOMEM;
			}
			maps = grown;
		}
		r = uw_parse_map_line(line, &maps[count]);
		if (r == 0)
			count++;
	}
	fclose(f);
	*out = maps;
	*n = count;
	return 0;
}
