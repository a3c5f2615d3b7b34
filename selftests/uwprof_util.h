/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the uwprof selftests (run as root inside the VM). */
#ifndef UWPROF_SELFTEST_UTIL_H
#define UWPROF_SELFTEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi/uwprof.h"

/* Where the VM image puts the module; UWPROF_KO overrides. */
static inline const char *uwprof_ko_path(void)
{
	const char *p = getenv("UWPROF_KO");

	return p ? p : "/uwprof.ko";
}

/* Load the module unless it is loaded; 0 or -errno. */
static inline int uwprof_load(void)
{
	int fd = open(uwprof_ko_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = (ret && errno != EEXIST) ? -errno : 0;
	close(fd);
	return ret;
}

/* Unload without waiting; 0 or -errno (EWOULDBLOCK while in use). */
static inline int uwprof_unload(void)
{
	return syscall(SYS_delete_module, "uwprof", O_NONBLOCK) ? -errno : 0;
}

static inline int uwprof_open_dev(void)
{
	return open(UWPROF_DEVICE, O_RDWR | O_CLOEXEC);
}


/*
 * The smallest valid v2 table: one page, one function at offset 0 whose
 * only FOT pair (0, 0) runs @uit (which must end in Finish or Refuse).
 * Layout: header (32), page table (4), function table (4), FOT (2), UIT.
 */
static inline size_t uwprof_tiny_table(unsigned char *buf,
				       const unsigned char *uit, size_t n)
{
	unsigned int hdr[8] = { 32, 1, 36, 1, 40, 2, 42, n };

	memcpy(buf, hdr, sizeof(hdr));
	memset(buf + 32, 0, 10);	/* page [0], func (0,0), FOT 00 00 */
	memcpy(buf + 42, uit, n);
	return 42 + n;
}

/* Upload; returns the id, or -errno with the validation error in *verr. */
static inline int uwprof_upload(int fd, const void *blob, size_t len,
				unsigned int *verr)
{
	struct uwprof_table_upload up = {
		.size = sizeof(up),
		.data = (unsigned long)blob,
		.len = len,
	};
	int ret = ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up);

	if (verr)
		*verr = up.verr;
	return ret ? -errno : (int)up.table_id;
}

/*
 * A tiny table by build-id (of no file here), or -errno: with one
 * uploaded, every unknown executable mapping of a followed process is
 * worth examining, so its samples there are finished in task context.
 */
static inline int uwprof_upload_any_build_id(int fd)
{
	static const unsigned char finish[] = { 0xb0 };
	struct uwprof_table_upload up = { .size = sizeof(up) };
	unsigned char blob[64];

	up.len = uwprof_tiny_table(blob, finish, sizeof(finish));
	up.data = (unsigned long)blob;
	up.flags = UWPROF_TABLE_BY_BUILD_ID;
	up.build_id_size = 20;
	up.text_size = 4;
	return ioctl(fd, UWPROF_IOC_TABLE_UPLOAD, &up) ? -errno : 0;
}

static inline int uwprof_attach(int fd, int pid, int table_id,
				unsigned int start, unsigned int end)
{
	struct uwprof_attach a = {
		.size = sizeof(a), .pid = pid, .table_id = table_id,
		.text_start = start, .text_end = end,
	};

	return ioctl(fd, UWPROF_IOC_ATTACH, &a) ? -errno : 0;
}

static inline int uwprof_start(int fd, unsigned int hz)
{
	struct uwprof_start st = { .size = sizeof(st), .freq_hz = hz };

	return ioctl(fd, UWPROF_IOC_START, &st) ? -errno : 0;
}

static inline int uwprof_stats(int fd, struct uwprof_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, UWPROF_IOC_STATS, st) ? -errno : 0;
}

/* The number a file holds (/sys's), or -1. */
static inline long uwprof_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = -1;

	if (f && fscanf(f, "%ld", &n) != 1)
		n = -1;
	if (f)
		fclose(f);
	return n;
}

/* A module parameter's value, or -1. */
static inline long uwprof_get_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/uwprof/parameters/%s", name);
	return uwprof_read_long(path);
}

/* Set a module parameter; returns 0 or -1. */
static inline int uwprof_set_param(const char *name, unsigned long value)
{
	char path[128], val[32];
	int fd, n, ret;

	snprintf(path, sizeof(path), "/sys/module/uwprof/parameters/%s", name);
	n = snprintf(val, sizeof(val), "%lu", value);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, val, n) == n ? 0 : -1;
	close(fd);
	return ret;
}
/* The first r-xp mapping of @pid ("self" for the caller). */
static inline int uwprof_text_of(const char *pid, unsigned int *start,
				 unsigned int *end)
{
	char path[64], line[256], perms[8];
	unsigned long s, e;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3 &&
		    !strcmp(perms, "r-xp")) {
			*start = s;
			*end = e;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

#endif
