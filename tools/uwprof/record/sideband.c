// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band: perf dummy events with mmap2, comm, comm_exec and task
 * records, read from their rings.  The kernel refuses to mmap an
 * inherited per-task event (cpu -1), so there is one event per CPU and
 * thread, and the events of one CPU write to that CPU's ring; the rings
 * are merged by time.  libc only: part of the device-side uwprof.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/sideband.h"

#define SB_RING_PAGES	64	/* data pages per CPU: 256 KiB with 4 KiB pages */

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return (int)syscall(__NR_perf_event_open, a, pid, cpu, group,
			    PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *a, bool build_id)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->mmap = 1;		/* executable mappings only */
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;	/* allowed at a stricter perf_event_paranoid */
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;	/* the samples' clock, uwprof_now() */
	a->watermark = 1;
	a->wakeup_watermark = 1;	/* wake the reader at any record */
	a->build_id = build_id;
}

static int keep_fd(struct sideband *sb, int fd)
{
	if (sb->nfds == sb->fdroom) {
		unsigned int room = sb->fdroom ? sb->fdroom * 2 : 16;
		int *g = realloc(sb->fds, room * sizeof(*g));

		if (!g)
			return -ENOMEM;
		sb->fds = g;
		sb->fdroom = room;
	}
	sb->fds[sb->nfds++] = fd;
	return 0;
}

/* One event for @tid on @cpu, writing to that CPU's ring. */
static int open_one(struct sideband *sb, pid_t tid, int cpu)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	/* build_id in mmap2 records: Linux 5.12 on; older ones refuse it. */
	fill_attr(&a, true);
	fd = perf_open(&a, tid, cpu, -1);
	if (fd < 0 && errno == EINVAL) {
		fill_attr(&a, false);
		fd = perf_open(&a, tid, cpu, -1);
	}
	if (fd < 0)
		return -errno;
	if (keep_fd(sb, fd)) {
		close(fd);
		return -ENOMEM;
	}
	if (sb->ring[cpu])
		return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, sb->ring_fd[cpu]) ?
			-errno : 0;
	sb->ring_bytes = (size_t)SB_RING_PAGES * (size_t)page;
	sb->ring[cpu] = mmap(NULL, sb->ring_bytes + (size_t)page,
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sb->ring[cpu] == MAP_FAILED) {
		sb->ring[cpu] = NULL;
		return -errno;
	}
	sb->ring_fd[cpu] = fd;
	return 0;
}

int sb_add(struct sideband *sb, pid_t tid)
{
	int err, opened = 0;

	for (int cpu = 0; cpu < sb->ncpu; cpu++) {
		err = open_one(sb, tid, cpu);
		if (err == -ENODEV || err == -EINVAL)
			continue;	/* an offline CPU */
		if (err)
			return err;
		opened++;
	}
	return opened ? 0 : -ENODEV;
}

int sb_open(struct sideband *sb, pid_t tid)
{
	int err;

	memset(sb, 0, sizeof(*sb));
	sb->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (sb->ncpu < 1)
		sb->ncpu = 1;
	sb->ring_fd = calloc((size_t)sb->ncpu, sizeof(*sb->ring_fd));
	sb->ring = calloc((size_t)sb->ncpu, sizeof(*sb->ring));
	if (!sb->ring_fd || !sb->ring) {
		sb_close(sb);
		return -ENOMEM;
	}
	err = sb_add(sb, tid);
	if (err)
		sb_close(sb);
	return err;
}

void sb_close(struct sideband *sb)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int cpu = 0; sb->ring && cpu < sb->ncpu; cpu++)
		if (sb->ring[cpu])
			munmap(sb->ring[cpu], sb->ring_bytes + (size_t)page);
	for (unsigned int i = 0; i < sb->nfds; i++)
		close(sb->fds[i]);
	free(sb->fds);
	free(sb->ring);
	free(sb->ring_fd);
	free(sb->ev);
	memset(sb, 0, sizeof(*sb));
}

unsigned int sb_pollfds(const struct sideband *sb, int *fds, unsigned int room)
{
	unsigned int n = 0;

	for (int cpu = 0; cpu < sb->ncpu && n < room; cpu++)
		if (sb->ring[cpu])
			fds[n++] = sb->ring_fd[cpu];
	return n;
}

