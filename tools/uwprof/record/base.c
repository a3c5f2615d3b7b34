// SPDX-License-Identifier: GPL-2.0
/*
 * uwprof record: the services every other record file uses (the clock,
 * growing arrays, writing a record to the data file).  The lowest file of
 * record/: it calls none of the others, so calls among them go one way
 * (cmd_record.c, then procs.c and sideband.c, then this file and
 * attach.c).  libc only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/record.h"
#include "uwprof.h"

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *rec_grow(void *p, unsigned int *room, unsigned int n, size_t sz)
{
	void *g;

	if (n < *room)
		return p;
	*room = *room ? *room * 2 : 16;
	g = realloc(p, *room * sz);
	if (!g) {
		uw_err("record: out of memory");
		exit(UWPROF_EXIT_FAIL);
	}
	return g;
}

void rec_write(struct rec *r, uint32_t type, const void *a, size_t len,
	       const char *str)
{
	if (uwd_write(&r->w, type, a, len, str)) {
		uw_err("record: cannot write %s: %s", r->o.out, strerror(errno));
		exit(UWPROF_EXIT_FAIL);
	}
}

void rec_write_samples(struct rec *r, const void *recs, size_t len,
		       uint32_t n)
{
	if (uwd_write_samples(&r->w, recs, len, n)) {
		uw_err("record: cannot write %s: %s", r->o.out, strerror(errno));
		exit(UWPROF_EXIT_FAIL);
	}
}

/*
 * In a child of record that runs no program (a table maker, the guard):
 * every descriptor but stdin, stdout and stderr closed, so the device's
 * session, the data file and the side-band end when record does.
 */
void rec_close_inherited(void)
{
#ifdef SYS_close_range
	if (!syscall(SYS_close_range, 3, ~0U, 0))
		return;
#endif
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
}
