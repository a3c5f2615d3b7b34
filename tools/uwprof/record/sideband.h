/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side-band of uwprof record: a perf software dummy event that counts
 * nothing but reports, in order, the forks, exits, name changes, execs and
 * executable mmaps of the processes it follows.  Its times are
 * CLOCK_MONOTONIC, the clock of the module's samples.  libc only.
 */
#ifndef UWPROF_RECORD_SIDEBAND_H
#define UWPROF_RECORD_SIDEBAND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum sb_type { SB_FORK, SB_EXIT, SB_COMM, SB_MMAP, SB_LOST };

struct sb_event {
	enum sb_type type;
	uint32_t pid, tid;	/* the task; FORK: the new one */
	uint32_t ppid, ptid;	/* FORK, EXIT: the parent */
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	bool exec;		/* COMM: the name changed by an exec */
	char comm[16];
	uint32_t start, len, pgoff, prot;	/* MMAP */
	uint32_t build_id_len;	/* MMAP: 0 if the kernel gave none */
	uint8_t build_id[20];
	char path[256];		/* MMAP */
	uint64_t lost;		/* LOST: records the kernel could not write */
	unsigned int seq;	/* order within its ring, for a stable sort */
};

struct sideband {
	int ncpu;
	int *ring_fd;		/* per CPU: the event whose ring the others share */
	void **ring;		/* per CPU: the mmap'd ring, NULL if none */
	int *fds;		/* every event opened */
	unsigned int nfds, fdroom;
	size_t ring_bytes;	/* data area, a power of two */
	struct sb_event *ev;	/* events of one read, sorted by time */
	unsigned int nev, evroom;
	uint64_t lost;		/* records lost, from LOST records */
};

/*
 * Open the side-band for thread @tid (inherited by the threads and
 * processes it creates), or with @tid -1 for every task on every CPU.
 * Returns 0, or -errno with nothing left open (perf_event_open refused:
 * see /proc/sys/kernel/perf_event_paranoid).
 */
int sb_open(struct sideband *sb, pid_t tid);

/* Follow one more thread (-p: each thread of a running process). */
int sb_add(struct sideband *sb, pid_t tid);

/*
 * Everything the rings hold now, oldest first, passed to @fn.  Returns
 * the number of events.
 */
unsigned int sb_read(struct sideband *sb,
		     void (*fn)(void *ctx, const struct sb_event *e), void *ctx);

/* The fds to poll for POLLIN (one per CPU); returns how many were set. */
unsigned int sb_pollfds(const struct sideband *sb, int *fds, unsigned int room);

void sb_close(struct sideband *sb);

#endif