/* ---- records ---- */

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void copy_str(char *dst, size_t room, const uint8_t *src, size_t avail)
{
	size_t n = strnlen((const char *)src, avail);

	if (n >= room)
		n = room - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * One record (header at @r, @size bytes) into @e; false for records of
 * no interest.  Every record ends with sample_id (pid, tid, time): the
 * time is its last 8 bytes.
 */
static bool decode(const uint8_t *r, uint32_t size, struct sb_event *e)
{
	uint32_t type = get32(r);
	uint16_t misc;

	memcpy(&misc, r + 4, 2);	/* perf_event_header: type, misc, size */

	if (size < 8 + 16)
		return false;
	memset(e, 0, sizeof(*e));
	e->time_ns = get64(r + size - 8);
	switch (type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 8 + 24)
			return false;
		e->type = type == PERF_RECORD_FORK ? SB_FORK : SB_EXIT;
		e->pid = get32(r + 8);
		e->ppid = get32(r + 12);
		e->tid = get32(r + 16);
		e->ptid = get32(r + 20);
		return true;
	case PERF_RECORD_COMM:
		e->type = SB_COMM;
		e->pid = get32(r + 8);
		e->tid = get32(r + 12);
		e->exec = misc & PERF_RECORD_MISC_COMM_EXEC;
		copy_str(e->comm, sizeof(e->comm), r + 16, size - 16 - 16);
		return true;
	case PERF_RECORD_MMAP2:
		if (size < 72 + 16)
			return false;
		e->type = SB_MMAP;
		e->pid = get32(r + 8);
		e->tid = get32(r + 12);
		e->start = (uint32_t)get64(r + 16);
		e->len = (uint32_t)get64(r + 24);
		e->pgoff = (uint32_t)get64(r + 32);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			e->build_id_len = r[40] <= 20 ? r[40] : 20;
			memcpy(e->build_id, r + 44, e->build_id_len);
		}
		e->prot = get32(r + 64);
		copy_str(e->path, sizeof(e->path), r + 72, size - 72 - 16);
		return true;
	case PERF_RECORD_LOST:
		e->type = SB_LOST;
		e->lost = get64(r + 16);
		return true;
	default:
		return false;
	}
}

static int push(struct sideband *sb, const struct sb_event *e)
{
	if (sb->nev == sb->evroom) {
		unsigned int room = sb->evroom ? sb->evroom * 2 : 256;
		struct sb_event *g = realloc(sb->ev, room * sizeof(*g));

		if (!g)
			return -1;
		sb->ev = g;
		sb->evroom = room;
	}
	sb->ev[sb->nev] = *e;
	sb->ev[sb->nev].seq = sb->nev;
	sb->nev++;
	return 0;
}

/* Take every record from one CPU's ring. */
static void drain_ring(struct sideband *sb, int cpu)
{
	struct perf_event_mmap_page *pg = sb->ring[cpu];
	const uint8_t *data = (const uint8_t *)pg + sysconf(_SC_PAGESIZE);
	uint64_t head, tail, mask = sb->ring_bytes - 1;
	uint8_t rec[64 + 8 + 4096 + 64];
	struct sb_event e;

	head = ((volatile struct perf_event_mmap_page *)pg)->data_head;
	__sync_synchronize();	/* records up to head are written */
	tail = pg->data_tail;
	while (tail + 8 <= head) {
		struct perf_event_header h;
		size_t at = (size_t)(tail & mask), first;

		first = sb->ring_bytes - at < sizeof(h) ? sb->ring_bytes - at : sizeof(h);
		memcpy(&h, data + at, first);
		memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.size <= sizeof(rec)) {
			first = sb->ring_bytes - at < h.size ? sb->ring_bytes - at : h.size;
			memcpy(rec, data + at, first);
			memcpy(rec + first, data, h.size - first);
			if (decode(rec, h.size, &e) && push(sb, &e))
				sb->lost++;
		}
		tail += h.size;
	}
	__sync_synchronize();	/* done reading before the kernel may reuse it */
	pg->data_tail = tail;
}

static int by_time(const void *x, const void *y)
{
	const struct sb_event *a = x, *b = y;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;	/* qsort is not stable */
}

unsigned int sb_read(struct sideband *sb,
		     void (*fn)(void *ctx, const struct sb_event *e), void *ctx)
{
	unsigned int n;

	sb->nev = 0;
	for (int cpu = 0; cpu < sb->ncpu; cpu++)
		if (sb->ring[cpu])
			drain_ring(sb, cpu);
	/* Each ring is in order; two CPUs' records interleave by time. */
	qsort(sb->ev, sb->nev, sizeof(*sb->ev), by_time);
	n = sb->nev;
	for (unsigned int i = 0; i < n; i++) {
		if (sb->ev[i].type == SB_LOST)
			sb->lost += sb->ev[i].lost;
		fn(ctx, &sb->ev[i]);
	}
	return n;
}
