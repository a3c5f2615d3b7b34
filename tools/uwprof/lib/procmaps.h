/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/PID/maps, parsed.  libc only: used on the device (record) and in
 * the VM selftests as well as on the host.
 */
#ifndef UWPROF_PROCMAPS_H
#define UWPROF_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct uw_mapping {
	uint32_t start;
	uint32_t end;
	uint32_t offset;	/* file offset of start */
	bool exec;
	char path[256];		/* empty for anonymous mappings */
};

/*
 * Read the mappings of @pid into a malloc'd array (*out, *n).
 * Returns 0, or -errno (ESRCH when the process is gone).
 */
int uw_read_maps(pid_t pid, struct uw_mapping **out, unsigned int *n);

/* The same from a stream in the maps format (the fuzz harness feeds one). */
int uw_parse_maps(FILE *f, struct uw_mapping **out, unsigned int *n);

#endif
